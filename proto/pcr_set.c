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

/* Parse one line "INDEX HEX" of @n bytes; @lineno counts from 1. */
static enum imt_result parse_line(struct pcr_set *set, const char *s,
				  size_t n, size_t lineno,
				  struct imt_error *err)
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
	if (i != n || hex_len != 2 * set->algo->size ||
	    hex_decode(s + hex_start, hex_len, set->value[index],
		       HASH_ALGO_MAX_SIZE) < 0)
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

enum imt_result pcr_set_boot_aggregate(const struct pcr_set *set,
				       uint8_t *out, struct imt_error *err)
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
	if (ctx == NULL ||
	    !EVP_DigestInit_ex(ctx, hash_md(set->algo), NULL)) {
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
