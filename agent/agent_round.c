// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_round.c - a round of evidence: quote, read the list, send; then
 * wait until the list grows or the heartbeat is due.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_int.h"
#include "ima_verify.h"
#include "log.h"
#include "tpm_quote.h"

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

/*
 * Where a round's time went, for the detection latency's breakdown
 * (tests/guest/fleet/run.sh reads it from the journal): from the list's
 * growth to the quote's start (@t0), the quote, the list read, the send
 * until the verdict.
 */
static void agent_round_timing(struct agent *a, uint64_t count, uint64_t t0,
			       uint64_t tq, uint64_t tf)
{
	uint64_t now = agent_now_ms();

	log_debug("round: %" PRIu64 " records; list grew %" PRIu64
		  " ms before the quote, quote %" PRIu64
		  " ms, list read %" PRIu64 " ms, send and verdict %" PRIu64
		  " ms",
		  count, a->grew_ms != 0 ? t0 - a->grew_ms : 0, tq - t0,
		  tf - tq, now - tf);
	a->grew_ms = 0;
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
	uint64_t first, count, t0, tq, tf;
	int carry_log, framed;

	next = agent_round_nonce(a);
	if (next != STEP_STREAM)
		return next;
	t0 = agent_now_ms();
	/* quote first: records added after it are in the batch too, and the
	 * verifier proves the prefix the quote covers (PROTOCOL.md) */
	st = tpm_quote_resolved(a->tpm, a->bank, a->pcr_mask, a->nonce,
				a->nonce_len, agent_resolve_quote, a, &q);
	if (st != TPM_OK) {
		log_warnx("quote: %s", tpm_status_name(st));
		a->after_backoff = STEP_STREAM;
		return STEP_BACKOFF;
	}
	tq = agent_now_ms();
	if (a->synced && agent_fill(a) < 0) {
		a->after_backoff = STEP_CONNECT;
		return STEP_BACKOFF;
	}
	tf = agent_now_ms();
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
	agent_round_timing(a, count, t0, tq, tf);
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
		if (a->pend_count > 0) {
			a->grew_ms = agent_now_ms();
			return STEP_STREAM;
		}
	}
}

enum agent_step agent_stream(struct agent *a)
{
	enum agent_step next = agent_round(a);
	uint64_t since;

	if (next != STEP_STREAM)
		return next;
	/* the round's bodies are freed: their pages go back before the
	 * sleep, the heap's free holes too, not only its top */
	malloc_trim(0);
	next = agent_idle(a);
	since = agent_now_ms() - a->last_sent_ms;
	if (next == STEP_STREAM && since < AGENT_ROUND_MIN_MS)
		agent_sleep(a, (uint32_t)(AGENT_ROUND_MIN_MS - since));
	return next;
}
