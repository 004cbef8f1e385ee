// SPDX-License-Identifier: GPL-2.0-only
/*
 * bankcheck - host check of a per-bank IMA measurement list.
 *
 *   bankcheck BANK_LIST ALG PCRS LEGACY_LIST
 *
 * BANK_LIST is binary_runtime_measurements_<ALG> as read in the guest,
 * PCRS the bank's PCR values ("INDEX HEX" lines), LEGACY_LIST the
 * binary_runtime_measurements read at the same time. Checks, printing a
 * "RESULT ok ..." or "RESULT fail: ..." line each:
 *   - extending zeroed PCRs with the listed digests, as listed, gives the
 *     bank's PCRs (no template hash recomputed);
 *   - the records equal the legacy list's but for the template digest;
 *     violations (all-zero SHA-1 digest) show all 0xff;
 *   - for templates other than 'ima', the digest is the bank's hash of
 *     the listed template data.
 * Exits 0 when all passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#define PCRS 24
#define LEGACY_DIGEST 20

struct rec {
	uint32_t pcr;
	const uint8_t *digest;
	const uint8_t *name; /* template name */
	uint32_t name_len;
	const uint8_t *rest; /* template data length (if any) + data */
	size_t rest_len;
	const uint8_t *data; /* template data */
	size_t data_len;
	size_t size;
};

static int failures;

static void result(int ok, const char *what, const char *detail)
{
	printf(ok ? "RESULT ok %s\n" : "RESULT fail: %s%s%s\n", what,
	       ok || !detail ? "" : ": ", ok || !detail ? "" : detail);
	failures += !ok;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f) {
		perror(path);
		exit(2);
	}
	do {
		if (*len == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				exit(2);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Parse the record at @p; 0 on a truncated or malformed record. */
static int parse(const uint8_t *p, size_t len, size_t dsize, struct rec *r)
{
	size_t off = 4 + dsize + 4, dlen;

	if (len < off)
		return 0;
	r->pcr = get32(p);
	r->digest = p + 4;
	r->name_len = get32(p + 4 + dsize);
	if (r->name_len > 255 || len - off < r->name_len)
		return 0;
	r->name = p + off;
	off += r->name_len;
	r->rest = p + off;
	if (r->name_len == 3 && !memcmp(r->name, "ima", 3)) {
		if (len - off < LEGACY_DIGEST + 4)
			return 0;
		dlen = LEGACY_DIGEST + 4 + get32(p + off + LEGACY_DIGEST);
		r->data = p + off;
	} else {
		if (len - off < 4)
			return 0;
		dlen = 4 + get32(p + off);
		r->data = p + off + 4;
	}
	if (len - off < dlen)
		return 0;
	r->rest_len = dlen;
	r->data_len = dlen - (r->data - r->rest);
	r->size = off + dlen;
	return r->pcr < PCRS;
}

static int unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned int b;

	while (s[0] && s[1] && s[0] != '\n' && n < max) {
		if (sscanf(s, "%2x", &b) != 1)
			return -1;
		out[n++] = b;
		s += 2;
	}
	return n;
}

int main(int argc, char **argv)
{
	uint8_t pcr[PCRS][EVP_MAX_MD_SIZE], want[PCRS][EVP_MAX_MD_SIZE];
	uint8_t md[EVP_MAX_MD_SIZE], ones[EVP_MAX_MD_SIZE];
	int used[PCRS] = { 0 }, have[PCRS] = { 0 };
	size_t blen, llen, boff = 0, loff = 0, dsize, nrec = 0;
	size_t viol = 0, diffs = 0, hashbad = 0, hashed = 0;
	const EVP_MD *alg;
	uint8_t *blist, *llist;
	char line[512], msg[256];
	struct rec b, l;
	EVP_MD_CTX *ctx;
	unsigned int mdlen;
	FILE *f;
	int i, bad = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: %s BANK_LIST ALG PCRS LEGACY_LIST\n",
			argv[0]);
		return 2;
	}
	alg = EVP_get_digestbyname(argv[2]);
	if (!alg)
		return 2;
	dsize = EVP_MD_get_size(alg);
	ctx = EVP_MD_CTX_new();
	blist = slurp(argv[1], &blen);
	llist = slurp(argv[4], &llen);
	memset(pcr, 0, sizeof(pcr));
	memset(ones, 0xff, sizeof(ones));

	f = fopen(argv[3], "r");
	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f)) {
		char *hex = strchr(line, ' ');

		i = atoi(line);
		if (hex && i >= 0 && i < PCRS &&
		    unhex(hex + 1, want[i], dsize) == (int)dsize)
			have[i] = 1;
	}
	fclose(f);

	while (boff < blen) {
		if (!parse(blist + boff, blen - boff, dsize, &b)) {
			snprintf(msg, sizeof(msg), "record %zu at %zu", nrec,
				 boff);
			result(0, "bank list parses", msg);
			return 1;
		}
		if (loff >= llen ||
		    !parse(llist + loff, llen - loff, LEGACY_DIGEST, &l) ||
		    l.pcr != b.pcr || l.name_len != b.name_len ||
		    memcmp(l.name, b.name, b.name_len) ||
		    l.rest_len != b.rest_len ||
		    memcmp(l.rest, b.rest, b.rest_len)) {
			diffs++;
			break;
		}
		if (l.digest[0] == 0 &&
		    !memcmp(l.digest, l.digest + 1, LEGACY_DIGEST - 1)) {
			viol++;
			if (memcmp(b.digest, ones, dsize))
				diffs++;
		} else if (!(b.name_len == 3 && !memcmp(b.name, "ima", 3))) {
			/* ima-ng and alike: hash of the listed fields */
			EVP_DigestInit_ex(ctx, alg, NULL);
			EVP_DigestUpdate(ctx, b.data, b.data_len);
			EVP_DigestFinal_ex(ctx, md, &mdlen);
			hashed++;
			if (memcmp(md, b.digest, dsize))
				hashbad++;
		}
		/* PCR = H(PCR || digest), with the digest as listed */
		EVP_DigestInit_ex(ctx, alg, NULL);
		EVP_DigestUpdate(ctx, pcr[b.pcr], dsize);
		EVP_DigestUpdate(ctx, b.digest, dsize);
		EVP_DigestFinal_ex(ctx, pcr[b.pcr], &mdlen);
		used[b.pcr] = 1;
		boff += b.size;
		loff += l.size;
		nrec++;
	}
	snprintf(msg, sizeof(msg), "%zu records, %zu differ", nrec, diffs);
	result(!diffs && loff == llen,
	       "records equal the legacy list's but for the digest; violations all 0xff",
	       msg);
	for (i = 0; i < PCRS; i++) {
		if (!used[i])
			continue;
		if (!have[i] || memcmp(pcr[i], want[i], dsize)) {
			snprintf(msg, sizeof(msg), "PCR %d differs", i);
			result(0, "bank list replays to the bank's PCRs", msg);
			bad = 1;
		}
	}
	snprintf(msg, sizeof(msg), "PCR 10 used: %s", used[10] ? "yes" : "no");
	if (!bad)
		result(used[10], "bank list replays to the bank's PCRs", msg);
	snprintf(msg, sizeof(msg), "%zu of %zu differ", hashbad, hashed);
	result(!hashbad, "digests are the bank's hash of the template data",
	       msg);
	printf("# %s: %zu records, %zu violations, %zu hashes recomputed\n",
	       argv[2], nrec, viol, hashed);
	EVP_MD_CTX_free(ctx);
	free(blist);
	free(llist);
	return failures ? 1 : 0;
}
