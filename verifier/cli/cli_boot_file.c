// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_boot_file.c - a firmware event log file checked offline, with no
 * verifier and no enrolled machine:
 *
 *	imatrust boot-log [--json | --cel] [--bank ALG] [--pcrs FILE]...
 *			  FILE [[BANK:]PCR=HEX ...]
 *
 * FILE (binary_bios_measurements, or what `machine ID boot-log --raw`
 * wrote) is parsed and replayed; its events and replayed PCRs are printed
 * as `machine ID boot-log` prints them (text, --json decoded, --cel TCG
 * CEL JSON). PCR values given in --pcrs files (tpm2_pcrread's output, or
 * PCR=HEX words) or as arguments are compared with the replay of bank
 * ALG (default sha256): every PCR given must equal its replay.
 * Exit: 0 the log parses and every PCR given agrees; 1 a PCR differs,
 * or the log is a SHA-1-only legacy log (nothing to replay); 2 usage, an
 * unreadable or malformed log or PCR file.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot_check.h"
#include "boot_log_json.h"
#include "cli.h"
#include "cli_util.h"
#include "pcr_set.h"
#include "tcg_log.h"

#define BOOT_FILE_PCR_FILES_MAX 8 /* --pcrs options */
#define BOOT_FILE_PCRS 0x3ffu	  /* PCRs 0-9: always compared */
#define BOOT_FILE_IMA_PCR 10	  /* never compared */

struct boot_file_args {
	int json, cel;
	const struct hash_algo *bank;
	const char *pcr_files[BOOT_FILE_PCR_FILES_MAX];
	size_t npcr_files;
	const char *log;
	char **words; /* [BANK:]PCR=HEX arguments */
	int nwords;
};

static int usage(void)
{
	fprintf(stderr,
		"usage: imatrust boot-log [--json | --cel] "
		"[--bank ALG] [--pcrs FILE]... FILE [[BANK:]PCR=HEX ...]\n");
	return -1;
}

static int parse(int argc, char **argv, struct boot_file_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cel", no_argument, NULL, 'c' },
		{ "bank", required_argument, NULL, 'b' },
		{ "pcrs", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	a->bank = hash_algo_bank("sha256");
	while ((ch = getopt_long(argc, argv, "jcb:p:", opts, NULL)) != -1) {
		if (ch == 'j') {
			a->json = 1;
		} else if (ch == 'c') {
			a->cel = 1;
		} else if (ch == 'b') {
			a->bank = hash_algo_bank(optarg);
			if (a->bank == NULL) {
				cli_warnx("--bank %s: not a PCR bank", optarg);
				return -1;
			}
		} else if (ch == 'p' &&
			   a->npcr_files < BOOT_FILE_PCR_FILES_MAX) {
			a->pcr_files[a->npcr_files++] = optarg;
		} else {
			return usage();
		}
	}
	if (optind >= argc || (a->json && a->cel))
		return usage();
	a->log = argv[optind];
	a->words = argv + optind + 1;
	a->nwords = argc - optind - 1;
	return 0;
}

/* The PCR values given, into @want; 0, or -1 after saying why. */
static int given_pcrs(const struct boot_file_args *a, struct pcr_set *want)
{
	struct imt_error err;
	size_t i, len;
	char *text;
	int k, rc = 0;

	pcr_set_init(want, a->bank);
	for (i = 0; rc == 0 && i < a->npcr_files; i++) {
		text = cli_read_file(a->pcr_files[i], PCR_SET_TEXT_MAX, &len);
		if (text == NULL)
			return -1;
		if (pcr_set_parse_values(want, text, len, &err) != IMT_OK) {
			cli_warnx("%s: %s", a->pcr_files[i], err.msg);
			rc = -1;
		}
		free(text);
	}
	for (k = 0; rc == 0 && k < a->nwords; k++) {
		if (pcr_set_parse_values(want, a->words[k], strlen(a->words[k]),
					 &err) != IMT_OK) {
			cli_warnx("argument \"%s\": %s", a->words[k], err.msg);
			rc = -1;
		}
	}
	return rc;
}

/*
 * The PCRs the log speaks for: 0-9 (the firmware, boot loader and EFI
 * stub) and any other it extends, what a quote's boot check compares
 * (boot_check.c). PCR 10 is IMA's: in a tpm2_pcrread of every PCR, never
 * replayed from the firmware log.
 */
static uint32_t log_pcrs(const uint8_t *log, size_t len)
{
	uint32_t extended;

	if (tcg_log_extended(log, len, &extended, NULL) != IMT_OK)
		extended = 0;
	return (BOOT_FILE_PCRS | extended) & ~(1u << BOOT_FILE_IMA_PCR);
}

static void print_mask(const char *what, uint32_t mask)
{
	int i;

	fputs(what, stdout);
	for (i = 0; i < PCR_SET_COUNT; i++) {
		if (mask & (1u << i))
			printf(" %d", i);
	}
	putchar('\n');
}

/* Replay @log in the bank of @want and compare: CLI_EXIT_*. */
static int compare(const uint8_t *log, size_t len, const struct pcr_set *want,
		   int quiet)
{
	uint32_t mask = want->present & log_pcrs(log, len);
	struct pcr_set replayed;
	struct imt_error err;
	const char *phase;
	char what[64];

	pcr_set_init(&replayed, want->algo);
	if (tcg_log_replay(log, len, &replayed, 1, &err) != IMT_OK) {
		cli_warnx("replay: %s", err.msg);
		return CLI_EXIT_USAGE;
	}
	phase = (mask & (1u << 11)) ?
			boot_check_pcrphase(replayed.value[11], want->value[11],
					    want->algo) :
			NULL;
	if (phase != NULL)
		memcpy(replayed.value[11], want->value[11], want->algo->size);
	if (tcg_pcrs_compare(&replayed, want, mask, NULL, &err) != IMT_OK) {
		cli_warnx("%s", err.msg);
		return CLI_EXIT_MISMATCH;
	}
	if (!quiet && phase != NULL && phase[0] != '\0')
		printf("PCR 11 is the log's, extended by systemd-pcrphase up "
		       "to \"%s\"\n",
		       phase);
	if (!quiet) {
		snprintf(what, sizeof(what), "replay of %s agrees with PCR",
			 want->algo->name);
		print_mask(what, mask);
		if (want->present & ~mask)
			print_mask("not in the log, not compared: PCR",
				   want->present & ~mask);
	}
	return mask != 0 ? CLI_EXIT_OK : CLI_EXIT_MISMATCH;
}

/* Print the log as asked; CLI_EXIT_OK, or why not. */
static int show(const struct boot_file_args *a, const uint8_t *log, size_t len)
{
	struct imt_error err;
	json_t *j;

	j = boot_log_json(log, len, a->cel ? BOOT_LOG_CEL : BOOT_LOG_DECODED,
			  &err);
	if (j == NULL) {
		cli_warnx("%s: %s", a->log, err.msg);
		return CLI_EXIT_USAGE;
	}
	if (a->json || a->cel)
		cli_print_json(j);
	else
		cli_boot_log_print(j);
	json_decref(j);
	return CLI_EXIT_OK;
}

int cli_boot_file_main(int argc, char **argv)
{
	struct boot_file_args a;
	struct pcr_set want;
	uint8_t *log;
	size_t len;
	int rc;

	if (parse(argc, argv, &a) < 0)
		return CLI_EXIT_USAGE;
	if (given_pcrs(&a, &want) < 0)
		return CLI_EXIT_USAGE;
	log = (uint8_t *)cli_read_file(a.log, TCG_LOG_SIZE_MAX, &len);
	if (log == NULL)
		return CLI_EXIT_USAGE;
	if (tcg_log_legacy(log, len)) {
		/* shown as the verifier shows it; nothing to replay */
		if (!a.cel)
			show(&a, log, len);
		cli_warnx("%s: %s", a.log, BOOT_LOG_LEGACY_REASON);
		free(log);
		return CLI_EXIT_MISMATCH;
	}
	rc = show(&a, log, len);
	if (rc == CLI_EXIT_OK && want.present != 0)
		rc = compare(log, len, &want, a.json || a.cel);
	free(log);
	return rc;
}
