// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_evidence.c - libFuzzer target: evidence from its wire bytes to the
 * database, as POST /v1/agents/{id}/evidence handles it: wire_decode()
 * then engine_evidence() of a verifier running in this process.
 *
 * Each input starts from the same verifier (setup_verifier): a fresh copy
 * of a database with reference digests and four machines enrolled and
 * activated, each under a software AK (RSASSA, RSA-PSS, ECDSA P-256 and
 * P-384, fz_keys.h). The input then plays one machine's kernel and agent
 * for one to four rounds: a boot (counters, PCRs 0-9), records the kernel
 * adds (fz_list.h), a quote after some of them signed by the AK over the
 * outstanding nonce, and the evidence; and which parts of it deviate
 * (wrong machine, nonce, bank, key, selection, counters, index, bytes of
 * the quote, the records or the JSON, a late nonce, a list start past
 * deleted records with the right or a made-up PCR 10, "export"). The
 * next round uses
 * the verdict's nonce and next_index, as an agent does.
 * Oracles: no answer is a storage error (5xx) — the database is healthy,
 * so a 5xx means the verifier took something it cannot store (an 8-byte
 * nonce did); evidence without a deviation gets 200 and is not "failed";
 * a verdict's next_index is never below the evidence's list_start, and
 * its stored_records never above next_index.
 */
#include <stdint.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "engine.h"
#include "db.h"
#include "db_machine.h"
#include "db_ref.h"
#include "fz_db.h"
#include "fz_input.h"
#include "fz_keys.h"
#include "fz_list.h"
#include "fz_tpm.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "ima_verify.h"
#include "keyring.h"
#include "log.h"
#include "policies.h"
#include "tpm_quote.h"
#include "verifier.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void __sanitizer_set_death_callback(void (*callback)(void));

/* Every nonce the wire takes must be one the database stores. */
_Static_assert(WIRE_NONCE_MIN >= DB_NONCE_MIN && WIRE_NONCE_MAX <= DB_NONCE_MAX,
	       "wire nonce bounds outside the database's");

#define NOW 1700000000
#define ROUNDS_MAX 4
#define QUOTED_PCRS 11 /* PCRs 0-10 */

static const char *const ids[FZ_KEY_COUNT] = {
	"m-rsassa",
	"m-rsapss",
	"m-ecc256",
	"m-ecc384",
};

static struct verifier v;
static int verbose; /* FZ_VERBOSE set: one line per answer */
static char db_path[128];
static uint8_t *db_template; /* the database file setup_verifier copies */
static size_t db_template_len;

static void remove_database(void);

/* A failure: the database copy goes, the crash report follows. */
static void fail_now(void)
{
	remove_database();
	abort();
}

static void die(const char *what, const struct imt_error *err)
{
	fprintf(stderr, "fuzz_evidence: %s (%s)\n", what,
		err != NULL ? err->msg : "");
	fail_now();
}

/* References for the harness's paths (fz_list_known()), one machine per AK. */
static void fill_database(struct db *db)
{
	const struct db_ref_source src = { .kind = DB_SOURCE_DIR_TREE,
					   .name = "fuzz" };
	struct imt_error err;
	uint8_t digest[32];
	size_t i;

	if (db_ref_import_begin(db, &src, NOW, &err) < 0)
		die("db_ref_import_begin", &err);
	for (i = 0; i < fz_list_path_count; i++) {
		fz_list_known(i, digest);
		if (fz_list_paths[i][0] != '\0' &&
		    db_ref_add(db, &src, fz_list_paths[i], "sha256", digest,
			       sizeof(digest), NOW, &err) < 0)
			die("db_ref_add", &err);
	}
	if (db_ref_import_commit(db, &err) < 0)
		die("db_ref_import_commit", &err);
	for (i = 0; i < FZ_KEY_COUNT; i++) {
		const struct fz_key *k = fz_key((enum fz_key_kind)i);
		uint8_t fpr[DB_FPR_SIZE] = { (uint8_t)(i + 1) };
		struct db_machine_new m = {
			.id = ids[i],
			.ek_fpr = fpr,
			.activated = 1,
			.ek_pub = k->pub2b,
			.ek_pub_len = k->pub2b_len,
			.ak_pub = k->pub2b,
			.ak_pub_len = k->pub2b_len,
			.ak_name = k->name,
			.ak_name_len = k->name_len,
			.state = DB_STATE_ENROLLING,
		};

		/* activated, as a verified activation leaves it */
		if (db_machine_create(db, &m, NOW, &err) < 0)
			die("enrolling a machine", &err);
	}
}

/* The copy is 0600, as db_open() wants a database that holds secrets. */
static void write_file(const char *path, const uint8_t *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 && fchmod(fd, 0600) == 0 ? fdopen(fd, "wb") : NULL;

	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		die("cannot write the database copy", NULL);
}

/* The template, once: a database filled as above, kept as bytes. */
static void make_template(void)
{
	struct imt_error err;
	struct db *db;
	FILE *f;
	long n = 0;

	fz_db_path(db_path, sizeof(db_path), "evidence");
	unlink(db_path);
	if (db_open(db_path, &db, &err) < 0)
		die("db_open", &err);
	fill_database(db);
	db_close(db); /* checkpoints: everything is in the main file */
	f = fopen(db_path, "rb");
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		die("cannot read the template", NULL);
	db_template = malloc((size_t)n);
	db_template_len = fread(db_template, 1, (size_t)n, f);
	fclose(f);
	log_setlevel(LOG_LEVEL_WARNING); /* attest.c logs every verdict */
}

static void remove_database(void)
{
	fz_db_remove(db_path);
}

/*
 * The verifier every input starts from: its default configuration, the
 * template database, and the daemon's empty in-memory state (backlog, AK
 * cache, boot memo: verifier_caches_new()). The lead's engine rework may
 * change this function only: it uses config_defaults(), db_open(),
 * verifier_caches_new(), and the struct verifier fields cfg, lock, db.
 */
static void setup_verifier(void)
{
	struct imt_error err;

	if (db_template == NULL) {
		verbose = getenv("FZ_VERBOSE") != NULL;
		make_template();
		atexit(remove_database);
		__sanitizer_set_death_callback(remove_database);
	}
	memset(&v, 0, sizeof(v));
	config_defaults(&v.cfg);
	pthread_mutex_init(&v.lock, NULL);
	remove_database();
	write_file(db_path, db_template, db_template_len);
	if (db_open(db_path, &v.db, &err) < 0)
		die("db_open of the copy", &err);
	if (verifier_caches_new(&v) < 0)
		die("out of memory", NULL);
}

static void teardown_verifier(void)
{
	policies_free(&v);
	keyring_free(&v);
	db_close(v.db);
	verifier_caches_free(&v);
	pthread_mutex_destroy(&v.lock);
}

/* ---- the machine: its TPM, its kernel and its agent ---- */

#define BANKS 2 /* the banks a kernel extends here */

struct machine {
	size_t m; /* which machine and AK */
	uint8_t nonce[WIRE_NONCE_MAX], old_nonce[WIRE_NONCE_MAX];
	size_t nonce_len, old_nonce_len;
	uint64_t nonce_expires;
	int need_nonce; /* the last evidence got no verdict */
	uint64_t next;	/* the verdict's next_index */
	uint32_t reset, restart;
	uint64_t clock;
	int64_t now;
	struct pcr_set pcrs[BANKS]; /* sha1, sha256: PCRs 0-10 */
	struct ima_replay *replay[BANKS];
	struct fz_list list;			   /* the boot's whole list */
	uint8_t after[BANKS][FZ_LIST_RECORDS][32]; /* PCR 10 after each */
	size_t extended; /* records the PCRs include */
	int list_ok;	 /* every record replayed */
	int ba_ok;	 /* the boot's record 0 is boot_aggregate */
	int tainted;	 /* the verifier may hold bytes a deviation sent */
};

static const char *const bank_names[BANKS] = { "sha1", "sha256" };

/* What the input makes deviate from what an honest agent sends. */
enum {
	D_ID = 1 << 0,	    /* another machine's id, or none */
	D_NONCE = 1 << 1,   /* a changed, shorter or older nonce */
	D_BANK = 1 << 2,    /* quote the sha1 bank, or sha384 */
	D_KEY = 1 << 3,	    /* signed by another machine's AK */
	D_SEL = 1 << 4,	    /* PCR selection or values not 0-10 */
	D_BACK = 1 << 5,    /* TPM counters go backwards */
	D_FIRST = 1 << 6,   /* first_index not next_index */
	D_QUOTE = 1 << 7,   /* a byte of the signed quote changed */
	D_RECORDS = 1 << 8, /* bytes of the records changed or cut */
	D_JSON = 1 << 9,    /* a byte of the JSON body changed */
	D_LATE = 1 << 10,   /* time passes past the nonce's life */
	D_BA = 1 << 11,	    /* no boot_aggregate first */
	D_MORE = 1 << 12,   /* "more": 1 */
};

#define REBOOT (1 << 13)  /* the machine reboots before this round */
#define D_START (1 << 14) /* "list_start": records below it deleted */

static void machine_free(struct machine *mc)
{
	size_t b;

	for (b = 0; b < BANKS; b++)
		ima_replay_free(mc->replay[b]);
}

/* A new boot: counters forward, PCRs 0-9 from the input, list empty. */
static void boot(struct fz_in *in, struct machine *mc, unsigned int dev)
{
	uint8_t seed = fz_u8(in), ba[HASH_ALGO_MAX_SIZE];
	struct imt_error err;
	size_t b;
	int i;

	machine_free(mc);
	mc->reset += 1 + fz_u8(in) % 2;
	mc->restart = fz_u8(in) % 2;
	mc->list.len = 0;
	mc->list.count = 0;
	mc->extended = 0;
	mc->list_ok = 1;
	mc->ba_ok = !(dev & D_BA);
	for (b = 0; b < BANKS; b++) {
		const struct hash_algo *bank = hash_algo_bank(bank_names[b]);

		pcr_set_init(&mc->pcrs[b], bank);
		mc->pcrs[b].present = (1u << QUOTED_PCRS) - 1;
		for (i = 0; i < 10; i++)
			memset(mc->pcrs[b].value[i], (uint8_t)(seed * (i + 1)),
			       bank->size);
		mc->replay[b] = ima_replay_new(bank, NULL);
	}
	if (dev & D_BA)
		return;
	/* record 0: boot_aggregate of the sha256 bank, as the kernel's */
	if (pcr_set_boot_aggregate(&mc->pcrs[1], ba, &err) != IMT_OK)
		die("boot_aggregate", &err);
	fz_list_boot_aggregate(&mc->list, mc->pcrs[1].algo, ba);
}

/* Extend the PCRs with the records not in them yet, as the kernel did. */
static void extend(struct machine *mc)
{
	size_t from = mc->extended;
	struct ima_list_parser p;
	struct ima_record rec;
	size_t i, b, pos = from == 0 ? 0 : mc->list.end[from - 1];

	ima_list_parser_init(&p, NULL);
	p.next_index = from;
	for (i = from; i < mc->list.count; i++) {
		if (!mc->list_ok ||
		    ima_list_next(&p, mc->list.bytes + pos, mc->list.len - pos,
				  1, &rec, NULL) != IMT_OK) {
			mc->list_ok = 0; /* the kernel would not write it */
			return;
		}
		/* PCR 10 proves nothing about another PCR's record: the
		 * verifier refuses it (failed), by design */
		if (rec.pcr != IMA_MEASURE_PCR)
			mc->list_ok = 0;
		for (b = 0; b < BANKS; b++) {
			if (ima_replay_extend(mc->replay[b], &rec, NULL) !=
			    IMT_OK) {
				mc->list_ok = 0;
				return;
			}
			memcpy(mc->after[b][i],
			       ima_replay_pcr(mc->replay[b], IMA_MEASURE_PCR),
			       mc->pcrs[b].algo->size);
		}
		pos += rec.size;
		mc->extended = i + 1;
	}
}

/* The quote of @pcrs (PCRs 0-10 of its bank) over @nonce, signed. */
static void quote(struct fz_in *in, const struct machine *mc, unsigned int dev,
		  const struct pcr_set *pcrs, const uint8_t *nonce,
		  size_t nonce_len, struct wire_evidence *ev, uint8_t *attest,
		  uint8_t *sig)
{
	const struct fz_key *k = fz_key((enum fz_key_kind)mc->m);
	const struct fz_key *signer = k;
	struct fz_attest a = { 0 };
	uint32_t mask = (1u << QUOTED_PCRS) - 1;
	size_t len;

	a.magic = TPM2_GENERATED_VALUE;
	a.type = TPM2_ST_ATTEST_QUOTE;
	memcpy(a.signer, k->name, k->name_len);
	a.signer_len = k->name_len;
	memcpy(a.extra, nonce, nonce_len);
	a.extra_len = nonce_len;
	a.clock = mc->clock;
	a.reset_count = mc->reset;
	a.restart_count = mc->restart;
	if (dev & D_BACK)
		a.reset_count -= 1 + fz_u8(in) % 2;
	a.safe = 1;
	a.firmware = 0x2019102400000000ULL;
	if (dev & D_SEL)
		mask = fz_u32(in) & 0xffffff;
	a.nsel = 1;
	a.sel[0].hash = pcrs->algo->tpm_alg;
	a.sel[0].size = 3;
	a.sel[0].select[0] = (uint8_t)mask;
	a.sel[0].select[1] = (uint8_t)(mask >> 8);
	a.sel[0].select[2] = (uint8_t)(mask >> 16);
	a.digest_len = fz_pcr_digest(TPM2_ALG_SHA256, pcrs, mask, a.digest);
	len = fz_attest_marshal(&a, attest, 1024);
	if (dev & D_KEY)
		signer = fz_key((enum fz_key_kind)(mc->m + 1 + fz_u8(in) % 3));
	ev->signature.data = sig;
	ev->signature.len = fz_key_sign(signer, signer->scheme, TPM2_ALG_SHA256,
					attest, len, sig);
	if (dev & D_QUOTE)
		fz_flip(in, attest, len);
	ev->quote.data = attest;
	ev->quote.len = len;
}

/* The agent's nonce, or a deviation from it. */
static size_t pick_nonce(struct fz_in *in, const struct machine *mc,
			 unsigned int dev, uint8_t *nonce)
{
	size_t len = mc->nonce_len;

	memcpy(nonce, mc->nonce, len);
	if (!(dev & D_NONCE))
		return len;
	switch (fz_u8(in) % 3) {
	case 0:
		fz_flip(in, nonce, len);
		return len;
	case 1:
		memcpy(nonce, mc->old_nonce, mc->old_nonce_len);
		return mc->old_nonce_len;
	default:
		return fz_range(in, 0, WIRE_NONCE_MAX);
	}
}

/*
 * 5xx answers this harness found whose fix is outside proto/, reported
 * and tolerated until fixed (FZ_STRICT=1 makes them fatal again):
 *  - a record with an empty event name (which db_boot_advance() allows,
 *    "ima-buf events") is judged with db_ref_lookup(), which refuses an
 *    empty path: judge_record() fails and the evidence gets a 503 on
 *    every retry instead of a verdict.
 */
/* The engine's answer as the route gives it: HTTP status, message. */
struct answer {
	unsigned int status;
	char message[ENGINE_MSG_MAX];
	struct wire_verdict verdict;
};

static void to_answer(const struct engine_answer *e, struct answer *a)
{
	a->status = engine_http_status(e->status);
	memcpy(a->message, e->message, sizeof(a->message));
	a->verdict = e->verdict;
}

static const char *const known_5xx[] = { "(none known)" };

static int known(const char *msg)
{
	size_t i;

	if (getenv("FZ_STRICT") != NULL)
		return 0;
	for (i = 0; i < sizeof(known_5xx) / sizeof(known_5xx[0]); i++) {
		if (strcmp(msg, known_5xx[i]) == 0)
			return 1;
	}
	return 0;
}

/*
 * Valid evidence gets a 200, and is not failed unless the verifier sent
 * the agent elsewhere (next_index is not first_index: a boot the agent
 * did not know of yet, say): then the state is the machine's, unchanged.
 */
static void check_answer(const struct answer *ans, unsigned int dev, int valid,
			 uint64_t first)
{
	if (ans->status >= 500 && known(ans->message))
		return;
	if (ans->status >= 500) {
		fprintf(stderr, "fuzz_evidence: %u %s\n", ans->status,
			ans->message);
		fail_now();
	}
	if (valid && !dev &&
	    (ans->status != 200 || (strcmp(ans->verdict.state, "failed") == 0 &&
				    ans->verdict.next_index == first))) {
		fprintf(stderr, "fuzz_evidence: valid evidence: %u %s %s\n",
			ans->status, ans->message, ans->verdict.state);
		fail_now();
	}
}

static void take_verdict(struct machine *mc, const struct wire_verdict *vd)
{
	memcpy(mc->old_nonce, mc->nonce, mc->nonce_len);
	mc->old_nonce_len = mc->nonce_len;
	memcpy(mc->nonce, vd->nonce, vd->nonce_len);
	mc->nonce_len = vd->nonce_len;
	mc->nonce_expires = vd->nonce_expires;
	mc->next = vd->next_index;
	mc->need_nonce = 0;
}

/*
 * POST /nonce, as the agent does at start, after an answer that was not
 * a verdict, and when its nonce is past half its life (PROTOCOL.md).
 */
static void fresh_nonce(struct machine *mc)
{
	struct engine_answer ans;

	engine_nonce(&v, ids[mc->m], mc->now, &ans);
	if (ans.status != ENGINE_OK)
		die("no nonce for an activated machine", NULL);
	/* a nonce only: where the list stands comes with the next verdict */
	memcpy(mc->old_nonce, mc->nonce, mc->nonce_len);
	mc->old_nonce_len = mc->nonce_len;
	memcpy(mc->nonce, ans.nonce.nonce, ans.nonce.nonce_len);
	mc->nonce_len = ans.nonce.nonce_len;
	mc->nonce_expires = ans.nonce.nonce_expires;
	mc->need_nonce = 0;
}

static int print_event(const struct db_event *e, void *arg)
{
	(void)arg;
	fprintf(stderr, "fuzz_evidence:   event %s %s\n", e->kind,
		e->reason != NULL ? e->reason : "");
	return 0;
}

/* FZ_VERBOSE: the answer and the machine's stored reason. */
static void print_answer(const struct machine *mc, unsigned int dev,
			 const struct answer *ans)
{
	struct db_machine m;
	int found = 0;

	if (db_machine_get(v.db, ids[mc->m], &m, &found, NULL) < 0 || !found)
		return;
	fprintf(stderr,
		"fuzz_evidence: %s dev 0x%x at %lld: %u %s %s next %llu, nonce "
		"until %llu: %s\n",
		ids[mc->m], dev, (long long)mc->now, ans->status,
		ans->verdict.state, ans->message,
		(unsigned long long)ans->verdict.next_index,
		(unsigned long long)ans->verdict.nonce_expires,
		m.state_reason != NULL ? m.state_reason : "");
	db_machine_release(&m);
	db_event_list(v.db, ids[mc->m], 0, 100, print_event, NULL, NULL);
}

/* FZ_VERBOSE: what goes out. */
static void print_sending(const struct wire_evidence *got)
{
	struct ima_list_parser p;
	struct ima_record rec;
	struct tpm_quote tq;

	fprintf(stderr,
		"fuzz_evidence: sending first %llu, %zu bytes, "
		"nonce of %zu",
		(unsigned long long)got->first_index, got->records.len,
		got->nonce_len);
	if (tpm_quote_parse(got->quote.data, got->quote.len, &tq, NULL) ==
	    IMT_OK)
		fprintf(stderr, ", counters %u/%u", tq.reset_count,
			tq.restart_count);
	ima_list_parser_init(&p, NULL);
	if (got->records.len > 0 &&
	    ima_list_next(&p, got->records.data, got->records.len, 1, &rec,
			  NULL) == IMT_OK)
		fprintf(stderr, ", first %.*s pcr %u", (int)rec.path_len,
			rec.path, rec.pcr);
	fprintf(stderr, "\n");
}

/* Decode @json as the route does, and hand it to engine_evidence(). */
static void send(struct machine *mc, const char *json, size_t len,
		 unsigned int dev, int valid)
{
	struct wire_evidence got;
	struct engine_answer ea;
	struct answer ans;
	struct imt_error err;

	if (wire_decode(WIRE_EVIDENCE, json, len, &got, &err) != IMT_OK) {
		if (!(dev & (D_JSON | D_NONCE | D_RECORDS)))
			die("the agent's evidence does not decode", &err);
		return;
	}
	if (verbose)
		print_sending(&got);
	engine_evidence(&v, &got, mc->now, &ea);
	to_answer(&ea, &ans);
	wire_free(WIRE_EVIDENCE, &got);
	if (ans.status == 200 &&
	    (ans.verdict.next_index < got.list_start ||
	     (ans.verdict.has_stored_records &&
	      ans.verdict.stored_records > ans.verdict.next_index))) {
		fprintf(stderr,
			"fuzz_evidence: next_index %llu, list_start "
			"%llu, stored_records %llu\n",
			(unsigned long long)ans.verdict.next_index,
			(unsigned long long)got.list_start,
			(unsigned long long)ans.verdict.stored_records);
		fail_now();
	}
	if (verbose)
		print_answer(mc, dev, &ans); /* without REBOOT, D_MORE */
	check_answer(&ans, dev, valid, got.first_index);
	/* an answer to another machine's evidence is not this agent's */
	if (ans.status != 200 || (dev & D_ID)) {
		mc->need_nonce = 1;
		return;
	}
	/*
	 * Deviating evidence that was accepted (records changed so that the
	 * quote still matches: moved to another PCR, say) leaves the
	 * verifier's view and the kernel's apart: no later round is valid.
	 */
	if (dev && strcmp(ans.verdict.state, "failed") != 0)
		mc->tainted = 1;
	take_verdict(mc, &ans.verdict);
}

/*
 * The kernel deleted its records below L (at most the batch's first
 * record): list_start_pcr the right PCR 10 of bank @b, a made-up one, or
 * none; maybe "export". The verifier may store past a gap: tainted.
 */
static void list_start(struct fz_in *in, struct machine *mc, size_t b,
		       struct wire_evidence *ev)
{
	uint64_t l = fz_u8(in) % (mc->list.count + 2);
	uint8_t how = fz_u8(in);

	if (ev->records.len > 0 && l > ev->first_index)
		l = ev->first_index;
	ev->list_start = l;
	ev->export_sync = how & 1;
	if (l > 0 && (how & 6)) {
		if ((how & 6) == 2 && l <= mc->list.count && b < BANKS)
			memcpy(ev->list_start_pcr, mc->after[b][l - 1],
			       ev->bank->size);
		else
			memset(ev->list_start_pcr, how, ev->bank->size);
		ev->list_start_pcr_len = ev->bank->size;
	}
	mc->tainted = 1;
}

static void round_(struct fz_in *in, struct machine *mc)
{
	static uint8_t attest[1024], sig[FZ_SIG_MAX];
	unsigned int dev = fz_u16(in);
	const struct hash_algo *bank;
	struct wire_evidence ev = { 0 };
	struct pcr_set pcrs;
	struct imt_error err;
	size_t b = 1, n, i, q, first;
	uint64_t covered_from;
	char *json;
	int valid;

	mc->now += dev & D_LATE ? 31 + fz_u16(in) : fz_u8(in) % 8;
	mc->clock += 1000;
	if (!(dev & D_LATE) &&
	    (mc->need_nonce ||
	     2 * (uint64_t)mc->now >= 2 * mc->nonce_expires - v.cfg.nonce_ttl))
		fresh_nonce(mc);
	if ((dev & REBOOT) || mc->replay[0] == NULL)
		boot(in, mc, dev);
	n = fz_u8(in) % 6;
	for (i = 0; i < n; i++) {
		if (fz_list_record(in, &mc->list) < 0)
			break;
	}
	extend(mc);
	/* the agent quotes after record q, then reads the list */
	covered_from = mc->next < mc->list.count ? mc->next : mc->list.count;
	q = fz_range(in, (size_t)covered_from, mc->list.count);
	if (dev & D_BANK)
		b = fz_u8(in) & 1 ? 0 : 2;
	bank = b < BANKS ? hash_algo_bank(bank_names[b]) :
			   hash_algo_bank("sha384");
	pcrs = mc->pcrs[b < BANKS ? b : 1];
	if (b >= BANKS)
		pcrs.algo = bank;
	if (q > 0 && b < BANKS)
		memcpy(pcrs.value[IMA_MEASURE_PCR], mc->after[b][q - 1],
		       bank->size);
	else
		memset(pcrs.value[IMA_MEASURE_PCR], 0, bank->size);
	if (dev & D_SEL)
		pcrs.present = fz_u32(in) & 0xffffff;
	snprintf(ev.agent, sizeof(ev.agent), "%s", ids[mc->m]);
	if (dev & D_ID)
		snprintf(ev.agent, sizeof(ev.agent), "%s",
			 fz_u8(in) & 1 ? "nobody" : ids[(mc->m + 1) % 4]);
	ev.nonce_len = pick_nonce(in, mc, dev, ev.nonce);
	ev.bank = bank;
	ev.pcrs = pcrs;
	quote(in, mc, dev, &pcrs, ev.nonce, ev.nonce_len, &ev, attest, sig);
	first = mc->next;
	if (dev & D_FIRST)
		first = fz_u8(in) & 1 ? fz_u8(in) : fz_u64(in) >> 1;
	ev.first_index = first;
	if (first < mc->list.count) {
		size_t from = first == 0 ? 0 : mc->list.end[first - 1];

		ev.records.data = mc->list.bytes + from;
		ev.records.len = mc->list.len - from;
	}
	ev.more = dev & D_MORE ? 1 : 0;
	if (dev & D_START)
		list_start(in, mc, b, &ev);
	valid = mc->list_ok && mc->ba_ok && b < BANKS && !mc->tainted;
	/* "more" with a deviation may leave bad records held (backlog.h) */
	if ((dev & D_MORE) && (dev & ~(REBOOT | D_MORE)))
		mc->tainted = 1;
	if (dev & D_JSON)
		mc->tainted = 1;
	json = wire_encode(WIRE_EVIDENCE, &ev, &err);
	if (json == NULL) {
		if (!(dev & D_NONCE))
			die("the agent's evidence does not encode", &err);
		return;
	}
	n = strlen(json);
	if (dev & D_RECORDS) {
		char *r = strstr(json, "\"records\":\"");

		/* a base64 letter changed: bytes differ, or the body fails */
		if (r != NULL && r[11] != '"')
			fz_flip(in, (uint8_t *)r + 11, strcspn(r + 11, "\""));
	}
	if (dev & D_JSON)
		fz_flip(in, (uint8_t *)json, n);
	send(mc, json, n, dev & ~(REBOOT | D_MORE), valid);
	free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct machine mc;
	struct fz_in in = fz_in_init(data, size);
	size_t rounds, i;

	setup_verifier();
	memset(&mc, 0, sizeof(mc));
	mc.m = fz_u8(&in) % FZ_KEY_COUNT;
	mc.now = NOW + 10;
	fresh_nonce(&mc); /* the agent starts with POST /nonce */
	rounds = 1 + fz_u8(&in) % ROUNDS_MAX;
	for (i = 0; i < rounds; i++)
		round_(&in, &mc);
	machine_free(&mc);
	teardown_verifier();
	return 0;
}
