// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_verifier.c - many simulated agents stream evidence to a real
 * imatrust-verifier over keep-alive HTTPS on loopback (issue #5).
 *
 *	bench-verifier [-n AGENTS] [-t THREADS] [-s SECONDS] [-r RECORDS]
 *		       [-k p256|rsa2048] [-L LOG] [-f FIRST -c COLD] [-d PID]
 *		       [-P] -D DB -p PORT -C CA -o DIR -- VERIFIER ARGS...
 *
 * Seeds DB with AGENTS activated machines (software AKs, see soft_ak.h:
 * -k p256, the default, ECDSA P-256; -k rsa2048, RSASSA RSA-2048) and
 * references for every record sent, starts the verifier
 * command (HTTPS on 127.0.0.1:PORT, certificate in CA, which must also
 * name *.agents.bench), and drives it from THREADS client threads, each
 * looping over its share of the agents with one request in flight. Each
 * agent has its own keep-alive connection: agent ID talks to
 * ID.agents.bench (resolved to 127.0.0.1), so libcurl's connection cache,
 * one per thread, never lends one agent's connection to another. Phases:
 * warm-up (TLS handshake, POST /nonce, boot_aggregate evidence), then
 * SECONDS each of heartbeat evidence (no records), of RECORDS new records
 * per evidence, and of GET /v1/health on the same connections ("health":
 * what a request costs the verifier before any storage or signature).
 * Every answer must be 200 ("trusted" with the expected next_index for
 * evidence), else the run fails (exit 1): a benchmark of failures
 * measures nothing. -L gives every agent a boot with that firmware event
 * log (and quotes the PCRs 11-23 it extends), which the verifier checks
 * against PCRs 0-9 and those on every evidence, as it does for real
 * machines. -f FIRST -c COLD: first contacts instead (images() and
 * first_contacts() below). -d PID: also the CPU of the database server,
 * PID and its children, per answer. -P records a perf profile of the
 * verifier per phase
 * in DIR. DIR also receives one fresh quote in tpm2_checkquote's files
 * (the peer).
 */
#include <dirent.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/rand.h>

#include "bench_fleet.h"
#include "bench_http.h"
#include "boot_check.h"
#include "tpm_quote.h"

#define THREADS_MAX 256

struct opts {
	size_t agents;
	size_t threads;
	unsigned int seconds;
	size_t records;
	size_t first; /* -f: records in a machine's first evidence, or 0 */
	size_t cold;  /* -c: machines of phase first-cold */
	enum soft_ak_alg ak; /* the simulated agents' AK algorithm */
	int perf;
	unsigned int port;
	const char *db, *ca, *dir;
	const char *boot_log; /* the agents' firmware event log, or NULL */
	char **verifier;
};

struct worker {
	const struct opts *o;
	CURLM *multi; /* its connection cache: one per agent */
	struct fleet_agent *agents;
	size_t n;
	size_t nrec;	      /* records per evidence in this phase, or: */
#define PHASE_HEALTH SIZE_MAX /* GET /v1/health instead of evidence */
	struct fleet_evidence ev;
	struct bench_buf resp;
	uint64_t done; /* evidence answered before the stop */
	int failed;
	pthread_t th;
};

struct sample {
	double wall;	 /* seconds, monotonic */
	double verifier; /* CPU seconds of the verifier */
	double client;	 /* CPU seconds of this process */
	double busy;	 /* CPU seconds of the whole machine */
	double db;	 /* CPU seconds of the database server (-d) */
};

static pid_t verifier_pid = -1;
static pid_t db_pid = -1;   /* -d: the PostgreSQL server's postmaster */
static atomic_int stop;	    /* the phase is over, or a worker failed */
static atomic_int reported; /* a failure was printed */
static struct curl_slist *headers;

static void stop_verifier(void)
{
	bench_stop(&verifier_pid);
}

/*
 * utime + stime of /proc/PID/stat (0: this process), in seconds; the
 * parent's pid in @ppid.
 */
static double proc_cpu(pid_t pid, int *ppid)
{
	char path[64], line[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	*ppid = 0;
	snprintf(path, sizeof(path),
		 pid > 0 ? "/proc/%d/stat" : "/proc/self/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	p = fgets(line, sizeof(line), f) != NULL ? strrchr(line, ')') : NULL;
	fclose(f);
	/* after "pid (comm)": state is field 3, ppid 4, utime 14, stime 15 */
	if (p == NULL || sscanf(p + 2,
				"%*c %d %*d %*d %*d %*d %*u %*u %*u "
				"%*u %*u %llu %llu",
				ppid, &ut, &st) != 3)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static double cpu_of(pid_t pid)
{
	int ppid;

	return proc_cpu(pid, &ppid);
}

/* CPU seconds of @pid and its children (-d: the PostgreSQL server). */
static double cpu_tree(pid_t pid)
{
	struct dirent *d;
	double sum;
	int ppid;
	DIR *proc;

	if (pid <= 0 || (proc = opendir("/proc")) == NULL)
		return 0;
	sum = cpu_of(pid);
	while ((d = readdir(proc)) != NULL) {
		pid_t child = (pid_t)strtol(d->d_name, NULL, 10);
		double c = child > 0 ? proc_cpu(child, &ppid) : 0;

		sum += c > 0 && ppid == (int)pid ? c : 0;
	}
	closedir(proc);
	return sum;
}

/* Busy CPU seconds of the whole machine, all cores (/proc/stat). */
static double cpu_busy(void)
{
	unsigned long long v[8] = { 0 }, sum = 0;
	FILE *f = fopen("/proc/stat", "r");
	int i;

	if (f == NULL)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		v[3] = 0;
	fclose(f);
	for (i = 0; i < 8; i++)
		sum += i == 3 || i == 4 ? 0 : v[i]; /* not idle, iowait */
	return (double)sum / (double)sysconf(_SC_CLK_TCK);
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Sockets the process holds: one per agent connection, plus listeners. */
static size_t sockets_of(pid_t pid)
{
	char dir[64], path[512], target[64];
	struct dirent *d;
	size_t n = 0;
	ssize_t len;
	DIR *fds;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	fds = opendir(dir);
	if (fds == NULL)
		return 0;
	while ((d = readdir(fds)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 7 && memcmp(target, "socket:", 7) == 0)
			n++;
	}
	closedir(fds);
	return n;
}

static void take_sample(struct sample *s)
{
	s->wall = bench_now();
	s->verifier = cpu_of(verifier_pid);
	s->client = cpu_of(0);
	s->busy = cpu_busy();
	s->db = cpu_tree(db_pid);
}

static CURL *easy(const struct opts *o, struct bench_buf *resp)
{
	CURL *c = bench_http_easy(o->ca, resp, 120L);

	if (c == NULL)
		return NULL;
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	return c;
}

/* One agent's own keep-alive connection, under a name of its own. */
static struct bench_conn *connection(const struct opts *o,
				     const struct fleet_agent *a,
				     struct bench_buf *resp)
{
	struct bench_conn *c = calloc(1, sizeof(*c));

	if (c == NULL ||
	    bench_http_connect(c, easy(o, resp), a->id, o->port) < 0)
		return NULL;
	return c;
}

static int fail(struct worker *w, const struct fleet_agent *a, const char *what,
		const char *detail)
{
	if (!atomic_exchange(&reported, 1))
		fprintf(stderr, "bench: %s: %s: %.300s\n", a->id, what,
			detail != NULL ? detail : "");
	w->failed = 1;
	atomic_store(&stop, 1);
	return -1;
}

/* The answer of POST /nonce: a nonce and nothing else. */
static int take_nonce(struct worker *w, struct fleet_agent *a)
{
	struct imt_error err;
	struct wire_nonce n;

	if (wire_decode(WIRE_NONCE, w->resp.data, w->resp.len, &n, &err) !=
	    IMT_OK)
		return fail(w, a, "nonce", err.msg);
	memcpy(a->nonce, n.nonce, n.nonce_len);
	a->nonce_len = n.nonce_len;
	wire_free(WIRE_NONCE, &n);
	return 0;
}

/*
 * POST @body to /v1/agents/ID/@what and insist on the verdict wanted:
 * @len bytes of framed evidence, or (@len 0) a JSON string; @want_state
 * NULL: the answer is a nonce (POST /nonce).
 */
static int exchange(struct worker *w, struct fleet_agent *a, const char *what,
		    const char *body, size_t len, const char *want_state,
		    uint64_t want_next)
{
	struct bench_conn *ac = a->conn;
	CURL *c = ac->h;
	struct wire_verdict v;
	struct imt_error err;
	char url[512], msg[128];
	long status = 0;
	CURLcode rc;

	snprintf(url, sizeof(url), "%s/v1/agents/%s/%s", ac->base, a->id, what);
	w->resp.len = 0;
	curl_easy_setopt(c, CURLOPT_URL, url);
	bench_http_set_body(c, body, len, len > 0);
	rc = bench_http_perform(w->multi, c);
	if (rc != CURLE_OK)
		return fail(w, a, what, curl_easy_strerror(rc));
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		snprintf(msg, sizeof(msg), "%s: HTTP %ld", what, status);
		return fail(w, a, msg, w->resp.data);
	}
	if (want_state == NULL)
		return take_nonce(w, a);
	if (wire_decode(WIRE_VERDICT, w->resp.data, w->resp.len, &v, &err) !=
	    IMT_OK)
		return fail(w, a, "verdict", err.msg);
	if (strcmp(v.state, want_state) != 0 || v.next_index != want_next) {
		snprintf(msg, sizeof(msg),
			 "%s: state %s next_index %llu, wanted %s %llu", what,
			 v.state, (unsigned long long)v.next_index, want_state,
			 (unsigned long long)want_next);
		wire_free(WIRE_VERDICT, &v);
		return fail(w, a, msg, w->resp.data);
	}
	memcpy(a->nonce, v.nonce, v.nonce_len);
	a->nonce_len = v.nonce_len;
	wire_free(WIRE_VERDICT, &v);
	return 0;
}

static int attest(struct worker *w, struct fleet_agent *a, size_t nrec)
{
	char *json = fleet_evidence(a, nrec, &w->ev);
	int rc;

	if (json == NULL)
		return fail(w, a, "evidence", "cannot build");
	rc = exchange(w, a, "evidence", json, w->ev.body_len, "trusted",
		      w->ev.next);
	free(json);
	if (rc == 0)
		fleet_accept(a, &w->ev);
	return rc;
}

/* Connect, take a nonce, send the boot's first evidence. */
static void *warm_up(void *arg)
{
	struct worker *w = arg;
	size_t i;

	for (i = 0; i < w->n && !atomic_load(&stop); i++) {
		struct fleet_agent *a = &w->agents[i];

		a->conn = connection(w->o, a, &w->resp);
		if (a->conn == NULL) {
			fail(w, a, "curl", "no easy handle");
			break;
		}
		if (exchange(w, a, "nonce", "", 0, NULL, 0) < 0 ||
		    attest(w, a, 1) < 0)
			break;
	}
	return NULL;
}

/*
 * GET /v1/health on the agent's connection: what one request costs the
 * verifier when it does nothing (TLS, HTTP, TCP, the routing), the part
 * of a heartbeat no storage or signature is in.
 */
static int health(struct worker *w, struct fleet_agent *a)
{
	struct bench_conn *ac = a->conn;
	CURL *c = ac->h;
	char url[512], msg[64];
	long status = 0;
	CURLcode rc;

	snprintf(url, sizeof(url), "%s/v1/health", ac->base);
	w->resp.len = 0;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	rc = bench_http_perform(w->multi, c);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	if (rc != CURLE_OK)
		return fail(w, a, "health", curl_easy_strerror(rc));
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		snprintf(msg, sizeof(msg), "health: HTTP %ld", status);
		return fail(w, a, msg, w->resp.data);
	}
	return 0;
}

/* Round robin over the worker's agents until the main thread says stop. */
static void *steady(void *arg)
{
	struct worker *w = arg;
	size_t i = 0;

	while (!atomic_load(&stop)) {
		if ((w->nrec == PHASE_HEALTH ?
			     health(w, &w->agents[i]) :
			     attest(w, &w->agents[i], w->nrec)) < 0)
			break;
		if (!atomic_load(&stop))
			w->done++;
		i = (i + 1) % w->n;
	}
	return NULL;
}

static int run_workers(struct worker *w, size_t n, void *(*fn)(void *))
{
	size_t i;
	int failed = 0;

	for (i = 0; i < n; i++)
		if (pthread_create(&w[i].th, NULL, fn, &w[i]) != 0) {
			fprintf(stderr, "bench: pthread_create failed\n");
			exit(1);
		}
	for (i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		failed |= w[i].failed;
	}
	return failed ? -1 : 0;
}

/* Wait until GET /v1/health answers 200 (or the verifier died). */
static int wait_ready(const struct opts *o)
{
	struct bench_buf b = { 0 };
	CURL *c = easy(o, &b);
	int rc;

	curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	rc = bench_http_wait_ready(c, o->port, &verifier_pid);
	curl_easy_cleanup(c);
	free(b.data);
	return rc;
}

/* ---- what one step costs, measured in this process, one core -------- */

#define COST_SECONDS 0.4

struct cost_ctx {
	struct fleet_agent *a;
	struct fleet_evidence *ev;
	size_t nrec;
	char *json;
	struct wire_evidence ev_in; /* @json decoded */
	EVP_PKEY *ak;		    /* the AK's key, parsed once */
};

static int cost_build(struct cost_ctx *c)
{
	char *json = fleet_evidence(c->a, c->nrec, c->ev);

	free(json);
	return json != NULL ? 0 : -1;
}

static int cost_decode(struct cost_ctx *c)
{
	struct wire_evidence ev;
	struct imt_error err;
	enum imt_result rc = wire_decode_evidence_framed(c->json,
							 c->ev->body_len, &ev,
							 &err);

	wire_free(WIRE_EVIDENCE, &ev);
	return rc == IMT_OK ? 0 : -1;
}

/* The AK as attest.c's check_quote() gets it: parsed from its bytes. */
static int cost_ak(struct cost_ctx *c)
{
	struct imt_error err;
	TPMT_PUBLIC pub;
	EVP_PKEY *ak = NULL;
	int ok = tpm_public_parse(c->a->ak.pub, c->a->ak.pub_len, &pub, &err) ==
			 IMT_OK &&
		 tpm_public_to_pkey(&pub, &ak, &err) == IMT_OK;

	EVP_PKEY_free(ak);
	return ok ? 0 : -1;
}

/* The quote's signature alone: TPMT_SIGNATURE unmarshal + verify. */
static int cost_verify(struct cost_ctx *c)
{
	struct imt_error err;
	enum imt_result rc = tpm_quote_verify_signature(c->ev_in.quote.data,
							c->ev_in.quote.len,
							c->ev_in.signature.data,
							c->ev_in.signature.len,
							c->ak, NULL, &err);

	return rc == IMT_OK ? 0 : -1;
}

/*
 * What a heartbeat of a machine with a stored firmware event log paid
 * before the boot memo: the check of the whole log (verifier/engine/boot_memo.h).
 */
static int cost_boot_log(struct cost_ctx *c)
{
	char reason[BOOT_CHECK_REASON_MAX];

	if (boot_check_evidence(fleet_boot_log_data(), fleet_boot_log_len(),
				&c->ev_in.pcrs, reason,
				sizeof(reason)) == IMT_OK)
		return 0;
	fprintf(stderr, "bench: the agents' boot log fails: %s\n", reason);
	return -1;
}

/* tpm_quote_check() with the AK key at hand: signature, nonce, PCRs. */
static int cost_quote(struct cost_ctx *c)
{
	struct imt_error err;
	enum imt_result rc;

	rc = tpm_quote_check(c->ev_in.quote.data, c->ev_in.quote.len,
			     c->ev_in.signature.data, c->ev_in.signature.len,
			     c->ak, c->ev_in.nonce, c->ev_in.nonce_len,
			     &c->ev_in.pcrs, NULL, &err);
	if (rc != IMT_OK)
		fprintf(stderr, "bench: our own quote fails: %s\n", err.msg);
	return rc == IMT_OK ? 0 : -1;
}

/* CPU microseconds per call of @fn, over COST_SECONDS; -1 on failure. */
static double cost_of(int (*fn)(struct cost_ctx *), struct cost_ctx *c)
{
	double t0 = fleet_thread_cpu(), t;
	unsigned long n = 0;

	do {
		if (fn(c) < 0)
			return -1;
		n++;
		t = fleet_thread_cpu();
	} while (t - t0 < COST_SECONDS);
	return (t - t0) * 1e6 / (double)n;
}

static int costs(const struct opts *o, struct fleet_agent *a,
		 struct fleet_evidence *ev)
{
	struct fleet_agent scratch = *a;
	struct cost_ctx c = { .a = &scratch, .ev = ev };
	struct imt_error err;
	TPMT_PUBLIC pub;
	const char *sig = soft_ak_sig_name(o->ak);
	double v[8] = { 0 };
	size_t k;

	scratch.next = 1; /* past boot_aggregate */
	scratch.nonce_len = 32;
	RAND_bytes(scratch.nonce, 32);
	if (tpm_public_parse(a->ak.pub, a->ak.pub_len, &pub, &err) != IMT_OK ||
	    tpm_public_to_pkey(&pub, &c.ak, &err) != IMT_OK)
		return -1;
	for (k = 0; k < 2; k++) {
		c.nrec = k == 0 ? 0 : o->records;
		v[k] = cost_of(cost_build, &c);
		c.json = fleet_evidence(&scratch, c.nrec, ev);
		if (c.json == NULL)
			return -1;
		v[2 + k] = cost_of(cost_decode, &c);
		if (k == 0 &&
		    wire_decode_evidence_framed(c.json, ev->body_len, &c.ev_in,
						&err) == IMT_OK) {
			v[4] = cost_of(cost_ak, &c);
			v[5] = cost_of(cost_quote, &c);
			v[6] = cost_of(cost_verify, &c);
			v[7] = fleet_boot_log_len() > 0 ?
				       cost_of(cost_boot_log, &c) :
				       0;
			wire_free(WIRE_EVIDENCE, &c.ev_in);
		} else if (k == 0) {
			v[4] = -1;
		}
		free(c.json);
	}
	EVP_PKEY_free(c.ak);
	for (k = 0; k < 8; k++)
		if (v[k] < 0)
			return -1;
	printf("step costs, measured in this process (CPU us per call, one "
	       "thread), %s AKs:\n",
	       soft_ak_alg_name(o->ak));
	printf("  client:   build evidence (quote, %s sign, JSON), 0 / %zu "
	       "records  %7.1f / %7.1f\n",
	       sig, o->records, v[0], v[1]);
	printf("  verifier: wire_decode evidence (JSON + base64), 0 / %zu "
	       "records     %7.1f / %7.1f\n",
	       o->records, v[2], v[3]);
	printf("  verifier: AK from its stored bytes (tpm_public_parse + "
	       "to_pkey)      %7.1f\n",
	       v[4]);
	printf("  verifier: tpm_quote_check (%s verify, nonce, PCR "
	       "digest)    %7.1f\n",
	       sig, v[5]);
	printf("  verifier: one %s verify alone "
	       "(tpm_quote_verify_signature)    %7.1f\n",
	       sig, v[6]);
	if (fleet_boot_log_len() > 0)
		printf("  verifier: the boot's firmware event log (%zu bytes) "
		       "against PCRs 0-9, 11-23\n"
		       "            (boot_check_evidence: replay + compare; a "
		       "heartbeat skips it once passed)  %7.1f\n",
		       fleet_boot_log_len(), v[7]);
	return 0;
}

/* ---- phases ---------------------------------------------------------- */

static pid_t start_perf(const struct opts *o, const char *phase)
{
	char pid[32], path[4096], secs[32];
	char *argv[] = { "perf",	 "record",	"-q",	 "-F", "299",
			 "--call-graph", "dwarf,16384", "-p",	 pid,  "-o",
			 path,		 "--",		"sleep", secs, NULL };

	if (!o->perf)
		return -1;
	snprintf(pid, sizeof(pid), "%d", (int)verifier_pid);
	snprintf(path, sizeof(path), "%s/perf-%s.data", o->dir, phase);
	snprintf(secs, sizeof(secs), "%u", o->seconds);
	return bench_spawn(argv, NULL);
}

/* One line of the table: what @done answers between @s0 and @s1 cost. */
static void report(const char *name, uint64_t done, size_t nrec,
		   const struct sample *s0, const struct sample *s1)
{
	double t = s1->wall - s0->wall, vcpu = s1->verifier - s0->verifier;
	double ccpu = s1->client - s0->client;
	double other = (s1->busy - s0->busy) - vcpu - ccpu;

	printf("%-10s %10.0f %10.0f %9.0f %% %9.0f %% %9.0f %% %9.1f %9.1f "
	       "%9ld\n",
	       name, (double)done / t,
	       nrec == PHASE_HEALTH ? 0 : (double)(done * nrec) / t,
	       100 * vcpu / t, 100 * ccpu / t, other > 0 ? 100 * other / t : 0,
	       done > 0 ? vcpu * 1e6 / (double)done : 0,
	       done > 0 ? ccpu * 1e6 / (double)done : 0, rss_kb(verifier_pid));
	if (db_pid > 0 && done > 0)
		printf("  %s: database server CPU %.1f us each\n", name,
		       (s1->db - s0->db) * 1e6 / (double)done);
}

static int phase(const struct opts *o, struct worker *w, const char *name,
		 size_t nrec)
{
	struct sample s0, s1;
	pid_t perf;
	uint64_t done = 0;
	size_t i;
	int rc;

	for (i = 0; i < o->threads; i++) {
		w[i].nrec = nrec;
		w[i].done = 0;
	}
	perf = start_perf(o, name);
	atomic_store(&stop, 0);
	take_sample(&s0);
	for (i = 0; i < o->threads; i++)
		if (pthread_create(&w[i].th, NULL, steady, &w[i]) != 0)
			return -1;
	while (bench_now() - s0.wall < o->seconds && !atomic_load(&stop))
		usleep(20000);
	atomic_store(&stop, 1);
	take_sample(&s1);
	rc = 0;
	for (i = 0; i < o->threads; i++) {
		pthread_join(w[i].th, NULL);
		done += w[i].done;
		rc |= w[i].failed ? -1 : 0;
	}
	if (perf > 0)
		waitpid(perf, NULL, 0);
	if (rc < 0)
		return -1;
	report(name, done, nrec, &s0, &s1);
	return 0;
}

/*
 * Phase @name: every agent of @w connects (TLS handshake), takes a nonce
 * and sends its boot's first evidence (-f records, and the firmware
 * event log with -L), once: machines the verifier has not seen since it
 * started.
 */
static int first_contact(const struct opts *o, struct worker *w,
			 const char *name)
{
	struct sample s0, s1;
	uint64_t done = 0;
	size_t i;

	atomic_store(&stop, 0);
	take_sample(&s0);
	if (run_workers(w, o->threads, warm_up) < 0)
		return -1;
	take_sample(&s1);
	for (i = 0; i < o->threads; i++)
		done += w[i].n;
	report(name, done, o->first, &s0, &s1);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench-verifier [-n AGENTS] [-t THREADS] [-s "
		"SECONDS] [-r RECORDS]\n"
		"                      [-k p256|rsa2048] [-L LOG] [-f FIRST -c "
		"COLD] [-d PID] [-P] -D DB\n"
		"                      -p PORT -C CA -o DIR --\n"
		"                      VERIFIER ARGS...\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	int ch;

	*o = (struct opts){ .agents = 1000,
			    .threads = 8,
			    .seconds = 10,
			    .records = 50,
			    .ak = SOFT_AK_P256 };
	while ((ch = getopt(argc, argv, "n:t:s:r:k:L:f:c:d:PD:p:C:o:")) != -1) {
		switch (ch) {
		case 'd':
			db_pid = (pid_t)strtol(optarg, NULL, 10);
			break;
		case 'f':
			o->first = strtoul(optarg, NULL, 10);
			break;
		case 'c':
			o->cold = strtoul(optarg, NULL, 10);
			break;
		case 'L':
			o->boot_log = optarg;
			break;
		case 'n':
			o->agents = strtoul(optarg, NULL, 10);
			break;
		case 't':
			o->threads = strtoul(optarg, NULL, 10);
			break;
		case 's':
			o->seconds = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			o->records = strtoul(optarg, NULL, 10);
			break;
		case 'k':
			if (soft_ak_alg_parse(optarg, &o->ak) < 0)
				usage();
			break;
		case 'P':
			o->perf = 1;
			break;
		case 'D':
			o->db = optarg;
			break;
		case 'p':
			o->port = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'C':
			o->ca = optarg;
			break;
		case 'o':
			o->dir = optarg;
			break;
		default:
			usage();
		}
	}
	if (o->db == NULL || o->port == 0 || o->ca == NULL || o->dir == NULL ||
	    optind >= argc || o->agents == 0 || o->threads == 0 ||
	    o->threads > THREADS_MAX || o->threads > o->agents ||
	    o->seconds == 0 || o->records == 0 ||
	    o->records > FLEET_BATCH_MAX || o->first == 1 ||
	    o->first > FLEET_BATCH_MAX ||
	    (o->first > 0 &&
	     (o->cold < o->threads || o->agents < o->cold + o->threads)))
		usage();
	o->verifier = argv + optind;
}

/* THREADS workers sharing out the @n agents at @a. */
static struct worker *workers(const struct opts *o, struct fleet_agent *a,
			      size_t n)
{
	struct worker *w = calloc(o->threads, sizeof(*w));
	size_t i, per = n / o->threads, extra = n % o->threads;
	size_t at = 0;

	for (i = 0; w != NULL && i < o->threads; i++) {
		w[i].o = o;
		w[i].agents = a + at;
		w[i].n = per + (i < extra);
		at += w[i].n;
		w[i].ev.records = malloc(FLEET_BATCH_MAX * FLEET_RECORD_MAX);
		w[i].multi = curl_multi_init();
		if (w[i].ev.records == NULL || w[i].multi == NULL)
			return NULL;
		curl_multi_setopt(w[i].multi, CURLMOPT_MAXCONNECTS,
				  (long)w[i].n + 16);
	}
	return w;
}

/* Key generation, shared out over the cores (RSA-2048: ~0.1 s a key). */
struct keygen {
	const struct opts *o;
	struct fleet_agent *a;
	size_t first, step;
	int failed;
	pthread_t th;
};

static void *keygen(void *arg)
{
	struct keygen *k = arg;
	size_t i;

	for (i = k->first; i < k->o->agents && !k->failed; i += k->step)
		k->failed = soft_ak_new_alg(&k->a[i].ak, k->o->ak) < 0;
	return NULL;
}

static int make_keys(const struct opts *o, struct fleet_agent *a)
{
	struct keygen k[THREADS_MAX];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t i, n = cores > 0 ? (size_t)cores : 1;
	int failed = 0;

	if (n > THREADS_MAX)
		n = THREADS_MAX;
	if (n > o->agents)
		n = o->agents;
	for (i = 0; i < n; i++) {
		k[i] = (struct keygen){ .o = o, .a = a, .first = i, .step = n };
		if (pthread_create(&k[i].th, NULL, keygen, &k[i]) != 0) {
			fprintf(stderr, "bench: pthread_create failed\n");
			exit(1);
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(k[i].th, NULL);
		failed |= k[i].failed;
	}
	return failed ? -1 : 0;
}

/*
 * -f: the first COLD agents each run an image of their own (FIRST - 1
 * records no other agent sends, each with a reference: the first
 * machine of its image), the others all run the image of the last of
 * those, whose records the verifier judged last.
 */
static void images(const struct opts *o, struct fleet_agent *a)
{
	size_t i, per = o->first - 1;

	fleet_pool_size(o->cold * per);
	for (i = 0; i < o->agents; i++) {
		a[i].first = o->first;
		a[i].image = (i < o->cold ? i : o->cold - 1) * per;
	}
}

static int make_agents(const struct opts *o, struct fleet_agent **out)
{
	struct fleet_agent *a = calloc(o->agents, sizeof(*a));
	double t0 = bench_now();
	size_t i;

	if (a == NULL)
		return -1;
	for (i = 0; i < o->agents; i++)
		snprintf(a[i].id, sizeof(a[i].id), "bench-%06zu", i);
	if (o->first > 0)
		images(o, a);
	if (make_keys(o, a) < 0 ||
	    (o->boot_log != NULL && fleet_boot_log(o->boot_log) < 0) ||
	    fleet_pool_init() < 0 || fleet_seed(o->db, a, o->agents) < 0)
		return -1;
	printf("seeding: %zu %s AKs, %zu machines activated, %zu references: "
	       "%.1f s\n",
	       o->agents, soft_ak_alg_name(o->ak), o->agents,
	       fleet_pool_count(), bench_now() - t0);
	*out = a;
	return 0;
}

/* Start the verifier command; wait until it answers. */
static int start(const struct opts *o)
{
	char log[4096];

	snprintf(log, sizeof(log), "%s/verifier.log", o->dir);
	atexit(stop_verifier);
	verifier_pid = bench_spawn(o->verifier, log);
	if (verifier_pid < 0 || wait_ready(o) < 0) {
		fprintf(stderr, "bench: the verifier did not start (%s)\n",
			log);
		return -1;
	}
	printf("verifier pid %d, RSS %ld KB before any agent traffic\n",
	       (int)verifier_pid, rss_kb(verifier_pid));
	return 0;
}

static void header(void)
{
	printf("%-10s %10s %10s %11s %11s %11s %9s %9s %9s\n", "phase",
	       "attest/s", "records/s", "verif CPU", "client CPU", "other CPU",
	       "verif us", "client us", "RSS KB");
}

/*
 * -f: the first COLD machines' first contacts, then the others' (their
 * image now known), then heartbeats and health requests of the latter.
 */
static int first_contacts(const struct opts *o, struct fleet_agent *agents,
			  struct worker *warm)
{
	struct worker *cold = workers(o, agents, o->cold);

	if (cold == NULL)
		return -1;
	header();
	if (first_contact(o, cold, "first-cold") < 0 ||
	    first_contact(o, warm, "first-warm") < 0 ||
	    phase(o, warm, "heartbeat", 0) < 0 ||
	    phase(o, warm, "health", PHASE_HEALTH) < 0)
		return -1;
	return 0;
}

/* Warm-up (first contacts, untimed), then the three timed phases. */
static int streams(const struct opts *o, struct worker *w)
{
	double t0 = bench_now();

	if (run_workers(w, o->threads, warm_up) < 0)
		return -1;
	printf("warm-up: %zu TLS connections, nonce + boot_aggregate evidence "
	       "each: %.1f s, verifier RSS %ld KB\n",
	       o->agents, bench_now() - t0, rss_kb(verifier_pid));
	header();
	if (phase(o, w, "heartbeat", 0) < 0 ||
	    phase(o, w, "records", o->records) < 0 ||
	    phase(o, w, "health", PHASE_HEALTH) < 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct fleet_agent *agents;
	struct worker *w;
	long rss0, rss1;
	size_t cold;

	parse(argc, argv, &o);
	headers = bench_http_init();
	if (headers == NULL)
		return 1;
	cold = o.first > 0 ? o.cold : 0;
	if (make_agents(&o, &agents) < 0 ||
	    (w = workers(&o, agents + cold, o.agents - cold)) == NULL ||
	    costs(&o, &agents[0], &w[0].ev) < 0 || start(&o) < 0)
		return 1;
	rss0 = rss_kb(verifier_pid);
	if ((o.first > 0 ? first_contacts(&o, agents, w) : streams(&o, w)) < 0)
		return 1;
	rss1 = rss_kb(verifier_pid);
	printf("verifier sockets open: %zu for %zu agents (their keep-alive "
	       "connections, the listener)\n",
	       sockets_of(verifier_pid), o.agents);
	printf("verifier RSS: %ld KB before traffic, %ld KB after: %.1f KB per "
	       "machine\n",
	       rss0, rss1, (double)(rss1 - rss0) / (double)o.agents);
	if (fleet_write_peer(&agents[0], o.dir) < 0)
		return 1;
	stop_verifier();
	return 0;
}
