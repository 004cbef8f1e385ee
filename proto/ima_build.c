// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_build.c - write binary measurement records.
 */
#include <string.h>

#include <openssl/evp.h>

#include "ima_build.h"
#include "ima_list.h"

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* SHA-1 template digest: see ima_replay.c for the two hash rules. */
static int template_sha1(int legacy, const uint8_t *data, size_t len,
			 const struct ima_build_field *fields, uint8_t *out)
{
	uint8_t name[IMA_EVENT_NAME_LEN_MAX + 1] = { 0 };
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok;

	ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha1(), NULL);
	if (ok && legacy) {
		memcpy(name, fields[1].data,
		       fields[1].len < sizeof(name) ? fields[1].len :
						      sizeof(name) - 1);
		ok = EVP_DigestUpdate(ctx, fields[0].data, fields[0].len) &&
		     EVP_DigestUpdate(ctx, name, sizeof(name));
	} else if (ok) {
		ok = EVP_DigestUpdate(ctx, data, len);
	}
	ok = ok && EVP_DigestFinal_ex(ctx, out, NULL);
	EVP_MD_CTX_free(ctx);
	return ok;
}

size_t ima_build_record(uint8_t *out, size_t outsz, uint32_t pcr,
			const char *name, const struct ima_build_field *fields,
			size_t n, int violation)
{
	int legacy = strcmp(name, "ima") == 0 && n == 2;
	size_t name_len = strlen(name), data_len = 0, size, i;
	uint8_t *p, *data;

	for (i = 0; i < n; i++)
		data_len += fields[i].len + (legacy && i == 0 ? 0 : 4);
	size = 4 + IMA_TEMPLATE_DIGEST_SIZE + 4 + name_len + (legacy ? 0 : 4) +
	       data_len;
	if (out == NULL || outsz < size)
		return size;
	p = out;
	put_le32(p, pcr);
	p += 4 + IMA_TEMPLATE_DIGEST_SIZE;
	put_le32(p, (uint32_t)name_len);
	memcpy(p + 4, name, name_len);
	p += 4 + name_len;
	if (!legacy) {
		put_le32(p, (uint32_t)data_len);
		p += 4;
	}
	data = p;
	for (i = 0; i < n; i++) {
		if (!(legacy && i == 0)) {
			put_le32(p, fields[i].len);
			p += 4;
		}
		memcpy(p, fields[i].data, fields[i].len);
		p += fields[i].len;
	}
	if (violation)
		memset(out + 4, 0, IMA_TEMPLATE_DIGEST_SIZE);
	else if (!template_sha1(legacy, data, data_len, fields, out + 4))
		return 0;
	return size;
}

uint32_t ima_build_digest_ng(uint8_t *out, const struct hash_algo *algo,
			     const uint8_t *digest)
{
	size_t n = strlen(algo->name);

	memcpy(out, algo->name, n);
	out[n] = ':';
	out[n + 1] = '\0';
	memcpy(out + n + 2, digest, algo->size);
	return (uint32_t)(n + 2 + algo->size);
}
