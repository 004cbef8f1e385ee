// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent.c - the imatrust-agent state machine (see agent.h).
 *
 * Records travel through one buffer: pend[0, pend_len) holds the records
 * [pend_first, pend_first + pend_count) of the list, read but not yet
 * proven by a verdict. The follower always stands at pend_first +
 * pend_count, except when pend_full: then a batch did not fit behind
 * them and the follower was rewound to that same index.
 */
#define _GNU_SOURCE /* ppoll() */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "backoff.h"
#include "client.h"
#include "file.h"
#include "hash_algo.h"
#include "ima_list.h"
#include "ima_verify.h"
#include "list_export.h"
#include "list_follow.h"
#include "list_replay.h"
#include "log.h"
#include "notify.h"
#include "rules.h"
#include "tpm.h"
#include "tpm_quote.h"
#include "wire.h"

#define AGENT_PATH_MAX (sizeof("/v1/agents//evidence") + WIRE_ID_MAX)
#define AGENT_EXPORT_RETRY_MS (60 * 1000) /* after a refused export */
/*
 * Rounds start at least this far apart. Each takes the TPM for several
 * commands (PCR reads, a signing quote), and every record the kernel
 * measures waits for the TPM too: back to back under a sustained
 * measurement rate, the agent's quotes cut the machine's own throughput
 * several times (tests/guest/fleet/export.sh). After a quiet moment the
 * next round starts at once, so detection latency is unchanged.
 */
#define AGENT_ROUND_MIN_MS 250

enum agent_step {
	STEP_CONNECT, /* POST /nonce */
	STEP_ENROLL,  /* POST /v1/agents, activate */
	STEP_PENDING, /* wait for an operator, then connect */
	STEP_STREAM,  /* evidence rounds */
	STEP_BACKOFF, /* wait, then a->after_backoff */
	STEP_STOP,    /* SIGTERM/SIGINT */
	STEP_COUNT,
};

struct agent {
	const struct agent_config *cfg;
	volatile sig_atomic_t *stop;
	const sigset_t *sigmask;
	const struct hash_algo *bank;
	enum tpm_key_alg alg;
	struct tpm *tpm;
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct client *client;
	struct list_follow *list;
	struct list_follow *replay_list; /* the same list, read ahead
						 * for the replay only */
	struct list_replay *replay;	 /* PCR 10 over the list read */
	int pollable; /* the list wakes poll() for new records */
	struct backoff backoff;
	enum agent_step after_backoff;
	char path_nonce[AGENT_PATH_MAX];
	char path_activate[AGENT_PATH_MAX];
	char path_evidence[AGENT_PATH_MAX];

	/* the nonce for the next evidence; nonce_len 0: ask for one */
	uint8_t nonce[WIRE_NONCE_MAX];
	size_t nonce_len;
	uint64_t nonce_got_ms; /* monotonic */
	uint64_t nonce_life_ms;
	int synced; /* a verdict said where the list continues */
	char state[WIRE_STATE_MAX + 1]; /* of the last verdict */

	uint8_t *pend; /* WIRE_RECORDS_MAX bytes */
	size_t pend_len;
	uint64_t pend_first, pend_count;
	int pend_full;
	uint64_t last_sent_ms; /* monotonic time of the last evidence */
	int retry_soon;	       /* records wait that the last quote missed */
	int verifier_framed;   /* its last 2xx answer said it takes
				 * framed evidence (Accept-Post) */
	int evidence_json;     /* it refused framed evidence all the same
				 * (415): JSON for the rest of the run */
	long last_status;      /* of the last answer that was not 2xx */

	/* the firmware event log, read once at start; NULL: none to send */
	char *boot_log;
	size_t boot_log_len;
	int boot_log_due;  /* send it with the next evidence: the first
				 * of this start or enrolment, or wanted */
	uint32_t pcr_mask; /* quoted: 0-10 and what the log extends */

	/* export = on, on a kernel that can (list_export.h) */
	int export_on;
	struct list_export exp;
	uint64_t stored_records;  /* of the last verdict... */
	int stored_durable;	  /* ...to evidence that asked for it */
	uint64_t export_retry_ms; /* monotonic: no export before */
	int export_unconfirmed;	  /* said that nothing is confirmed */
};

static uint64_t agent_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleep @ms unless a stop request comes first. */
static void agent_sleep(struct agent *a, uint32_t ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	if (!*a->stop)
		ppoll(NULL, 0, &ts, a->sigmask);
}

/* STATUS= for `systemctl status`. */
static void __attribute__((format(printf, 1, 2)))
agent_status(const char *fmt, ...)
{
	char status[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(status, sizeof(status), fmt, ap);
	va_end(ap);
	notify_status(status);
}

/* ---- the record buffer ------------------------------------------------ */

/* Forget the buffer and read the list again from record @index. */
static void agent_list_restart(struct agent *a, uint64_t index)
{
	uint64_t base = list_follow_base(a->list);
	struct imt_error err;

	if (index < base) {
		log_warnx("list: record %" PRIu64
			  " is asked for, but this boot's kernel deleted the records below %" PRIu64
			  ": sending from there",
			  index, base);
		index = base;
	}
	a->pend_len = 0;
	a->pend_count = 0;
	a->pend_first = index;
	a->pend_full = 0;
	if (list_follow_rewind(a->list, (size_t)index, &err) != IMT_OK)
		log_warnx("%s: %s", a->cfg->measurement_list, err.msg);
}

/* Drop the first @drop records of the buffer (proven by a verdict). */
static int agent_drop(struct agent *a, uint64_t drop)
{
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	size_t off = 0;
	uint64_t i;

	ima_list_parser_init(&p, NULL);
	for (i = 0; i < drop; i++) {
		if (off >= a->pend_len ||
		    ima_list_next(&p, a->pend + off, a->pend_len - off, 1, &rec,
				  &err) != IMT_OK)
			return -1;
		off += rec.size;
	}
	memmove(a->pend, a->pend + off, a->pend_len - off);
	a->pend_len -= off;
	a->pend_first += drop;
	a->pend_count -= drop;
	return 0;
}

static void agent_rewind_to(struct agent *a, uint64_t index)
{
	log_info("list: resuming at record %" PRIu64 " (had %" PRIu64
		 "-%" PRIu64 ")",
		 index, a->pend_first, a->pend_first + a->pend_count);
	agent_list_restart(a, index);
}

/* Continue the list where the verifier says (@next_index). */
static void agent_resume(struct agent *a, uint64_t next_index)
{
	uint64_t drop;

	switch (rules_resume(a->pend_first, a->pend_count, next_index, &drop)) {
	case RULES_CONTINUE:
		a->pend_len = 0;
		a->pend_count = 0;
		a->pend_first = next_index;
		a->pend_full = 0;
		break;
	case RULES_KEEP_TAIL:
		/* records we read ourselves parse: only a bug gets past */
		if (agent_drop(a, drop) < 0)
			agent_rewind_to(a, next_index);
		break;
	case RULES_REWIND:
		agent_rewind_to(a, next_index);
		break;
	}
}

/* Append one batch of the list to the buffer: 1 appended, 0 none, -1. */
static int agent_fill_once(struct agent *a)
{
	struct list_batch b;
	struct imt_error err;

	if (a->pend_full)
		return 0;
	if (list_follow_next(a->list, &b, &err) != IMT_OK) {
		log_warnx("%s: %s", a->cfg->measurement_list, err.msg);
		agent_list_restart(a, a->pend_first);
		return -1;
	}
	if (b.count == 0)
		return 0;
	if (b.first != a->pend_first + a->pend_count) {
		log_warnx("list: batch at %zu, expected %" PRIu64, b.first,
			  a->pend_first + a->pend_count);
		agent_list_restart(a, a->pend_first);
		return -1;
	}
	if (b.len > WIRE_RECORDS_MAX - a->pend_len) {
		/* read it again once the records before it are sent */
		if (list_follow_rewind(a->list,
				       (size_t)(a->pend_first + a->pend_count),
				       &err) != IMT_OK)
			log_warnx("list: %s", err.msg);
		a->pend_full = 1;
		return 0;
	}
	memcpy(a->pend + a->pend_len, b.bytes, b.len);
	a->pend_len += b.len;
	a->pend_count += b.count;
	return 1;
}

/* Append what the list has added, until the buffer is full. */
static int agent_fill(struct agent *a)
{
	int rc;

	while ((rc = agent_fill_once(a)) > 0)
		;
	return rc;
}

/* ---- talking to the verifier ------------------------------------------ */

/*
 * POST @len bytes of @body of media type @type (NULL: JSON, @body a
 * string or NULL for none) to @path. Return: the reaction; the answer is
 * in @r (to be freed) when it is RULES_GO_ON, else its status is in
 * a->last_status (0: none came).
 */
static enum rules_reaction agent_post_body(struct agent *a, const char *path,
					   const char *type, const char *body,
					   size_t len, struct client_reply *r)
{
	char msg[RULES_MESSAGE_MAX];
	enum rules_reaction re;
	int rc;

	a->last_status = 0;
	rc = type != NULL ?
		     client_post_typed(a->client, path, type, body, len, r) :
		     client_post(a->client, path, body, r);
	if (rc < 0) {
		log_warnx("POST %s: %s", path, r->error);
		/* the nonce may or may not have been consumed */
		a->nonce_len = 0;
		return RULES_BACKOFF;
	}
	if (r->status == 200 || r->status == 201) {
		a->verifier_framed = strstr(r->accept_post,
					    WIRE_EVIDENCE_FRAMED_TYPE) != NULL;
		return RULES_GO_ON;
	}
	rules_error_message(r->body, r->len, msg, sizeof(msg));
	re = rules_reaction(r->status, msg);
	log_warnx("POST %s: %ld %s: %s", path, r->status,
		  msg[0] != '\0' ? msg : "(no message)",
		  rules_reaction_name(re));
	a->last_status = r->status;
	client_reply_free(r);
	a->nonce_len = 0;
	return re;
}

/* POST @json (NULL: empty) to @path, as agent_post_body(). */
static enum rules_reaction agent_post(struct agent *a, const char *path,
				      const char *json, struct client_reply *r)
{
	return agent_post_body(a, path, NULL, json, 0, r);
}

/* The step after a reaction other than RULES_GO_ON. */
static enum agent_step agent_react(struct agent *a, enum rules_reaction re,
				   enum agent_step retry)
{
	switch (re) {
	case RULES_ENROLL:
		if (retry != STEP_ENROLL)
			return STEP_ENROLL;
		/* the enrollment itself was refused: not in a tight loop */
		break;
	case RULES_PENDING:
		return STEP_PENDING;
	case RULES_CONFLICT:
		log_warnx("id '%s' is enrolled with another TPM: set another id",
			  a->cfg->id);
		agent_status("id '%s' taken by another TPM", a->cfg->id);
		a->after_backoff = STEP_ENROLL;
		return STEP_BACKOFF;
	case RULES_GO_ON:
	case RULES_BACKOFF:
		break;
	}
	a->after_backoff = retry;
	return STEP_BACKOFF;
}

/* Take state, nonce and next_index from a verdict answer. */
static enum agent_step agent_take_verdict(struct agent *a,
					  struct client_reply *r)
{
	struct wire_verdict v;
	struct imt_error err;
	enum imt_result rc;

	rc = wire_decode(WIRE_VERDICT, r->body, r->len, &v, &err);
	client_reply_free(r);
	if (rc != IMT_OK) {
		log_warnx("verdict: %s", err.msg);
		a->after_backoff = STEP_CONNECT;
		return STEP_BACKOFF;
	}
	memcpy(a->nonce, v.nonce, v.nonce_len);
	a->nonce_len = v.nonce_len;
	a->nonce_got_ms = agent_now_ms();
	/* the TTL itself when the verifier sends it: no clock skew then */
	a->nonce_life_ms = v.nonce_ttl > 0 ?
				   rules_nonce_life_ms(v.nonce_ttl, 0) :
				   rules_nonce_life_ms(v.nonce_expires,
						       (uint64_t)time(NULL));
	if (strcmp(a->state, v.state) != 0)
		log_info("verdict %s, next_index %" PRIu64, v.state,
			 v.next_index);
	else
		log_debug("verdict %s, next_index %" PRIu64, v.state,
			  v.next_index);
	snprintf(a->state, sizeof(a->state), "%s", v.state);
	agent_status("verdict %s, next_index %" PRIu64, v.state, v.next_index);
	/* confirmed by the verifier; durably only if the evidence asked */
	a->stored_records = v.has_stored_records ? v.stored_records : 0;
	a->stored_durable = 0;
	if (a->export_on && !v.has_stored_records && !a->export_unconfirmed) {
		log_warnx(
			"export: the verifier does not say which records it stored (an older verifier?): nothing is deleted");
		a->export_unconfirmed = 1;
	}
	if (strcmp(v.boot_log, "wanted") == 0 && a->boot_log != NULL) {
		log_debug("verdict: the firmware event log is wanted");
		a->boot_log_due = 1;
	}
	wire_free(WIRE_VERDICT, &v);
	backoff_reset(&a->backoff);
	a->synced = 1;
	if (strcmp(a->state, "pending") == 0)
		return STEP_PENDING;
	agent_resume(a, v.next_index);
	return STEP_STREAM;
}

/* POST /nonce: a nonce and nothing else (anyone may ask for it). */
static enum agent_step agent_nonce(struct agent *a)
{
	struct client_reply r;
	struct wire_nonce n;
	struct imt_error err;
	enum rules_reaction re;
	enum imt_result rc;

	re = agent_post(a, a->path_nonce, NULL, &r);
	if (re != RULES_GO_ON)
		return agent_react(a, re, STEP_CONNECT);
	rc = wire_decode(WIRE_NONCE, r.body, r.len, &n, &err);
	client_reply_free(&r);
	if (rc != IMT_OK) {
		log_warnx("nonce: %s", err.msg);
		a->after_backoff = STEP_CONNECT;
		return STEP_BACKOFF;
	}
	memcpy(a->nonce, n.nonce, n.nonce_len);
	a->nonce_len = n.nonce_len;
	a->nonce_got_ms = agent_now_ms();
	a->nonce_life_ms = rules_nonce_life_ms(n.nonce_ttl, 0);
	wire_free(WIRE_NONCE, &n);
	return STEP_STREAM;
}

/*
 * (Re)connect: a nonce, and since the verifier may have changed meanwhile
 * (restarted, restored), where the list continues comes with the first
 * verdict: the next round is a probe.
 */
static enum agent_step agent_connect(struct agent *a)
{
	enum agent_step next = agent_nonce(a);

	if (next == STEP_STREAM)
		a->synced = 0;
	return next;
}

/* TPM2_ActivateCredential on the challenge and POST the proof. */
static enum agent_step agent_activate(struct agent *a,
				      const struct wire_challenge *ch)
{
	uint8_t secret[TPM_SECRET_MAX];
	struct wire_activate act;
	struct client_reply r;
	struct imt_error err;
	enum rules_reaction re;
	enum tpm_status st;
	size_t secret_len = 0;
	char *json;
	int rc;

	st = tpm_activate_credential(a->tpm, ch->credential.data,
				     ch->credential.len, ch->secret.data,
				     ch->secret.len, secret, &secret_len);
	if (st != TPM_OK) {
		log_warnx("activate credential: %s", tpm_status_name(st));
		a->after_backoff = STEP_ENROLL;
		return STEP_BACKOFF;
	}
	memset(&act, 0, sizeof(act));
	snprintf(act.agent, sizeof(act.agent), "%s", a->cfg->id);
	rc = rules_proof(secret, secret_len, a->cfg->id, act.proof);
	explicit_bzero(secret, sizeof(secret));
	act.proof_len = RULES_PROOF_LEN;
	json = rc == 0 ? wire_encode(WIRE_ACTIVATE, &act, &err) : NULL;
	explicit_bzero(&act, sizeof(act));
	if (json == NULL) {
		log_warnx("activate: %s", rc == 0 ? err.msg : "HMAC failed");
		a->after_backoff = STEP_ENROLL;
		return STEP_BACKOFF;
	}
	re = agent_post(a, a->path_activate, json, &r);
	free(json);
	if (re != RULES_GO_ON)
		return agent_react(a, re, STEP_ENROLL);
	log_info("enrolled as '%s'", a->cfg->id);
	a->boot_log_due = a->boot_log != NULL;
	return agent_take_verdict(a, &r);
}

/* POST /v1/agents: EK, its certificate and the AK; activate the answer. */
static enum agent_step agent_enroll(struct agent *a)
{
	struct wire_enroll e;
	struct wire_challenge ch;
	struct client_reply r;
	struct imt_error err;
	enum rules_reaction re;
	enum agent_step next;
	char *json;

	memset(&e, 0, sizeof(e));
	snprintf(e.agent, sizeof(e.agent), "%s", a->cfg->id);
	e.ek_pub = (struct wire_blob){ a->ek.pub, a->ek.pub_len };
	e.ek_cert = (struct wire_blob){ a->ek.cert, a->ek.cert_len };
	e.ak_pub = (struct wire_blob){ a->ak.pub, a->ak.pub_len };
	json = wire_encode(WIRE_ENROLL, &e, &err);
	if (json == NULL)
		fatalx("enroll: %s", err.msg); /* our own TPM's data */
	log_info("enrolling as '%s'%s", a->cfg->id,
		 a->ek.cert_len == 0 ? " (the TPM has no EK certificate)" : "");
	agent_status("enrolling as '%s'", a->cfg->id);
	re = agent_post(a, "/v1/agents", json, &r);
	free(json);
	if (re != RULES_GO_ON)
		return agent_react(a, re, STEP_ENROLL);
	if (wire_decode(WIRE_CHALLENGE, r.body, r.len, &ch, &err) != IMT_OK) {
		log_warnx("challenge: %s", err.msg);
		client_reply_free(&r);
		a->after_backoff = STEP_ENROLL;
		return STEP_BACKOFF;
	}
	client_reply_free(&r);
	next = agent_activate(a, &ch);
	wire_free(WIRE_CHALLENGE, &ch);
	return next;
}

/* Waiting for an operator to approve this machine's EK. */
static enum agent_step agent_pending(struct agent *a)
{
	uint32_t ms = backoff_next(&a->backoff);

	log_info("pending: waiting for an operator to approve '%s' (%u ms)",
		 a->cfg->id, ms);
	agent_status("pending approval of '%s'", a->cfg->id);
	agent_sleep(a, ms);
	return STEP_CONNECT;
}

static enum agent_step agent_backoff(struct agent *a)
{
	uint32_t ms = backoff_next(&a->backoff);

	log_info("retrying in %u ms", ms);
	agent_sleep(a, ms);
	return a->after_backoff;
}

/* ---- export ----------------------------------------------------------- */

static void agent_replay_record(void *arg, const struct ima_record *rec)
{
	list_replay_record(arg, rec);
}

/* Close both readers of the list (a writer gets in only without them). */
static void agent_list_close(struct agent *a)
{
	list_follow_close(a->list);
	list_follow_close(a->replay_list);
	a->list = NULL;
	a->replay_list = NULL;
}

/* A reader of the list where the kernel's records start. */
static struct list_follow *agent_list_reader(struct agent *a)
{
	struct list_follow *f;
	struct imt_error err;
	int on = a->export_on;

	f = list_follow_open_at(a->cfg->measurement_list,
				on && a->exp.staged > 0 ? a->exp.staged_path :
							  NULL,
				on ? (size_t)a->exp.deleted : 0, NULL, &err);
	if (f == NULL)
		log_warnx("%s", err.msg);
	return f;
}

/*
 * (Re)open the list at record @index, and its reader for the replay,
 * which reads on from where the replay stands (records it has extended
 * are parsed and passed over).
 */
static int agent_list_open(struct agent *a, uint64_t index)
{
	struct imt_error err;

	agent_list_close(a);
	a->list = agent_list_reader(a);
	if (a->list == NULL)
		return -1;
	if (a->replay != NULL) {
		/* records deleted before the replay read them: from after them */
		if (a->export_on)
			list_replay_restart(a->replay, a->exp.deleted,
					    a->exp.pcr);
		a->replay_list = agent_list_reader(a);
		if (a->replay_list == NULL)
			return -1;
		list_follow_observe(a->replay_list, agent_replay_record,
				    a->replay);
	}
	if (index > list_follow_base(a->list) &&
	    list_follow_rewind(a->list, (size_t)index, &err) != IMT_OK)
		log_warnx("%s: %s", a->cfg->measurement_list, err.msg);
	return 0;
}

/* Where the kernel's list starts, for the verifier (PROTOCOL.md). */
static void agent_export_fields(const struct agent *a, struct wire_evidence *ev)
{
	if (!a->export_on)
		return;
	if (a->exp.deleted > 0) {
		ev->list_start = a->exp.deleted;
		memcpy(ev->list_start_pcr, a->exp.pcr, a->bank->size);
		ev->list_start_pcr_len = a->bank->size;
	}
	/* records are staged: the next confirmation decides the delete */
	ev->export_sync = a->exp.staged > 0;
}

/*
 * The kernel lets a writer in only while no list file is open for
 * reading, the agent's own included: close the follower around @fn and
 * open it again at the same record (the list left, numbered on).
 */
static int agent_export_call(struct agent *a,
			     int (*fn)(struct list_export *, char *, size_t),
			     const char *what)
{
	char why[PATH_MAX + 128];
	uint64_t at = a->pend_first + a->pend_count;
	int rc;

	agent_list_close(a);
	rc = fn(&a->exp, why, sizeof(why));
	if (rc < 0) {
		log_warnx("export: %s: %s; again in %d s", what, why,
			  AGENT_EXPORT_RETRY_MS / 1000);
		a->export_retry_ms = agent_now_ms() + AGENT_EXPORT_RETRY_MS;
	}
	if (agent_list_open(a, at) < 0)
		fatalx("export: the list does not open again");
	a->pend_full = 0; /* the follower stands at the buffer's end */
	return rc;
}

/*
 * After a verdict: delete the staged records once the verifier has stored
 * every one of them durably; stage when the kernel holds export_records
 * records the verifier has stored (records staged but not yet stored are
 * read from the staged list, and sent before their delete). Under a
 * sustained measurement rate every batch has records past its quote, so
 * waiting for a moment when all are stored would never export.
 */
static void agent_export(struct agent *a)
{
	uint64_t from = a->exp.deleted, end = from + a->exp.staged;

	if (!a->export_on || agent_now_ms() < a->export_retry_ms)
		return;
	if (a->exp.staged > 0) {
		if (!a->stored_durable || a->stored_records < end)
			return;
		if (agent_export_call(a, list_export_delete, "deleting") == 0)
			log_info("export: deleted records %" PRIu64 "-%" PRIu64
				 " from kernel memory (stored by the verifier)",
				 from, end - 1);
		return;
	}
	/* records read but not yet stored may be staged with the rest:
	 * they stay readable there, and the delete waits for them */
	if (a->stored_records < from ||
	    a->stored_records - from < a->cfg->export_records)
		return;
	if (agent_export_call(a, list_export_stage, "staging") > 0)
		log_debug("export: staged records %" PRIu64 "-%" PRIu64,
			  a->exp.deleted, a->exp.deleted + a->exp.staged - 1);
}

/*
 * export = on, once the TPM answers: can the kernel, and what has this
 * boot deleted? A boot is the TPM's resetCount, not the kernel's boot_id:
 * a kexec carries the list (what was not deleted) and the PCRs over.
 */
static int agent_export_start(struct agent *a)
{
	char why[PATH_MAX + 128], boot[32];
	enum tpm_status st;
	uint32_t resets;
	int rc;

	if (strcmp(a->cfg->export, "on") != 0)
		return 0;
	st = tpm_reset_count(a->tpm, &resets);
	if (st != TPM_OK) {
		log_warnx("export: TPM2_ReadClock: %s", tpm_status_name(st));
		return -1;
	}
	snprintf(boot, sizeof(boot), "tpm-reset-%" PRIu32, resets);
	rc = list_export_init(&a->exp, a->cfg->measurement_list,
			      a->cfg->state_dir, boot, a->bank, why,
			      sizeof(why));
	if (rc == 1) {
		log_info("export = on, but records cannot be exported: %s; they stay in kernel memory",
			 why);
		return 0;
	}
	if (rc < 0) {
		log_warnx("export: %s; remove the state file only if this boot deleted no records",
			  why);
		return -1;
	}
	a->export_on = 1;
	log_info("export = on: this boot's kernel deleted %" PRIu64
		 " records, %" PRIu64 " staged; staging at %" PRIu64,
		 a->exp.deleted, a->exp.staged, a->cfg->export_records);
	return 0;
}

/* ---- streaming -------------------------------------------------------- */

struct agent_resolve {
	struct tpm_quote quote;
	struct pcr_set *pcrs;
	uint16_t hash_alg;
};

static int agent_resolve_match(void *arg, const uint8_t *pcr10)
{
	struct agent_resolve *r = arg;

	memcpy(r->pcrs->value[IMA_MEASURE_PCR], pcr10, r->pcrs->algo->size);
	return tpm_quote_check_pcrs(&r->quote, r->hash_alg, r->pcrs, NULL) ==
	       IMT_OK;
}

/*
 * The kernel extended PCR 10 while the agent quoted: read what the list
 * added meanwhile and look for the quoted value among the replay's (the
 * PCRs 0-9 read before the quote must still be right, or nothing
 * matches and the quote is taken again).
 */
static int agent_resolve_quote(void *arg, struct tpm_evidence_quote *q)
{
	struct agent *a = arg;
	struct agent_resolve r = {
		.pcrs = &q->pcrs,
		.hash_alg = hash_algo_bank("sha256")->tpm_alg, /* the AK's */
	};
	struct list_batch b;
	uint64_t at;

	if (a->replay == NULL || a->replay_list == NULL ||
	    tpm_quote_parse(q->attest, q->attest_len, &r.quote, NULL) != IMT_OK)
		return -1;
	/* the replay's own reader, to the end: never limited by what the
	 * agent's buffer holds while the verifier catches up */
	do {
		if (list_follow_next(a->replay_list, &b, NULL) != IMT_OK)
			return -1;
	} while (b.count > 0);
	if (list_replay_find(a->replay, agent_resolve_match, &r, &at) == NULL)
		return -1;
	log_debug("quote: PCR 10 moved during it; it covers records up to %" PRIu64,
		  at);
	return 0;
}

/*
 * A fresh nonce when the one held is missing or old: STEP_STREAM to go
 * on, or where the agent goes instead.
 */
static enum agent_step agent_round_nonce(struct agent *a)
{
	if (a->nonce_len != 0 &&
	    !rules_nonce_stale(a->nonce_got_ms, a->nonce_life_ms,
			       agent_now_ms()))
		return STEP_STREAM;
	/* only the nonce is old: where the list continues is known, and a
	 * probe would store nothing, not even that the machine was seen (a
	 * heartbeat past half the nonce's life would never count) */
	log_debug("nonce: asking for a fresh one");
	return agent_nonce(a);
}

/*
 * The evidence of quote @q: the records held (or a probe while not in
 * step), the firmware log when due; *@carry_log says whether it went.
 */
static void agent_evidence_fill(struct agent *a, struct tpm_evidence_quote *q,
				struct wire_evidence *ev, int *carry_log)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->agent, sizeof(ev->agent), "%s", a->cfg->id);
	memcpy(ev->nonce, a->nonce, a->nonce_len);
	ev->nonce_len = a->nonce_len;
	ev->bank = a->bank;
	ev->quote = (struct wire_blob){ q->attest, q->attest_len };
	ev->signature = (struct wire_blob){ q->sig, q->sig_len };
	ev->pcrs = q->pcrs;
	/* the lowest version that carries what is sent; with export, v3
	 * even without its fields, for the verdict's stored_records */
	ev->version = a->export_on ? WIRE_VERSION : 0;
	agent_export_fields(a, ev);
	*carry_log = a->boot_log_due && a->boot_log != NULL;
	if (*carry_log)
		ev->boot_log = (struct wire_blob){ (uint8_t *)a->boot_log,
						   a->boot_log_len };
	if (a->synced && *carry_log &&
	    a->pend_len > WIRE_RECORDS_MAX - a->boot_log_len) {
		/* log and records share WIRE_RECORDS_MAX: records next time */
		ev->first_index = a->pend_first;
	} else if (a->synced) {
		ev->first_index = a->pend_first;
		ev->records = (struct wire_blob){ a->pend, a->pend_len };
		/* the list goes on past this message: the verifier holds it
		 * until a quote catches up (a long list's first start) */
		ev->more = a->pend_full;
	} else {
		/* no index is this far: the verdict says where to go on */
		ev->first_index = WIRE_PROBE_INDEX;
	}
}

/*
 * Send @ev and take the answer into @r. *@framed says whether it went as
 * bytes after the JSON text (wire.h), to a verifier that said it takes
 * them: no base64 or hex for us to write nor for the verifier to read.
 */
static enum rules_reaction agent_evidence_send(struct agent *a,
					       const struct wire_evidence *ev,
					       struct client_reply *r,
					       int *framed)
{
	enum rules_reaction re;
	struct imt_error err;
	size_t body_len = 0;
	char *body;

	*framed = a->verifier_framed && !a->evidence_json;
	if (*framed)
		body = wire_encode_evidence_framed(ev, &body_len, &err);
	else
		body = wire_encode(WIRE_EVIDENCE, ev, &err);
	if (body == NULL)
		fatalx("evidence: %s", err.msg); /* our own data */
	a->nonce_len = 0; /* single use, whatever the answer */
	a->last_sent_ms = agent_now_ms();
	re = agent_post_body(a, a->path_evidence,
			     *framed ? WIRE_EVIDENCE_FRAMED_TYPE : NULL, body,
			     body_len, r);
	free(body);
	return re;
}

/*
 * The verdict on records @first.. (@count of them) taken: export what it
 * says is stored, and whether to send again soon.
 */
static enum agent_step agent_round_done(struct agent *a, struct client_reply *r,
					int export_sync, uint64_t first,
					uint64_t count)
{
	enum agent_step next = agent_take_verdict(a, r);

	if (next != STEP_STREAM)
		return next;
	a->stored_durable = export_sync;
	agent_export(a);
	if (strcmp(a->state, "failed") == 0)
		log_warnx("evidence for records %" PRIu64 "-%" PRIu64
			  " judged failed (see the machine's events)",
			  first, first + count);
	/* records the quote missed: again soon, if the verifier advanced */
	a->retry_soon = (a->pend_count > 0 || a->pend_full) &&
			a->pend_first > first;
	return STEP_STREAM;
}

/* Quote, then read the list, then send: one round of evidence. */
static enum agent_step agent_round(struct agent *a)
{
	struct tpm_evidence_quote q;
	struct wire_evidence ev;
	struct client_reply r;
	enum rules_reaction re;
	enum agent_step next;
	enum tpm_status st;
	uint64_t first, count;
	int carry_log, framed;

	next = agent_round_nonce(a);
	if (next != STEP_STREAM)
		return next;
	/* quote first: records added after it are in the batch too, and the
	 * verifier proves the prefix the quote covers (PROTOCOL.md) */
	st = tpm_quote_resolved(a->tpm, a->bank, a->pcr_mask, a->nonce,
				a->nonce_len, agent_resolve_quote, a, &q);
	if (st != TPM_OK) {
		log_warnx("quote: %s", tpm_status_name(st));
		a->after_backoff = STEP_STREAM;
		return STEP_BACKOFF;
	}
	if (a->synced && agent_fill(a) < 0) {
		a->after_backoff = STEP_CONNECT;
		return STEP_BACKOFF;
	}
	agent_evidence_fill(a, &q, &ev, &carry_log);
	first = a->pend_first;
	count = a->pend_count;
	log_debug("evidence: records %" PRIu64 "-%" PRIu64 " (%zu bytes)%s",
		  first, first + count, a->pend_len,
		  carry_log ? ", firmware event log" : "");
	re = agent_evidence_send(a, &ev, &r, &framed);
	if (re != RULES_GO_ON && framed && a->last_status == 415) {
		/* said it takes them, refused all the same (something in
		 * between): JSON from now on, at once with a fresh nonce
		 * (this one was not taken) */
		log_warnx("the verifier refused %s it said it takes: evidence goes as JSON",
			  WIRE_EVIDENCE_FRAMED_TYPE);
		a->evidence_json = 1;
		a->retry_soon = 1;
		return STEP_STREAM;
	}
	if (re != RULES_GO_ON)
		return agent_react(a, re, STEP_CONNECT);
	a->retry_soon = 0;
	if (carry_log)
		a->boot_log_due = 0; /* unless the verdict wants it again */
	return agent_round_done(a, &r, ev.export_sync, first, count);
}

/* Sleep until the list grows or the heartbeat is due. */
static enum agent_step agent_idle(struct agent *a)
{
	uint64_t heartbeat_ms = a->cfg->heartbeat * 1000, now, left, ms;
	int n;

	for (;;) {
		now = agent_now_ms();
		if (*a->stop)
			return STEP_STOP;
		if (now - a->last_sent_ms >= heartbeat_ms)
			return STEP_STREAM;
		left = heartbeat_ms - (now - a->last_sent_ms);
		ms = rules_wait_ms(a->pollable, a->cfg->poll_fallback_ms, left,
				   a->retry_soon);
		n = list_follow_wait_signals(a->list, (int)ms, a->sigmask);
		if (n < 0 && errno != EINTR)
			log_warn("poll %s", a->cfg->measurement_list);
		if (*a->stop)
			return STEP_STOP;
		if (a->retry_soon) {
			a->retry_soon = 0;
			return STEP_STREAM;
		}
		if (agent_fill(a) < 0) {
			a->after_backoff = STEP_CONNECT;
			return STEP_BACKOFF;
		}
		if (a->pend_count > 0)
			return STEP_STREAM;
	}
}

static enum agent_step agent_stream(struct agent *a)
{
	enum agent_step next = agent_round(a);
	uint64_t since;

	if (next != STEP_STREAM)
		return next;
	next = agent_idle(a);
	since = agent_now_ms() - a->last_sent_ms;
	if (next == STEP_STREAM && since < AGENT_ROUND_MIN_MS)
		agent_sleep(a, (uint32_t)(AGENT_ROUND_MIN_MS - since));
	return next;
}

/* ---- start and the step table ----------------------------------------- */

/* PCR 10 from where the list starts: zero, or after what was deleted. */
static int agent_replay_start(struct agent *a)
{
	static const uint8_t zero[HASH_ALGO_MAX_SIZE];
	struct imt_error err;

	a->replay = list_replay_new(a->bank, a->export_on ? a->exp.deleted : 0,
				    a->export_on ? a->exp.pcr : zero, &err);
	if (a->replay == NULL)
		log_warnx("replay: %s", err.msg);
	return a->replay != NULL ? 0 : -1;
}

/* Open the TPM, make the EK, load or make the AK; retried while the TPM
 * does not answer. Return: 0, 1 on a stop request, -1 on failure. */
static int agent_tpm_start(struct agent *a)
{
	enum tpm_status st;
	uint32_t ms;

	for (;;) {
		st = tpm_open(a->cfg->tcti, &a->tpm);
		if (st == TPM_OK)
			st = tpm_ek_load(a->tpm, a->alg, &a->ek);
		if (st == TPM_OK)
			st = tpm_ak_load(a->tpm, a->cfg->state_dir, a->alg,
					 &a->ak);
		if (st == TPM_OK)
			return 0;
		tpm_close(a->tpm);
		a->tpm = NULL;
		if (st != TPM_ERR_COMM) {
			log_warnx("TPM %s: %s", a->cfg->tcti,
				  tpm_status_name(st));
			return -1;
		}
		ms = backoff_next(&a->backoff);
		log_warnx("TPM %s does not answer; retrying in %u ms",
			  a->cfg->tcti, ms);
		agent_status("waiting for the TPM");
		agent_sleep(a, ms);
		if (*a->stop)
			return 1;
	}
}

static int agent_paths(struct agent *a)
{
	static const struct {
		size_t off;
		const char *suffix;
	} paths[] = {
		{ offsetof(struct agent, path_nonce), "nonce" },
		{ offsetof(struct agent, path_activate), "activate" },
		{ offsetof(struct agent, path_evidence), "evidence" },
	};
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if ((size_t)snprintf((char *)a + paths[i].off, AGENT_PATH_MAX,
				     "/v1/agents/%s/%s", a->cfg->id,
				     paths[i].suffix) >= AGENT_PATH_MAX)
			return -1;
	}
	return 0;
}

/*
 * Read the firmware event log once (it does not change within a boot). A
 * machine without one (BIOS, no TPM driver, boot_log = none) sends none.
 */
static void agent_boot_log_load(struct agent *a)
{
	const char *path = a->cfg->boot_log;
	char err[AGENT_CONFIG_PATH_MAX + 128];

	a->pcr_mask = rules_pcr_mask(NULL, 0);
	if (strcmp(path, "none") == 0 || path[0] == '\0') {
		log_info("boot_log = none: no firmware event log is sent");
		return;
	}
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		log_info("%s: no such file: this machine has no firmware event log; none is sent",
			 path);
		return;
	}
	a->boot_log = file_read(path, WIRE_BOOT_LOG_MAX, &a->boot_log_len, err,
				sizeof(err));
	if (a->boot_log != NULL && a->boot_log_len == 0) {
		free(a->boot_log);
		a->boot_log = NULL;
		snprintf(err, sizeof(err), "%s: empty", path);
	}
	if (a->boot_log == NULL) {
		log_warnx("firmware event log: %s; none is sent", err);
		return;
	}
	a->pcr_mask =
		rules_pcr_mask((const uint8_t *)a->boot_log, a->boot_log_len);
	log_info("firmware event log %s: %zu bytes; PCRs 0x%06x quoted", path,
		 a->boot_log_len, (unsigned int)a->pcr_mask);
	a->boot_log_due = 1;
}

static int agent_start(struct agent *a)
{
	struct client_opts co;
	int rc;

	a->bank = hash_algo_bank(a->cfg->bank);
	a->alg = strcmp(a->cfg->key_alg, "ecc") == 0 ? TPM_KEY_ECC :
						       TPM_KEY_RSA;
	backoff_init(&a->backoff, (uint32_t)a->cfg->backoff_max * 1000,
		     ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
			     agent_now_ms());
	if (a->bank == NULL || agent_paths(a) < 0) {
		log_warnx("bank '%s' or id '%s' unusable", a->cfg->bank,
			  a->cfg->id);
		return -1;
	}
	a->pend = malloc(WIRE_RECORDS_MAX);
	if (a->pend == NULL) {
		log_warnx("out of memory");
		return -1;
	}
	if (agent_list_open(a, 0) < 0)
		return -1;
	a->pollable = list_follow_pollable(a->list);
	agent_boot_log_load(a);
	log_info("list %s: %s", a->cfg->measurement_list,
		 a->pollable ? "poll() reports new records" :
			       "no poll() support, reading on a timer");
	rc = agent_tpm_start(a);
	if (rc != 0)
		return rc;
	log_info("TPM %s: %s EK%s, AK %s", a->cfg->tcti, a->cfg->key_alg,
		 a->ek.cert_len != 0 ? " with certificate" : "",
		 a->ak.created ? "created" : "loaded");
	/* the list again, numbered from what this boot deleted (closed
	 * meanwhile: a writer gets in only while no reader is open) */
	agent_list_close(a);
	if (agent_export_start(a) < 0 || agent_replay_start(a) < 0 ||
	    agent_list_open(a, 0) < 0)
		return -1;
	a->pend_first = list_follow_base(a->list);
	backoff_reset(&a->backoff);
	client_opts_init(&co, a->cfg->verifier_url, a->cfg->ca_cert);
	co.user_agent = "imatrust-agent/1";
	a->client = client_new(&co);
	if (a->client == NULL) {
		log_warnx("HTTPS client: cannot start libcurl");
		return -1;
	}
	return 0;
}

static void agent_stop(struct agent *a)
{
	client_free(a->client);
	tpm_close(a->tpm);
	agent_list_close(a);
	list_replay_free(a->replay);
	free(a->pend);
	free(a->boot_log);
}

static enum agent_step (*const agent_steps[STEP_COUNT])(struct agent *) = {
	[STEP_CONNECT] = agent_connect, [STEP_ENROLL] = agent_enroll,
	[STEP_PENDING] = agent_pending, [STEP_STREAM] = agent_stream,
	[STEP_BACKOFF] = agent_backoff,
};

int agent_run(const struct agent_config *cfg, volatile sig_atomic_t *stop,
	      const sigset_t *sigmask)
{
	struct agent *a = calloc(1, sizeof(*a));
	enum agent_step step;
	int rc;

	if (a == NULL)
		fatal("%s", __func__);
	a->cfg = cfg;
	a->stop = stop;
	a->sigmask = sigmask;
	rc = agent_start(a);
	if (rc != 0)
		goto out;
	notify_ready("connecting to the verifier");
	/* a new AK is unknown to the verifier: enroll it right away */
	step = a->ak.created ? STEP_ENROLL : STEP_CONNECT;
	while (!*stop && step != STEP_STOP)
		step = agent_steps[step](a);
out:
	notify_stopping();
	agent_stop(a);
	free(a);
	return rc < 0 ? 1 : 0;
}
