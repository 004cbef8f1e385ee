/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verifier_test.h - a struct verifier over a temporary database, route
 * handlers called directly or through the real HTTPS front on loopback,
 * and machines with boots and records made with the db API.
 */
#ifndef IMATRUST_TEST_VERIFIER_H
#define IMATRUST_TEST_VERIFIER_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sqlite3.h>

#include "test_cert.h"
#include "config.h"
#include "db.h"
#include "db_boot.h"
#include "db_machine.h"
#include "db_token.h"
#include "http.h"
#include "keyring.h"
#include "policies.h"
#include "verifier.h"
#include "routes.h"

#define TV_NOW 1700000000
#define TV_TOKEN "0123456789abcdef0123456789abcdef"
#define TV_AUTH "Bearer " TV_TOKEN

typedef void (*tv_handler)(void *ctx, const struct http_request *req,
			   struct http_response *res);

struct tv {
	struct verifier v;
	int charged; /* tv_call(): the answer's res.charge */
	char path[512];
	struct http_server *srv;
	char *cert;
	char *key;
	char url[64];
};

static inline struct tv *tv_new(void)
{
	struct tv *t = calloc(1, sizeof(*t));
	const char *dir = getenv("TMPDIR");
	struct imt_error err;
	int fd;

	assert_non_null(t);
	config_defaults(&t->v.cfg);
	pthread_mutex_init(&t->v.lock, NULL);
	t->v.started = time(NULL);
	snprintf(t->path, sizeof(t->path), "%s/imatrust-verifier-XXXXXX",
		 dir && dir[0] ? dir : "/tmp");
	fd = mkstemp(t->path);
	assert_true(fd >= 0);
	close(fd);
	if (db_open(t->path, &t->v.db, &err) < 0)
		fail_msg("db_open: %s", err.msg);
	if (db_token_add(t->v.db, "alice", (const uint8_t *)TV_TOKEN,
			 strlen(TV_TOKEN), TV_NOW, &err) < 0)
		fail_msg("db_token_add: %s", err.msg);
	/* the read routes' own connection, as the daemon runs them */
	snprintf(t->v.cfg.database, sizeof(t->v.cfg.database), "%s", t->path);
	if (verifier_reader_open(&t->v, &err) < 0)
		fail_msg("verifier_reader_open: %s", err.msg);
	return t;
}

static inline void tv_free(struct tv *t)
{
	char side[600];

	http_stop(t->srv);
	free(t->cert);
	free(t->key);
	policies_free(&t->v);
	keyring_free(&t->v);
	verifier_reader_close(&t->v);
	db_close(t->v.db);
	unlink(t->path);
	snprintf(side, sizeof(side), "%s-wal", t->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", t->path);
	unlink(side);
	pthread_mutex_destroy(&t->v.lock);
	free(t);
}

/*
 * Call @h directly as the server would, for @param ("{}") with @body;
 * return the parsed answer (NULL when it is not JSON) and its status.
 */
static inline json_t *tv_call(struct tv *t, tv_handler h, const char *param,
			      const char *body, const char *auth,
			      unsigned int *status)
{
	struct http_request req = { 0 };
	struct http_response res = { 0 };
	json_t *j;

	req.body = body != NULL ? body : "";
	req.body_len = strlen(req.body);
	req.authorization = auth;
	if (param != NULL) {
		snprintf(req.params[0], sizeof(req.params[0]), "%s", param);
		req.nparams = 1;
	}
	res.status = 200;
	h(&t->v, &req, &res);
	*status = res.status;
	t->charged = res.charge;
	j = res.body != NULL ? json_loads(res.body, 0, NULL) : NULL;
	free(res.body);
	return j;
}

/* The message of an error answer, or "". */
static inline const char *tv_msg(json_t *j)
{
	const char *s = json_string_value(
		json_object_get(json_object_get(j, "error"), "message"));

	return s != NULL ? s : "";
}

/* A made-up EK fingerprint of machine @id: one EK per id. */
static inline void test_fpr_of(const char *id, uint8_t fpr[DB_FPR_SIZE])
{
	size_t i, n = strlen(id);

	for (i = 0; i < DB_FPR_SIZE; i++)
		fpr[i] = i < n ? (uint8_t)id[i] : (uint8_t)(0xf0 + (i & 0xf));
}

static inline void tv_machine(struct tv *t, const char *id,
			      enum db_machine_state state)
{
	static const uint8_t ek[] = { 0x00, 0x01, 0xde, 0xad };
	static const uint8_t ak[] = { 0x00, 0x01, 0xbe, 0xef };
	static const uint8_t name[] = { 0x00, 0x0b, 1, 2, 3 };
	uint8_t fpr[DB_FPR_SIZE];
	struct db_machine_new m = {
		.id = id,
		.ek_pub = ek,
		.ek_pub_len = sizeof(ek),
		.ek_fpr = fpr,
		.activated = 1,
		.ak_pub = ak,
		.ak_pub_len = sizeof(ak),
		.ak_name = name,
		.ak_name_len = sizeof(name),
		.state = state == DB_STATE_PENDING ? DB_STATE_PENDING :
						     DB_STATE_ENROLLING,
	};
	struct imt_error err;

	test_fpr_of(id, fpr);
	if (db_machine_create(t->v.db, &m, TV_NOW, &err) < 0)
		fail_msg("db_machine_create %s: %s", id, err.msg);
	if (state != m.state &&
	    db_machine_set_state(t->v.db, id, state, "{\"check\":\"test\"}",
				 TV_NOW, &err) < 0)
		fail_msg("db_machine_set_state %s: %s", id, err.msg);
}

/* One record for tv_boot(): sha256 digest filled with @fill. */
struct tv_record {
	const char *path;
	uint8_t fill;
	enum db_verdict verdict;
};

static inline void tv_digest(uint8_t fill, uint8_t d[32])
{
	memset(d, fill, 32);
}

/* Start a boot of @id and store @n records in it; return the boot id. */
static inline int64_t tv_boot(struct tv *t, const char *id,
			      const struct tv_record *r, size_t n)
{
	uint8_t s1[DB_PCR_SHA1_SIZE] = { 1 }, s256[DB_PCR_SHA256_SIZE] = { 2 };
	struct db_record *recs = calloc(n + 1, sizeof(*recs));
	uint8_t(*dig)[32] = calloc(n + 1, 32);
	struct db_boot boot;
	struct imt_error err;
	size_t i;

	assert_non_null(recs);
	assert_non_null(dig);
	if (db_boot_start(t->v.db, id, 1, 0, TV_NOW, &boot, &err) < 0)
		fail_msg("db_boot_start: %s", err.msg);
	for (i = 0; i < n; i++) {
		tv_digest(r[i].fill, dig[i]);
		recs[i] = (struct db_record){
			.index = i,
			.pcr = 10,
			.template = "ima-ng",
			.path = r[i].path,
			.digest_algo = "sha256",
			.digest = dig[i],
			.digest_len = 32,
			.verdict = r[i].verdict,
		};
	}
	struct db_boot_advance a = {
		.boot_id = boot.id,
		.from_index = 0,
		.to_index = n,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.records = recs,
		.nrecords = n,
	};
	if (db_boot_advance(t->v.db, &a, TV_NOW + 1, &err) < 0)
		fail_msg("db_boot_advance: %s", err.msg);
	free(recs);
	free(dig);
	return boot.id;
}

static inline enum db_machine_state tv_state(struct tv *t, const char *id)
{
	struct db_machine m;
	struct imt_error err;
	enum db_machine_state s;
	int found = 0;

	if (db_machine_get(t->v.db, id, &m, &found, &err) < 0 || !found)
		fail_msg("db_machine_get %s", id);
	s = m.state;
	db_machine_release(&m);
	return s;
}

/* ---- the real HTTPS front, for query arguments and headers ---- */

static inline void tv_make_cert(struct tv *t)
{
	test_cert_make(&t->cert, &t->key);
}

/* Serve verifier_routes with @t's verifier on a free loopback port. */
static inline void tv_serve(struct tv *t)
{
	struct http_config cfg = {
		.addr = "127.0.0.1",
		.max_connections = 16,
		.threads = 1,
	};
	char err[256];

	tv_make_cert(t);
	cfg.cert_pem = t->cert;
	cfg.key_pem = t->key;
	t->srv = http_start(&cfg, verifier_routes, &t->v, err, sizeof(err));
	if (t->srv == NULL)
		fail_msg("http_start: %s", err);
	snprintf(t->url, sizeof(t->url), "https://127.0.0.1:%u",
		 http_port(t->srv));
}

struct tv_buf {
	char *p;
	size_t n;
};

static inline size_t tv_collect(char *p, size_t size, size_t n, void *arg)
{
	struct tv_buf *b = arg;
	char *grown = realloc(b->p, b->n + size * n + 1);

	if (grown == NULL)
		return 0;
	b->p = grown;
	memcpy(b->p + b->n, p, size * n);
	b->n += size * n;
	b->p[b->n] = '\0';
	return size * n;
}

/*
 * One request through the server; returns the status, the body in
 * *@text (caller frees) and its Content-Type in @type (may be NULL).
 */
static inline long tv_http(struct tv *t, const char *method, const char *path,
			   const char *body, const char *auth, char **text,
			   char *type, size_t typelen)
{
	struct curl_blob ca = { t->cert, strlen(t->cert), CURL_BLOB_COPY };
	struct curl_slist *hdr = NULL;
	struct tv_buf b = { NULL, 0 };
	CURL *c = curl_easy_init();
	char url[1024], h[256], *ct = NULL;
	long status = 0;

	snprintf(url, sizeof(url), "%s%s", t->url, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, tv_collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	if (auth != NULL) {
		snprintf(h, sizeof(h), "Authorization: %s", auth);
		hdr = curl_slist_append(hdr, h);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	if (body != NULL)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	if (curl_easy_perform(c) == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
	}
	if (type != NULL)
		snprintf(type, typelen, "%s", ct != NULL ? ct : "");
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	*text = b.p != NULL ? b.p : strdup("");
	return status;
}

/* tv_http() for JSON answers: the parsed body. */
static inline json_t *tv_get(struct tv *t, const char *method, const char *path,
			     const char *body, long *status)
{
	char *text;
	json_t *j;

	*status = tv_http(t, method, path, body, TV_AUTH, &text, NULL, 0);
	j = json_loads(text, 0, NULL);
	free(text);
	return j;
}

/*
 * One integer from @sql, on a connection of its own, with @id bound to ?1
 * (NULL: @sql has no parameter).
 */
static inline int64_t count_rows(struct tv *t, const char *sql, const char *id)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n = -1;

	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (id != NULL)
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/*
 * The proof of @id's newest challenge, as the TPM would make it (the
 * secret read from the database instead of ActivateCredential).
 */
static inline void tv_proof_of(struct tv *t, const char *id, uint8_t proof[32])
{
	sqlite3 *s;
	sqlite3_stmt *st;
	unsigned int len = 0;

	assert_int_equal(sqlite3_open(t->path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s,
					    "SELECT secret FROM enrollments"
					    " WHERE machine_id = ?1 ORDER BY "
					    "id DESC LIMIT 1",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	HMAC(EVP_sha256(), sqlite3_column_blob(st, 0),
	     sqlite3_column_bytes(st, 0), (const uint8_t *)id, strlen(id),
	     proof, &len);
	sqlite3_finalize(st);
	sqlite3_close(s);
}

/*
 * A made-up RSA EK: @ek (@len bytes) with another modulus, number @i of
 * them; what a stranger without a TPM has.
 */
static inline void tv_fake_ek(const uint8_t *ek, size_t len, unsigned int i,
			      uint8_t *out)
{
	memcpy(out, ek, len);
	out[len - 3] ^= (uint8_t)i;
	out[len - 4] ^= (uint8_t)(i >> 8);
	out[len - 5] ^= 0x5a;
}

#endif /* IMATRUST_TEST_VERIFIER_H */
