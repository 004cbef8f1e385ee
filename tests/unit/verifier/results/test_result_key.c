// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_result_key.c - the key that signs attestation results: its path,
 * its file (made 0600, read back to the same kid; group-readable, RSA,
 * P-384 and garbage refused, naming the file), its JWK and its RFC 7638
 * thumbprint against one computed by Python's hashlib from the key's
 * coordinates as the cryptography package reads them:
 *
 *   k = load_pem_private_key(FIXED_PEM, None).public_key().public_numbers()
 *   b = lambda v: urlsafe_b64encode(v.to_bytes(32, "big")).rstrip(b"=")
 *   c = json.dumps({"crv": "P-256", "kty": "EC", "x": b(k.x), "y": b(k.y)},
 *                  separators=(",", ":"), sort_keys=True)
 *   urlsafe_b64encode(sha256(c).digest()).rstrip(b"=")
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/pem.h>

#include "result_key.h"

#define FIXED_PEM \
	"-----BEGIN PRIVATE KEY-----\n" \
	"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgmTygSQBuLwC/UJFt\n" \
	"JysVAOGmf+KAatfUB9zZOLOb09GhRANCAARibCD82N4gcEX50lGNyn+i0Z+K+3qc\n" \
	"TlR8HxByEX1WQgmZ++URAtZoUW6p+NMRz7OLh7Ra31dTZf8aPej8zlCC\n" \
	"-----END PRIVATE KEY-----\n"
#define FIXED_X "Ymwg_NjeIHBF-dJRjcp_otGfivt6nE5UfB8QchF9VkI"
#define FIXED_Y "CZn75REC1mhRbqn40xHPs4uHtFrfV1Nl_xo96PzOUII"
#define FIXED_KID "WTVPQXOhAdkgZgPBHw9gTtg8qeSNTVlFqgyQZKP_lNE"

struct dir {
	char path[256];
	char key[300];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));
	const char *tmp = getenv("TMPDIR");

	snprintf(d->path, sizeof(d->path), "%s/imatrust-rkey-XXXXXX",
		 tmp != NULL && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(d->path));
	snprintf(d->key, sizeof(d->key), "%s/result-key.pem", d->path);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	unlink(d->key);
	rmdir(d->path);
	free(d);
	return 0;
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* @pkey as PKCS#8 PEM text (caller frees); the key is freed. */
static char *pem_of(EVP_PKEY *pkey)
{
	BIO *mem = BIO_new(BIO_s_mem());
	char *p = NULL, *out;
	long n;

	assert_non_null(pkey);
	assert_int_equal(PEM_write_bio_PrivateKey(mem, pkey, NULL, NULL, 0,
						  NULL, NULL),
			 1);
	n = BIO_get_mem_data(mem, &p);
	out = strndup(p, (size_t)n);
	BIO_free(mem);
	EVP_PKEY_free(pkey);
	return out;
}

static void test_path(void **state)
{
	struct config c = { 0 };
	char out[CONFIG_PATH_MAX];

	(void)state;
	snprintf(c.database, sizeof(c.database), "/var/lib/imatrust/v.db");
	assert_int_equal(result_key_path(&c, out, sizeof(out)), 0);
	assert_string_equal(out, "/var/lib/imatrust/result-key.pem");
	snprintf(c.database, sizeof(c.database), "v.db");
	assert_int_equal(result_key_path(&c, out, sizeof(out)), 0);
	assert_string_equal(out, "./result-key.pem");
	snprintf(c.result_key, sizeof(c.result_key), "/etc/imatrust/r.pem");
	assert_int_equal(result_key_path(&c, out, sizeof(out)), 0);
	assert_string_equal(out, "/etc/imatrust/r.pem");
	assert_int_equal(result_key_path(&c, out, 8), -1);
	/* a PostgreSQL database: given, or no default */
	snprintf(c.database, sizeof(c.database),
		 "postgresql://db.example/imatrust");
	assert_int_equal(result_key_path(&c, out, sizeof(out)), 0);
	c.result_key[0] = '\0';
	assert_int_equal(result_key_path(&c, out, sizeof(out)), -1);
}

static void test_known_thumbprint(void **state)
{
	struct dir *d = *state;
	struct result_key *k;
	char why[512];
	json_t *jwk, *want;
	int created = 1;

	put(d->key, FIXED_PEM, 0600);
	k = result_key_load(d->key, &created, why, sizeof(why));
	if (k == NULL)
		fail_msg("%s", why);
	assert_int_equal(created, 0);
	assert_string_equal(k->kid, FIXED_KID);
	jwk = result_key_jwk(k);
	/* exactly these members: nothing private ("d"), nothing else */
	want = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "kty", "EC", "crv",
			 "P-256", "x", FIXED_X, "y", FIXED_Y, "use", "sig",
			 "alg", "ES256", "kid", FIXED_KID);
	if (!json_equal(jwk, want))
		fail_msg("JWK %s", json_dumps(jwk, JSON_COMPACT));
	json_decref(want);
	json_decref(jwk);
	result_key_free(k);
}

static void test_created_0600_reloaded(void **state)
{
	struct dir *d = *state;
	struct result_key *k, *again;
	char why[512], kid[RESULT_KID_MAX];
	struct stat st;
	int created = 0;

	k = result_key_load(d->key, &created, why, sizeof(why));
	if (k == NULL)
		fail_msg("%s", why);
	assert_int_equal(created, 1);
	assert_int_equal(stat(d->key, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(kid, sizeof(kid), "%s", k->kid);
	result_key_free(k);
	again = result_key_load(d->key, &created, why, sizeof(why));
	if (again == NULL)
		fail_msg("%s", why);
	assert_int_equal(created, 0);
	assert_string_equal(again->kid, kid);
	result_key_free(again);
}

/* A refused file names itself and says why. */
static void refused(struct dir *d, const char *text, mode_t mode,
		    const char *because)
{
	char why[512] = "";
	int created = 1;

	put(d->key, text, mode);
	assert_null(result_key_load(d->key, &created, why, sizeof(why)));
	assert_int_equal(created, 0);
	if (strstr(why, d->key) == NULL || strstr(why, because) == NULL)
		fail_msg("wanted %s and \"%s\" in: %s", d->key, because, why);
}

static void test_refused(void **state)
{
	struct dir *d = *state;
	char *rsa = pem_of(EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048));
	char *p384 = pem_of(EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384"));

	refused(d, FIXED_PEM, 0640, "group or others");
	refused(d, FIXED_PEM, 0604, "group or others");
	refused(d, rsa, 0600, "not an EC P-256 key");
	refused(d, p384, 0600, "not an EC P-256 key");
	refused(d, "not a key\n", 0600, "PEM private key");
	free(rsa);
	free(p384);
}

/* Not a file, and a directory that cannot take one: the path named. */
static void test_unreadable(void **state)
{
	struct dir *d = *state;
	char why[512] = "", path[300];
	int created = 1;

	assert_int_equal(mkdir(d->key, 0700), 0);
	assert_null(result_key_load(d->key, &created, why, sizeof(why)));
	assert_non_null(strstr(why, d->key));
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(rmdir(d->key), 0);
	snprintf(path, sizeof(path), "%s/no/such/dir/key.pem", d->path);
	assert_null(result_key_load(path, &created, why, sizeof(why)));
	assert_int_equal(created, 0);
	assert_non_null(strstr(why, path));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test_setup_teardown(test_known_thumbprint, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_created_0600_reloaded,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
