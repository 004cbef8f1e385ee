// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_wire.c - protocol messages: round trips, and every kind of bad
 * body an attacker can send gets a precise error and leaks nothing; the
 * one-shot bundle with every field missing or malformed.
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

static uint8_t quote[100], sig[70], recs[300];

static void fill_evidence(struct wire_evidence *e)
{
	memset(e, 0, sizeof(*e));
	strcpy(e->agent, "node-01.lab");
	memset(e->nonce, 0xab, 20);
	e->nonce_len = 20;
	e->bank = hash_algo_bank("sha256");
	e->quote = (struct wire_blob){ quote, sizeof(quote) };
	e->signature = (struct wire_blob){ sig, sizeof(sig) };
	pcr_set_init(&e->pcrs, e->bank);
	e->pcrs.present = (1u << 0) | (1u << 10);
	memset(e->pcrs.value[10], 0x5a, 32);
	e->first_index = 42;
	e->records = (struct wire_blob){ recs, sizeof(recs) };
}

static void test_evidence_round_trip(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	size_t i;
	char *json;

	(void)state;
	for (i = 0; i < sizeof(recs); i++)
		recs[i] = (uint8_t)i;
	fill_evidence(&in);
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_string_equal(out.agent, "node-01.lab");
	assert_int_equal(out.nonce_len, 20);
	assert_ptr_equal(out.bank, in.bank);
	assert_int_equal(out.quote.len, sizeof(quote));
	assert_memory_equal(out.records.data, recs, sizeof(recs));
	assert_int_equal(out.pcrs.present, in.pcrs.present);
	assert_memory_equal(out.pcrs.value[10], in.pcrs.value[10], 32);
	assert_int_equal(out.first_index, 42);
	wire_free(WIRE_EVIDENCE, &out);
	assert_null(out.records.data);
	free(json);
}

static void test_other_round_trips(void **state)
{
	struct wire_enroll en = { .agent = "a" }, en2;
	struct wire_verdict v = { .state = "trusted",
				  .nonce_len = 16,
				  .nonce_expires = 1764720000,
				  .nonce_ttl = 30,
				  .next_index = 7 },
			    v2;
	struct imt_error err;
	char *json;

	(void)state;
	en.ek_pub = (struct wire_blob){ quote, 10 };
	en.ak_pub = (struct wire_blob){ sig, 11 };
	json = wire_encode(WIRE_ENROLL, &en, &err);
	assert_non_null(json);
	assert_null(strstr(json, "ek_cert")); /* optional, absent */
	assert_int_equal(wire_decode(WIRE_ENROLL, json, strlen(json), &en2,
				     &err),
			 IMT_OK);
	assert_int_equal(en2.ek_cert.len, 0);
	assert_int_equal(en2.ak_pub.len, 11);
	wire_free(WIRE_ENROLL, &en2);
	free(json);

	json = wire_encode(WIRE_VERDICT, &v, &err);
	assert_int_equal(wire_decode(WIRE_VERDICT, json, strlen(json), &v2,
				     &err),
			 IMT_OK);
	assert_string_equal(v2.state, "trusted");
	assert_int_equal(v2.next_index, 7);
	assert_int_equal(v2.nonce_ttl, 30);
	free(json);
	/* nonce_ttl is optional: a verifier that does not send it is fine */
	json = strdup(
		"{\"v\":1,\"state\":\"trusted\",\"nonce\":\"00112233445566778899aabbccddeeff\","
		"\"nonce_expires\":1,\"next_index\":0}");
	assert_int_equal(wire_decode(WIRE_VERDICT, json, strlen(json), &v2,
				     &err),
			 IMT_OK);
	assert_int_equal(v2.nonce_ttl, 0);
	free(json);
}

/* A nonce of 16 bytes, the shortest the verifier stores. */
#define N16 "00112233445566778899aabbccddeeff"

static const struct {
	const char *body;
	enum imt_result status;
	const char *msg;
} bad_verdicts[] = {
	{ "", IMT_ERR_MALFORMED, "not a JSON object" },
	{ "[1]", IMT_ERR_MALFORMED, "not a JSON object" },
	{ "{\"v\":4}", IMT_ERR_MALFORMED, "version" },
	{ "{\"v\":0}", IMT_ERR_MALFORMED, "version" },
	{ "{\"state\":\"x\"}", IMT_ERR_MALFORMED, "version" },
	{ "{\"v\":1,\"state\":\"trusted\",\"nonce\":\"" N16 "\","
	  "\"nonce_expires\":1,\"next_index\":0,\"admin\":true}",
	  IMT_ERR_MALFORMED, "unknown field \"admin\"" },
	{ "{\"v\":1,\"state\":\"trusted\",\"nonce\":\"" N16 "\","
	  "\"nonce_expires\":1}",
	  IMT_ERR_MALFORMED, "missing field \"next_index\"" },
	{ "{\"v\":1,\"state\":\"Trusted!\",\"nonce\":\"" N16 "\","
	  "\"nonce_expires\":1,\"next_index\":0}",
	  IMT_ERR_MALFORMED, "\"state\": empty or has characters" },
	{ "{\"v\":1,\"state\":\"trusted\",\"nonce\":\"00112233\","
	  "\"nonce_expires\":1,\"next_index\":0}",
	  IMT_ERR_MALFORMED, "\"nonce\": needs 16 to 64 bytes" },
	{ "{\"v\":1,\"state\":\"trusted\",\"nonce\":\"" N16 "\","
	  "\"nonce_expires\":1,\"next_index\":-1}",
	  IMT_ERR_MALFORMED, "\"next_index\": not a non-negative integer" },
	{ "{\"v\":1,\"v\":1}", IMT_ERR_MALFORMED, "not a JSON object" },
	/* a v2 field in a v1 message: the v1 peer never sends it */
	{ "{\"v\":1,\"state\":\"trusted\",\"nonce\":\"" N16 "\","
	  "\"nonce_expires\":1,\"next_index\":0,\"boot_log\":\"wanted\"}",
	  IMT_ERR_MALFORMED, "\"boot_log\": not in protocol version 1" },
	{ "{\"v\":2,\"state\":\"trusted\",\"nonce\":\"" N16 "\","
	  "\"nonce_expires\":1,\"next_index\":0,\"boot_log\":\"Wanted\"}",
	  IMT_ERR_MALFORMED, "\"boot_log\": empty or has characters" },
};

static void test_bad_bodies(void **state)
{
	struct wire_verdict v;
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_verdicts) / sizeof(bad_verdicts[0]); i++) {
		print_message("%s\n", bad_verdicts[i].body);
		assert_int_equal(wire_decode(WIRE_VERDICT, bad_verdicts[i].body,
					     strlen(bad_verdicts[i].body), &v,
					     &err),
				 bad_verdicts[i].status);
		assert_non_null(strstr(err.msg, bad_verdicts[i].msg));
	}
}

/* Evidence-specific attacks: bad base64, PCRs, bank, oversized fields. */
static void test_bad_evidence(void **state)
{
	static const struct {
		const char *from, *to, *msg;
	} edits[] = {
		{ "\"bank\":\"sha256\"", "\"bank\":\"md5\"", "not a PCR bank" },
		{ "\"10\":\"5a5a", "\"24\":\"5a5a", "bad PCR index \"24\"" },
		{ "\"10\":\"5a5a", "\"010\":\"5a5a", "bad PCR index" },
		{ "\"10\":\"5a5a", "\"10\":\"5a5", "PCR 10 needs 64 hex" },
		{ "\"agent\":\"node-01.lab\"", "\"agent\":\"../etc\"",
		  "characters outside" },
		{ "\"quote\":\"", "\"quote\":\" ", "not canonical base64" },
	};
	struct wire_evidence in, out;
	struct imt_error err;
	char *json, *p, buf[2048];
	size_t i;

	(void)state;
	fill_evidence(&in);
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		p = strstr(json, edits[i].from);
		assert_non_null(p);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - json), json,
			 edits[i].to, p + strlen(edits[i].from));
		assert_int_not_equal(wire_decode(WIRE_EVIDENCE, buf,
						 strlen(buf), &out, &err),
				     IMT_OK);
		assert_non_null(strstr(err.msg, edits[i].msg));
		assert_null(out.quote.data); /* nothing leaks */
	}
	free(json);
}

/* The hex of @n bytes of a nonce (each byte 0xab) into @out. */
static void nonce_hex(size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		memcpy(out + 2 * i, "ab", 2);
	out[2 * n] = '\0';
}

/*
 * Evidence and verdict nonces have the bounds the verifier's database
 * stores (16 to 64 bytes): a nonce of 8 bytes used to pass the decoder
 * and fail in storage (a 503 where the agent sent a bad body, a 400).
 */
static void test_nonce_bounds(void **state)
{
	static const struct {
		size_t bytes;
		enum imt_result rc;
	} cases[] = {
		{ 8, IMT_ERR_MALFORMED }, { 15, IMT_ERR_MALFORMED },
		{ 16, IMT_OK },		  { 32, IMT_OK },
		{ 64, IMT_OK },		  { 65, IMT_ERR_LIMIT },
	};
	struct wire_evidence in, out;
	struct wire_verdict vd;
	struct imt_error err;
	char hex[2 * 80 + 1], *json, *p, buf[4096];
	size_t i;

	(void)state;
	fill_evidence(&in);
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	p = strstr(json, "\"nonce\":\"");
	assert_non_null(p);
	p += strlen("\"nonce\":\"");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nonce_hex(cases[i].bytes, hex);
		print_message("nonce of %zu bytes\n", cases[i].bytes);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - json), json,
			 hex, p + 2 * in.nonce_len);
		assert_int_equal(wire_decode(WIRE_EVIDENCE, buf, strlen(buf),
					     &out, &err),
				 cases[i].rc);
		if (cases[i].rc == IMT_OK) {
			assert_int_equal(out.nonce_len, cases[i].bytes);
			wire_free(WIRE_EVIDENCE, &out);
		} else {
			assert_non_null(strstr(err.msg, "\"nonce\""));
			assert_null(out.quote.data);
		}
		snprintf(buf, sizeof(buf),
			 "{\"v\":1,\"state\":\"trusted\",\"nonce\":\"%s\","
			 "\"nonce_expires\":1,\"next_index\":0}",
			 hex);
		assert_int_equal(wire_decode(WIRE_VERDICT, buf, strlen(buf),
					     &vd, &err),
				 cases[i].rc);
		if (cases[i].rc != IMT_OK)
			assert_non_null(strstr(err.msg, "\"nonce\""));
	}
	free(json);

	/* and what is out of bounds is not sent either */
	fill_evidence(&in);
	in.nonce_len = 8;
	assert_null(wire_encode(WIRE_EVIDENCE, &in, &err));
	assert_non_null(strstr(err.msg, "\"nonce\""));
}

static void test_limits(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	char *json, *big;

	(void)state;
	fill_evidence(&in);
	in.records.len = WIRE_RECORDS_MAX + 1;
	in.records.data = calloc(1, in.records.len);
	assert_null(wire_encode(WIRE_EVIDENCE, &in, &err));
	free(in.records.data);

	/* A body over the maximum is refused before parsing. */
	big = calloc(1, WIRE_BODY_MAX + 2);
	memset(big, ' ', WIRE_BODY_MAX + 1);
	assert_int_equal(wire_decode(WIRE_EVIDENCE, big, WIRE_BODY_MAX + 1,
				     &out, &err),
			 IMT_ERR_LIMIT);
	free(big);

	/* A records field over its maximum inside a body under the maximum. */
	fill_evidence(&in);
	in.records.len = 0;
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	big = malloc(WIRE_BODY_MAX);
	{
		char *p = strstr(json, "\"records\":\"\"");
		size_t head = (size_t)(p - json) + 11;
		size_t n = WIRE_RECORDS_MAX + 65536;
		size_t b64 = (n + 2) / 3 * 4;

		memcpy(big, json, head);
		memset(big + head, 'A', b64);
		strcpy(big + head + b64, p + 11);
		assert_int_equal(wire_decode(WIRE_EVIDENCE, big, strlen(big),
					     &out, &err),
				 IMT_ERR_LIMIT);
		assert_non_null(strstr(err.msg, "\"records\""));
	}
	free(big);
	free(json);
}

/*
 * The framed form: the JSON text with each blob's length and the PCR
 * indices, a NUL byte, then the bytes in field order (quote, signature,
 * PCR values, records, boot log); the same message back.
 */
static void test_framed_round_trip(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	size_t i, len;
	char *body;

	(void)state;
	for (i = 0; i < sizeof(recs); i++)
		recs[i] = (uint8_t)(i % 7 == 0 ? 0 : i);
	for (i = 0; i < sizeof(quote); i++)
		quote[i] = (uint8_t)(3 * i);
	fill_evidence(&in);
	in.list_start = 40;
	in.boot_log = (struct wire_blob){ sig, sizeof(sig) };
	body = wire_encode_evidence_framed(&in, &len, &err);
	assert_non_null(body);
	assert_non_null(strstr(body, "\"records\":300"));
	assert_non_null(strstr(body, "\"quote\":100"));
	assert_non_null(strstr(body, "\"pcrs\":[0,10]"));
	assert_int_equal(len, strlen(body) + 1 + sizeof(quote) + sizeof(sig) +
				      2 * 32 + sizeof(recs) + sizeof(sig));
	/* the bytes in field order after the NUL byte */
	assert_memory_equal(body + strlen(body) + 1, quote, sizeof(quote));
	assert_memory_equal(body + len - sizeof(sig) - sizeof(recs), recs,
			    sizeof(recs));
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_OK);
	assert_string_equal(out.agent, "node-01.lab");
	assert_int_equal(out.nonce_len, 20);
	assert_ptr_equal(out.bank, in.bank);
	assert_int_equal(out.quote.len, sizeof(quote));
	assert_memory_equal(out.quote.data, quote, sizeof(quote));
	assert_int_equal(out.signature.len, sizeof(sig));
	assert_int_equal(out.records.len, sizeof(recs));
	assert_memory_equal(out.records.data, recs, sizeof(recs));
	assert_int_equal(out.boot_log.len, sizeof(sig));
	assert_int_equal(out.pcrs.present, in.pcrs.present);
	assert_memory_equal(out.pcrs.value[10], in.pcrs.value[10], 32);
	assert_memory_equal(out.pcrs.value[0], in.pcrs.value[0], 32);
	assert_int_equal(out.first_index, 42);
	assert_int_equal(out.list_start, 40);
	assert_int_equal(out.version, 3);
	wire_free(WIRE_EVIDENCE, &out);
	free(body);

	/* a heartbeat: no records, and no boot log */
	fill_evidence(&in);
	in.records.len = 0;
	body = wire_encode_evidence_framed(&in, &len, &err);
	assert_non_null(body);
	assert_non_null(strstr(body, "\"records\":0"));
	assert_null(strstr(body, "boot_log"));
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_OK);
	assert_int_equal(out.records.len, 0);
	assert_int_equal(out.version, 1);
	wire_free(WIRE_EVIDENCE, &out);
	free(body);
}

/*
 * @in framed, but its JSON text says @json_from where the encoder wrote
 * @json_to (same length or not), and @extra bytes of 0x11 go in at
 * @at bytes from the end of the body.
 */
static char *framed_edit(const struct wire_evidence *in, const char *json_to,
			 const char *json_from, size_t extra, size_t at,
			 size_t *len)
{
	struct imt_error err;
	size_t n, text_len, tail_len, from = strlen(json_from);
	char *body = wire_encode_evidence_framed(in, &n, &err), *p, *out;

	assert_non_null(body);
	p = strstr(body, json_to);
	assert_non_null(p);
	text_len = strlen(body) - strlen(json_to) + from;
	tail_len = n - strlen(body) - 1;
	assert_true(at <= tail_len);
	out = malloc(text_len + 1 + tail_len + extra);
	assert_non_null(out);
	memcpy(out, body, (size_t)(p - body));
	memcpy(out + (p - body), json_from, from);
	strcpy(out + (p - body) + from, p + strlen(json_to));
	memcpy(out + text_len + 1, body + strlen(body) + 1, tail_len - at);
	memset(out + text_len + 1 + tail_len - at, 0x11, extra);
	memcpy(out + text_len + 1 + tail_len - at + extra, body + n - at, at);
	*len = text_len + 1 + tail_len + extra;
	free(body);
	return out;
}

/* Each framed body that is wrong: refused, named, nothing leaked. */
static void test_framed_bad(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	char *json, *body;
	size_t len, n;

	(void)state;
	fill_evidence(&in);
	/* the JSON form has no NUL byte: not a framed body */
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_int_equal(wire_decode_evidence_framed(json, strlen(json), &out,
						     &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "no NUL byte"));
	/* ... nor with one after it: base64 where a count belongs */
	assert_int_equal(wire_decode_evidence_framed(json, strlen(json) + 1,
						     &out, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "\"quote\": framed, it is the count"));
	free(json);

	/* the JSON part is checked as ever: here not JSON at all */
	assert_int_equal(wire_decode_evidence_framed("{\"v\":\0xx", 9, &out,
						     &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "not a JSON object"));

	/* counts and bytes disagree: one byte short, one byte over */
	in.records.len = 10;
	body = framed_edit(&in, "\"records\":10", "\"records\":11", 0, 0, &len);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "\"records\": 11 bytes, 10 left"));
	free(body);
	body = framed_edit(&in, "\"records\":10", "\"records\":10", 1, 0, &len);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "1 bytes after the JSON text that no"));
	free(body);

	/* PCRs: in the JSON form's object, out of order, or short */
	body = framed_edit(&in, "\"pcrs\":[0,10]", "\"pcrs\":{\"0\":1}", 0, 0,
			   &len);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "list of PCR indices"));
	free(body);
	body = framed_edit(&in, "\"pcrs\":[0,10]", "\"pcrs\":[10,0]", 0, 0,
			   &len);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "must ascend"));
	free(body);
	body = framed_edit(&in, "\"pcrs\":[0,10]", "\"pcrs\":[0,10,24]", 0, 0,
			   &len);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_MALFORMED);
	free(body);
	body = framed_edit(&in, "\"pcrs\":[0,10]", "\"pcrs\":[0,10,11]", 0, 0,
			   &len);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "PCR 11 needs 32 bytes"));
	free(body);

	/* records below list_start: the checks see the bytes after it */
	in.list_start = 50;
	body = wire_encode_evidence_framed(&in, &len, &err);
	assert_non_null(body);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "below \"list_start\""));
	free(body);

	/* records over their maximum: 413's status */
	fill_evidence(&in);
	in.records.len = 0;
	n = WIRE_RECORDS_MAX + 1;
	body = framed_edit(&in, "\"records\":0", "\"records\":4194305", n, 0,
			   &len);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"records\": 4194305 bytes exceed"));
	free(body);
	/* at the maximum, with a boot log beside them: over the total */
	in.boot_log = (struct wire_blob){ sig, sizeof(sig) };
	body = framed_edit(&in, "\"records\":0", "\"records\":4194304",
			   WIRE_RECORDS_MAX, sizeof(sig), &len);
	assert_int_equal(wire_decode_evidence_framed(body, len, &out, &err),
			 IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"boot_log\""));
	free(body);

	/* the encoder refuses what the decoder would */
	fill_evidence(&in);
	in.records.len = WIRE_RECORDS_MAX + 1;
	in.records.data = calloc(1, in.records.len);
	assert_null(wire_encode_evidence_framed(&in, &len, &err));
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	free(in.records.data);

	/* a whole body over the maximum: refused before it is read */
	body = calloc(1, WIRE_BODY_MAX + 1);
	assert_int_equal(wire_decode_evidence_framed(body, WIRE_BODY_MAX + 1,
						     &out, &err),
			 IMT_ERR_LIMIT);
	free(body);
}

/* v3: list_start, list_start_pcr and export come back; v3 is written. */
static void test_history_round_trip(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	char *json;

	(void)state;
	fill_evidence(&in);
	in.first_index = 100;
	in.list_start = 100;
	memset(in.list_start_pcr, 0x3c, 32);
	in.list_start_pcr_len = 32;
	in.export_sync = 1;
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"v\":3"));
	assert_non_null(strstr(json, "\"export\":true"));
	assert_non_null(strstr(json, "\"list_start\":100"));
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_int_equal(out.version, 3);
	assert_int_equal(out.list_start, 100);
	assert_int_equal(out.list_start_pcr_len, 32);
	assert_memory_equal(out.list_start_pcr, in.list_start_pcr, 32);
	assert_int_equal(out.export_sync, 1);
	wire_free(WIRE_EVIDENCE, &out);
	free(json);

	/* export alone is v3 too; a v2 message cannot carry it */
	fill_evidence(&in);
	in.export_sync = 1;
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"v\":3"));
	assert_null(strstr(json, "list_start"));
	free(json);
	in.version = 2;
	assert_null(wire_encode(WIRE_EVIDENCE, &in, &err));
	assert_non_null(strstr(err.msg, "\"export\""));
}

/* Evidence without the v3 fields is written exactly as before. */
static void test_history_absent(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	char *json;

	(void)state;
	fill_evidence(&in);
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"v\":1"));
	assert_null(strstr(json, "list_start"));
	assert_null(strstr(json, "export"));
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_int_equal(out.list_start, 0);
	assert_int_equal(out.list_start_pcr_len, 0);
	assert_int_equal(out.export_sync, 0);
	wire_free(WIRE_EVIDENCE, &out);
	free(json);
}

/* Bounds of the v3 evidence fields, each with its own message. */
static void test_history_bad(void **state)
{
	static const struct {
		const char *add;
		int v;
		enum imt_result status;
		const char *msg;
	} bad[] = {
		{ ",\"list_start\":4611686018427387904", 3, IMT_ERR_LIMIT,
		  "\"list_start\": at most 2^62 - 1" },
		{ ",\"list_start\":-1", 3, IMT_ERR_MALFORMED,
		  "\"list_start\": not a non-negative integer" },
		{ ",\"list_start\":5", 2, IMT_ERR_MALFORMED,
		  "\"list_start\": not in protocol version 2" },
		{ ",\"export\":1", 3, IMT_ERR_MALFORMED,
		  "\"export\": not true or false" },
		{ ",\"export\":true", 1, IMT_ERR_MALFORMED,
		  "\"export\": not in protocol version 1" },
		{ ",\"list_start_pcr\":\"" N16 N16 "\"", 3, IMT_ERR_MALFORMED,
		  "\"list_start_pcr\": only with \"list_start\" above 0" },
		{ ",\"list_start\":0,\"list_start_pcr\":\"" N16 N16 "\"", 3,
		  IMT_ERR_MALFORMED, "only with \"list_start\" above 0" },
		{ ",\"list_start\":5,\"list_start_pcr\":\"" N16 "\"", 3,
		  IMT_ERR_MALFORMED,
		  "\"list_start_pcr\": 16 bytes, a sha256 "
		  "digest is 32" },
		{ ",\"list_start\":5,\"list_start_pcr\":\"zz\"", 3,
		  IMT_ERR_MALFORMED, "\"list_start_pcr\": needs" },
		{ ",\"list_start\":43", 3, IMT_ERR_MALFORMED,
		  "\"first_index\": 42 is below \"list_start\" 43" },
	};
	struct wire_evidence in, out;
	struct imt_error err;
	char *json, buf[2048];
	size_t i, n;

	(void)state;
	fill_evidence(&in);
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	n = strlen(json);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "{\"v\":%d,%.*s%s}", bad[i].v,
			 (int)(n - 8), json + 7, bad[i].add);
		print_message("%s\n", buf + strlen(buf) - 80);
		assert_int_equal(wire_decode(WIRE_EVIDENCE, buf, strlen(buf),
					     &out, &err),
				 bad[i].status);
		assert_non_null(strstr(err.msg, bad[i].msg));
		assert_null(out.quote.data);
	}
	/* records below the largest list start are refused ... */
	snprintf(buf, sizeof(buf), "{\"v\":3,%.*s%s}", (int)(n - 8), json + 7,
		 ",\"list_start\":4611686018427387903");
	assert_int_equal(wire_decode(WIRE_EVIDENCE, buf, strlen(buf), &out,
				     &err),
			 IMT_ERR_MALFORMED); /* records */
	free(json);
	/* ... a probe with it decodes */
	in.records.len = 0;
	in.first_index = WIRE_PROBE_INDEX;
	in.list_start = WIRE_PROBE_INDEX - 1;
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_int_equal(out.list_start, WIRE_PROBE_INDEX - 1);
	wire_free(WIRE_EVIDENCE, &out);
	free(json);
}

/* "stored_records" goes to a v3 agent, 0 included, never to a v2 one. */
static void test_verdict_stored(void **state)
{
	struct wire_verdict in, out;
	struct imt_error err;
	char *json;

	(void)state;
	memset(&in, 0, sizeof(in));
	strcpy(in.state, "trusted");
	memset(in.nonce, 1, 32);
	in.nonce_len = 32;
	in.has_stored_records = 1;
	json = wire_encode(WIRE_VERDICT, &in, &err);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"v\":3"));
	assert_non_null(strstr(json, "\"stored_records\":0"));
	assert_int_equal(wire_decode(WIRE_VERDICT, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_int_equal(out.has_stored_records, 1);
	assert_int_equal(out.stored_records, 0);
	free(json);
	in.stored_records = 1234;
	in.version = 3;
	json = wire_encode(WIRE_VERDICT, &in, &err);
	assert_non_null(json);
	assert_int_equal(wire_decode(WIRE_VERDICT, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_int_equal(out.stored_records, 1234);
	free(json);
	in.version = 2;
	assert_null(wire_encode(WIRE_VERDICT, &in, &err));
	assert_non_null(strstr(err.msg, "\"stored_records\""));
	in.has_stored_records = 0;
	json = wire_encode(WIRE_VERDICT, &in, &err);
	assert_non_null(json);
	assert_null(strstr(json, "stored_records"));
	assert_int_equal(wire_decode(WIRE_VERDICT, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_int_equal(out.has_stored_records, 0);
	free(json);
}

static uint8_t blog[1000];

/* v2 evidence carries the firmware event log; it comes back whole. */
static void test_boot_log_round_trip(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	size_t i;
	char *json;

	(void)state;
	for (i = 0; i < sizeof(blog); i++)
		blog[i] = (uint8_t)(i * 7);
	fill_evidence(&in);
	in.boot_log = (struct wire_blob){ blog, sizeof(blog) };
	in.version = 2;
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"v\":2"));
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_int_equal(out.version, 2);
	assert_int_equal(out.boot_log.len, sizeof(blog));
	assert_memory_equal(out.boot_log.data, blog, sizeof(blog));
	wire_free(WIRE_EVIDENCE, &out);
	assert_null(out.boot_log.data);
	free(json);

	/* a v1 peer cannot be told about a log: the encoder refuses */
	in.version = 1;
	assert_null(wire_encode(WIRE_EVIDENCE, &in, &err));
	assert_non_null(strstr(err.msg, "\"boot_log\""));
}

/* A v1 agent's evidence still decodes: version 1, no log. */
static void test_v1_evidence(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	char *json, *p;

	(void)state;
	fill_evidence(&in);
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	/* nothing of v2 in it: the lowest version is written */
	assert_non_null(strstr(json, "\"v\":1"));
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_int_equal(out.version, 1);
	assert_int_equal(out.boot_log.len, 0);
	assert_null(out.boot_log.data);
	wire_free(WIRE_EVIDENCE, &out);
	free(json);

	/* the field in a v1 message is refused, naming it */
	fill_evidence(&in);
	in.boot_log = (struct wire_blob){ blog, sizeof(blog) };
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	p = strstr(json, "\"v\":2");
	assert_non_null(p);
	p[4] = '1';
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "\"boot_log\": not in protocol"));
	assert_null(out.boot_log.data);
	assert_null(out.quote.data);
	free(json);
}

/* The verdict's "boot_log" travels only to a v2 agent. */
static void test_verdict_wanted(void **state)
{
	struct wire_verdict in, out;
	struct imt_error err;
	char *json;

	(void)state;
	memset(&in, 0, sizeof(in));
	strcpy(in.state, "trusted");
	memset(in.nonce, 1, 32);
	in.nonce_len = 32;
	strcpy(in.boot_log, "wanted");
	in.version = 2;
	json = wire_encode(WIRE_VERDICT, &in, &err);
	assert_non_null(json);
	assert_int_equal(wire_decode(WIRE_VERDICT, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	assert_string_equal(out.boot_log, "wanted");
	free(json);
	in.version = 1;
	assert_null(wire_encode(WIRE_VERDICT, &in, &err));
	/* no log wanted: a v1 agent reads the verdict as before */
	in.boot_log[0] = '\0';
	json = wire_encode(WIRE_VERDICT, &in, &err);
	assert_non_null(json);
	assert_null(strstr(json, "boot_log"));
	assert_non_null(strstr(json, "\"v\":1"));
	free(json);
}

/* Bad base64, a log over its cap, a log and records over theirs. */
static void test_boot_log_bad(void **state)
{
	struct wire_evidence in, out;
	struct imt_error err;
	char *json, *big, *p;
	size_t head, b64;

	(void)state;
	fill_evidence(&in);
	in.boot_log = (struct wire_blob){ blog, 3 };
	in.version = 2;
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	p = strstr(json, "\"boot_log\":\"");
	assert_non_null(p);
	p[12] = '*';
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "\"boot_log\": not canonical"));
	assert_null(out.boot_log.data);
	free(json);

	/* over WIRE_BOOT_LOG_MAX: refused by encoder and decoder */
	in.boot_log.len = WIRE_BOOT_LOG_MAX + 1;
	in.boot_log.data = calloc(1, in.boot_log.len);
	assert_null(wire_encode(WIRE_EVIDENCE, &in, &err));
	assert_non_null(strstr(err.msg, "\"boot_log\""));
	in.boot_log.len = 0;
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	big = malloc(WIRE_BODY_MAX);
	p = strstr(json, "\"records\":\"");
	head = (size_t)(p - json);
	b64 = (WIRE_BOOT_LOG_MAX + 3 + 2) / 3 * 4;
	memcpy(big, json, head);
	memcpy(big + head, "\"boot_log\":\"", 12);
	memset(big + head + 12, 'A', b64);
	memcpy(big + head + 12 + b64, "\",", 2);
	strcpy(big + head + 14 + b64, p);
	assert_int_equal(wire_decode(WIRE_EVIDENCE, big, strlen(big), &out,
				     &err),
			 IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"boot_log\""));
	assert_null(out.boot_log.data);

	/* records and log together over WIRE_RECORDS_MAX */
	in.boot_log.len = WIRE_BOOT_LOG_MAX;
	in.records.len = WIRE_RECORDS_MAX - WIRE_BOOT_LOG_MAX + 1;
	in.records.data = calloc(1, in.records.len);
	free(json);
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_non_null(json);
	assert_true(strlen(json) <= WIRE_BODY_MAX);
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"boot_log\""));
	assert_null(out.records.data);
	/* at the shared cap exactly: the largest legal body fits */
	in.records.len--;
	free(json);
	json = wire_encode(WIRE_EVIDENCE, &in, &err);
	assert_true(strlen(json) <= WIRE_BODY_MAX);
	assert_int_equal(wire_decode(WIRE_EVIDENCE, json, strlen(json), &out,
				     &err),
			 IMT_OK);
	wire_free(WIRE_EVIDENCE, &out);
	free(json);
	free(big);
	free(in.records.data);
	free(in.boot_log.data);
}

/* ---- the one-shot verification bundle (POST /v1/verify) ---- */

static uint8_t ak[90];

/* The evidence of fill_evidence() as a bundle: no agent, from record 0. */
static void fill_bundle(struct wire_bundle *b)
{
	memset(b, 0, sizeof(*b));
	fill_evidence(&b->ev);
	b->ev.agent[0] = '\0';
	b->ev.first_index = 0;
	strcpy(b->policy, "servers");
	b->ak_pub = (struct wire_blob){ ak, sizeof(ak) };
	b->ev.boot_log = (struct wire_blob){ blog, sizeof(blog) };
}

/* A valid bundle as a JSON object, for the cases to spoil. */
static json_t *bundle_valid(void)
{
	struct wire_bundle b;
	struct imt_error err;
	char *text;
	json_t *j;

	fill_bundle(&b);
	text = wire_encode(WIRE_BUNDLE, &b, &err);
	assert_non_null(text);
	j = json_loads(text, 0, NULL);
	assert_non_null(j);
	free(text);
	return j;
}

static enum imt_result bundle_decode(json_t *j, struct wire_bundle *b,
				     struct imt_error *err)
{
	char *text = json_dumps(j, JSON_COMPACT);
	enum imt_result rc;

	assert_non_null(text);
	rc = wire_decode(WIRE_BUNDLE, text, strlen(text), b, err);
	free(text);
	return rc;
}

static void test_bundle_round_trip(void **state)
{
	struct wire_bundle out;
	struct imt_error err;
	json_t *j = bundle_valid();

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(j, "v")), 1);
	assert_null(json_object_get(j, "agent"));
	assert_null(json_object_get(j, "first_index"));
	assert_int_equal(bundle_decode(j, &out, &err), IMT_OK);
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
static void test_bundle_optional(void **state)
{
	struct wire_bundle out;
	struct imt_error err;
	json_t *j = bundle_valid();

	(void)state;
	json_object_del(j, "policy");
	json_object_del(j, "boot_log");
	json_object_del(j, "ak_pub");
	json_object_set_new(j, "machine", json_string("web-3"));
	assert_int_equal(bundle_decode(j, &out, &err), IMT_OK);
	assert_string_equal(out.policy, "");
	assert_string_equal(out.machine, "web-3");
	assert_int_equal(out.ak_pub.len, 0);
	assert_int_equal(out.ev.boot_log.len, 0);
	wire_free(WIRE_BUNDLE, &out);
	json_decref(j);
}

struct bundle_case {
	const char *key;   /* the field to change */
	const char *value; /* its new JSON value, or NULL: removed */
	enum imt_result rc;
	const char *names; /* the error must contain this */
};

static const struct bundle_case bundle_cases[] = {
	{ "nonce", NULL, IMT_ERR_MALFORMED, "missing field \"nonce\"" },
	{ "bank", NULL, IMT_ERR_MALFORMED, "missing field \"bank\"" },
	{ "quote", NULL, IMT_ERR_MALFORMED, "missing field \"quote\"" },
	{ "signature", NULL, IMT_ERR_MALFORMED, "missing field \"signature\"" },
	{ "pcrs", NULL, IMT_ERR_MALFORMED, "missing field \"pcrs\"" },
	{ "records", NULL, IMT_ERR_MALFORMED, "missing field \"records\"" },
	{ "ak_pub", NULL, IMT_ERR_MALFORMED, "neither given" },
	{ "machine", "\"web-3\"", IMT_ERR_MALFORMED, "both given" },
	{ "machine", "\"a b\"", IMT_ERR_MALFORMED, "\"machine\"" },
	{ "machine", "7", IMT_ERR_MALFORMED, "\"machine\": not a string" },
	{ "policy", "\"\"", IMT_ERR_MALFORMED, "\"policy\"" },
	{ "policy", "\"../x\"", IMT_ERR_MALFORMED, "\"policy\"" },
	{ "policy",
	  "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
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
	{ "agent", "\"web-3\"", IMT_ERR_MALFORMED, "unknown field \"agent\"" },
	{ "v", "4", IMT_ERR_MALFORMED, "\"v\"" },
	{ "v", NULL, IMT_ERR_MALFORMED, "\"v\"" },
};

static void test_bundle_bad_fields(void **state)
{
	struct wire_bundle out;
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bundle_cases) / sizeof(bundle_cases[0]); i++) {
		const struct bundle_case *c = &bundle_cases[i];
		json_t *j = bundle_valid();

		if (c->value == NULL)
			json_object_del(j, c->key);
		else
			json_object_set_new(j, c->key,
					    json_loads(c->value,
						       JSON_DECODE_ANY, NULL));
		err.msg[0] = '\0';
		if (bundle_decode(j, &out, &err) != c->rc ||
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
static void test_bundle_bad_bodies(void **state)
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
	assert_int_equal(wire_decode(WIRE_BUNDLE, "{}", WIRE_BODY_MAX + 1, &out,
				     &err),
			 IMT_ERR_LIMIT);
}

/* Records and boot log share WIRE_RECORDS_MAX, as in evidence. */
static void test_bundle_total(void **state)
{
	static uint8_t big[WIRE_RECORDS_MAX - 10];
	struct wire_bundle in, out;
	struct imt_error err;
	char *text;

	(void)state;
	fill_bundle(&in);
	in.ev.records = (struct wire_blob){ big, sizeof(big) };
	text = wire_encode(WIRE_BUNDLE, &in, &err);
	assert_non_null(text);
	assert_int_equal(wire_decode(WIRE_BUNDLE, text, strlen(text), &out,
				     &err),
			 IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"boot_log\""));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evidence_round_trip),
		cmocka_unit_test(test_other_round_trips),
		cmocka_unit_test(test_bad_bodies),
		cmocka_unit_test(test_bad_evidence),
		cmocka_unit_test(test_nonce_bounds),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_boot_log_round_trip),
		cmocka_unit_test(test_v1_evidence),
		cmocka_unit_test(test_verdict_wanted),
		cmocka_unit_test(test_history_round_trip),
		cmocka_unit_test(test_history_absent),
		cmocka_unit_test(test_history_bad),
		cmocka_unit_test(test_verdict_stored),
		cmocka_unit_test(test_boot_log_bad),
		cmocka_unit_test(test_bundle_round_trip),
		cmocka_unit_test(test_bundle_optional),
		cmocka_unit_test(test_bundle_bad_fields),
		cmocka_unit_test(test_bundle_bad_bodies),
		cmocka_unit_test(test_bundle_total),
		cmocka_unit_test(test_framed_round_trip),
		cmocka_unit_test(test_framed_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
