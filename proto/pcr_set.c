// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcr_set.c - PCR values of one bank: text input and boot_aggregate.
 */
#include <string.h>

#include <openssl/evp.h>

#include "hash_md.h"
#include "hex.h"
#include "pcr_set.h"

void pcr_set_init(struct pcr_set *set, const struct hash_algo *algo)
{
	memset(set, 0, sizeof(*set));
	set->algo = algo;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* PCR @index of @set from @hex_len hex digits, once; @lineno for errors. */
static enum imt_result set_value(struct pcr_set *set, unsigned long index,
				 const char *hex, size_t hex_len, size_t lineno,
				 struct imt_error *err)
{
	if (hex_len != 2 * set->algo->size ||
	    hex_decode(hex, hex_len, set->value[index], HASH_ALGO_MAX_SIZE) < 0)
		return imt_error_set(err, IMT_ERR_MALFORMED, lineno, IMT_NO_POS,
				     "line %zu: PCR %lu needs %zu hex digits for %s",
				     lineno, index, 2 * set->algo->size,
				     set->algo->name);
	if (set->present & (1u << index))
		return imt_error_set(err, IMT_ERR_MALFORMED, lineno, IMT_NO_POS,
				     "line %zu: PCR %lu given twice", lineno,
				     index);
	set->present |= 1u << index;
	return IMT_OK;
}

/* Parse one line "INDEX HEX" of @n bytes; @lineno counts from 1. */
static enum imt_result parse_line(struct pcr_set *set, const char *s, size_t n,
				  size_t lineno, struct imt_error *err)
{
	size_t i = 0, hex_start, hex_len;
	unsigned long index = 0;

	while (i < n && is_space(s[i]))
		i++;
	if (i == n || s[i] == '#')
		return IMT_OK;
	if (s[i] < '0' || s[i] > '9')
		goto bad_index;
	while (i < n && s[i] >= '0' && s[i] <= '9' && index < PCR_SET_COUNT)
		index = index * 10 + (unsigned long)(s[i++] - '0');
	if (index >= PCR_SET_COUNT || i == n || !is_space(s[i]))
		goto bad_index;
	while (i < n && is_space(s[i]))
		i++;
	hex_start = i;
	while (i < n && !is_space(s[i]))
		i++;
	hex_len = i - hex_start;
	while (i < n && is_space(s[i]))
		i++;
	if (i != n) /* more after the hex: not a value */
		hex_len = 0;
	return set_value(set, index, s + hex_start, hex_len, lineno, err);

bad_index:
	return imt_error_set(err, IMT_ERR_MALFORMED, lineno, IMT_NO_POS,
			     "line %zu: expected \"INDEX HEX\" with INDEX 0-%d",
			     lineno, PCR_SET_COUNT - 1);
}

enum imt_result pcr_set_parse_text(struct pcr_set *set, const char *buf,
				   size_t len, struct imt_error *err)
{
	size_t pos = 0, lineno = 0;
	enum imt_result rc;

	if (len > PCR_SET_TEXT_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "PCR text of %zu bytes exceeds %d", len,
				     PCR_SET_TEXT_MAX);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - (buf + pos)) : len - pos;

		rc = parse_line(set, buf + pos, n, ++lineno, err);
		if (rc != IMT_OK)
			return rc;
		pos += n + (nl != NULL);
	}
	return IMT_OK;
}

enum imt_result pcr_set_boot_aggregate(const struct pcr_set *set, uint8_t *out,
				       struct imt_error *err)
{
	int last = strcmp(set->algo->name, "sha1") == 0 ? 7 : 9;
	enum imt_result rc = IMT_OK;
	EVP_MD_CTX *ctx = NULL;
	int i;

	for (i = 0; i <= last; i++) {
		if (!(set->present & (1u << i)))
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     IMT_NO_POS,
					     "boot_aggregate (%s) needs PCRs 0-%d; PCR %d missing",
					     set->algo->name, last, i);
	}
	ctx = EVP_MD_CTX_new();
	if (ctx == NULL || !EVP_DigestInit_ex(ctx, hash_md(set->algo), NULL)) {
		rc = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				   IMT_NO_POS, "cannot hash with %s",
				   set->algo->name);
		goto out;
	}
	for (i = 0; i <= last; i++)
		EVP_DigestUpdate(ctx, set->value[i], set->algo->size);
	if (!EVP_DigestFinal_ex(ctx, out, NULL))
		rc = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				   IMT_NO_POS, "%s digest failed",
				   set->algo->name);
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

/* Whether @s[0..@n) names @set's bank (a section or a BANK: prefix). */
static int bank_is(const struct pcr_set *set, const char *s, size_t n)
{
	return strlen(set->algo->name) == n &&
	       memcmp(set->algo->name, s, n) == 0;
}

/*
 * One PCR value: INDEX and HEX (with or without 0x) into @set, unless
 * @mine says the value is of another bank.
 */
static enum imt_result put_value(struct pcr_set *set, int mine, const char *idx,
				 size_t idx_len, const char *hex,
				 size_t hex_len, size_t lineno,
				 struct imt_error *err)
{
	unsigned long index = 0;
	size_t i;

	if (idx_len == 0 || idx_len > 2)
		goto bad;
	for (i = 0; i < idx_len; i++) {
		if (idx[i] < '0' || idx[i] > '9')
			goto bad;
		index = index * 10 + (unsigned long)(idx[i] - '0');
	}
	if (index >= PCR_SET_COUNT)
		goto bad;
	if (hex_len > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) {
		hex += 2;
		hex_len -= 2;
	}
	if (!mine)
		return IMT_OK;
	return set_value(set, index, hex, hex_len, lineno, err);
bad:
	return imt_error_set(err, IMT_ERR_MALFORMED, lineno, IMT_NO_POS,
			     "line %zu: \"%.*s\" is not a PCR index 0-%d",
			     lineno, (int)(idx_len > 8 ? 8 : idx_len), idx,
			     PCR_SET_COUNT - 1);
}

/* A word [BANK:]INDEX=HEX; @section: whether the current one is ours. */
static enum imt_result word_value(struct pcr_set *set, int section,
				  const char *w, size_t n, size_t lineno,
				  struct imt_error *err)
{
	const char *end = w + n, *eq = memchr(w, '=', n), *colon;
	int mine = section;

	if (eq == NULL)
		return imt_error_set(err, IMT_ERR_MALFORMED, lineno, IMT_NO_POS,
				     "line %zu: expected [BANK:]PCR=HEX, "
				     "\"BANK:\" or \"PCR : 0xHEX\"",
				     lineno);
	colon = memchr(w, ':', (size_t)(eq - w));
	if (colon != NULL) {
		mine = bank_is(set, w, (size_t)(colon - w));
		w = colon + 1;
	}
	return put_value(set, mine, w, (size_t)(eq - w), eq + 1,
			 (size_t)(end - (eq + 1)), lineno, err);
}

/* The words of line @s[0..@n): a "BANK:" section, "INDEX : HEX",
 * "INDEX HEX", or [BANK:]INDEX=HEX words. @section is updated by a section line. */
static enum imt_result values_line(struct pcr_set *set, int *section,
				   const char *s, size_t n, size_t lineno,
				   struct imt_error *err)
{
	const char *w[3], *hash = memchr(s, '#', n);
	size_t wn[3], nw = 0, i = 0, start;
	enum imt_result rc = IMT_OK;
	int words;

	if (hash != NULL)
		n = (size_t)(hash - s);
	words = memchr(s, '=', n) != NULL;

	while (i < n && rc == IMT_OK) {
		while (i < n && is_space(s[i]))
			i++;
		if (i == n)
			break;
		start = i;
		while (i < n && !is_space(s[i]))
			i++;
		if (nw < 3) {
			w[nw] = s + start;
			wn[nw] = i - start;
		}
		nw++;
		if (words)
			rc = word_value(set, *section, s + start, i - start,
					lineno, err);
	}
	if (rc != IMT_OK || nw == 0 || words)
		return rc;
	/* tpm2_pcrread: "  sha256:" then "    0 : 0x3DCA..." */
	if (nw == 1 && wn[0] > 1 && w[0][wn[0] - 1] == ':') {
		*section = bank_is(set, w[0], wn[0] - 1);
		return IMT_OK;
	}
	if (nw == 3 && wn[1] == 1 && w[1][0] == ':')
		return put_value(set, *section, w[0], wn[0], w[2], wn[2],
				 lineno, err);
	/* its two-digit indices ("%-2d: 0x"): "    12: 0x3DCA..." */
	if (nw == 2 && wn[0] > 1 && w[0][wn[0] - 1] == ':')
		return put_value(set, *section, w[0], wn[0] - 1, w[1], wn[1],
				 lineno, err);
	/* pcr_set_parse_text()'s "INDEX HEX" */
	if (nw == 2)
		return put_value(set, *section, w[0], wn[0], w[1], wn[1],
				 lineno, err);
	return word_value(set, *section, w[0], wn[0], lineno, err);
}

enum imt_result pcr_set_parse_values(struct pcr_set *set, const char *buf,
				     size_t len, struct imt_error *err)
{
	size_t pos = 0, lineno = 0;
	int section = 1; /* before any "BANK:" line: the set's bank */
	enum imt_result rc;

	if (len > PCR_SET_TEXT_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "PCR text of %zu bytes exceeds %d", len,
				     PCR_SET_TEXT_MAX);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - (buf + pos)) : len - pos;

		rc = values_line(set, &section, buf + pos, n, ++lineno, err);
		if (rc != IMT_OK)
			return rc;
		pos += n + (nl != NULL);
	}
	return IMT_OK;
}
