// SPDX-License-Identifier: GPL-2.0-only
/*
 * wire.c - one table-driven JSON encoder and decoder for every message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "b64.h"
#include "grow.h"
#include "hex.h"
#include "wire.h"

enum field_type {
	F_ID,	/* char[]: agent id, [A-Za-z0-9._-]+ */
	F_WORD, /* char[]: [a-z_]+ */
	F_HEX,	/* uint8_t[] + size_t length */
	F_BLOB, /* struct wire_blob, base64 */
	F_U64,	/* uint64_t */
	F_BANK, /* const struct hash_algo *, a bank name */
	F_PCRS, /* struct pcr_set of the message's bank */
	F_BOOL, /* int, JSON true or false */
};

/* struct field's ->optional */
enum {
	REQUIRED,
	OPTIONAL, /* an empty F_BLOB, F_WORD, F_ID is left out */
	OPT_ZERO, /* also 0 (F_U64, F_BOOL) or no bytes (F_HEX) */
	OPT_FLAG, /* F_U64 sent when the int at ->len_off is set */
};

struct field {
	const char *key;
	enum field_type type;
	size_t off;	    /* of the value in the message struct */
	size_t len_off;	    /* F_HEX: of its size_t length; OPT_FLAG:
				 * of the int that says it is present */
	size_t min, max;    /* bytes (F_HEX, F_BLOB) or characters */
	int optional;	    /* REQUIRED, OPTIONAL, OPT_ZERO, OPT_FLAG */
	unsigned int since; /* the protocol version that added it; 0: 1 */
};

#define END \
	{ \
		NULL, 0, 0, 0, 0, 0, 0, 0 \
	}
#define ID(s, m) \
	{ \
#m, F_ID, offsetof(s, m), 0, 1, WIRE_ID_MAX, 0, 0 \
	}
#define BLOB(s, m, lo, hi, opt) \
	{ \
#m, F_BLOB, offsetof(s, m), 0, lo, hi, opt, 0 \
	}

static const struct field enroll_fields[] = {
	ID(struct wire_enroll, agent),
	BLOB(struct wire_enroll, ek_pub, 1, WIRE_TPM_BLOB_MAX, 0),
	BLOB(struct wire_enroll, ek_cert, 0, WIRE_CERT_MAX, 1),
	BLOB(struct wire_enroll, ak_pub, 1, WIRE_TPM_BLOB_MAX, 0),
	END,
};

static const struct field challenge_fields[] = {
	BLOB(struct wire_challenge, credential, 1, WIRE_TPM_BLOB_MAX, 0),
	BLOB(struct wire_challenge, secret, 1, WIRE_TPM_BLOB_MAX, 0),
	END,
};

static const struct field activate_fields[] = {
	ID(struct wire_activate, agent),
	{ "proof", F_HEX, offsetof(struct wire_activate, proof),
	  offsetof(struct wire_activate, proof_len), 32, 32, 0, 0 },
	END,
};

/* "bank" comes before "pcrs": the PCR values are sized by the bank. */
static const struct field evidence_fields[] = {
	ID(struct wire_evidence, agent),
	{ "nonce", F_HEX, offsetof(struct wire_evidence, nonce),
	  offsetof(struct wire_evidence, nonce_len), WIRE_NONCE_MIN,
	  WIRE_NONCE_MAX, 0, 0 },
	{ "bank", F_BANK, offsetof(struct wire_evidence, bank), 0, 0, 0, 0, 0 },
	BLOB(struct wire_evidence, quote, 1, WIRE_TPM_BLOB_MAX, 0),
	BLOB(struct wire_evidence, signature, 1, WIRE_TPM_BLOB_MAX, 0),
	{ "pcrs", F_PCRS, offsetof(struct wire_evidence, pcrs), 0, 0, 0, 0, 0 },
	{ "first_index", F_U64, offsetof(struct wire_evidence, first_index), 0,
	  0, 0, 0, 0 },
	BLOB(struct wire_evidence, records, 0, WIRE_RECORDS_MAX, 0),
	{ "more", F_U64, offsetof(struct wire_evidence, more), 0, 0, 0, 1, 0 },
	{ "boot_log", F_BLOB, offsetof(struct wire_evidence, boot_log), 0, 0,
	  WIRE_BOOT_LOG_MAX, 1, 2 },
	{ "list_start", F_U64, offsetof(struct wire_evidence, list_start), 0, 0,
	  0, OPT_ZERO, 3 },
	/* its length is the bank's: evidence_check() */
	{ "list_start_pcr", F_HEX,
	  offsetof(struct wire_evidence, list_start_pcr),
	  offsetof(struct wire_evidence, list_start_pcr_len), 1,
	  HASH_ALGO_MAX_SIZE, OPT_ZERO, 3 },
	{ "export", F_BOOL, offsetof(struct wire_evidence, export_sync), 0, 0,
	  0, OPT_ZERO, 3 },
	END,
};

static const struct field verdict_fields[] = {
	{ "state", F_WORD, offsetof(struct wire_verdict, state), 0, 1,
	  WIRE_STATE_MAX, 0, 0 },
	{ "nonce", F_HEX, offsetof(struct wire_verdict, nonce),
	  offsetof(struct wire_verdict, nonce_len), WIRE_NONCE_MIN,
	  WIRE_NONCE_MAX, 0, 0 },
	{ "nonce_expires", F_U64, offsetof(struct wire_verdict, nonce_expires),
	  0, 0, 0, 0, 0 },
	{ "next_index", F_U64, offsetof(struct wire_verdict, next_index), 0, 0,
	  0, 0, 0 },
	{ "nonce_ttl", F_U64, offsetof(struct wire_verdict, nonce_ttl), 0, 0, 0,
	  1, 0 },
	{ "boot_log", F_WORD, offsetof(struct wire_verdict, boot_log), 0, 1,
	  WIRE_STATE_MAX, 1, 2 },
	{ "stored_records", F_U64,
	  offsetof(struct wire_verdict, stored_records),
	  offsetof(struct wire_verdict, has_stored_records), 0, 0, OPT_FLAG,
	  3 },
	END,
};

static const struct field nonce_fields[] = {
	{ "nonce", F_HEX, offsetof(struct wire_nonce, nonce),
	  offsetof(struct wire_nonce, nonce_len), 8, WIRE_NONCE_MAX, 0, 0 },
	{ "nonce_expires", F_U64, offsetof(struct wire_nonce, nonce_expires), 0,
	  0, 0, 0, 0 },
	{ "nonce_ttl", F_U64, offsetof(struct wire_nonce, nonce_ttl), 0, 0, 0,
	  0, 0 },
	END,
};

/* The evidence fields at their place in a bundle; all of protocol v1. */
#define BUNDLE_EV(m) offsetof(struct wire_bundle, ev.m)
static const struct field bundle_fields[] = {
	{ "policy", F_ID, offsetof(struct wire_bundle, policy), 0, 1,
	  WIRE_ID_MAX, 1, 0 },
	{ "machine", F_ID, offsetof(struct wire_bundle, machine), 0, 1,
	  WIRE_ID_MAX, 1, 0 },
	BLOB(struct wire_bundle, ak_pub, 0, WIRE_TPM_BLOB_MAX, 1),
	{ "nonce", F_HEX, BUNDLE_EV(nonce), BUNDLE_EV(nonce_len),
	  WIRE_NONCE_MIN, WIRE_NONCE_MAX, 0, 0 },
	{ "bank", F_BANK, BUNDLE_EV(bank), 0, 0, 0, 0, 0 },
	{ "quote", F_BLOB, BUNDLE_EV(quote), 0, 1, WIRE_TPM_BLOB_MAX, 0, 0 },
	{ "signature", F_BLOB, BUNDLE_EV(signature), 0, 1, WIRE_TPM_BLOB_MAX, 0,
	  0 },
	{ "pcrs", F_PCRS, BUNDLE_EV(pcrs), 0, 0, 0, 0, 0 },
	{ "records", F_BLOB, BUNDLE_EV(records), 0, 0, WIRE_RECORDS_MAX, 0, 0 },
	{ "boot_log", F_BLOB, BUNDLE_EV(boot_log), 0, 0, WIRE_BOOT_LOG_MAX, 1,
	  0 },
	END,
};

/* version_off: of the unsigned int ->version, or NO_VERSION */
#define NO_VERSION ((size_t)-1)

static const struct {
	const struct field *fields;
	size_t size;
	size_t version_off;
} kinds[] = {
	[WIRE_ENROLL] = { enroll_fields, sizeof(struct wire_enroll),
			  NO_VERSION },
	[WIRE_CHALLENGE] = { challenge_fields, sizeof(struct wire_challenge),
			     NO_VERSION },
	[WIRE_ACTIVATE] = { activate_fields, sizeof(struct wire_activate),
			    NO_VERSION },
	[WIRE_EVIDENCE] = { evidence_fields, sizeof(struct wire_evidence),
			    offsetof(struct wire_evidence, version) },
	[WIRE_VERDICT] = { verdict_fields, sizeof(struct wire_verdict),
			   offsetof(struct wire_verdict, version) },
	[WIRE_NONCE] = { nonce_fields, sizeof(struct wire_nonce), NO_VERSION },
	[WIRE_BUNDLE] = { bundle_fields, sizeof(struct wire_bundle),
			  NO_VERSION },
};

#define AT(msg, off, type) ((type)((char *)(msg) + (off)))
#define CAT(msg, off, type) ((type)((const char *)(msg) + (off)))

static int valid_chars(const char *s, size_t n, int id)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || c == '_' ||
		    (id && ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    c == '.' || c == '-')))
			continue;
		return 0;
	}
	return n > 0;
}

int wire_id_ok(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	return n <= WIRE_ID_MAX && valid_chars(s, n, 1);
}

/* ---- encoding ---- */

static json_t *encode_blob(const struct wire_blob *b)
{
	char *s = malloc(B64_ENCODED_LEN(b->len) + 1);
	json_t *j;

	if (s == NULL)
		return NULL;
	b64_encode(b->data, b->len, s);
	j = json_string(s);
	free(s);
	return j;
}

static json_t *encode_pcrs(const struct pcr_set *set)
{
	json_t *obj = json_object();
	char key[4];
	int i;

	for (i = 0; obj != NULL && i < PCR_SET_COUNT; i++) {
		if (!(set->present & (1u << i)))
			continue;
		snprintf(key, sizeof(key), "%d", i);
		json_object_set_new(obj, key,
				    hex_json(set->value[i], set->algo->size));
	}
	return obj;
}

/*
 * The bytes after the JSON text of a framed body (wire.h): each blob's,
 * then each PCR value, in the order of the field table.
 */
struct frame {
	uint8_t *data;
	size_t len, cap;
	int failed; /* out of memory */
};

static void frame_add(struct frame *fr, const void *p, size_t n)
{
	uint8_t *data;

	if (fr->failed || n == 0)
		return;
	data = grow(fr->data, &fr->cap, fr->len + n, 4096);
	if (data == NULL) {
		fr->failed = 1;
		return;
	}
	fr->data = data;
	memcpy(fr->data + fr->len, p, n);
	fr->len += n;
}

/* Framed: the PCR indices in the JSON text, their values after it. */
static json_t *frame_pcrs(const struct pcr_set *set, struct frame *fr)
{
	json_t *list = json_array();
	int i;

	for (i = 0; list != NULL && i < PCR_SET_COUNT; i++) {
		if (!(set->present & (1u << i)))
			continue;
		json_array_append_new(list, json_integer(i));
		frame_add(fr, set->value[i], set->algo->size);
	}
	return list;
}

static json_t *encode_field(const struct field *f, const void *msg,
			    struct frame *fr)
{
	const struct hash_algo *bank;
	const struct wire_blob *b;
	const char *s;
	size_t n;

	switch (f->type) {
	case F_ID:
	case F_WORD:
		s = CAT(msg, f->off, const char *);
		n = strlen(s);
		return n >= f->min && n <= f->max &&
				       valid_chars(s, n, f->type == F_ID) ?
			       json_string(s) :
			       NULL;
	case F_HEX:
		n = *CAT(msg, f->len_off, const size_t *);
		return n >= f->min && n <= f->max ?
			       hex_json(CAT(msg, f->off, const uint8_t *), n) :
			       NULL;
	case F_BLOB:
		b = CAT(msg, f->off, const struct wire_blob *);
		if (b->len < f->min || b->len > f->max)
			return NULL;
		if (fr == NULL)
			return encode_blob(b);
		frame_add(fr, b->data, b->len); /* framed: its length */
		return json_integer((json_int_t)b->len);
	case F_U64:
		return json_integer(
			(json_int_t)*CAT(msg, f->off, const uint64_t *));
	case F_BANK:
		bank = *CAT(msg, f->off, const struct hash_algo *const *);
		return bank != NULL ? json_string(bank->name) : NULL;
	case F_PCRS:
		return fr != NULL ? frame_pcrs(CAT(msg, f->off,
						   const struct pcr_set *),
					       fr) :
				    encode_pcrs(CAT(msg, f->off,
						    const struct pcr_set *));
	case F_BOOL:
		return json_boolean(*CAT(msg, f->off, const int *) != 0);
	}
	return NULL;
}

/* An optional field that holds nothing is left out. */
static int absent(const struct field *f, const void *msg)
{
	if (!f->optional)
		return 0;
	if (f->type == F_BLOB)
		return CAT(msg, f->off, const struct wire_blob *)->len == 0;
	if (f->type == F_WORD || f->type == F_ID)
		return CAT(msg, f->off, const char *)[0] == '\0';
	if (f->optional == OPT_FLAG)
		return *CAT(msg, f->len_off, const int *) == 0;
	if (f->optional != OPT_ZERO)
		return 0;
	if (f->type == F_U64)
		return *CAT(msg, f->off, const uint64_t *) == 0;
	if (f->type == F_BOOL)
		return *CAT(msg, f->off, const int *) == 0;
	if (f->type == F_HEX)
		return *CAT(msg, f->len_off, const size_t *) == 0;
	return 0;
}

/* The version @msg says, or the lowest that carries its fields. */
static unsigned int encode_version(enum wire_kind kind, const void *msg)
{
	const struct field *f;
	unsigned int v = WIRE_VERSION_MIN;

	if (kinds[kind].version_off != NO_VERSION &&
	    *CAT(msg, kinds[kind].version_off, const unsigned int *) != 0)
		return *CAT(msg, kinds[kind].version_off, const unsigned int *);
	for (f = kinds[kind].fields; f->key != NULL; f++) {
		if (!absent(f, msg) && f->since > v)
			v = f->since;
	}
	return v;
}

/* The JSON text of @msg; with @fr, framed (its bytes go to @fr). */
static char *encode(enum wire_kind kind, const void *msg, struct frame *fr,
		    struct imt_error *err)
{
	unsigned int version = encode_version(kind, msg);
	const struct field *f;
	json_t *obj = json_object(), *v;
	char *text = NULL;

	if (version < WIRE_VERSION_MIN || version > WIRE_VERSION) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			      "protocol version %u is not %d to %d", version,
			      WIRE_VERSION_MIN, WIRE_VERSION);
		goto out;
	}
	json_object_set_new(obj, "v", json_integer(version));
	for (f = kinds[kind].fields; f->key != NULL; f++) {
		if (absent(f, msg))
			continue;
		if (f->since > version) {
			imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
				      IMT_NO_POS,
				      "field \"%s\" needs protocol version %u",
				      f->key, f->since);
			goto out;
		}
		v = encode_field(f, msg, fr);
		if (v == NULL || (fr != NULL && fr->failed)) {
			imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
				      IMT_NO_POS,
				      "field \"%s\" is empty, too long or invalid",
				      f->key);
			goto out;
		}
		json_object_set_new(obj, f->key, v);
	}
	text = json_dumps(obj, JSON_COMPACT);
	if (text == NULL)
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
out:
	json_decref(obj);
	return text;
}

char *wire_encode(enum wire_kind kind, const void *msg, struct imt_error *err)
{
	return encode(kind, msg, NULL, err);
}

/* ---- decoding ---- */

#define BAD(err, st, ...) \
	imt_error_set(err, st, IMT_NO_POS, IMT_NO_POS, __VA_ARGS__)

static enum imt_result decode_string(const struct field *f, json_t *v,
				     void *msg, struct imt_error *err)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);

	if (s == NULL)
		return BAD(err, IMT_ERR_MALFORMED, "\"%s\": not a string",
			   f->key);
	if (n > f->max)
		return BAD(err, IMT_ERR_LIMIT,
			   "\"%s\": longer than %zu characters", f->key,
			   f->max);
	if (!valid_chars(s, n, f->type == F_ID))
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"%s\": empty or has characters outside %s", f->key,
			   f->type == F_ID ? "[A-Za-z0-9._-]" : "[a-z_]");
	memcpy(AT(msg, f->off, char *), s, n + 1);
	return IMT_OK;
}

static enum imt_result decode_hex(const struct field *f, json_t *v,
				  uint8_t *out, size_t *out_len,
				  struct imt_error *err)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);

	if (s == NULL)
		return BAD(err, IMT_ERR_MALFORMED, "\"%s\": not a string",
			   f->key);
	if (n / 2 > f->max)
		return BAD(err, IMT_ERR_LIMIT, "\"%s\": more than %zu bytes",
			   f->key, f->max);
	if (n / 2 < f->min || hex_decode(s, n, out, f->max) < 0)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"%s\": needs %zu to %zu bytes of hex", f->key,
			   f->min, f->max);
	*out_len = n / 2;
	return IMT_OK;
}

static enum imt_result decode_blob(const struct field *f, json_t *v,
				   struct wire_blob *b, struct imt_error *err)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	long got;

	if (s == NULL)
		return BAD(err, IMT_ERR_MALFORMED, "\"%s\": not a string",
			   f->key);
	if (B64_DECODED_MAX(n) > f->max + 2)
		return BAD(err, IMT_ERR_LIMIT, "\"%s\": more than %zu bytes",
			   f->key, f->max);
	b->data = malloc(B64_DECODED_MAX(n) + 1);
	if (b->data == NULL)
		return BAD(err, IMT_ERR_INTERNAL, "out of memory");
	got = b64_decode(s, n, b->data);
	if (got < 0)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"%s\": not canonical base64", f->key);
	b->len = (size_t)got;
	if (b->len < f->min || b->len > f->max)
		return BAD(err,
			   b->len > f->max ? IMT_ERR_LIMIT : IMT_ERR_MALFORMED,
			   "\"%s\": %zu bytes, needs %zu to %zu", f->key,
			   b->len, f->min, f->max);
	return IMT_OK;
}

static enum imt_result decode_pcrs(const struct field *f, json_t *v,
				   struct pcr_set *set,
				   const struct hash_algo *bank,
				   struct imt_error *err)
{
	const char *key;
	json_t *value;
	size_t n;

	if (!json_is_object(v) || bank == NULL)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"%s\": not an object, or no bank", f->key);
	pcr_set_init(set, bank);
	json_object_foreach(v, key, value) {
		char *end;
		unsigned long i = strtoul(key, &end, 10);
		const char *s = json_string_value(value);

		if (*key < '0' || *key > '9' || *end != '\0' ||
		    i >= PCR_SET_COUNT || (key[0] == '0' && key[1] != '\0'))
			return BAD(err, IMT_ERR_MALFORMED,
				   "\"pcrs\": bad PCR index \"%.8s\"", key);
		n = json_string_length(value);
		if (s == NULL || n != 2 * bank->size ||
		    hex_decode(s, n, set->value[i], HASH_ALGO_MAX_SIZE) < 0)
			return BAD(err, IMT_ERR_MALFORMED,
				   "\"pcrs\": PCR %lu needs %zu hex digits", i,
				   2 * bank->size);
		set->present |= 1u << i;
	}
	return IMT_OK;
}

static enum imt_result decode_field(const struct field *f, json_t *v, void *msg,
				    const struct hash_algo *bank,
				    struct imt_error *err)
{
	const struct hash_algo *algo;

	switch (f->type) {
	case F_ID:
	case F_WORD:
		return decode_string(f, v, msg, err);
	case F_HEX:
		return decode_hex(f, v, AT(msg, f->off, uint8_t *),
				  AT(msg, f->len_off, size_t *), err);
	case F_BLOB:
		return decode_blob(f, v, AT(msg, f->off, struct wire_blob *),
				   err);
	case F_U64:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return BAD(err, IMT_ERR_MALFORMED,
				   "\"%s\": not a non-negative integer",
				   f->key);
		*AT(msg, f->off, uint64_t *) = (uint64_t)json_integer_value(v);
		if (f->optional == OPT_FLAG)
			*AT(msg, f->len_off, int *) = 1;
		return IMT_OK;
	case F_BOOL:
		if (!json_is_boolean(v))
			return BAD(err, IMT_ERR_MALFORMED,
				   "\"%s\": not true or false", f->key);
		*AT(msg, f->off, int *) = json_is_true(v);
		return IMT_OK;
	case F_BANK:
		algo = json_is_string(v) ?
			       hash_algo_bank(json_string_value(v)) :
			       NULL;
		if (algo == NULL)
			return BAD(err, IMT_ERR_UNSUPPORTED,
				   "\"%s\": not a PCR bank we verify", f->key);
		*AT(msg, f->off, const struct hash_algo **) = algo;
		return IMT_OK;
	case F_PCRS:
		return decode_pcrs(f, v, AT(msg, f->off, struct pcr_set *),
				   bank, err);
	}
	return BAD(err, IMT_ERR_INTERNAL, "bad field table");
}

/* Every key must be "v" or a field of the message: no silent extras. */
static const char *unknown_key(json_t *obj, const struct field *fields)
{
	const struct field *f;
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		if (strcmp(key, "v") == 0)
			continue;
		for (f = fields; f->key != NULL; f++) {
			if (strcmp(f->key, key) == 0)
				break;
		}
		if (f->key == NULL)
			return key;
	}
	return NULL;
}

/* Records and boot log share WIRE_RECORDS_MAX: the body stays in bounds. */
static enum imt_result evidence_total(const struct wire_evidence *ev,
				      struct imt_error *err)
{
	if (ev->boot_log.len > WIRE_RECORDS_MAX - ev->records.len)
		return BAD(err, IMT_ERR_LIMIT,
			   "\"boot_log\": %zu bytes with %zu of \"records\" exceed %u",
			   ev->boot_log.len, ev->records.len, WIRE_RECORDS_MAX);
	return IMT_OK;
}

/*
 * What the evidence's field table cannot say: "list_start" below the
 * probe index; "list_start_pcr" only after deleted records, one digest
 * of the quoted bank; no records below "list_start" (the kernel has
 * none).
 */
static enum imt_result evidence_check(const struct wire_evidence *ev,
				      struct imt_error *err)
{
	if (ev->list_start >= WIRE_PROBE_INDEX)
		return BAD(err, IMT_ERR_LIMIT,
			   "\"list_start\": at most 2^62 - 1");
	if (ev->list_start_pcr_len > 0 && ev->list_start == 0)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"list_start_pcr\": only with \"list_start\" above 0");
	if (ev->list_start_pcr_len > 0 &&
	    ev->list_start_pcr_len != ev->bank->size)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"list_start_pcr\": %zu bytes, a %s digest is %zu",
			   ev->list_start_pcr_len, ev->bank->name,
			   ev->bank->size);
	if (ev->records.len > 0 && ev->first_index < ev->list_start)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"first_index\": %llu is below \"list_start\" %llu",
			   (unsigned long long)ev->first_index,
			   (unsigned long long)ev->list_start);
	return evidence_total(ev, err);
}

/* What a bundle's field table cannot say: one AK, given or enrolled. */
static enum imt_result bundle_check(const struct wire_bundle *b,
				    struct imt_error *err)
{
	if ((b->machine[0] != '\0') == (b->ak_pub.len > 0))
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"machine\" or \"ak_pub\": exactly one of them (%s)",
			   b->machine[0] != '\0' ? "both given" :
						   "neither given");
	return evidence_total(&b->ev, err);
}

/* The bytes after a framed body's JSON text, taken in field order. */
struct tail {
	const uint8_t *data;
	size_t len;
	size_t used;
};

/* The count a framed field gives for its bytes; -1 when it is none. */
static long long tail_count(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 ?
		       (long long)json_integer_value(v) :
		       -1;
}

/* Framed: @v is the blob's length, its bytes are next after the JSON. */
static enum imt_result take_blob(const struct field *f, json_t *v,
				 struct wire_blob *b, struct tail *t,
				 struct imt_error *err)
{
	long long n = tail_count(v);

	if (n < 0)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"%s\": framed, it is the count of its bytes after the JSON text",
			   f->key);
	if ((unsigned long long)n > f->max)
		return BAD(err, IMT_ERR_LIMIT, "\"%s\": %lld bytes exceed %zu",
			   f->key, n, f->max);
	if ((size_t)n < f->min)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"%s\": %lld bytes, needs %zu to %zu", f->key, n,
			   f->min, f->max);
	if ((size_t)n > t->len - t->used)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"%s\": %lld bytes, %zu left after the JSON text",
			   f->key, n, t->len - t->used);
	b->data = malloc((size_t)n + 1);
	if (b->data == NULL)
		return BAD(err, IMT_ERR_INTERNAL, "out of memory");
	if (n > 0)
		memcpy(b->data, t->data + t->used, (size_t)n);
	b->len = (size_t)n;
	t->used += (size_t)n;
	return IMT_OK;
}

/* Framed: @v lists the PCR indices, ascending; their values are next. */
static enum imt_result take_pcrs(const struct field *f, json_t *v,
				 struct pcr_set *set,
				 const struct hash_algo *bank, struct tail *t,
				 struct imt_error *err)
{
	long long i, last = -1;
	size_t k;

	if (!json_is_array(v) || bank == NULL)
		return BAD(err, IMT_ERR_MALFORMED,
			   "\"%s\": framed, it is the list of PCR indices, or no bank",
			   f->key);
	pcr_set_init(set, bank);
	for (k = 0; k < json_array_size(v); k++) {
		i = tail_count(json_array_get(v, k));
		if (i <= last || i >= PCR_SET_COUNT)
			return BAD(err, IMT_ERR_MALFORMED,
				   "\"%s\": PCR indices must ascend, below %d",
				   f->key, PCR_SET_COUNT);
		if (bank->size > t->len - t->used)
			return BAD(err, IMT_ERR_MALFORMED,
				   "\"%s\": PCR %lld needs %zu bytes, %zu left after the JSON text",
				   f->key, i, bank->size, t->len - t->used);
		memcpy(set->value[i], t->data + t->used, bank->size);
		t->used += bank->size;
		set->present |= 1u << i;
		last = i;
	}
	return IMT_OK;
}

static enum imt_result decode(enum wire_kind kind, const char *json, size_t len,
			      struct tail *tail, void *msg,
			      struct imt_error *err)
{
	const struct field *f, *fields = kinds[kind].fields;
	const struct hash_algo *bank = NULL;
	enum imt_result rc = IMT_OK;
	json_error_t jerr;
	const char *extra;
	json_int_t version;
	json_t *obj, *v;

	memset(msg, 0, kinds[kind].size);
	if (len > WIRE_BODY_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "body of %zu bytes exceeds %u", len,
				     WIRE_BODY_MAX);
	obj = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(obj)) {
		rc = imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				   IMT_NO_POS, "not a JSON object: %s",
				   obj == NULL ? jerr.text : "other type");
		goto out;
	}
	v = json_object_get(obj, "v");
	version = json_is_integer(v) ? json_integer_value(v) : 0;
	if (version < WIRE_VERSION_MIN || version > WIRE_VERSION) {
		rc = imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				   IMT_NO_POS,
				   "protocol version \"v\" must be %d to %d",
				   WIRE_VERSION_MIN, WIRE_VERSION);
		goto out;
	}
	if (kinds[kind].version_off != NO_VERSION)
		*AT(msg, kinds[kind].version_off, unsigned int *) =
			(unsigned int)version;
	extra = unknown_key(obj, fields);
	if (extra != NULL) {
		rc = imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				   IMT_NO_POS, "unknown field \"%.32s\"",
				   extra);
		goto out;
	}
	for (f = fields; rc == IMT_OK && f->key != NULL; f++) {
		v = json_object_get(obj, f->key);
		if (v != NULL && f->since > version)
			rc = imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					   IMT_NO_POS,
					   "\"%s\": not in protocol version %d (needs %u)",
					   f->key, (int)version, f->since);
		else if (v == NULL && !f->optional)
			rc = imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					   IMT_NO_POS, "missing field \"%s\"",
					   f->key);
		else if (v != NULL && tail != NULL && f->type == F_BLOB)
			rc = take_blob(f, v,
				       AT(msg, f->off, struct wire_blob *),
				       tail, err);
		else if (v != NULL && tail != NULL && f->type == F_PCRS)
			rc = take_pcrs(f, v, AT(msg, f->off, struct pcr_set *),
				       bank, tail, err);
		else if (v != NULL)
			rc = decode_field(f, v, msg, bank, err);
		if (rc == IMT_OK && f->type == F_BANK)
			bank = *AT(msg, f->off, const struct hash_algo **);
	}
	if (rc == IMT_OK && tail != NULL && tail->used != tail->len)
		rc = BAD(err, IMT_ERR_MALFORMED,
			 "%zu bytes after the JSON text that no field counts",
			 tail->len - tail->used);
	if (rc == IMT_OK && kind == WIRE_EVIDENCE)
		rc = evidence_check(msg, err);
	if (rc == IMT_OK && kind == WIRE_BUNDLE)
		rc = bundle_check(msg, err);
out:
	json_decref(obj);
	if (rc != IMT_OK)
		wire_free(kind, msg);
	return rc;
}

enum imt_result wire_decode(enum wire_kind kind, const char *json, size_t len,
			    void *msg, struct imt_error *err)
{
	return decode(kind, json, len, NULL, msg, err);
}

enum imt_result wire_decode_evidence_framed(const char *body, size_t len,
					    struct wire_evidence *ev,
					    struct imt_error *err)
{
	const char *nul;
	struct tail t;

	memset(ev, 0, sizeof(*ev));
	if (len > WIRE_BODY_MAX)
		return BAD(err, IMT_ERR_LIMIT, "body of %zu bytes exceeds %u",
			   len, WIRE_BODY_MAX);
	/* JSON text holds no NUL byte: the first one ends it */
	nul = memchr(body, '\0', len);
	if (nul == NULL)
		return BAD(err, IMT_ERR_MALFORMED,
			   "no NUL byte after the JSON text");
	t = (struct tail){
		.data = (const uint8_t *)nul + 1,
		.len = len - (size_t)(nul + 1 - body),
	};
	return decode(WIRE_EVIDENCE, body, (size_t)(nul - body), &t, ev, err);
}

char *wire_encode_evidence_framed(const struct wire_evidence *ev, size_t *len,
				  struct imt_error *err)
{
	struct frame fr = { 0 };
	char *text, *body = NULL;
	size_t n;

	/* what the JSON form's bounds refuse, the framed one does too */
	if (evidence_total(ev, err) != IMT_OK)
		return NULL;
	text = encode(WIRE_EVIDENCE, ev, &fr, err);
	if (text != NULL) {
		n = strlen(text);
		body = realloc(text, n + 1 + fr.len);
		if (body == NULL)
			free(text);
	}
	if (body != NULL) {
		body[n] = '\0';
		if (fr.len > 0)
			memcpy(body + n + 1, fr.data, fr.len);
		*len = n + 1 + fr.len;
	} else if (text != NULL) {
		BAD(err, IMT_ERR_INTERNAL, "out of memory");
	}
	free(fr.data);
	return body;
}

void wire_free(enum wire_kind kind, void *msg)
{
	const struct field *f;

	for (f = kinds[kind].fields; f->key != NULL; f++) {
		if (f->type == F_BLOB) {
			struct wire_blob *b =
				AT(msg, f->off, struct wire_blob *);

			free(b->data);
			b->data = NULL;
			b->len = 0;
		}
	}
}
