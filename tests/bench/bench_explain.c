// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_explain.c - what GET /v1/machines/{id}/records costs a record
 * once many references are stored (issue #33: with 254,037 references
 * each record explained took 0.4-0.7 s under the verifier's lock, and a
 * 1,000-record page 445 s). tests/bench/explain runs it.
 *
 *   bench-explain DB REFS RECORDS CERT KEY
 *
 * DB: an SQLite file (created) or a postgresql:// URI (an empty
 * database). REFS references are imported as Debian packages of
 * BENCH_REFS_PER_SOURCE files (bench_refs.h), one import each, a conffile
 * in every package;
 * a machine gets one boot of RECORDS known records: nine in ten a
 * (path, digest) some package lists, one in ten a listed digest at a
 * path no package lists (any_path = allow, so the lookup of the digest
 * for another path runs too). Then the verifier's routes serve on a
 * loopback port (HTTPS, CERT and KEY in PEM), and the records are read
 * as the console reads them, ?limit=1000 and ?from= on "next", until
 * all RECORDS were listed, twice: "first" prepares the statements and
 * reads the tables' pages into memory, "again" finds them there. Prints
 * the import's time, then each page and each pass's total: wall seconds
 * and milliseconds per record explained.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>
#include <openssl/evp.h>

#include "config.h"
#include "bench_refs.h"
#include "db.h"
#include "db_boot.h"
#include "db_machine.h"
#include "db_token.h"
#include "http.h"
#include "policies.h"
#include "verifier.h"
#include "routes.h"

#define TOKEN "0123456789abcdef0123456789abcdef"
#define MACHINE "bench-explain"

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench-explain: %s: %s\n", what, why);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void import_refs(struct db *db, size_t refs)
{
	double t0 = now_s();
	struct imt_error err;

	if (bench_refs_import(db, refs, &err) < 0)
		die("import", err.msg);
	printf("import %zu references in %zu packages: %.1f s\n", refs,
	       (refs + BENCH_REFS_PER_SOURCE - 1) / BENCH_REFS_PER_SOURCE,
	       now_s() - t0);
}

/* The machine, and its boot of @n known records spread over the refs. */
static void make_machine(struct db *db, size_t refs, size_t n)
{
	static const uint8_t ek[] = { 0x00, 0x01, 0xde, 0xad };
	static const uint8_t ak[] = { 0x00, 0x01, 0xbe, 0xef };
	static const uint8_t name[] = { 0x00, 0x0b, 1, 2, 3 };
	uint8_t fpr[DB_FPR_SIZE] = { 0xbe }, s1[DB_PCR_SHA1_SIZE] = { 1 },
		s256[DB_PCR_SHA256_SIZE] = { 2 };
	struct db_machine_new m = {
		.id = MACHINE,
		.ek_pub = ek,
		.ek_pub_len = sizeof(ek),
		.ek_fpr = fpr,
		.activated = 1,
		.ak_pub = ak,
		.ak_pub_len = sizeof(ak),
		.ak_name = name,
		.ak_name_len = sizeof(name),
		.state = DB_STATE_ENROLLING,
	};
	struct db_record *recs = calloc(n, sizeof(*recs));
	uint8_t(*dig)[32] = calloc(n, 32);
	char(*paths)[64] = calloc(n, 64);
	struct imt_error err;
	struct db_boot boot;
	size_t i, r;

	if (recs == NULL || dig == NULL || paths == NULL)
		die("records", "out of memory");
	if (db_machine_create(db, &m, 1700000000, &err) < 0 ||
	    db_boot_start(db, MACHINE, 1, 0, 1700000000, &boot, &err) < 0)
		die(MACHINE, err.msg);
	for (i = 0; i < n; i++) {
		r = (i * 7919) % refs;
		bench_ref_digest(r, dig[i]);
		if (i % 10 == 9)
			snprintf(paths[i], 64, "/opt/moved/f%zu", r);
		else
			bench_ref_path(r, paths[i], 64);
		recs[i] = (struct db_record){
			.index = i,
			.pcr = 10,
			.template = "ima-ng",
			.path = paths[i],
			.digest_algo = "sha256",
			.digest = dig[i],
			.digest_len = 32,
			.verdict = DB_VERDICT_KNOWN,
		};
	}
	if (db_boot_advance(db,
			    &(struct db_boot_advance){ .boot_id = boot.id,
						       .from_index = 0,
						       .to_index = n,
						       .pcr10_sha1 = s1,
						       .pcr10_sha256 = s256,
						       .records = recs,
						       .nrecords = n },
			    1700000001, &err) < 0)
		die("records", err.msg);
	free(recs);
	free(dig);
	free(paths);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	if (f == NULL || buf == NULL)
		die(path, "cannot read");
	n = fread(buf, 1, 65535, f);
	fclose(f);
	if (n == 0)
		die(path, "empty");
	return buf;
}

struct body {
	char *p;
	size_t n;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	char *grown = realloc(b->p, b->n + size * n + 1);

	if (grown == NULL)
		return 0;
	b->p = grown;
	memcpy(b->p + b->n, p, size * n);
	b->n += size * n;
	b->p[b->n] = '\0';
	return size * n;
}

/* GET @path; the parsed 200 answer. */
static json_t *get(CURL *c, const char *base, const char *path)
{
	struct body b = { NULL, 0 };
	char url[512];
	long status = 0;
	json_t *j;

	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	if (curl_easy_perform(c) != CURLE_OK)
		die(path, "request failed");
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	j = b.p != NULL ? json_loads(b.p, 0, NULL) : NULL;
	if (status != 200 || j == NULL)
		die(path, b.p != NULL ? b.p : "no answer");
	free(b.p);
	return j;
}

/* Every record, page after page as the console reads them. */
static void read_records(const char *base, const char *cert, const char *pass)
{
	struct curl_blob ca = { (void *)cert, strlen(cert), CURL_BLOB_COPY };
	struct curl_slist *hdr = NULL;
	CURL *c = curl_easy_init();
	json_int_t from = 0;
	size_t n, listed = 0, pages = 0;
	int more;
	double t0 = now_s(), t;
	char path[256];
	json_t *a, *next;

	hdr = curl_slist_append(hdr, "Authorization: Bearer " TOKEN);
	curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	do {
		snprintf(path, sizeof(path),
			 "/v1/machines/" MACHINE
			 "/records?limit=1000&from=%lld",
			 (long long)from);
		t = now_s();
		a = get(c, base, path);
		n = json_array_size(json_object_get(a, "records"));
		t = now_s() - t;
		printf("%s page from %lld: %zu records in %.3f s (%.3f ms a "
		       "record)%s\n",
		       pass, (long long)from, n, t,
		       n > 0 ? t * 1e3 / (double)n : 0.0,
		       json_is_true(json_object_get(a, "truncated")) ?
			       ", truncated" :
			       "");
		if (n > 0 &&
		    !json_is_string(
			    json_object_get(json_object_get(json_array_get(json_object_get(a,
											   "records"),
									   n - 1),
							    "accepted_by"),
					    "source")))
			die(path, "the last record is not explained");
		listed += n;
		pages++;
		next = json_object_get(a, "next");
		from = json_integer_value(next);
		more = json_is_integer(next);
		json_decref(a);
	} while (more);
	t = now_s() - t0;
	printf("%s records %zu in %zu pages: %.3f s, %.3f ms a record\n", pass,
	       listed, pages, t, listed > 0 ? t * 1e3 / (double)listed : 0.0);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
}

int main(int argc, char **argv)
{
	static struct verifier v;
	struct http_config cfg = {
		.addr = "127.0.0.1",
		.max_connections = 8,
		.threads = 1,
	};
	struct http_server *srv;
	struct imt_error err;
	char base[64], errbuf[256];
	size_t refs, nrec;

	if (argc != 6) {
		fprintf(stderr, "usage: bench-explain DB REFS RECORDS CERT "
				"KEY\n");
		return 2;
	}
	refs = strtoul(argv[2], NULL, 10);
	nrec = strtoul(argv[3], NULL, 10);
	if (refs == 0 || nrec == 0 || nrec > DB_BATCH_MAX)
		die("arguments", "REFS from 1, RECORDS 1 to 65536");
	config_defaults(&v.cfg);
	snprintf(v.cfg.any_path, sizeof(v.cfg.any_path), "allow");
	pthread_mutex_init(&v.lock, NULL);
	v.started = time(NULL);
	if (db_open(argv[1], &v.db, &err) < 0)
		die(argv[1], err.msg);
	if (verifier_caches_new(&v) < 0)
		die("verifier", "out of memory");
	if (db_token_add(v.db, "bench", (const uint8_t *)TOKEN, strlen(TOKEN),
			 1700000000, &err) < 0)
		die("token", err.msg);
	import_refs(v.db, refs);
	make_machine(v.db, refs, nrec);
	/* the read routes' connection, as the daemon opens it (#33) */
	snprintf(v.cfg.database, sizeof(v.cfg.database), "%s", argv[1]);
	if (verifier_reader_open(&v, &err) < 0)
		die("reader", err.msg);
	cfg.cert_pem = slurp(argv[4]);
	cfg.key_pem = slurp(argv[5]);
	srv = http_start(&cfg, verifier_routes, &v, errbuf, sizeof(errbuf));
	if (srv == NULL)
		die("http_start", errbuf);
	snprintf(base, sizeof(base), "https://127.0.0.1:%u", http_port(srv));
	read_records(base, cfg.cert_pem, "first");
	read_records(base, cfg.cert_pem, "again");
	http_stop(srv);
	verifier_reader_close(&v);
	policies_free(&v);
	db_close(v.db);
	return 0;
}
