/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * soft_machine.h - a machine as the verifier sees it from the outside,
 * for tests that drive the engine without a TPM: a software AK
 * (tests/bench/soft_ak.c), software sha256 PCRs 0-10 and the kernel's
 * measurement list, enrolled and activated in the database. Tests that
 * include it link tests/bench/soft_ak.o (Makefile).
 */
#ifndef IMATRUST_TEST_SOFT_MACHINE_H
#define IMATRUST_TEST_SOFT_MACHINE_H

#include "db_machine.h"
#include "db_ref.h"
#include "verifier_test.h"

#include "ima_build.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "soft_ak.h"
#include "wire.h"

#define LIST_MAX (1u << 16)

/* A machine as the engine sees it from the outside: TPM, PCRs, list. */
struct sm {
	char id[32];
	struct soft_ak ak;
	struct pcr_set pcrs;	/* sha256 PCRs 0-10 as the TPM has them */
	uint8_t list[LIST_MAX]; /* the kernel's measurement list */
	size_t len;
	uint64_t count;
	uint64_t sent; /* records the verifier stored */
	size_t sent_bytes;
	uint32_t reset, restart;
	uint64_t clock;
	uint32_t select; /* PCRs the TPM quotes; 0: 0-10 */
	uint8_t nonce[WIRE_NONCE_MAX];
	size_t nonce_len;
	/* what the last evidence carried, for tests that bend it */
	uint8_t attest[SOFT_AK_ATTEST_MAX], sig[SOFT_AK_SIG_MAX];
	struct wire_evidence ev;
};

static inline void sm_boot_fresh(struct sm *m)
{
	pcr_set_init(&m->pcrs, hash_algo_bank("sha256"));
	m->pcrs.present = (1u << SOFT_AK_PCRS) - 1;
	m->len = 0;
	m->count = 0;
	m->sent = 0;
	m->sent_bytes = 0;
}

/*
 * Append an ima-ng record of @path with @digest (of @algo) to the list of
 * @m and extend PCR 10 of @m's bank with its template hash, as the kernel
 * does for that bank.
 */
static inline void sm_append(struct sm *m, const char *path,
			     const struct hash_algo *algo,
			     const uint8_t *digest)
{
	const struct hash_algo *bank = m->pcrs.algo;
	uint8_t dng[80], th[HASH_ALGO_MAX_SIZE], buf[2 * HASH_ALGO_MAX_SIZE];
	struct ima_build_field f[2];
	struct ima_list_parser p;
	struct ima_replay *r;
	struct ima_record rec;
	struct imt_error err;
	size_t n;

	f[0] = (struct ima_build_field){ dng, ima_build_digest_ng(dng, algo,
								  digest) };
	f[1] = (struct ima_build_field){ path, (uint32_t)strlen(path) + 1 };
	n = ima_build_record(m->list + m->len, LIST_MAX - m->len, 10, "ima-ng",
			     f, 2, 0);
	assert_true(n > 0);
	ima_list_parser_init(&p, NULL);
	assert_int_equal(ima_list_next(&p, m->list + m->len, n, 1, &rec, &err),
			 IMT_OK);
	r = ima_replay_new(bank, &err);
	assert_non_null(r);
	assert_int_equal(ima_replay_template_hash(r, &rec, th, &err), IMT_OK);
	ima_replay_free(r);
	memcpy(buf, m->pcrs.value[10], bank->size);
	memcpy(buf + bank->size, th, bank->size);
	EVP_Digest(buf, 2 * bank->size, m->pcrs.value[10], NULL,
		   EVP_get_digestbyname(bank->name), NULL);
	m->len += n;
	m->count++;
}

/* Append one ima-ng record for @path with @content (NULL: boot), in
 * sha256, to a machine of the sha256 bank (sm_new()'s). */
static inline void sm_measure(struct sm *m, const char *path,
			      const char *content)
{
	static const uint8_t zero[10 * 32];
	uint8_t digest[32];

	if (content == NULL) { /* boot_aggregate over the zero PCRs 0-9 */
		EVP_Digest(zero, sizeof(zero), digest, NULL, EVP_sha256(),
			   NULL);
		path = "boot_aggregate";
	} else {
		EVP_Digest(content, strlen(content), digest, NULL, EVP_sha256(),
			   NULL);
	}
	sm_append(m, path, hash_algo_bank("sha256"), digest);
}

static inline void sm_new(struct tv *t, struct sm *m, const char *id)
{
	struct db_machine_new n = { 0 };
	uint8_t fpr[DB_FPR_SIZE];
	struct imt_error err;

	memset(m, 0, sizeof(*m));
	snprintf(m->id, sizeof(m->id), "%s", id);
	assert_int_equal(soft_ak_new(&m->ak), 0);
	m->reset = 1;
	sm_boot_fresh(m);
	sm_measure(m, NULL, NULL);
	/* activated, as enrollment leaves it (test_route_agents.c) */
	EVP_Digest(id, strlen(id), fpr, NULL, EVP_sha256(), NULL);
	n = (struct db_machine_new){
		.id = id,
		.ek_pub = m->ak.pub,
		.ek_pub_len = m->ak.pub_len,
		.ek_fpr = fpr,
		.ak_pub = m->ak.pub,
		.ak_pub_len = m->ak.pub_len,
		.ak_name = m->ak.name,
		.ak_name_len = m->ak.name_len,
		.state = DB_STATE_ENROLLING,
		.activated = 1,
	};
	if (db_machine_create(t->v.db, &n, TV_NOW, &err) < 0)
		fail_msg("%s: %s", id, err.msg);
}

/* A reference for @path with @content's sha256, source dir-tree:test. */
static inline void sm_ref(struct tv *t, const char *path, const char *content)
{
	struct db_ref_source src = { .kind = DB_SOURCE_DIR_TREE,
				     .name = "test" };
	struct imt_error err;
	uint8_t d[32];

	EVP_Digest(content, strlen(content), d, NULL, EVP_sha256(), NULL);
	if (db_ref_add(t->v.db, &src, path, "sha256", d, 32, TV_NOW, &err) < 0)
		fail_msg("db_ref_add: %s", err.msg);
}

#endif /* IMATRUST_TEST_SOFT_MACHINE_H */
