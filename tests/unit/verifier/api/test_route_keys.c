// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_route_keys.c - signature keys over the REST API: a certificate as
 * PEM or base64 DER, its key id (subjectKeyIdentifier, else SHA-1 of the
 * public key), fingerprint and subject; the default name; duplicates;
 * what is not a certificate stores nothing; removal; the audit trail;
 * and a record signed by the key turning "signed" and back.
 */
#include <openssl/sha.h>

#include "b64.h"
#include "db_boot.h"
#include "db_key.h"
#include "db_machine.h"
#include "verifier_test.h"

struct made {
	EVP_PKEY *pkey;
	char *pem;
	char *der_b64;
	uint8_t fpr[32];
	uint8_t keyid[4];
};

/* A self-signed certificate "CN=@cn"; with @skid a subjectKeyIdentifier. */
static void make_cert(struct made *m, const char *cn, int skid, int rsa)
{
	X509 *x = X509_new();
	BIO *b = BIO_new(BIO_s_mem());
	unsigned char *der = NULL, *pub = NULL, md[SHA_DIGEST_LENGTH];
	const ASN1_OCTET_STRING *id;
	X509_EXTENSION *ext;
	X509V3_CTX v3;
	int n;

	m->pkey = rsa ? EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048) :
			EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	assert_non_null(m->pkey);
	X509_set_version(x, X509_VERSION_3);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 7);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, m->pkey);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	if (skid) {
		X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
		ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_key_identifier,
					  "hash");
		X509_add_ext(x, ext, -1);
		X509_EXTENSION_free(ext);
	}
	X509_sign(x, m->pkey, EVP_sha256());
	PEM_write_bio_X509(b, x);
	m->pem = test_cert_bio_text(b);
	n = i2d_X509(x, &der);
	assert_true(n > 0);
	SHA256(der, (size_t)n, m->fpr);
	m->der_b64 = malloc((size_t)n * 2 + 4);
	b64_encode(der, (size_t)n, m->der_b64);
	OPENSSL_free(der);
	id = X509_get0_subject_key_id(x);
	if (id != NULL) {
		memcpy(m->keyid,
		       ASN1_STRING_get0_data(id) + ASN1_STRING_length(id) - 4,
		       4);
	} else {
		n = i2d_PublicKey(m->pkey, &pub);
		SHA1(pub, (size_t)n, md);
		OPENSSL_free(pub);
		memcpy(m->keyid, md + sizeof(md) - 4, 4);
	}
	BIO_free(b);
	X509_free(x);
}

static void made_free(struct made *m)
{
	EVP_PKEY_free(m->pkey);
	free(m->pem);
	free(m->der_b64);
}

static int setup(void **state)
{
	*state = tv_new();
	return 0;
}

static int teardown(void **state)
{
	tv_free(*state);
	return 0;
}

/* POST /v1/keys with {"v":1,"cert":@cert[,"name":@name]}. */
static json_t *add(struct tv *t, const char *cert, const char *name,
		   unsigned int *status)
{
	json_t *body = json_pack("{s:i,s:s}", "v", 1, "cert", cert);
	char *text;
	json_t *a;

	if (name != NULL)
		json_object_set_new(body, "name", json_string(name));
	text = json_dumps(body, JSON_COMPACT);
	a = tv_call(t, route_keys_add, NULL, text, TV_AUTH, status);
	free(text);
	json_decref(body);
	return a;
}

static json_t *keys(struct tv *t)
{
	unsigned int status;
	json_t *a = tv_call(t, route_keys_list, NULL, NULL, TV_AUTH, &status);

	assert_int_equal(status, 200);
	return a;
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void test_add_pem_and_list(void **state)
{
	struct tv *t = *state;
	struct made m = { 0 };
	char id[9], fpr[65];
	unsigned int status;
	json_t *a, *k;

	make_cert(&m, "ima-test", 1, 0);
	hex(m.keyid, 4, id);
	hex(m.fpr, 32, fpr);
	a = add(t, m.pem, NULL, &status);
	assert_int_equal(status, 201);
	k = json_object_get(a, "key");
	/* the default name is the key id */
	assert_string_equal(json_string_value(json_object_get(k, "name")), id);
	assert_string_equal(json_string_value(json_object_get(k, "keyid")), id);
	assert_string_equal(json_string_value(
				    json_object_get(k, "fingerprint")),
			    fpr);
	assert_non_null(json_object_get(a, "machines_rejudged"));
	json_decref(a);

	a = keys(t);
	assert_int_equal(json_array_size(json_object_get(a, "keys")), 1);
	k = json_array_get(json_object_get(a, "keys"), 0);
	assert_string_equal(json_string_value(json_object_get(k, "keyid")), id);
	assert_string_equal(json_string_value(
				    json_object_get(k, "fingerprint")),
			    fpr);
	assert_string_equal(json_string_value(json_object_get(k, "subject")),
			    "CN=ima-test");
	assert_non_null(
		strstr(json_string_value(json_object_get(k, "source")), id));
	assert_true(json_integer_value(json_object_get(k, "added_at")) > 0);
	json_decref(a);
	made_free(&m);
}

static void test_add_der_named(void **state)
{
	struct tv *t = *state;
	struct made m = { 0 };
	char id[9];
	unsigned int status;
	json_t *a, *k;

	/* no subjectKeyIdentifier: the key id is SHA-1 of the public key */
	make_cert(&m, "vendor", 0, 1);
	hex(m.keyid, 4, id);
	a = add(t, m.der_b64, "vendor", &status);
	assert_int_equal(status, 201);
	k = json_object_get(a, "key");
	assert_string_equal(json_string_value(json_object_get(k, "name")),
			    "vendor");
	assert_string_equal(json_string_value(json_object_get(k, "keyid")), id);
	assert_string_equal(json_string_value(json_object_get(k, "source")),
			    "key:vendor");
	json_decref(a);
	/* the same certificate again, or the name again: 409 */
	a = add(t, m.pem, "vendor2", &status);
	assert_int_equal(status, 409);
	json_decref(a);
	made_free(&m);
	make_cert(&m, "other", 1, 0);
	a = add(t, m.pem, "vendor", &status);
	assert_int_equal(status, 409);
	json_decref(a);
	a = add(t, m.pem, "bad/name", &status);
	assert_int_equal(status, 400);
	json_decref(a);
	a = keys(t);
	assert_int_equal(json_array_size(json_object_get(a, "keys")), 1);
	json_decref(a);
	made_free(&m);
}

static void test_not_a_certificate(void **state)
{
	struct tv *t = *state;
	char *cert, *key, big[DB_KEY_DER_MAX * 2 + 16];
	unsigned int status;
	size_t i;
	json_t *a;
	const char *bad[4];

	test_cert_make(&cert, &key);
	bad[0] = key; /* a private key */
	bad[1] = "-----BEGIN CERTIFICATE-----\nAAAA\n"
		 "-----END CERTIFICATE-----\n";
	bad[2] = "AAECAwQFBgcICQoLDA0ODw=="; /* base64, not DER */
	bad[3] = "not base64 at all";
	for (i = 0; i < 4; i++) {
		a = add(t, bad[i], NULL, &status);
		assert_int_equal(status, 400);
		if (strstr(tv_msg(a), "not an X.509 certificate") == NULL)
			fail_msg("case %zu: '%s'", i, tv_msg(a));
		json_decref(a);
	}
	memset(big, 'A', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	a = add(t, big, NULL, &status);
	assert_int_equal(status, 400);
	json_decref(a);
	a = tv_call(t, route_keys_add, NULL, "{\"v\":1}", TV_AUTH, &status);
	assert_int_equal(status, 400);
	json_decref(a);
	a = keys(t);
	assert_int_equal(json_array_size(json_object_get(a, "keys")), 0);
	json_decref(a);
	free(cert);
	free(key);
}

static void test_delete_and_audit(void **state)
{
	struct tv *t = *state;
	struct made m = { 0 };
	unsigned int status;
	size_t i, adds = 0, dels = 0;
	json_t *a, *e;

	make_cert(&m, "k", 1, 0);
	json_decref(add(t, m.pem, "k1", &status));
	assert_int_equal(status, 201);
	a = tv_call(t, route_keys_delete, "k1", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_non_null(json_object_get(a, "machines_rejudged"));
	json_decref(a);
	a = tv_call(t, route_keys_delete, "k1", NULL, TV_AUTH, &status);
	assert_int_equal(status, 404);
	json_decref(a);
	a = keys(t);
	assert_int_equal(json_array_size(json_object_get(a, "keys")), 0);
	json_decref(a);

	a = tv_call(t, route_audit, NULL, NULL, TV_AUTH, &status);
	json_array_foreach(json_object_get(a, "audit"), i, e) {
		const char *act =
			json_string_value(json_object_get(e, "action"));

		if (strncmp(act, "key-", 4) != 0)
			continue;
		assert_string_equal(json_string_value(
					    json_object_get(e, "operator")),
				    "alice");
		assert_string_equal(json_string_value(
					    json_object_get(json_object_get(e,
									    "detail"),
							    "key")),
				    "k1");
		adds += strcmp(act, "key-add") == 0;
		dels += strcmp(act, "key-delete") == 0;
	}
	assert_int_equal(adds, 1);
	assert_int_equal(dels, 1);
	json_decref(a);
	made_free(&m);
}

/* ?name= over the real front; a token is needed. */
static void test_name_in_query(void **state)
{
	struct tv *t = *state;
	struct made m = { 0 };
	char *body, *text;
	long status;
	json_t *a;

	make_cert(&m, "q", 1, 0);
	tv_serve(t);
	a = json_pack("{s:i,s:s}", "v", 1, "cert", m.pem);
	body = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	status = tv_http(t, "POST", "/v1/keys?name=q1", body, NULL, &text, NULL,
			 0);
	assert_int_equal(status, 401);
	free(text);
	a = tv_get(t, "POST", "/v1/keys?name=q1", body, &status);
	assert_int_equal(status, 201);
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(a, "key"),
						    "name")),
			    "q1");
	json_decref(a);
	a = tv_get(t, "DELETE", "/v1/keys/q1", NULL, &status);
	assert_int_equal(status, 200);
	json_decref(a);
	free(body);
	made_free(&m);
}

/*
 * An ima-sig record whose signature (v2 header, ECDSA over the SHA-256
 * file digest) the key verifies: unknown without the key, signed with
 * it (trusted), unknown again when it is removed (untrusted).
 */
static void test_signed_record_follows_key(void **state)
{
	struct tv *t = *state;
	struct made m = { 0 };
	uint8_t digest[32], sig[9 + 128], s1[20] = { 1 }, s256[32] = { 2 };
	size_t siglen = 128;
	EVP_PKEY_CTX *ctx;
	unsigned int status;
	struct imt_error err;
	struct db_boot boot;
	json_t *a;

	make_cert(&m, "signer", 1, 0);
	tv_machine(t, "m1", DB_STATE_UNTRUSTED);
	tv_digest(2, digest);
	ctx = EVP_PKEY_CTX_new(m.pkey, NULL);
	assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
	assert_int_equal(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()), 1);
	assert_int_equal(EVP_PKEY_sign(ctx, sig + 9, &siglen, digest, 32), 1);
	EVP_PKEY_CTX_free(ctx);
	sig[0] = 0x03; /* EVM_IMA_XATTR_DIGSIG */
	sig[1] = 2;    /* signature v2 */
	sig[2] = 4;    /* HASH_ALGO_SHA256 */
	memcpy(sig + 3, m.keyid, 4);
	sig[7] = (uint8_t)(siglen >> 8);
	sig[8] = (uint8_t)siglen;
	if (db_boot_start(t->v.db, "m1", 1, 0, TV_NOW, &boot, &err) < 0)
		fail_msg("db_boot_start: %s", err.msg);
	struct db_record recs[] = {
		{ .index = 0,
		  .pcr = 10,
		  .template = "ima-ng",
		  .path = "boot_aggregate",
		  .digest_algo = "sha256",
		  .digest = digest,
		  .digest_len = 32,
		  .verdict = DB_VERDICT_EXCLUDED },
		{ .index = 1,
		  .pcr = 10,
		  .template = "ima-sig",
		  .path = "/usr/bin/s",
		  .digest_algo = "sha256",
		  .digest = digest,
		  .digest_len = 32,
		  .verdict = DB_VERDICT_UNKNOWN,
		  .sig = sig,
		  .sig_len = 9 + siglen },
	};
	struct db_boot_advance adv = {
		.boot_id = boot.id,
		.from_index = 0,
		.to_index = 2,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.records = recs,
		.nrecords = 2,
	};
	if (db_boot_advance(t->v.db, &adv, TV_NOW + 1, &err) < 0)
		fail_msg("db_boot_advance: %s", err.msg);

	a = add(t, m.pem, "signer", &status);
	assert_int_equal(status, 201);
	assert_int_equal(json_integer_value(
				 json_object_get(a, "machines_now_trusted")),
			 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_TRUSTED);
	a = tv_call(t, route_machines_records, "m1", NULL, TV_AUTH, &status);
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(json_array_get(json_object_get(a,
										   "records"),
								   1),
						    "accepted_by"),
				    "key")),
			    "signer");
	json_decref(a);

	a = tv_call(t, route_keys_delete, "signer", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(
				 json_object_get(a, "machines_now_untrusted")),
			 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_UNTRUSTED);
	made_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_pem_and_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_add_der_named, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_not_a_certificate, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_delete_and_audit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_name_in_query, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_signed_record_follows_key,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
