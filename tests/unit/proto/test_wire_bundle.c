// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_wire_bundle.c - the one-shot verification bundle (POST /v1/verify):
 * a round trip, and every field missing or malformed is refused with an
 * error naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "wire.h"

static uint8_t quote[100], sig[70], recs[300], ak[90], blog[40];

static void fill(struct wire_bundle *b)
{
	struct wire_evidence *e = &b->ev;

	memset(b, 0, sizeof(*b));
	strcpy(b->policy, "servers");
	b->ak_pub = (struct wire_blob){ ak, sizeof(ak) };
	memset(e->nonce, 0xab, 20);
	e->nonce_len = 20;
	e->bank = hash_algo_bank("sha256");
	e->quote = (struct wire_blob){ quote, sizeof(quote) };
	e->signature = (struct wire_blob){ sig, sizeof(sig) };
	pcr_set_init(&e->pcrs, e->bank);
	e->pcrs.present = (1u << 0) | (1u << 10);
	memset(e->pcrs.value[10], 0x5a, 32);
	e->records = (struct wire_blob){ recs, sizeof(recs) };
	e->boot_log = (struct wire_blob){ blog, sizeof(blog) };
}

/* A valid bundle as a JSON object, for the cases to spoil. */
static json_t *valid(void)
{
	struct wire_bundle b;
	struct imt_error err;
	char *text;
	json_t *j;

	fill(&b);
	text = wire_encode(WIRE_BUNDLE, &b, &err);
	assert_non_null(text);
	j = json_loads(text, 0, NULL);
	assert_non_null(j);
	free(text);
	return j;
}

static enum imt_result decode(json_t *j, struct wire_bundle *b,
			      struct imt_error *err)
{
	char *text = json_dumps(j, JSON_COMPACT);
	enum imt_result rc;

	assert_non_null(text);
	rc = wire_decode(WIRE_BUNDLE, text, strlen(text), b, err);
	free(text);
	return rc;
}

static void test_round_trip(void **state)
{
	struct wire_bundle out;
	struct imt_error err;
	json_t *j = valid();

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(j, "v")), 1);
	assert_null(json_object_get(j, "agent"));
	assert_null(json_object_get(j, "first_index"));
	assert_int_equal(decode(j, &out, &err), IMT_OK);
	assert_string_equal(out.policy, "servers");
	assert_string_equal(out.machine, "");
	assert_int_equal(out.ak_pub.len, sizeof(ak));
	assert_int_equal(out.ev.nonce_len, 20);
	assert_ptr_equal(out.ev.bank, hash_algo_bank("sha256"));
	assert_int_equal(out.ev.quote.len, sizeof(quote));
	assert_int_equal(out.ev.signature.len, sizeof(sig));
	assert_int_equal(out.ev.records.len, sizeof(recs));
	assert_int_equal(out.ev.boot_log.len, sizeof(blog));
	assert_int_equal(out.ev.pcrs.present, (1u << 0) | (1u << 10));
	assert_int_equal(out.ev.first_index, 0);
	wire_free(WIRE_BUNDLE, &out);
	assert_null(out.ev.records.data);
	assert_null(out.ak_pub.data);
	json_decref(j);
}

/* The optional fields may go; a machine instead of an AK. */
static void test_optional(void **state)
{
	struct wire_bundle out;
	struct imt_error err;
	json_t *j = valid();

	(void)state;
	json_object_del(j, "policy");
	json_object_del(j, "boot_log");
	json_object_del(j, "ak_pub");
	json_object_set_new(j, "machine", json_string("web-3"));
	assert_int_equal(decode(j, &out, &err), IMT_OK);
	assert_string_equal(out.policy, "");
	assert_string_equal(out.machine, "web-3");
	assert_int_equal(out.ak_pub.len, 0);
	assert_int_equal(out.ev.boot_log.len, 0);
	wire_free(WIRE_BUNDLE, &out);
	json_decref(j);
}

struct bad_case {
	const char *key;	/* the field to change */
	const char *value;	/* its new JSON value, or NULL: removed */
	enum imt_result rc;
	const char *names;	/* the error must contain this */
};

static const struct bad_case bad_cases[] = {
	{ "nonce", NULL, IMT_ERR_MALFORMED, "missing field \"nonce\"" },
	{ "bank", NULL, IMT_ERR_MALFORMED, "missing field \"bank\"" },
	{ "quote", NULL, IMT_ERR_MALFORMED, "missing field \"quote\"" },
	{ "signature", NULL, IMT_ERR_MALFORMED,
	  "missing field \"signature\"" },
	{ "pcrs", NULL, IMT_ERR_MALFORMED, "missing field \"pcrs\"" },
	{ "records", NULL, IMT_ERR_MALFORMED, "missing field \"records\"" },
	{ "ak_pub", NULL, IMT_ERR_MALFORMED, "neither given" },
	{ "machine", "\"web-3\"", IMT_ERR_MALFORMED, "both given" },
	{ "machine", "\"a b\"", IMT_ERR_MALFORMED, "\"machine\"" },
	{ "machine", "7", IMT_ERR_MALFORMED, "\"machine\": not a string" },
	{ "policy", "\"\"", IMT_ERR_MALFORMED, "\"policy\"" },
	{ "policy", "\"../x\"", IMT_ERR_MALFORMED, "\"policy\"" },
	{ "policy", "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
	  IMT_ERR_LIMIT, "\"policy\"" },
	{ "policy", "null", IMT_ERR_MALFORMED, "\"policy\": not a string" },
	{ "ak_pub", "\"%%%\"", IMT_ERR_MALFORMED, "\"ak_pub\"" },
	{ "ak_pub", "[]", IMT_ERR_MALFORMED, "\"ak_pub\": not a string" },
	{ "nonce", "\"abcd\"", IMT_ERR_MALFORMED, "\"nonce\"" },
	{ "nonce", "\"zz00112233445566778899aabbccddeeff\"", IMT_ERR_MALFORMED,
	  "\"nonce\"" },
	{ "nonce", "1", IMT_ERR_MALFORMED, "\"nonce\": not a string" },
	{ "bank", "\"md5\"", IMT_ERR_UNSUPPORTED, "\"bank\"" },
	{ "bank", "1", IMT_ERR_UNSUPPORTED, "\"bank\"" },
	{ "quote", "\"\"", IMT_ERR_MALFORMED, "\"quote\"" },
	{ "quote", "\"a\"", IMT_ERR_MALFORMED, "\"quote\"" },
	{ "signature", "\"!!\"", IMT_ERR_MALFORMED, "\"signature\"" },
	{ "signature", "{}", IMT_ERR_MALFORMED, "\"signature\"" },
	{ "pcrs", "[]", IMT_ERR_MALFORMED, "\"pcrs\"" },
	{ "pcrs", "{\"24\":\"00\"}", IMT_ERR_MALFORMED, "\"pcrs\"" },
	{ "pcrs", "{\"10\":\"00\"}", IMT_ERR_MALFORMED, "\"pcrs\"" },
	{ "records", "\"=\"", IMT_ERR_MALFORMED, "\"records\"" },
	{ "records", "false", IMT_ERR_MALFORMED, "\"records\"" },
	{ "boot_log", "\"*\"", IMT_ERR_MALFORMED, "\"boot_log\"" },
	{ "first_index", "0", IMT_ERR_MALFORMED,
	  "unknown field \"first_index\"" },
	{ "agent", "\"web-3\"", IMT_ERR_MALFORMED,
	  "unknown field \"agent\"" },
	{ "v", "3", IMT_ERR_MALFORMED, "\"v\"" },
	{ "v", NULL, IMT_ERR_MALFORMED, "\"v\"" },
};

static void test_bad_fields(void **state)
{
	struct wire_bundle out;
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		json_t *j = valid();

		if (c->value == NULL)
			json_object_del(j, c->key);
		else
			json_object_set_new(j, c->key,
					    json_loads(c->value,
						       JSON_DECODE_ANY, NULL));
		err.msg[0] = '\0';
		if (decode(j, &out, &err) != c->rc ||
		    strstr(err.msg, c->names) == NULL)
			fail_msg("case %zu (%s = %s): %s", i, c->key,
				 c->value != NULL ? c->value : "removed",
				 err.msg);
		assert_null(out.ev.quote.data);
		assert_null(out.ak_pub.data);
		json_decref(j);
	}
}

/* Not JSON, not an object, too long: refused before any field. */
static void test_bad_bodies(void **state)
{
	static const char *const bodies[] = { "", "[]", "{", "null",
					      "{\"v\":1}" };
	struct wire_bundle out;
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
		assert_int_equal(wire_decode(WIRE_BUNDLE, bodies[i],
					     strlen(bodies[i]), &out, &err),
				 IMT_ERR_MALFORMED);
	assert_int_equal(wire_decode(WIRE_BUNDLE, "{}", WIRE_BODY_MAX + 1,
				     &out, &err), IMT_ERR_LIMIT);
}

/* Records and boot log share WIRE_RECORDS_MAX, as in evidence. */
static void test_total(void **state)
{
	static uint8_t big[WIRE_RECORDS_MAX - 10];
	struct wire_bundle in, out;
	struct imt_error err;
	char *text;

	(void)state;
	fill(&in);
	in.ev.records = (struct wire_blob){ big, sizeof(big) };
	text = wire_encode(WIRE_BUNDLE, &in, &err);
	assert_non_null(text);
	assert_int_equal(wire_decode(WIRE_BUNDLE, text, strlen(text), &out,
				     &err), IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"boot_log\""));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_optional),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_bad_bodies),
		cmocka_unit_test(test_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
