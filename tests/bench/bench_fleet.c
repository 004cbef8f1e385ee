// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_fleet.c - agents, records and evidence for tests/bench/verifier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "bench_fleet.h"
#include "db.h"
#include "db_boot.h"
#include "db_machine.h"
#include "db_ref.h"
#include "file.h"
#include "hex.h"
#include "ima_build.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "tcg_log.h"

static struct fleet_record boot_aggregate;
static size_t pool_n = FLEET_POOL;
static struct fleet_record *pool;
static char (*pool_path)[96];
static uint8_t (*pool_digest)[32];

/* Every agent's boot: its firmware event log (none: PCRs 0-9 all zero). */
static uint8_t *boot_log;
static size_t boot_log_len;
static uint8_t boot_pcrs[10][32];
/* PCRs 11-23 the log extends, quoted as agents do (rules_pcr_mask()) */
static uint32_t boot_more;
static uint8_t boot_more_pcrs[PCR_SET_COUNT][32];

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Build one ima-ng record of PCR 10 and take its sha256 template hash. */
static int build(struct fleet_record *r, const char *path,
		 const uint8_t *digest, struct ima_replay *replay)
{
	const struct hash_algo *sha256 = hash_algo_bank("sha256");
	uint8_t dng[64];
	struct ima_build_field f[2];
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;

	f[0].data = dng;
	f[0].len = ima_build_digest_ng(dng, sha256, digest);
	f[1].data = path;
	f[1].len = (uint32_t)strlen(path) + 1;
	r->len = ima_build_record(r->bytes, sizeof(r->bytes), 10, "ima-ng", f,
				  2, 0);
	if (r->len == 0 || r->len > sizeof(r->bytes)) {
		fprintf(stderr, "bench: cannot build a record for %s\n", path);
		return -1;
	}
	ima_list_parser_init(&p, NULL);
	if (ima_list_next(&p, r->bytes, r->len, 1, &rec, &err) != IMT_OK ||
	    ima_replay_template_hash(replay, &rec, r->hash, &err) != IMT_OK) {
		fprintf(stderr, "bench: record for %s: %s\n", path, err.msg);
		return -1;
	}
	return 0;
}

int fleet_boot_log(const char *path)
{
	struct pcr_set replayed;
	struct imt_error err;
	char msg[512];
	int i;

	boot_log = (uint8_t *)file_read(path, DB_BOOT_LOG_MAX, &boot_log_len,
					msg, sizeof(msg));
	if (boot_log == NULL) {
		fprintf(stderr, "bench: %s\n", msg);
		return -1;
	}
	pcr_set_init(&replayed, hash_algo_bank("sha256"));
	if (tcg_log_replay(boot_log, boot_log_len, &replayed, 1, &err) !=
	    IMT_OK) {
		fprintf(stderr, "bench: %s: %s\n", path, err.msg);
		return -1;
	}
	for (i = 0; i < 10; i++)
		memcpy(boot_pcrs[i], replayed.value[i], 32);
	if (tcg_log_extended(boot_log, boot_log_len, &boot_more, &err) !=
	    IMT_OK) {
		fprintf(stderr, "bench: %s: %s\n", path, err.msg);
		return -1;
	}
	boot_more &= ~((1u << SOFT_AK_PCRS) - 1);
	for (i = SOFT_AK_PCRS; i < PCR_SET_COUNT; i++)
		memcpy(boot_more_pcrs[i], replayed.value[i], 32);
	return 0;
}

const uint8_t *fleet_boot_log_data(void)
{
	return boot_log;
}

size_t fleet_boot_log_len(void)
{
	return boot_log_len;
}

void fleet_pool_size(size_t n)
{
	pool_n = n > 0 ? n : FLEET_POOL;
}

size_t fleet_pool_count(void)
{
	return pool_n;
}

int fleet_pool_init(void)
{
	static const char *const dirs[] = {
		"/usr/bin/",
		"/usr/sbin/",
		"/usr/lib/x86_64-linux-gnu/",
		"/usr/lib/systemd/",
		"/usr/libexec/",
		"/etc/",
	};
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
	uint8_t digest[32];
	struct imt_error err;
	struct ima_replay *replay =
		ima_replay_new(hash_algo_bank("sha256"), &err);
	size_t i, j, len;
	int rc = -1;

	if (replay == NULL) {
		fprintf(stderr, "bench: %s\n", err.msg);
		return -1;
	}
	pool = calloc(pool_n, sizeof(*pool));
	pool_path = calloc(pool_n, sizeof(*pool_path));
	pool_digest = calloc(pool_n, sizeof(*pool_digest));
	if (pool == NULL || pool_path == NULL || pool_digest == NULL) {
		fprintf(stderr, "bench: no memory for %zu records\n", pool_n);
		goto out;
	}
	EVP_Digest(boot_pcrs, sizeof(boot_pcrs), digest, NULL, EVP_sha256(),
		   NULL);
	if (build(&boot_aggregate, "boot_aggregate", digest, replay) < 0)
		goto out;
	for (i = 0; i < pool_n; i++) {
		len = (size_t)snprintf(pool_path[i], sizeof(pool_path[i]), "%s",
				       dirs[next_random() % 6]);
		for (j = 0; j < 8 + next_random() % 24; j++)
			pool_path[i][len++] =
				letters[next_random() % (sizeof(letters) - 1)];
		snprintf(pool_path[i] + len, sizeof(pool_path[i]) - len, ".%zu",
			 i);
		for (j = 0; j < 4; j++) {
			uint64_t v = next_random();

			memcpy(pool_digest[i] + 8 * j, &v, 8);
		}
		if (build(&pool[i], pool_path[i], pool_digest[i], replay) < 0)
			goto out;
	}
	rc = 0;
out:
	ima_replay_free(replay);
	return rc;
}

static int seed_refs(struct db *db, struct imt_error *err)
{
	const struct db_ref_source src = { .kind = DB_SOURCE_DIR_TREE,
					   .name = "bench" };
	int64_t now = time(NULL);
	size_t i;

	if (db_ref_import_begin(db, &src, now, err) < 0)
		return -1;
	for (i = 0; i < pool_n; i++) {
		if (db_ref_add(db, &src, pool_path[i], "sha256", pool_digest[i],
			       32, now, err) < 0) {
			db_ref_import_abort(db);
			return -1;
		}
	}
	return db_ref_import_commit(db, err);
}

/* Enrollment's end state without its round trips: created, activated. */
static int seed_agent(struct db *db, const struct fleet_agent *a,
		      struct imt_error *err)
{
	uint8_t fpr[DB_FPR_SIZE];
	struct db_machine_new m = {
		.id = a->id,
		.ek_pub = a->ak.pub, /* never read once activated */
		.ek_pub_len = a->ak.pub_len,
		.ek_fpr = fpr,
		.ak_pub = a->ak.pub,
		.ak_pub_len = a->ak.pub_len,
		.ak_name = a->ak.name,
		.ak_name_len = a->ak.name_len,
		.state = DB_STATE_ENROLLING,
		.activated = 1,
	};

	/* one fingerprint per agent: ids and EKs are one to one */
	SHA256((const unsigned char *)a->id, strlen(a->id), fpr);
	return db_machine_create(db, &m, time(NULL), err);
}

int fleet_seed(const char *path, struct fleet_agent *agents, size_t n)
{
	struct imt_error err = { 0 };
	struct db *db;
	size_t i;
	int rc = -1;

	if (db_open(path, &db, &err) < 0) {
		fprintf(stderr, "bench: %s: %s\n", path, err.msg);
		return -1;
	}
	if (seed_refs(db, &err) < 0 || db_batch_begin(db, &err) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (seed_agent(db, &agents[i], &err) < 0) {
			db_batch_abort(db);
			goto out;
		}
	}
	if (db_batch_commit(db, &err) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "bench: seeding %s: %s\n", path, err.msg);
	db_close(db);
	return rc;
}

static void extend(uint8_t *pcr, const uint8_t *hash)
{
	uint8_t buf[64];

	memcpy(buf, pcr, 32);
	memcpy(buf + 32, hash, 32);
	EVP_Digest(buf, sizeof(buf), pcr, NULL, EVP_sha256(), NULL);
}

/* The sha256 PCRs an agent quotes: its boot's 0-9, then @pcr10, then
 * those 11-23 its boot log extends. */
static void fleet_pcrs(struct pcr_set *pcrs, const uint8_t pcr10[32])
{
	int i;

	pcr_set_init(pcrs, hash_algo_bank("sha256"));
	pcrs->present = ((1u << SOFT_AK_PCRS) - 1) | boot_more;
	for (i = 0; i < 10; i++)
		memcpy(pcrs->value[i], boot_pcrs[i], 32);
	memcpy(pcrs->value[10], pcr10, 32);
	for (i = SOFT_AK_PCRS; i < PCR_SET_COUNT; i++)
		memcpy(pcrs->value[i], boot_more_pcrs[i], 32);
}

char *fleet_evidence(struct fleet_agent *a, size_t nrec,
		     struct fleet_evidence *e)
{
	struct wire_evidence ev = { 0 };
	struct soft_quote q;
	struct pcr_set pcrs;
	struct imt_error err;
	const struct fleet_record *r;
	size_t i, len = 0, alen, slen;
	char *json;

	memcpy(e->pcr10, a->pcr10, 32);
	if (a->next == 0) /* a boot starts with boot_aggregate */
		nrec = a->first > 0 ? a->first : 1;
	if (nrec > FLEET_BATCH_MAX)
		nrec = FLEET_BATCH_MAX;
	for (i = 0; i < nrec; i++) {
		r = a->next + i == 0 ?
			    &boot_aggregate :
			    &pool[(a->image + a->next + i - 1) % pool_n];
		memcpy(e->records + len, r->bytes, r->len);
		len += r->len;
		extend(e->pcr10, r->hash);
	}
	e->next = a->next + nrec;
	fleet_pcrs(&pcrs, e->pcr10);
	q = (struct soft_quote){
		.nonce = a->nonce,
		.nonce_len = a->nonce_len,
		.clock = ++a->clock,
		.reset_count = FLEET_RESET_COUNT,
		.restart_count = FLEET_RESTART_COUNT,
		.pcrs = &pcrs,
		.select = pcrs.present,
	};
	if (soft_ak_quote(&a->ak, &q, e->attest, &alen, e->sig, &slen) < 0)
		return NULL;
	memcpy(ev.agent, a->id, sizeof(ev.agent));
	memcpy(ev.nonce, a->nonce, a->nonce_len);
	ev.nonce_len = a->nonce_len;
	ev.bank = pcrs.algo;
	ev.quote = (struct wire_blob){ e->attest, alen };
	ev.signature = (struct wire_blob){ e->sig, slen };
	ev.pcrs = pcrs;
	ev.first_index = a->next;
	ev.records = (struct wire_blob){ len > 0 ? e->records : NULL, len };
	/* with a boot log: a v2 agent, which sends it with its first
	 * evidence; the verifier checks it on every one after */
	if (boot_log_len > 0) {
		ev.version = 2;
		if (ev.first_index == 0)
			ev.boot_log =
				(struct wire_blob){ boot_log, boot_log_len };
	}
	json = wire_encode_evidence_framed(&ev, &e->body_len, &err);
	if (json == NULL)
		fprintf(stderr, "bench: evidence of %s: %s\n", a->id, err.msg);
	return json;
}

void fleet_accept(struct fleet_agent *a, const struct fleet_evidence *e)
{
	memcpy(a->pcr10, e->pcr10, 32);
	a->next = e->next;
}

static int write_file(const char *dir, const char *name, const void *data,
		      size_t len)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	ok = fwrite(data, 1, len, f) == len;
	if (fclose(f) != 0 || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

/*
 * PCRs 0-10 as tpm2_quote -o writes them (tpm2-tools' "serialized" form,
 * host-endian struct dumps): the TPML_PCR_SELECTION, a UINT32 count, then
 * that many TPML_DIGEST of up to 8 values each.
 */
static int write_tpm2_pcrs(const char *dir, const struct pcr_set *pcrs)
{
	uint8_t out[sizeof(TPML_PCR_SELECTION) + sizeof(UINT32) +
		    2 * sizeof(TPML_DIGEST)];
	TPML_PCR_SELECTION sel;
	TPML_DIGEST values[2];
	UINT32 count = 2;
	size_t i;

	memset(&sel, 0, sizeof(sel));
	memset(values, 0, sizeof(values));
	sel.count = 1;
	sel.pcrSelections[0].hash = TPM2_ALG_SHA256;
	sel.pcrSelections[0].sizeofSelect = 3;
	sel.pcrSelections[0].pcrSelect[0] = 0xff;
	sel.pcrSelections[0].pcrSelect[1] = 0x07;
	for (i = 0; i < SOFT_AK_PCRS; i++) {
		TPML_DIGEST *d = &values[i / 8];

		d->digests[i % 8].size = 32;
		memcpy(d->digests[i % 8].buffer, pcrs->value[i], 32);
		d->count++;
	}
	memcpy(out, &sel, sizeof(sel));
	memcpy(out + sizeof(sel), &count, sizeof(count));
	memcpy(out + sizeof(sel) + sizeof(count), values, sizeof(values));
	return write_file(dir, "pcrs.tpm2", out, sizeof(out));
}

int fleet_write_peer(struct fleet_agent *a, const char *dir)
{
	uint8_t attest[SOFT_AK_ATTEST_MAX], sig[SOFT_AK_SIG_MAX];
	uint8_t nonce[32];
	char hex[2 * sizeof(nonce) + 2], path[4096];
	struct pcr_set pcrs;
	struct soft_quote q;
	size_t alen, slen;

	if (RAND_bytes(nonce, sizeof(nonce)) != 1)
		return -1;
	fleet_pcrs(&pcrs, a->pcr10);
	q = (struct soft_quote){
		.nonce = nonce,
		.nonce_len = sizeof(nonce),
		.clock = ++a->clock,
		.reset_count = FLEET_RESET_COUNT,
		.restart_count = FLEET_RESTART_COUNT,
		.pcrs = &pcrs, /* PCRs 0-10: what pcrs.tpm2 carries */
	};
	hex_encode(nonce, sizeof(nonce), hex);
	strcat(hex, "\n");
	snprintf(path, sizeof(path), "%s/ak.pem", dir);
	if (soft_ak_quote(&a->ak, &q, attest, &alen, sig, &slen) < 0 ||
	    soft_ak_write_pem(&a->ak, path) < 0 ||
	    write_file(dir, "quote.msg", attest, alen) < 0 ||
	    write_file(dir, "quote.sig", sig, slen) < 0 ||
	    write_tpm2_pcrs(dir, &pcrs) < 0 ||
	    write_file(dir, "nonce.hex", hex, strlen(hex)) < 0)
		return -1;
	return 0;
}

double fleet_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
