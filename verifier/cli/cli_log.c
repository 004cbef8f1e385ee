// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_log.c - "imatrust log": read, replay and check a measurement list.
 *
 *	imatrust log show [--json|--ascii] [--template NAME=FMT]... LIST
 *	imatrust log replay [--bank ALG]... [--template NAME=FMT]... LIST
 *	imatrust log check LIST --pcrs ALG:FILE... [--template NAME=FMT]...
 *
 * Every command takes --list-bank ALG for the per-bank lists of the
 * streaming kernel series (binary_runtime_measurements_ALG).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cli_util.h"
#include "hex.h"
#include "ima_ascii.h"
#include "ima_replay.h"
#include "ima_verify.h"
#include "list_reader.h"
#include "pcr_set.h"

#define LOG_BANKS_MAX 4	   /* sha1, sha256, sha384, sha512 */
#define LOG_BUF_SUMMARY 16 /* bytes of an ima-buf payload shown */

enum log_format { LOG_TEXT, LOG_JSON, LOG_ASCII };

struct log_opts {
	enum log_format format;
	size_t nbanks;
	const struct hash_algo *banks[LOG_BANKS_MAX];
	struct pcr_set pcrs[LOG_BANKS_MAX]; /* --pcrs, one per bank */
	struct ima_template_set templates;
	const struct hash_algo *list_bank; /* --list-bank */
	const char *list;
};

/* State of "log replay" across the records of the list. */
struct replay_ctx {
	size_t nbanks;
	struct ima_replay *replays[LOG_BANKS_MAX];
	size_t records;
	size_t violations;
	struct imt_error err;
};

/* Exit code for a library result: mismatches are 1, the rest 2. */
static int exit_code(enum imt_result rc)
{
	return rc == IMT_ERR_MISMATCH ? CLI_EXIT_MISMATCH : CLI_EXIT_USAGE;
}

static int add_bank(struct log_opts *o, const char *name)
{
	const struct hash_algo *algo = hash_algo_bank(name);
	size_t i;

	if (algo == NULL) {
		cli_warnx("unknown PCR bank '%s' (sha1, sha256, sha384, sha512)",
			  name);
		return -1;
	}
	for (i = 0; i < o->nbanks; i++) {
		if (o->banks[i] == algo) {
			cli_warnx("bank %s given twice", name);
			return -1;
		}
	}
	o->banks[o->nbanks++] = algo;
	return 0;
}

/* --pcrs ALG:FILE: read FILE's "INDEX HEX" lines into the bank's set. */
static int add_pcrs(struct log_opts *o, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char name[16];
	struct imt_error err;
	size_t len;
	char *text;

	if (colon == NULL || (size_t)(colon - arg) >= sizeof(name)) {
		cli_warnx("--pcrs wants ALG:FILE, got '%s'", arg);
		return -1;
	}
	memcpy(name, arg, (size_t)(colon - arg));
	name[colon - arg] = '\0';
	if (o->nbanks == LOG_BANKS_MAX || add_bank(o, name) < 0)
		return -1;
	pcr_set_init(&o->pcrs[o->nbanks - 1], o->banks[o->nbanks - 1]);
	text = cli_read_file(colon + 1, PCR_SET_TEXT_MAX, &len);
	if (text == NULL)
		return -1;
	if (pcr_set_parse_text(&o->pcrs[o->nbanks - 1], text, len, &err)) {
		cli_warnx("%s: %s", colon + 1, err.msg);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/* --template NAME=FMT, for kernels booted with ima_template_fmt=. */
static int add_template(struct log_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[IMA_TEMPLATE_NAME_MAX + 1];
	struct imt_error err;

	if (eq == NULL || (size_t)(eq - arg) > IMA_TEMPLATE_NAME_MAX) {
		cli_warnx("--template wants NAME=FMT, got '%s'", arg);
		return -1;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	if (ima_template_set_add(&o->templates, name, eq + 1, &err)) {
		cli_warnx("--template %s: %s", arg, err.msg);
		return -1;
	}
	return 0;
}

enum {
	OPT_JSON = 256,
	OPT_ASCII,
	OPT_BANK,
	OPT_PCRS,
	OPT_TEMPLATE,
	OPT_LIST_BANK
};

static const struct option log_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "ascii", no_argument, NULL, OPT_ASCII },
	{ "bank", required_argument, NULL, OPT_BANK },
	{ "pcrs", required_argument, NULL, OPT_PCRS },
	{ "template", required_argument, NULL, OPT_TEMPLATE },
	{ "list-bank", required_argument, NULL, OPT_LIST_BANK },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int apply_opt(struct log_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_JSON:
		o->format = LOG_JSON;
		return 0;
	case OPT_ASCII:
		o->format = LOG_ASCII;
		return 0;
	case OPT_BANK:
		if (o->nbanks == LOG_BANKS_MAX)
			return -1;
		return add_bank(o, arg);
	case OPT_PCRS:
		return add_pcrs(o, arg);
	case OPT_TEMPLATE:
		return add_template(o, arg);
	case OPT_LIST_BANK:
		o->list_bank = hash_algo_bank(arg);
		if (o->list_bank == NULL)
			cli_warnx("--list-bank: unknown PCR bank '%s'", arg);
		return o->list_bank != NULL ? 0 : -1;
	}
	return -1;
}

/* Parse options; @allowed lists the OPT_* values this subcommand takes. */
static int parse_opts(struct log_opts *o, int argc, char **argv,
		      const int *allowed, const char *usage)
{
	int c, i, ok;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", log_options, NULL)) != -1) {
		for (i = 0, ok = 0; allowed[i] != 0; i++)
			ok |= allowed[i] == c;
		if (c == 'h' || c == '?' || !ok) {
			if (c != 'h' && c != '?')
				cli_warnx("option not valid here");
			fprintf(c == 'h' ? stdout : stderr, "usage: %s\n",
				usage);
			return -1;
		}
		if (apply_opt(o, c, optarg) < 0)
			return -1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s\n", usage);
		return -1;
	}
	o->list = argv[optind];
	return 0;
}

/* Run @fn over every record of the list named in @o. */
static int run_list(const struct log_opts *o, list_record_fn fn, void *arg,
		    struct imt_error *err)
{
	int fd, ret;

	fd = open(o->list, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      "%s: %m", o->list);
		return -1;
	}
	ret = list_reader_run(fd, &o->templates, o->list_bank, fn, arg, err);
	close(fd);
	return ret;
}

/* ---- show ---- */

static void digest_string(const struct ima_record *rec, char *out)
{
	size_t n = strlen(rec->digest_algo->name);

	memcpy(out, rec->digest_algo->name, n);
	out[n] = ':';
	hex_encode(rec->digest, rec->digest_algo->size, out + n + 1);
}

static int show_text(const struct ima_record *rec, void *arg)
{
	char digest[16 + 2 * HASH_ALGO_MAX_SIZE + 2] = "-";
	char hex[2 * LOG_BUF_SUMMARY + 1];

	(void)arg;
	if (rec->digest != NULL)
		digest_string(rec, digest);
	printf("%zu %u %s %s ", rec->index, rec->pcr, rec->template_name,
	       digest);
	if (rec->path != NULL)
		cli_print_escaped(rec->path, rec->path_len);
	if (rec->buf != NULL) {
		hex_encode(rec->buf,
			   rec->buf_len < LOG_BUF_SUMMARY ? rec->buf_len :
							    LOG_BUF_SUMMARY,
			   hex);
		printf(" buf:%u:%s%s", rec->buf_len, hex,
		       rec->buf_len > LOG_BUF_SUMMARY ? "..." : "");
	}
	printf("%s\n", rec->violation ? " [violation]" : "");
	return 0;
}

static int show_ascii(const struct ima_record *rec, void *arg)
{
	size_t len = ima_ascii_format(rec, NULL, 0);
	char *line = malloc(len + 1);

	(void)arg;
	if (line == NULL)
		return -1;
	ima_ascii_format(rec, line, len + 1);
	fwrite(line, 1, len, stdout);
	free(line);
	return 0;
}

static int show_json(const struct ima_record *rec, void *arg)
{
	char digest[16 + 2 * HASH_ALGO_MAX_SIZE + 2];
	char tdigest[16 + 2 * HASH_ALGO_MAX_SIZE + 2];
	json_t *obj = json_object();
	int ret;

	snprintf(tdigest, sizeof(tdigest), "%s:", rec->digest_bank->name);
	hex_encode(rec->template_digest, rec->digest_bank->size,
		   tdigest + strlen(tdigest));
	json_object_set_new(obj, "index", json_integer((json_int_t)rec->index));
	json_object_set_new(obj, "offset",
			    json_integer((json_int_t)rec->offset));
	json_object_set_new(obj, "pcr", json_integer(rec->pcr));
	json_object_set_new(obj, "template", json_string(rec->template_name));
	json_object_set_new(obj, "template_digest", json_string(tdigest));
	if (rec->digest != NULL) {
		digest_string(rec, digest);
		json_object_set_new(obj, "digest", json_string(digest));
	}
	if (rec->digest_type != NULL)
		json_object_set_new(obj, "digest_type",
				    json_stringn(rec->digest_type,
						 rec->digest_type_len));
	if (rec->path != NULL)
		json_object_set_new(obj, "path",
				    json_stringn(rec->path, rec->path_len));
	if (rec->buf != NULL)
		json_object_set_new(obj, "buf",
				    hex_json(rec->buf, rec->buf_len));
	json_object_set_new(obj, "violation", json_boolean(rec->violation));
	printf("%s", *(int *)arg ? ",\n" : "");
	*(int *)arg = 1;
	ret = json_dumpf(obj, stdout, JSON_COMPACT) == 0 ? 0 : -1;
	json_decref(obj);
	return ret;
}

static int cmd_show(int argc, char **argv)
{
	static const int allowed[] = { OPT_JSON, OPT_ASCII, OPT_TEMPLATE,
				       OPT_LIST_BANK, 0 };
	struct log_opts o;
	struct imt_error err;
	int started = 0, ret;

	if (parse_opts(&o, argc, argv, allowed,
		       "imatrust log show [--json|--ascii] [--template NAME=FMT]... LIST") <
	    0)
		return CLI_EXIT_USAGE;
	if (o.format == LOG_JSON)
		printf("[\n");
	ret = run_list(&o,
		       o.format == LOG_JSON  ? show_json :
		       o.format == LOG_ASCII ? show_ascii :
					       show_text,
		       &started, &err);
	if (o.format == LOG_JSON)
		printf("%s]\n", started ? "\n" : "");
	if (ret != 0) {
		cli_warnx("%s: %s", o.list, err.msg);
		return exit_code(err.status);
	}
	return CLI_EXIT_OK;
}

/* ---- replay ---- */

static int replay_record(const struct ima_record *rec, void *arg)
{
	struct replay_ctx *ctx = arg;
	size_t i;

	for (i = 0; i < ctx->nbanks; i++) {
		if (ima_replay_extend(ctx->replays[i], rec, &ctx->err))
			return 1;
	}
	ctx->records++;
	ctx->violations += rec->violation != 0;
	return 0;
}

static void print_pcr(const char *label, const uint8_t *v, size_t n)
{
	char hex[2 * HASH_ALGO_MAX_SIZE + 1];

	hex_encode(v, n, hex);
	printf("%s %s\n", label, hex);
}

/* Report a failed run_list(): @ret 1 means the callback's own error. */
static int list_failed(const struct log_opts *o, int ret,
		       const struct imt_error *list_err,
		       const struct imt_error *cb_err)
{
	const struct imt_error *e = ret == 1 ? cb_err : list_err;

	cli_warnx("%s: %s", o->list, e->msg);
	return exit_code(e->status);
}

static int cmd_replay(int argc, char **argv)
{
	static const int allowed[] = { OPT_BANK, OPT_TEMPLATE, OPT_LIST_BANK,
				       0 };
	struct replay_ctx ctx;
	struct imt_error err;
	struct log_opts o;
	int ret = CLI_EXIT_OK;
	size_t i;

	if (parse_opts(&o, argc, argv, allowed,
		       "imatrust log replay [--bank ALG]... [--template NAME=FMT]... LIST") <
	    0)
		return CLI_EXIT_USAGE;
	if (o.nbanks == 0) {
		add_bank(&o, "sha1");
		add_bank(&o, "sha256");
	}
	memset(&ctx, 0, sizeof(ctx));
	for (i = 0; i < o.nbanks; i++) {
		ctx.replays[i] = ima_replay_new(o.banks[i], &err);
		if (ctx.replays[i] == NULL) {
			cli_warnx("%s", err.msg);
			ret = CLI_EXIT_USAGE;
			goto out;
		}
		ctx.nbanks++;
	}
	ret = run_list(&o, replay_record, &ctx, &err);
	if (ret != 0) {
		ret = list_failed(&o, ret, &err, &ctx.err);
		goto out;
	}
	for (i = 0; i < ctx.nbanks; i++)
		print_pcr(o.banks[i]->name,
			  ima_replay_pcr(ctx.replays[i], IMA_MEASURE_PCR),
			  o.banks[i]->size);
	printf("records %zu violations %zu\n", ctx.records, ctx.violations);
out:
	for (i = 0; i < ctx.nbanks; i++)
		ima_replay_free(ctx.replays[i]);
	return ret;
}

/* ---- check ---- */

struct check_ctx {
	struct ima_verify *verify;
	struct imt_error err;
};

static int check_record(const struct ima_record *rec, void *arg)
{
	struct check_ctx *ctx = arg;

	return ima_verify_record(ctx->verify, rec, &ctx->err) != IMT_OK;
}

/* One line per check, so an operator sees what passed as well. */
static void print_report(const struct log_opts *o,
			 const struct ima_verify_report *r)
{
	size_t i;

	for (i = 0; i < r->nbanks; i++) {
		printf("%s: PCR %d %s\n", r->banks[i].algo->name,
		       IMA_MEASURE_PCR, r->banks[i].pcr_ok ? "ok" : "FAIL");
		if (!r->banks[i].pcr_ok)
			print_pcr("  replayed", r->banks[i].replayed,
				  r->banks[i].algo->size);
		if (!r->banks[i].pcr_ok)
			print_pcr("  expected",
				  o->pcrs[i].value[IMA_MEASURE_PCR],
				  r->banks[i].algo->size);
	}
	switch (r->boot_aggregate) {
	case IMA_BA_OK:
	case IMA_BA_MISMATCH:
		printf("boot_aggregate: %s (%s over PCRs 0-%d)\n",
		       r->boot_aggregate == IMA_BA_OK ? "ok" : "FAIL",
		       r->ba_algo->name, r->ba_last_pcr);
		break;
	case IMA_BA_MISSING:
		printf("boot_aggregate: FAIL (record 0 is not boot_aggregate)\n");
		break;
	case IMA_BA_NOT_CHECKED:
		printf("boot_aggregate: not checked (needs %s PCRs 0-%d)\n",
		       r->ba_algo->name, r->ba_last_pcr);
		break;
	}
	printf("records %zu violations %zu\n", r->records, r->violations);
}

static int cmd_check(int argc, char **argv)
{
	static const int allowed[] = { OPT_PCRS, OPT_TEMPLATE, OPT_LIST_BANK,
				       0 };
	struct ima_verify_report report;
	struct check_ctx ctx = { NULL };
	struct imt_error err;
	struct log_opts o;
	size_t i;
	int ret;

	if (parse_opts(&o, argc, argv, allowed,
		       "imatrust log check LIST --pcrs ALG:FILE... [--template NAME=FMT]...") <
	    0)
		return CLI_EXIT_USAGE;
	if (o.nbanks == 0) {
		cli_warnx("log check: give at least one --pcrs ALG:FILE");
		return CLI_EXIT_USAGE;
	}
	for (i = 0; i < o.nbanks; i++) {
		if (!(o.pcrs[i].present & (1u << IMA_MEASURE_PCR))) {
			cli_warnx("%s: no value for PCR %d given",
				  o.banks[i]->name, IMA_MEASURE_PCR);
			return CLI_EXIT_USAGE;
		}
	}
	ctx.verify = ima_verify_new(o.pcrs, o.nbanks, &err);
	if (ctx.verify == NULL) {
		cli_warnx("%s", err.msg);
		return CLI_EXIT_USAGE;
	}
	ret = run_list(&o, check_record, &ctx, &err);
	if (ret != 0) {
		ret = list_failed(&o, ret, &err, &ctx.err);
		goto out;
	}
	ret = ima_verify_finish(ctx.verify, &report, &err);
	if (ret == IMT_OK || ret == IMT_ERR_MISMATCH)
		print_report(&o, &report);
	if (ret != IMT_OK) {
		cli_warnx("%s: %s", o.list, err.msg);
		ret = exit_code(ret);
	}
out:
	ima_verify_free(ctx.verify);
	return ret;
}

static const struct cli_command log_commands[] = {
	{ "show", cmd_show, "print the records of a binary measurement list" },
	{ "replay", cmd_replay, "replay a list into PCR banks, print PCR 10" },
	{ "check", cmd_check, "check a list against PCR values" },
	{ NULL, NULL, NULL },
};

int cli_log_main(int argc, char **argv)
{
	return cli_dispatch("log", log_commands, argc, argv);
}
