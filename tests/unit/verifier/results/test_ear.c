// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ear.c - signed attestation results: the tier and the AR4SI vector
 * of every machine state, "exp", the nonce rule, the claims, and the
 * compact JWS: three base64url parts, a header naming ES256 and the kid,
 * a signature that OpenSSL verifies over header.payload once r || s is
 * made DER again, and that fails for a changed byte. Then the routes:
 * GET /v1/results/jwks without a token, GET /v1/machines/{id}/result
 * (401, 404, 400 for a bad nonce, the nonce echoed, sub and submods of
 * the machine asked for) through the real HTTPS front.
 */
#include <openssl/bn.h>
#include <openssl/ec.h>

#include "db_machine.h"
#include "verifier_test.h"
#include "b64.h"
#include "ear.h"
#include "result_key.h"
#include "result_keys.h"

#define NONCE8 "AAECAwQFBgc" /* bytes 0..7 */

static struct result_key *new_key(void)
{
	struct result_key *k = result_key_from_pkey(
		EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"));

	assert_non_null(k);
	return k;
}

static void test_tier_every_state(void **state)
{
	static const struct {
		enum db_machine_state s;
		const char *tier;
	} want[] = {
		{ DB_STATE_ENROLLING, "none" },
		{ DB_STATE_PENDING, "none" },
		{ DB_STATE_TRUSTED, "affirming" },
		{ DB_STATE_UNTRUSTED, "contraindicated" },
		{ DB_STATE_FAILED, "contraindicated" },
		{ DB_STATE_STALE, "warning" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(ear_tier_name(ear_tier_of(want[i].s)),
				    want[i].tier);
	assert_int_equal(ear_tier_of(DB_STATE_TRUSTED), 2);
	assert_int_equal(ear_tier_of(DB_STATE_STALE), 32);
	assert_int_equal(ear_tier_of(DB_STATE_UNTRUSTED), 96);
	assert_string_equal(ear_tier_name(
				    ear_tier_of((enum db_machine_state)42)),
			    "none");
}

#define UNKNOWN "{\"check\":\"record\",\"verdict\":\"unknown\"}"
#define MISMATCH "{\"check\":\"record\",\"verdict\":\"mismatch\"}"
#define BOOT "{\"check\":\"boot\",\"rule\":\"secure-boot\"}"

static void test_vector_every_state(void **state)
{
	static const struct {
		enum db_machine_state s;
		const char *reason;
		int chained;
		struct ear_vector tv; /* identity, executables, hardware */
	} want[] = {
		{ DB_STATE_ENROLLING, NULL, 1, { 2, 0, 2 } },
		{ DB_STATE_ENROLLING, NULL, 0, { 2, 0, 0 } },
		{ DB_STATE_PENDING, NULL, 0, { 97, 0, 0 } },
		{ DB_STATE_TRUSTED, NULL, 1, { 2, 2, 2 } },
		{ DB_STATE_TRUSTED, NULL, 0, { 2, 2, 0 } },
		{ DB_STATE_UNTRUSTED, UNKNOWN, 1, { 2, 33, 2 } },
		{ DB_STATE_UNTRUSTED, MISMATCH, 1, { 2, 96, 2 } },
		{ DB_STATE_UNTRUSTED, BOOT, 0, { 2, 96, 0 } },
		{ DB_STATE_UNTRUSTED, "not json", 0, { 2, 96, 0 } },
		{ DB_STATE_FAILED, "{\"check\":\"replay\"}", 1, { 2, 99, 2 } },
		{ DB_STATE_STALE, NULL, 1, { 2, 0, 2 } },
	};
	struct ear_vector tv;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct ear_facts f = { .id = "m",
				       .state = want[i].s,
				       .reason = want[i].reason,
				       .ek_chained = want[i].chained };

		ear_vector_of(&f, &tv);
		if (memcmp(&tv, &want[i].tv, sizeof(tv)) != 0)
			fail_msg("row %zu (%s): got %d/%d/%d", i,
				 db_machine_state_name(want[i].s),
				 tv.instance_identity, tv.executables,
				 tv.hardware);
	}
}

static void test_expiry(void **state)
{
	struct ear_facts f = { .state = DB_STATE_TRUSTED,
			       .now = 1000,
			       .stale_after = 120 };

	(void)state;
	f.last_seen = 995; /* due at 1115 */
	assert_int_equal(ear_expiry(&f), 1115);
	f.last_seen = 0; /* never seen: the bound */
	assert_int_equal(ear_expiry(&f), 1120);
	f.last_seen = 870; /* overdue, not yet stale */
	assert_int_equal(ear_expiry(&f), 1001);
	f.last_seen = 2000; /* clock skew: never past the bound */
	assert_int_equal(ear_expiry(&f), 1120);
	f.state = DB_STATE_STALE; /* not resting on evidence */
	f.last_seen = 870;
	assert_int_equal(ear_expiry(&f), 1120);
}

static void test_nonce(void **state)
{
	char b[200];
	uint8_t raw[65] = { 0 };

	(void)state;
	assert_true(ear_nonce_ok(NONCE8));
	b64url_encode(raw, 7, b);
	assert_false(ear_nonce_ok(b));
	b64url_encode(raw, 64, b);
	assert_true(ear_nonce_ok(b));
	b64url_encode(raw, 65, b);
	assert_false(ear_nonce_ok(b));
	assert_false(ear_nonce_ok("AAECAwQFBgc=")); /* padded */
	assert_false(ear_nonce_ok("AAECAwQFBg+/")); /* not url-safe */
	assert_false(ear_nonce_ok("AAECAwQFBgc!"));
	assert_false(ear_nonce_ok(""));
}

/* Part @i (0..2) of @tok decoded into @out; its length or -1. */
static long token_part(const char *tok, int i, uint8_t *out)
{
	const char *p = tok, *end;

	while (i-- > 0) {
		p = strchr(p, '.');
		assert_non_null(p);
		p++;
	}
	end = strchr(p, '.');
	if (end == NULL)
		end = p + strlen(p);
	return b64url_decode(p, (size_t)(end - p), out);
}

/* Does @tok's ES256 signature verify under @k (r || s made DER again)? */
static int jws_verifies(const struct result_key *k, const char *tok)
{
	uint8_t sig[128], der[80], *p = der;
	const char *dot = strrchr(tok, '.');
	ECDSA_SIG *es = ECDSA_SIG_new();
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int der_len, ok;

	if (token_part(tok, 2, sig) != RESULT_SIG_LEN)
		return 0;
	assert_int_equal(ECDSA_SIG_set0(es, BN_bin2bn(sig, 32, NULL),
					BN_bin2bn(sig + 32, 32, NULL)),
			 1);
	der_len = i2d_ECDSA_SIG(es, &p);
	ok = EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, k->pkey) ==
		     1 &&
	     EVP_DigestVerify(ctx, der, (size_t)der_len, (const uint8_t *)tok,
			      (size_t)(dot - tok)) == 1;
	EVP_MD_CTX_free(ctx);
	ECDSA_SIG_free(es);
	return ok;
}

static json_t *part_json(const char *tok, int i)
{
	uint8_t buf[8192];
	long n = token_part(tok, i, buf);

	assert_true(n > 0);
	return json_loadb((const char *)buf, (size_t)n, 0, NULL);
}

static void test_jws(void **state)
{
	struct result_key *k = new_key(), *other = new_key();
	struct ear_facts f = {
		.id = "web-1",
		.state = DB_STATE_TRUSTED,
		.policy = "default",
		.reason = "{\"check\":\"evidence\",\"records\":3}",
		.last_seen = 1700000000,
		.now = 1700000005,
		.stale_after = 120,
		.nonce = NONCE8,
	};
	json_t *claims = ear_claims(&f), *hdr, *payload, *sub;
	char *tok = ear_token(k, claims);
	size_t i, dots = 0;

	(void)state;
	assert_non_null(tok);
	for (i = 0; tok[i] != '\0'; i++) {
		if (tok[i] == '.')
			dots++;
		else if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
				 "qrstuvwxyz0123456789-_",
				 tok[i]))
			fail_msg("not base64url: '%c'", tok[i]);
	}
	assert_int_equal(dots, 2);
	hdr = part_json(tok, 0);
	assert_string_equal(json_string_value(json_object_get(hdr, "alg")),
			    "ES256");
	assert_string_equal(json_string_value(json_object_get(hdr, "typ")),
			    "JWT");
	assert_string_equal(json_string_value(json_object_get(hdr, "kid")),
			    k->kid);
	payload = part_json(tok, 1);
	assert_true(json_equal(payload, claims));
	assert_string_equal(json_string_value(
				    json_object_get(payload, "eat_profile")),
			    EAR_PROFILE);
	assert_string_equal(json_string_value(json_object_get(payload, "sub")),
			    "web-1");
	assert_string_equal(json_string_value(
				    json_object_get(payload, "eat_nonce")),
			    NONCE8);
	assert_int_equal(json_integer_value(json_object_get(payload, "exp")),
			 1700000120);
	sub = json_object_get(json_object_get(payload, "submods"), "web-1");
	assert_string_equal(json_string_value(
				    json_object_get(sub, "ear.status")),
			    "affirming");
	assert_string_equal(json_string_value(
				    json_object_get(sub, "imatrust.tnc")),
			    "allow");
	assert_string_equal(json_string_value(
				    json_object_get(sub,
						    "ear.appraisal-policy-id")),
			    "default");
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(sub,
								 "imatrust.state-reason"),
						 "records")),
			 3);
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(sub,
								 "ear.trustworthiness-vector"),
						 "executables")),
			 2);

	assert_true(jws_verifies(k, tok));
	assert_false(jws_verifies(other, tok));
	/* a changed byte anywhere in the payload or signature */
	for (i = strchr(tok, '.') - tok + 1; tok[i] != '\0'; i += 7) {
		char was = tok[i];

		if (was == '.')
			continue;
		tok[i] = was == 'A' ? 'B' : 'A';
		if (jws_verifies(k, tok))
			fail_msg("verifies with byte %zu changed", i);
		tok[i] = was;
	}
	assert_true(jws_verifies(k, tok));
	json_decref(hdr);
	json_decref(payload);
	json_decref(claims);
	free(tok);
	result_key_free(k);
	result_key_free(other);
}

static void test_no_nonce_claim(void **state)
{
	struct ear_facts f = { .id = "m",
			       .state = DB_STATE_PENDING,
			       .policy = "default" };
	json_t *c = ear_claims(&f), *sub;

	(void)state;
	assert_null(json_object_get(c, "eat_nonce"));
	sub = json_object_get(json_object_get(c, "submods"), "m");
	assert_true(
		json_is_null(json_object_get(sub, "imatrust.state-reason")));
	assert_string_equal(json_string_value(
				    json_object_get(sub, "imatrust.tnc")),
			    "no_recommendation");
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(c,
								    "ear.verifier-id"),
						    "developer")),
			    "imatrust");
	json_decref(c);
}

/* --- the routes ------------------------------------------------------- */

static struct result_key *route_key; /* owned by the verifier's keys */

static int route_setup(void **state)
{
	struct tv *t = tv_new();

	route_key = new_key();
	t->v.result_keys = result_keys_of(route_key);
	tv_machine(t, "good", DB_STATE_TRUSTED);
	tv_machine(t, "bad", DB_STATE_UNTRUSTED);
	tv_serve(t);
	*state = t;
	return 0;
}

static int route_teardown(void **state)
{
	struct tv *t = *state;

	result_keys_close(t->v.result_keys);
	tv_free(t);
	return 0;
}

static void test_route_jwks(void **state)
{
	struct tv *t = *state;
	char *text;
	json_t *j, *key;
	long status;

	status = tv_http(t, "GET", "/v1/results/jwks", NULL, NULL, &text, NULL,
			 0);
	assert_int_equal(status, 200);
	j = json_loads(text, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(j, "keys")), 1);
	key = json_array_get(json_object_get(j, "keys"), 0);
	assert_string_equal(json_string_value(json_object_get(key, "kid")),
			    route_key->kid);
	json_decref(j);
	free(text);
}

/* The result of @id: the token checked, its submod returned. */
static json_t *result_of(struct tv *t, const char *id, const char *query)
{
	char path[256];
	json_t *a, *payload, *sub;
	const char *tok;
	long status;

	snprintf(path, sizeof(path), "/v1/machines/%s/result%s", id, query);
	a = tv_get(t, "GET", path, NULL, &status);
	assert_int_equal(status, 200);
	tok = json_string_value(json_object_get(a, "result"));
	assert_non_null(tok);
	assert_true(jws_verifies(route_key, tok));
	assert_string_equal(json_string_value(json_object_get(a, "kid")),
			    route_key->kid);
	payload = part_json(tok, 1);
	assert_string_equal(json_string_value(json_object_get(payload, "sub")),
			    id);
	assert_int_equal(json_integer_value(json_object_get(a, "expires_at")),
			 json_integer_value(json_object_get(payload, "exp")));
	assert_true(json_integer_value(json_object_get(payload, "exp")) >
		    json_integer_value(json_object_get(payload, "iat")));
	sub = json_incref(
		json_object_get(json_object_get(payload, "submods"), id));
	assert_non_null(sub);
	if (strstr(query, "nonce=") != NULL)
		assert_string_equal(json_string_value(
					    json_object_get(payload,
							    "eat_nonce")),
				    strstr(query, "=") + 1);
	else
		assert_null(json_object_get(payload, "eat_nonce"));
	json_decref(payload);
	json_decref(a);
	return sub;
}

static void test_route_result(void **state)
{
	struct tv *t = *state;
	json_t *sub;
	char *text;
	long status;

	sub = result_of(t, "good", "?nonce=" NONCE8);
	assert_string_equal(json_string_value(
				    json_object_get(sub, "ear.status")),
			    "affirming");
	json_decref(sub);
	sub = result_of(t, "bad", "");
	assert_string_equal(json_string_value(
				    json_object_get(sub, "ear.status")),
			    "contraindicated");
	assert_string_equal(json_string_value(
				    json_object_get(sub, "imatrust.tnc")),
			    "isolate");
	json_decref(sub);

	status = tv_http(t, "GET", "/v1/machines/good/result", NULL, NULL,
			 &text, NULL, 0);
	assert_int_equal(status, 401);
	free(text);
	status = tv_http(t, "GET", "/v1/machines/ghost/result", NULL, TV_AUTH,
			 &text, NULL, 0);
	assert_int_equal(status, 404);
	free(text);
	status = tv_http(t, "GET", "/v1/machines/good/result?nonce=AAEC", NULL,
			 TV_AUTH, &text, NULL, 0);
	assert_int_equal(status, 400);
	free(text);
	status = tv_http(t, "GET",
			 "/v1/machines/good/result?nonce=" NONCE8 "%3D", NULL,
			 TV_AUTH, &text, NULL, 0);
	assert_int_equal(status, 400);
	free(text);
}

/* Without a key (never in the daemon: it does not start) both are 503. */
static void test_route_no_key(void **state)
{
	struct tv *t = tv_new();
	unsigned int status;
	json_t *a;

	(void)state;
	tv_machine(t, "good", DB_STATE_TRUSTED);
	a = tv_call(t, route_results_jwks, NULL, NULL, NULL, &status);
	assert_int_equal(status, 503);
	json_decref(a);
	a = tv_call(t, route_machines_result, "good", NULL, TV_AUTH, &status);
	assert_int_equal(status, 503);
	json_decref(a);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tier_every_state),
		cmocka_unit_test(test_vector_every_state),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_nonce),
		cmocka_unit_test(test_jws),
		cmocka_unit_test(test_no_nonce_claim),
		cmocka_unit_test_setup_teardown(test_route_jwks, route_setup,
						route_teardown),
		cmocka_unit_test_setup_teardown(test_route_result, route_setup,
						route_teardown),
		cmocka_unit_test(test_route_no_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
