// SPDX-License-Identifier: GPL-2.0-only
/*
 * attest_probe.c - speak the agent protocol one step at a time, honestly
 * or not, so integration tests can send the evidence a real agent never
 * would: a quote signed by another AK, a replayed or expired nonce, a list
 * with a record altered, removed or swapped.
 *
 *	attest_probe enroll [-o] [-w] [-E EK_PUB] [-C CERT|none] [-c CHAIN]
 *			[-x restricted|fixedtpm]
 *	attest_probe activate [-w]
 *	attest_probe ek OUT
 *	attest_probe flood N
 *	attest_probe nonce
 *	attest_probe evidence LIST [-f FROM] [-n COUNT] [-m]
 *			[-t alter:K|drop:K|swap:K|other:K] [-a OTHER_AK_DIR]
 *			[-b BANK] [-k] [-L START [-N|-X]] [-e]
 *
 * Environment: IMATRUST_TCTI (the TPM), PROBE_URL, PROBE_CA, PROBE_ID,
 * PROBE_STATE (a directory: the AK blob, the last nonce, a saved
 * challenge) and PROBE_ALG (rsa, the default, or ecc: EK and AK). -k
 * keeps the nonce file, so the next call replays the same nonce. -n
 * sends at most COUNT records and -m says "more" follow, as an agent
 * does when its list does not fit one message.
 *
 * Deleted records (protocol v3): -L says the kernel's list starts at
 * START (list_start) with list_start_pcr the replay of LIST's records
 * before it in the quoted bank; -N leaves that value out, -X flips a
 * byte of it. -e asks for a durable answer ("export"). A verdict's
 * stored_records is printed after next_index when it carries one.
 *
 * Enrollment attacks: -E sends another EK public area (TPM2B_PUBLIC, a
 * stranger's copy of a real EK) with this TPM's AK; -C another EK
 * certificate (DER) or none; -c appends intermediate certificates (DER)
 * to it; -x clears an AK attribute in what is sent; -w sends a wrong
 * proof; -o only enrolls and keeps the challenge for "activate". "ek"
 * writes the TPM's EK public area to OUT and its certificate to
 * OUT.der. "flood" sends N enrollments with made-up EKs (the TPM's EK
 * with its modulus altered: no TPM has them) on one connection and
 * prints how they were answered: "201=A 429=B 503=C other=D".
 * Prints "status=N state=S next_index=I" (or "status=N error=...").
 * Exit: 0 on a 2xx answer, 1 on another answer, 2 on usage/local errors.
 */
#include <fcntl.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/hmac.h>

#include "client.h"
#include "hex.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "tpm.h"
#include "wire.h"

#define LIST_MAX (8u << 20)

static const char *env(const char *name)
{
	const char *v = getenv(name);

	if (v == NULL) {
		fprintf(stderr, "attest_probe: %s is not set\n", name);
		exit(2);
	}
	return v;
}

static void die(const char *what)
{
	fprintf(stderr, "attest_probe: %s\n", what);
	exit(2);
}

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", env("PROBE_STATE"), name);
}

static void save_nonce(const uint8_t *nonce, size_t len)
{
	char path[4096], hex[2 * WIRE_NONCE_MAX + 2];
	FILE *f;

	path_of(path, sizeof(path), "nonce");
	hex_encode(nonce, len, hex);
	f = fopen(path, "w");
	if (f == NULL || fprintf(f, "%s\n", hex) < 0 || fclose(f) != 0)
		die("cannot save the nonce");
}

static void load_nonce(uint8_t *nonce, size_t *len)
{
	char path[4096], hex[2 * WIRE_NONCE_MAX + 2] = "";
	FILE *f;

	path_of(path, sizeof(path), "nonce");
	f = fopen(path, "r");
	if (f == NULL || fscanf(f, "%129s", hex) != 1)
		die("no saved nonce");
	fclose(f);
	*len = strlen(hex) / 2;
	if (hex_decode(hex, strlen(hex), nonce, WIRE_NONCE_MAX) < 0)
		die("bad saved nonce");
}

/* The agent's client for $PROBE_URL, trusting $PROBE_CA. */
static struct client *probe_client(void)
{
	struct client_opts o;

	client_opts_init(&o, env("PROBE_URL"), env("PROBE_CA"));
	return client_new(&o);
}

/* Print the answer of @kind (a verdict or a nonce) and save its nonce. */
static int take_answer(enum wire_kind kind, const struct client_reply *r,
		       int keep)
{
	struct wire_verdict v;
	struct wire_nonce n;
	struct imt_error err;

	if (wire_decode(kind, r->body, r->len,
			kind == WIRE_NONCE ? (void *)&n : (void *)&v,
			&err) != IMT_OK) {
		printf("status=200 error=%s\n", err.msg);
		return 1;
	}
	if (kind == WIRE_NONCE) {
		printf("status=200 nonce_len=%zu nonce_ttl=%llu\n", n.nonce_len,
		       (unsigned long long)n.nonce_ttl);
		if (!keep)
			save_nonce(n.nonce, n.nonce_len);
		return 0;
	}
	printf("status=200 state=%s next_index=%llu", v.state,
	       (unsigned long long)v.next_index);
	if (v.has_stored_records)
		printf(" stored_records=%llu",
		       (unsigned long long)v.stored_records);
	printf("\n");
	if (!keep)
		save_nonce(v.nonce, v.nonce_len);
	return 0;
}

/* POST and print the answer; its nonce is saved unless @keep. */
static int post(const char *path, const char *json, int keep,
		enum wire_kind kind)
{
	struct client *c = probe_client();
	struct client_reply r = { 0 };
	int rc = 1;

	if (c == NULL)
		die("no client");
	if (client_post(c, path, json, &r) < 0)
		printf("status=0 error=%s\n", r.error);
	else if (r.status != 200)
		printf("status=%ld error=%s\n", r.status, r.body ? r.body : "");
	else
		rc = take_answer(kind, &r, keep);
	client_reply_free(&r);
	client_free(c);
	return rc;
}

static enum tpm_key_alg probe_alg(void)
{
	const char *a = getenv("PROBE_ALG");

	return a != NULL && strcmp(a, "ecc") == 0 ? TPM_KEY_ECC : TPM_KEY_RSA;
}

static struct tpm *open_keys(const char *ak_dir, struct tpm_ek *ek,
			     struct tpm_ak *ak)
{
	struct tpm *t;

	if (tpm_open(env("IMATRUST_TCTI"), &t) != TPM_OK ||
	    tpm_ek_load(t, probe_alg(), ek) != TPM_OK ||
	    tpm_ak_load(t, ak_dir, probe_alg(), ak) != TPM_OK)
		die("TPM keys");
	return t;
}

/* Read @path whole into @buf of @max bytes; the length. */
static size_t slurp(const char *path, uint8_t *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		die("cannot read a file given");
	n = fread(buf, 1, max, f);
	fclose(f);
	return n;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		die("cannot write a file");
}

/* What "enroll" sends, and how it misbehaves. */
struct enroll_opts {
	const char *ek_file;	/* -E */
	const char *cert_file;	/* -C */
	const char *chain_file; /* -c */
	const char *clear_attr; /* -x */
	int wrong;		/* -w */
	int only;		/* -o */
};

static void enroll_opts(int argc, char **argv, struct enroll_opts *o)
{
	int ch;

	memset(o, 0, sizeof(*o));
	while ((ch = getopt(argc, argv, "E:C:c:x:wo")) != -1) {
		switch (ch) {
		case 'E':
			o->ek_file = optarg;
			break;
		case 'C':
			o->cert_file = optarg;
			break;
		case 'c':
			o->chain_file = optarg;
			break;
		case 'x':
			o->clear_attr = optarg;
			break;
		case 'w':
			o->wrong = 1;
			break;
		case 'o':
			o->only = 1;
			break;
		default:
			die("usage: enroll [-o] [-w] [-E EK] [-C CERT] [-c CHAIN] "
			    "[-x ATTR]");
		}
	}
}

/* Apply -E, -C, -c, -x to the keys @e sends. */
static void misbehave(const struct enroll_opts *o, struct tpm_ek *ek,
		      struct tpm_ak *ak, struct wire_enroll *e)
{
	static uint8_t other_ek[TPM_BLOB_MAX], cert[3 * TPM_CERT_MAX];
	size_t n = ek->cert_len;

	memcpy(cert, ek->cert, n);
	if (o->cert_file != NULL)
		n = strcmp(o->cert_file, "none") == 0 ?
			    0 :
			    slurp(o->cert_file, cert, TPM_CERT_MAX);
	if (o->chain_file != NULL)
		n += slurp(o->chain_file, cert + n, sizeof(cert) - n);
	e->ek_cert = (struct wire_blob){ cert, n };
	if (o->ek_file != NULL)
		e->ek_pub = (struct wire_blob){
			other_ek, slurp(o->ek_file, other_ek, sizeof(other_ek))
		};
	/* objectAttributes: bytes 6..9 of the TPM2B_PUBLIC, big-endian */
	if (o->clear_attr != NULL && strcmp(o->clear_attr, "restricted") == 0)
		ak->pub[7] &= (uint8_t)~0x01; /* bit 16 */
	else if (o->clear_attr != NULL)
		ak->pub[9] &= (uint8_t)~0x02; /* fixedTPM, bit 1 */
}

/* The saved challenge of "enroll -o", for "activate". */
static void challenge_path(char *out, size_t len)
{
	path_of(out, len, "challenge.json");
}

/* ActivateCredential on @body (a challenge) and POST the proof. */
static int activate_with(struct tpm *t, const char *id, const char *body,
			 size_t len, int wrong)
{
	struct wire_activate a = { 0 };
	struct wire_challenge ch;
	uint8_t secret[TPM_SECRET_MAX];
	struct imt_error err;
	unsigned int mlen;
	size_t slen;
	char path[512], *json;
	int rc;

	if (wire_decode(WIRE_CHALLENGE, body, len, &ch, &err) != IMT_OK)
		die(err.msg);
	if (tpm_activate_credential(t, ch.credential.data, ch.credential.len,
				    ch.secret.data, ch.secret.len, secret,
				    &slen) != TPM_OK)
		die("ActivateCredential");
	wire_free(WIRE_CHALLENGE, &ch);
	snprintf(a.agent, sizeof(a.agent), "%s", id);
	HMAC(EVP_sha256(), secret, (int)slen, (const uint8_t *)a.agent,
	     strlen(a.agent), a.proof, &mlen);
	a.proof_len = mlen;
	if (wrong)
		a.proof[mlen - 1] ^= 0x01; /* well-formed, wrong */
	json = wire_encode(WIRE_ACTIVATE, &a, &err);
	snprintf(path, sizeof(path), "/v1/agents/%s/activate", a.agent);
	rc = post(path, json, 0, WIRE_VERDICT);
	free(json);
	return rc;
}

static int enroll(int argc, char **argv)
{
	struct wire_enroll e = { 0 };
	struct client *c = probe_client();
	struct client_reply r = { 0 };
	struct enroll_opts o;
	struct imt_error err;
	struct tpm_ek ek;
	struct tpm_ak ak;
	char *json, path[4096];
	struct tpm *t;
	int rc;

	enroll_opts(argc, argv, &o);
	t = open_keys(env("PROBE_STATE"), &ek, &ak);
	snprintf(e.agent, sizeof(e.agent), "%s", env("PROBE_ID"));
	e.ek_pub = (struct wire_blob){ ek.pub, ek.pub_len };
	e.ak_pub = (struct wire_blob){ ak.pub, ak.pub_len };
	misbehave(&o, &ek, &ak, &e);
	json = wire_encode(WIRE_ENROLL, &e, &err);
	if (json == NULL || c == NULL ||
	    client_post(c, "/v1/agents", json, &r) < 0)
		die("enroll request");
	free(json);
	if (r.status != 201) {
		printf("status=%ld error=%s\n", r.status, r.body);
		rc = 1;
	} else if (o.only) {
		challenge_path(path, sizeof(path));
		spit(path, r.body, r.len);
		printf("status=201 challenge saved\n");
		rc = 0;
	} else {
		rc = activate_with(t, e.agent, r.body, r.len, o.wrong);
	}
	client_reply_free(&r);
	client_free(c);
	tpm_close(t);
	return rc;
}

static int activate(int argc, char **argv)
{
	static char body[65536];
	struct tpm_ek ek;
	struct tpm_ak ak;
	char path[4096];
	struct tpm *t;
	size_t len;
	int rc;

	challenge_path(path, sizeof(path));
	len = slurp(path, (uint8_t *)body, sizeof(body) - 1);
	t = open_keys(env("PROBE_STATE"), &ek, &ak);
	rc = activate_with(t, env("PROBE_ID"), body, len,
			   argc > 1 && strcmp(argv[1], "-w") == 0);
	tpm_close(t);
	return rc;
}

static int write_ek(const char *out)
{
	struct tpm_ek ek;
	struct tpm_ak ak;
	char path[4096];
	struct tpm *t = open_keys(env("PROBE_STATE"), &ek, &ak);

	spit(out, ek.pub, ek.pub_len);
	snprintf(path, sizeof(path), "%s.der", out);
	spit(path, ek.cert, ek.cert_len);
	tpm_close(t);
	return 0;
}

/* N enrollments with made-up RSA EKs, as a stranger without a TPM. */
static int flood(const char *count)
{
	struct client *c = probe_client();
	unsigned long n = strtoul(count, NULL, 10), i, by[4] = { 0 };
	struct wire_enroll e = { 0 };
	struct client_reply r;
	struct imt_error err;
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct tpm *t = open_keys(env("PROBE_STATE"), &ek, &ak);
	char *json;

	tpm_close(t);
	if (c == NULL || ek.pub_len < 16)
		die("flood");
	e.ek_pub = (struct wire_blob){ ek.pub, ek.pub_len };
	e.ak_pub = (struct wire_blob){ ak.pub, ak.pub_len };
	for (i = 0; i < n; i++) {
		snprintf(e.agent, sizeof(e.agent), "squat-%lu", i % 16);
		ek.pub[ek.pub_len - 3] = (uint8_t)i;
		ek.pub[ek.pub_len - 4] = (uint8_t)(i >> 8);
		ek.pub[ek.pub_len - 5] = (uint8_t)(i >> 16) ^ 0x5a;
		json = wire_encode(WIRE_ENROLL, &e, &err);
		if (json == NULL || client_post(c, "/v1/agents", json, &r) < 0)
			die("flood request");
		free(json);
		by[r.status == 201 ? 0 :
		   r.status == 429 ? 1 :
		   r.status == 503 ? 2 :
				     3]++;
		client_reply_free(&r);
	}
	client_free(c);
	printf("201=%lu 429=%lu 503=%lu other=%lu\n", by[0], by[1], by[2],
	       by[3]);
	return 0;
}

/* The records of @list from index @from, as bytes; apply @tamper. */
static uint8_t *records_from(const char *list, size_t from, size_t count,
			     const char *tamper, size_t *len)
{
	static uint8_t buf[LIST_MAX];
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	size_t off[65536], sz[65536], n = 0, pos = 0, total;
	ssize_t r;
	int fd = open(list, O_RDONLY);
	uint8_t *out;
	size_t k = 0, i, o = 0;
	char mode[8] = "";

	if (fd < 0 || (r = read(fd, buf, sizeof(buf))) < 0)
		die("cannot read the list");
	close(fd);
	total = (size_t)r;
	ima_list_parser_init(&p, NULL);
	while (pos < total && n < 65536) {
		if (ima_list_next(&p, buf + pos, total - pos, 1, &rec, &err) !=
		    IMT_OK)
			die(err.msg);
		off[n] = pos;
		sz[n++] = rec.size;
		pos += rec.size;
	}
	out = malloc(2 * total + 1);
	if (out == NULL)
		die("out of memory");
	if (tamper != NULL && sscanf(tamper, "%7[a-z]:%zu", mode, &k) != 2)
		die("bad -t");
	for (i = from; i < n && i - from < count; i++) {
		size_t j = i;

		if (strcmp(mode, "drop") == 0 && i == k)
			continue;
		if (strcmp(mode, "swap") == 0 && (i == k || i == k + 1))
			j = i == k ? k + 1 : k;
		if (j >= n)
			continue;
		memcpy(out + o, buf + off[j], sz[j]);
		if (strcmp(mode, "alter") == 0 && i == k)
			out[o + sz[j] - 2] ^= 0x01; /* in the path */
		o += sz[j];
	}
	/* other:K appends a made-up copy of record K for PCR 11 */
	if (strcmp(mode, "other") == 0 && k < n) {
		memcpy(out + o, buf + off[k], sz[k]);
		out[o] = 11; /* the little-endian PCR index */
		o += sz[k];
	}
	*len = o;
	return out;
}

/* PCR 10 of @bank after records [0, @start) of @list, into @ev. */
static void list_start_of(const char *list, uint64_t start,
			  const struct hash_algo *bank,
			  struct wire_evidence *ev)
{
	struct ima_list_parser p;
	struct ima_replay *r = ima_replay_new(bank, NULL);
	struct ima_record rec;
	struct imt_error err;
	size_t len, pos = 0;
	uint8_t *bytes = records_from(list, 0, start, NULL, &len);
	uint64_t i;

	if (r == NULL)
		die("replay");
	ima_list_parser_init(&p, NULL);
	for (i = 0; i < start; i++) {
		if (ima_list_next(&p, bytes + pos, len - pos, 1, &rec, &err) !=
			    IMT_OK ||
		    ima_replay_extend(r, &rec, &err) != IMT_OK)
			die("-L: the list has fewer records");
		pos += rec.size;
	}
	ev->list_start = start;
	memcpy(ev->list_start_pcr, ima_replay_pcr(r, 10), bank->size);
	ev->list_start_pcr_len = bank->size;
	ima_replay_free(r);
	free(bytes);
}

static int evidence(int argc, char **argv)
{
	const char *ak_dir = env("PROBE_STATE"), *tamper = NULL;
	struct wire_evidence ev = { 0 };
	struct tpm_evidence_quote q;
	struct imt_error err;
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct tpm *t;
	size_t from = 0, count = SIZE_MAX, len;
	char path[512], *json;
	const struct hash_algo *bank = hash_algo_bank("sha256");
	int ch, keep = 0, rc, no_pcr = 0, bad_pcr = 0;
	uint64_t list_start = 0;

	while ((ch = getopt(argc, argv, "f:n:mt:a:kb:L:NXe")) != -1) {
		switch (ch) {
		case 'L':
			list_start = strtoull(optarg, NULL, 10);
			break;
		case 'N':
			no_pcr = 1;
			break;
		case 'X':
			bad_pcr = 1;
			break;
		case 'e':
			ev.export_sync = 1;
			break;
		case 'b':
			bank = hash_algo_bank(optarg);
			if (bank == NULL)
				die("unknown bank");
			break;
		case 'n':
			count = strtoull(optarg, NULL, 10);
			break;
		case 'm':
			ev.more = 1;
			break;
		case 'f':
			from = strtoull(optarg, NULL, 10);
			break;
		case 't':
			tamper = optarg;
			break;
		case 'a':
			ak_dir = optarg;
			break;
		case 'k':
			keep = 1;
			break;
		default:
			die("usage");
		}
	}
	if (optind >= argc)
		die("usage: evidence LIST");
	snprintf(ev.agent, sizeof(ev.agent), "%s", env("PROBE_ID"));
	load_nonce(ev.nonce, &ev.nonce_len);
	ev.bank = bank;
	t = open_keys(ak_dir, &ek, &ak);
	/* quote first, then read the list: as the agent does */
	if (tpm_quote(t, ev.bank, 0x7ff, ev.nonce, ev.nonce_len, &q) != TPM_OK)
		die("quote");
	tpm_close(t);
	ev.quote = (struct wire_blob){ q.attest, q.attest_len };
	ev.signature = (struct wire_blob){ q.sig, q.sig_len };
	ev.pcrs = q.pcrs;
	ev.first_index = from;
	ev.records.data = records_from(argv[optind], from, count, tamper, &len);
	ev.records.len = len;
	if (list_start > 0)
		list_start_of(argv[optind], list_start, ev.bank, &ev);
	if (no_pcr)
		ev.list_start_pcr_len = 0;
	ev.list_start_pcr[0] ^= (uint8_t)bad_pcr;
	json = wire_encode(WIRE_EVIDENCE, &ev, &err);
	if (json == NULL)
		die(err.msg);
	free(ev.records.data);
	snprintf(path, sizeof(path), "/v1/agents/%s/evidence", ev.agent);
	rc = post(path, json, keep, WIRE_VERDICT);
	free(json);
	return rc;
}

int main(int argc, char **argv)
{
	char path[512];

	setenv("TSS2_LOG", "all+none", 0);
	if (argc < 2)
		die("usage: attest_probe enroll|activate|ek|flood|nonce|"
		    "evidence ...");
	if (strcmp(argv[1], "enroll") == 0)
		return enroll(argc - 1, argv + 1);
	if (strcmp(argv[1], "activate") == 0)
		return activate(argc - 1, argv + 1);
	if (strcmp(argv[1], "ek") == 0 && argc == 3)
		return write_ek(argv[2]);
	if (strcmp(argv[1], "flood") == 0 && argc == 3)
		return flood(argv[2]);
	if (strcmp(argv[1], "nonce") == 0) {
		snprintf(path, sizeof(path), "/v1/agents/%s/nonce",
			 env("PROBE_ID"));
		return post(path, NULL, 0, WIRE_NONCE);
	}
	if (strcmp(argv[1], "evidence") == 0)
		return evidence(argc - 1, argv + 1);
	die("unknown command");
	return 2;
}
