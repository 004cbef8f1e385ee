// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_route.c - the instructions the verifier's evidence route spends
 * per heartbeat and per record, counted in this process by valgrind's
 * callgrind (tests/bench/instructions runs it), and those of one
 * signature check of the same AK, the unit of cost.
 *
 * Instruction counts do not vary with the load of a shared host as CPU
 * time does (tests/bench/verifier has seen openssl speed itself move by
 * a factor of 1.5 between runs): what a change saves shows here exactly.
 * They are not time: a signature check runs more instructions per cycle
 * than parsing or SQLite do, so a ratio of instructions flatters the
 * verifier's side against one of CPU time. TLS, HTTP and the thread
 * hand-off are not in it either (bench-verifier's "request that does
 * nothing" is their time).
 *
 *   [BENCH_AK=p256|rsa2048] bench-route DIR AGENTS ROUNDS RECORDS [BOOT_LOG]
 *
 * A verifier as imatrust-verifier sets one up (its database in DIR, the
 * AK cache, the boot memo), AGENTS machines with software AKs (P-256, or
 * RSA-2048 with BENCH_AK=rsa2048) seeded as bench-verifier seeds them,
 * and route_agents_evidence() called as the server calls it. Counted,
 * each phase apart (CALLGRIND_DUMP_STATS_AT names the dump), and only
 * inside the calls (the agents' own work is not collected):
 *   verify           ROUNDS x AGENTS tpm_quote_verify_signature() of one
 *                    quote
 *   heartbeat        ROUNDS x AGENTS framed evidence without records
 *   records          ROUNDS x AGENTS framed evidence with RECORDS new
 *   heartbeat-json   the same as JSON bodies (an agent of before the
 *   records-json     framed form)
 * Outside valgrind it runs the same and checks every answer. Each phase's
 * line also gives the CPU time this thread spent inside those calls
 * (cpu_ns): the verifier's own cost with no TLS, HTTP or client beside
 * it, which a loaded host still moves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else /* counts nothing, runs the same: tests/bench/instructions says so */
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(name) (void)(name)
#endif

#include "bench_fleet.h"
#include "config.h"
#include "db.h"
#include "engine.h"
#include "http.h"
#include "keyring.h"
#include "policies.h"
#include "tpm_public.h"
#include "tpm_quote.h"
#include "verifier.h"
#include "wire.h"
#include "routes.h"

typedef void (*route_fn)(void *ctx, const struct http_request *req,
			 struct http_response *res);

struct bench {
	struct verifier v;
	struct fleet_agent *a;
	size_t agents;
	struct fleet_evidence ev;
	double cpu; /* this thread's CPU seconds inside counted calls */
};

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench-route: %s: %s\n", what, why);
	exit(1);
}

static void verifier_open(struct bench *b, const char *db)
{
	struct imt_error err;

	config_defaults(&b->v.cfg);
	pthread_mutex_init(&b->v.lock, NULL);
	b->v.started = time(NULL);
	if (db_open(db, &b->v.db, &err) < 0)
		die(db, err.msg);
	if (verifier_caches_new(&b->v) < 0)
		die("verifier", "out of memory");
}

/* POST /v1/agents/ID/@what, as the server calls it; the answer's body. */
static char *call(struct bench *b, struct fleet_agent *a, route_fn h,
		  const char *body, size_t len, int framed, int collect)
{
	struct http_request req = { 0 };
	struct http_response res = { 0 };
	double t0;

	req.method = "POST";
	req.body = body;
	req.body_len = len;
	req.body_type_other = framed;
	req.nparams = 1;
	snprintf(req.params[0], sizeof(req.params[0]), "%s", a->id);
	if (collect)
		CALLGRIND_TOGGLE_COLLECT;
	t0 = fleet_thread_cpu();
	h(&b->v, &req, &res);
	if (collect) {
		b->cpu += fleet_thread_cpu() - t0;
		CALLGRIND_TOGGLE_COLLECT;
	}
	if (res.status != 0 && res.status != 200)
		die(a->id, res.body != NULL ? res.body : "no answer");
	return res.body;
}

static void take_nonce(struct fleet_agent *a, const char *body)
{
	struct imt_error err;
	struct wire_nonce n;

	if (wire_decode(WIRE_NONCE, body, strlen(body), &n, &err) != IMT_OK)
		die(a->id, err.msg);
	memcpy(a->nonce, n.nonce, n.nonce_len);
	a->nonce_len = n.nonce_len;
}

/* One evidence of @a with @nrec records, JSON or framed; insist on it. */
static void attest(struct bench *b, struct fleet_agent *a, size_t nrec,
		   int framed, int collect)
{
	char *body = fleet_evidence(a, nrec, &b->ev), *json = NULL, *answer;
	size_t len = b->ev.body_len;
	struct wire_evidence ev;
	struct wire_verdict v;
	struct imt_error err;

	if (body == NULL)
		die(a->id, "cannot build evidence");
	if (!framed) {
		if (wire_decode_evidence_framed(body, len, &ev, &err) !=
			    IMT_OK ||
		    (json = wire_encode(WIRE_EVIDENCE, &ev, &err)) == NULL)
			die(a->id, err.msg);
		wire_free(WIRE_EVIDENCE, &ev);
		len = strlen(json);
	}
	answer = call(b, a, route_agents_evidence, framed ? body : json, len,
		      framed, collect);
	free(body);
	free(json);
	if (wire_decode(WIRE_VERDICT, answer, strlen(answer), &v, &err) !=
	    IMT_OK)
		die(a->id, err.msg);
	if (strcmp(v.state, "trusted") != 0 || v.next_index != b->ev.next)
		die(a->id, answer);
	memcpy(a->nonce, v.nonce, v.nonce_len);
	a->nonce_len = v.nonce_len;
	free(answer);
	fleet_accept(a, &b->ev);
}

static void phase(struct bench *b, const char *name, size_t rounds, size_t nrec,
		  int framed)
{
	size_t r, i;

	b->cpu = 0;
	CALLGRIND_ZERO_STATS;
	for (r = 0; r < rounds; r++)
		for (i = 0; i < b->agents; i++)
			attest(b, &b->a[i], nrec, framed, 1);
	CALLGRIND_DUMP_STATS_AT(name);
	printf("phase %s evidence %zu records %zu cpu_ns %lld\n", name,
	       rounds * b->agents, rounds * b->agents * nrec,
	       (long long)(b->cpu * 1e9));
}

/* The AK's signature over one of its quotes, checked as attest.c does. */
static void verify_phase(struct bench *b, size_t rounds)
{
	struct fleet_agent scratch = b->a[0];
	struct wire_evidence ev;
	struct imt_error err;
	EVP_PKEY *ak = NULL;
	TPMT_PUBLIC pub;
	double t0;
	size_t r;
	char *body;

	body = fleet_evidence(&scratch, 0, &b->ev);
	if (body == NULL ||
	    wire_decode_evidence_framed(body, b->ev.body_len, &ev, &err) !=
		    IMT_OK ||
	    tpm_public_parse(scratch.ak.pub, scratch.ak.pub_len, &pub, &err) !=
		    IMT_OK ||
	    tpm_public_to_pkey(&pub, &ak, &err) != IMT_OK)
		die("verify", "cannot build a quote");
	CALLGRIND_ZERO_STATS;
	t0 = fleet_thread_cpu();
	for (r = 0; r < rounds; r++) {
		CALLGRIND_TOGGLE_COLLECT;
		if (tpm_quote_verify_signature(ev.quote.data, ev.quote.len,
					       ev.signature.data,
					       ev.signature.len, ak, NULL,
					       &err) != IMT_OK)
			die("verify", err.msg);
		CALLGRIND_TOGGLE_COLLECT;
	}
	CALLGRIND_DUMP_STATS_AT("verify");
	printf("phase verify evidence %zu records 0 cpu_ns %lld\n", rounds,
	       (long long)((fleet_thread_cpu() - t0) * 1e9));
	EVP_PKEY_free(ak);
	wire_free(WIRE_EVIDENCE, &ev);
	free(body);
}

int main(int argc, char **argv)
{
	static struct bench b;
	enum soft_ak_alg ak_alg = SOFT_AK_P256;
	size_t rounds, nrec, i;
	const char *alg;
	char db[4096];

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: bench-route DIR AGENTS ROUNDS RECORDS "
				"[BOOT_LOG]\n");
		return 2;
	}
	alg = getenv("BENCH_AK");
	if (alg != NULL && soft_ak_alg_parse(alg, &ak_alg) < 0)
		die("BENCH_AK", "p256 or rsa2048");
	b.agents = strtoul(argv[2], NULL, 10);
	rounds = strtoul(argv[3], NULL, 10);
	nrec = strtoul(argv[4], NULL, 10);
	if (b.agents == 0 || rounds == 0 || nrec == 0 || nrec > FLEET_BATCH_MAX)
		die("arguments", "AGENTS, ROUNDS from 1, RECORDS 1 to 1000");
	snprintf(db, sizeof(db), "%s/route.db", argv[1]);
	b.a = calloc(b.agents, sizeof(*b.a));
	b.ev.records = malloc(FLEET_BATCH_MAX * FLEET_RECORD_MAX);
	if (b.a == NULL || b.ev.records == NULL)
		die("bench", "out of memory");
	for (i = 0; i < b.agents; i++) {
		snprintf(b.a[i].id, sizeof(b.a[i].id), "bench-%06zu", i);
		if (soft_ak_new_alg(&b.a[i].ak, ak_alg) < 0)
			die(b.a[i].id, "no AK");
	}
	if ((argc == 6 && fleet_boot_log(argv[5]) < 0) ||
	    fleet_pool_init() < 0 || fleet_seed(db, b.a, b.agents) < 0)
		return 1;
	verifier_open(&b, db);
	/* not counted: the first nonce, the boot's first evidence (its
	 * boot_aggregate, its firmware log), and one warm round */
	for (i = 0; i < b.agents; i++) {
		char *answer =
			call(&b, &b.a[i], route_agents_nonce, "", 0, 0, 0);

		take_nonce(&b.a[i], answer);
		free(answer);
		attest(&b, &b.a[i], 0, 1, 0);
		attest(&b, &b.a[i], nrec, 1, 0);
	}
	verify_phase(&b, rounds * b.agents);
	phase(&b, "heartbeat", rounds, 0, 1);
	phase(&b, "records", rounds, nrec, 1);
	phase(&b, "heartbeat-json", rounds, 0, 0);
	phase(&b, "records-json", rounds, nrec, 0);
	return 0;
}
