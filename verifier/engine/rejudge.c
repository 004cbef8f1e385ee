// SPDX-License-Identifier: GPL-2.0-only
/*
 * rejudge.c - the stored records of every machine, judged again.
 *
 * A db_*_list() callback must not call back into the database, so each
 * step collects first (machine ids, then a round of records with their
 * own copies of the borrowed strings) and judges and writes after.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "db_boot.h"
#include "db_cluster.h"
#include "db_machine.h"
#include "db_ref.h"
#include "engine.h"
#include "history.h"
#include "ima_list.h"
#include "judge.h"
#include "policies.h"
#include "rejudge.h"

#define QUEUE_CLEAR_CHUNK 2000 /* queued digests dropped per transaction */

/* The record sets of one boot, in the order they are judged. */
enum rejudge_pass {
	PASS_ALL,	 /* every record: a policy or a key changed */
	PASS_UNACCEPTED, /* unknown, mismatch and bad-signature */
	PASS_WITHDRAWN,	 /* known, digest queued as withdrawn */
	PASS_UNPINNED,	 /* known by the digest alone (any_path) */
	PASS_COUNT,
};

/* A stored record, copied out of the listing. */
struct record_round {
	struct judge_copy *r;
	size_t n;
	int oom;
};

/* One fleet-wide re-judge. */
struct rejudge_run {
	struct verifier *v;
	unsigned int changes;
	const char *cause;
	int64_t now;
	size_t queued; /* withdrawn digests queued at the start */
	struct record_round rr;
	struct db_verdict_update *u;
	struct rejudge_stats *stats;
	/* the machine at hand */
	int64_t boot_id;
	uint64_t nrecords;
	size_t page;	/* records per round: rejudge_page() */
	int became_bad; /* a record turned unacceptable */
	size_t examined;
};

static rejudge_hook_fn hook_fn;
static void *hook_arg;

void rejudge_set_hook(rejudge_hook_fn fn, void *arg)
{
	hook_fn = fn;
	hook_arg = arg;
}

/*
 * v->lock is a plain mutex, not a fair one: a thread that unlocks and
 * locks again at once keeps it, and the evidence waiting for it (woken,
 * but not yet running) starves for the whole import. Stepping aside a
 * moment lets the waiters pass the lock among themselves first.
 */
/*
 * IMATRUST_TEST_CHUNK_DELAY_MS (tests only: test_ref_crash.sh): a pause
 * after every chunk of an import or a withdrawal, so that a test can kill
 * the verifier in the middle of one.
 */
static void test_chunk_delay(const char *point)
{
	const char *ms = getenv("IMATRUST_TEST_CHUNK_DELAY_MS");
	struct timespec pause;
	long n;

	if (ms == NULL || (strcmp(point, "import:chunk") != 0 &&
			   strcmp(point, "withdraw:chunk") != 0))
		return;
	n = strtol(ms, NULL, 10);
	if (n <= 0 || n > 10000)
		return;
	pause.tv_sec = n / 1000;
	pause.tv_nsec = (n % 1000) * 1000000L;
	nanosleep(&pause, NULL);
}

void rejudge_hook(const char *point)
{
	struct timespec pause = { 0, strncmp(point, "rejudge", 7) == 0 ?
					     REJUDGE_PAUSE_MACHINE_NS :
					     REJUDGE_PAUSE_CHUNK_NS };

	nanosleep(&pause, NULL);
	test_chunk_delay(point);
	if (hook_fn != NULL)
		hook_fn(point, hook_arg);
}

struct machine_page {
	char (*id)[DB_MACHINE_ID_MAX + 1];
	size_t n;
};

static int collect_machine(const struct db_machine *m, void *arg)
{
	struct machine_page *mp = arg;

	strcpy(mp->id[mp->n++], m->id);
	return 0;
}

static int collect_record(int64_t boot_id, const struct db_record *rec,
			  void *arg)
{
	struct record_round *rr = arg;

	(void)boot_id;
	if (judge_copy_set(&rr->r[rr->n++], rec) < 0)
		rr->oom = 1;
	return rr->oom;
}

static void round_clear(struct record_round *rr)
{
	size_t i;

	for (i = 0; i < rr->n; i++)
		judge_copy_free(&rr->r[i]);
	rr->n = 0;
	rr->oom = 0;
}

/* Which passes this run makes over a boot, and how. */
static int pass_wanted(const struct rejudge_run *run, enum rejudge_pass p)
{
	if (run->changes & REJUDGE_POLICY)
		return p == PASS_ALL;
	switch (p) {
	case PASS_ALL:
		return 0;
	case PASS_WITHDRAWN:
		return run->queued > 0;
	case PASS_UNPINNED:
		/* any_path may be allowed by some policy: cheap to ask */
		return (run->changes & REJUDGE_ADDED) != 0;
	default:
		return 1;
	}
}

static int list_pass(struct rejudge_run *run, enum rejudge_pass p,
		     uint64_t from, struct imt_error *err)
{
	struct db *db = run->v->db;
	enum db_known_set set = DB_KNOWN_UNPINNED;

	if (p == PASS_UNACCEPTED || p == PASS_ALL)
		return db_record_list(db, run->boot_id, from, run->page,
				      p == PASS_UNACCEPTED, collect_record,
				      &run->rr, err);
	/*
	 * Read the boot once: an index of known records by digest would make
	 * this cheaper, but it halved the rate of stored evidence (426 vs
	 * 842 attestations/s of 50 records, make bench-verifier): every
	 * stored record pays for it, a withdrawal is rare.
	 */
	if (p == PASS_WITHDRAWN)
		set = DB_KNOWN_WITHDRAWN_SCAN;
	return db_record_list_known(db, run->boot_id, set, from, run->page,
				    collect_record, &run->rr, err);
}

/* Judge one round again; store the verdicts that changed. */
static int judge_round(struct rejudge_run *run, const struct policy *p,
		       struct imt_error *err)
{
	struct verifier *v = run->v;
	enum db_verdict verdict;
	size_t i, n = 0;

	for (i = 0; i < run->rr.n; i++) {
		const struct judge_copy *s = &run->rr.r[i];
		struct judge_input in;

		judge_input_of(s, &in);
		if (judge_record(v, p, &in, &verdict, err) < 0)
			return -1;
		if (verdict == s->verdict)
			continue;
		if (judge_acceptable(v, p, s->verdict) &&
		    !judge_acceptable(v, p, verdict))
			run->became_bad = 1;
		run->u[n].index = s->index;
		run->u[n++].verdict = verdict;
	}
	run->stats->records += n;
	return n > 0 ? db_record_set_verdicts(v->db, run->boot_id, run->u, n,
					      err) :
		       0;
}

/*
 * One round under the lock: is the boot still current (a new boot's
 * records were judged against today's references), then the records of
 * pass @p from @from. *@got: how many; 0 ends the pass.
 */
static int round_locked(struct rejudge_run *run, const char *id,
			enum rejudge_pass p, uint64_t from, size_t *got,
			struct imt_error *err)
{
	const struct policy *pol;
	struct db_boot boot;
	int found = 0, rc;

	*got = 0;
	if (db_boot_current(run->v->db, id, &boot, &found, err) < 0)
		return -1;
	if (!found || (run->boot_id != 0 && boot.id != run->boot_id))
		return 0;
	run->boot_id = boot.id;
	run->nrecords = boot.next_record_index;
	pol = policies_for(run->v, id);
	run->page = rejudge_page(pol);
	rc = list_pass(run, p, from, err);
	if (rc == 0 && run->rr.oom) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		rc = -1;
	}
	*got = run->rr.n;
	run->examined += *got;
	if (rc == 0 && *got > 0)
		rc = judge_round(run, pol, err);
	return rc;
}

size_t rejudge_page(const struct policy *p)
{
	size_t i, nre = 0, page;

	for (i = 0; p != NULL && i < p->nrules; i++)
		nre += p->rules[i].kind == IMPORT_RULE_REGEX;
	page = REJUDGE_REGEX_WORK / (nre + 1);
	if (page > REJUDGE_RECORDS_PAGE)
		return REJUDGE_RECORDS_PAGE;
	return page < REJUDGE_RECORDS_PAGE_MIN ? REJUDGE_RECORDS_PAGE_MIN :
						 page;
}

static int rejudge_pass(struct rejudge_run *run, const char *id,
			enum rejudge_pass p, struct imt_error *err)
{
	struct verifier *v = run->v;
	uint64_t from = 0;
	size_t got;
	int rc, more;

	do {
		pthread_mutex_lock(&v->lock);
		rc = round_locked(run, id, p, from, &got, err);
		pthread_mutex_unlock(&v->lock);
		if (got > 0)
			from = run->rr.r[got - 1].index + 1;
		round_clear(&run->rr);
		/* a machine without a boot (got 0) has no page yet */
		more = rc == 0 && got > 0 && got == run->page;
		if (more)
			rejudge_hook("rejudge:round");
	} while (more);
	return rc;
}

/* judge_reason() of the record with "cause": the change that did it. */
static char *bad_reason(const char *record, const char *cause)
{
	json_t *j = json_loads(record, 0, NULL);
	json_t *c = json_loads(cause, 0, NULL);
	char *s = NULL;

	if (j != NULL && c != NULL && json_object_set_new(j, "cause", c) == 0)
		s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	else
		json_decref(c);
	json_decref(j);
	return s;
}

/* The machine's state after its records were judged again (v->lock). */
static int decide_locked(struct rejudge_run *run, const char *id,
			 struct imt_error *err)
{
	struct verifier *v = run->v;
	char why[JUDGE_REASON_MAX], *reason;
	struct db_machine m;
	struct db_boot boot;
	int found = 0, ok = 0, rc = -1;

	if (db_machine_get(v->db, id, &m, &found, err) < 0)
		return -1;
	if (!found)
		return 0;
	if (db_boot_current(v->db, id, &boot, &found, err) < 0)
		goto out;
	rc = 0;
	/* a policy change may add a rule no record breaks (its boot
	 * section): a trusted machine is judged again whole then too */
	if (!found || boot.id != run->boot_id ||
	    (m.state != DB_STATE_UNTRUSTED &&
	     !(m.state == DB_STATE_TRUSTED &&
	       (run->became_bad || (run->changes & REJUDGE_POLICY)))))
		goto out;
	rc = judge_boot(v, policies_for(v, id), boot.id, boot.next_record_index,
			&ok, why, err);
	if (rc < 0)
		goto out;
	if (m.state == DB_STATE_UNTRUSTED && ok) {
		/* an accepted gap in the boot's history stays in sight */
		reason = history_judge(policies_for(v, id), &boot, why) &&
					 why[0] != '\0' ?
				 history_with_note(run->cause, why) :
				 NULL;
		rc = engine_transition(v, id, m.state, TR_REJUDGE_CLEAN,
				       reason != NULL ? reason : run->cause,
				       run->now, NULL, err);
		free(reason);
		run->stats->now_trusted += rc == 1;
	} else if (m.state == DB_STATE_TRUSTED && !ok) {
		reason = bad_reason(why, run->cause);
		rc = engine_transition(v, id, m.state, TR_REJUDGE_UNACCEPTABLE,
				       reason != NULL ? reason : why, run->now,
				       NULL, err);
		run->stats->now_untrusted += rc == 1;
		free(reason);
	}
	rc = rc < 0 ? -1 : 0;
out:
	db_machine_release(&m);
	return rc;
}

/* decide_locked() in a transaction that holds the machine's lock. */
static int decide(struct rejudge_run *run, const char *id,
		  struct imt_error *err)
{
	struct db *db = run->v->db;

	if (db_batch_begin(db, err) < 0)
		return -1;
	if (db_machine_lock(db, id, err) < 0 ||
	    decide_locked(run, id, err) < 0 || db_batch_commit(db, err) < 0) {
		db_batch_abort(db);
		return -1;
	}
	return 0;
}

static int rejudge_machine(struct rejudge_run *run, const char *id,
			   struct imt_error *err)
{
	enum rejudge_pass p;
	int rc = 0;

	run->boot_id = 0;
	run->nrecords = 0;
	run->became_bad = 0;
	run->examined = 0;
	for (p = 0; rc == 0 && p < PASS_COUNT; p++) {
		if (pass_wanted(run, p))
			rc = rejudge_pass(run, id, p, err);
	}
	if (rc < 0)
		return -1;
	if (run->examined > 0)
		run->stats->machines++;
	if (run->boot_id == 0)
		return 0;
	pthread_mutex_lock(&run->v->lock);
	rc = decide(run, id, err);
	pthread_mutex_unlock(&run->v->lock);
	rejudge_hook("rejudge:machine");
	return rc;
}

/* Every machine, a page of ids at a time (the listing under the lock). */
static int rejudge_machines(struct rejudge_run *run, struct imt_error *err)
{
	struct machine_page mp = { 0 };
	char after[DB_MACHINE_ID_MAX + 1] = "";
	size_t i;
	int rc;

	mp.id = calloc(REJUDGE_MACHINES_PAGE, sizeof(*mp.id));
	if (mp.id == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return -1;
	}
	do {
		mp.n = 0;
		pthread_mutex_lock(&run->v->lock);
		rc = db_machine_list(run->v->db, after[0] ? after : NULL,
				     REJUDGE_MACHINES_PAGE, collect_machine,
				     &mp, err);
		pthread_mutex_unlock(&run->v->lock);
		for (i = 0; rc == 0 && i < mp.n; i++)
			rc = rejudge_machine(run, mp.id[i], err);
		if (mp.n > 0)
			strcpy(after, mp.id[mp.n - 1]);
	} while (rc == 0 && mp.n == REJUDGE_MACHINES_PAGE);
	free(mp.id);
	return rc;
}

static int with_lock_count(struct verifier *v, size_t *n, struct imt_error *err)
{
	int rc;

	pthread_mutex_lock(&v->lock);
	rc = db_ref_withdrawn_count(v->db, n, err);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

/* Every current boot was judged after the withdrawals: drop the queue. */
static int clear_queue(struct verifier *v, struct imt_error *err)
{
	int more = 1, rc = 0;

	while (rc == 0 && more) {
		pthread_mutex_lock(&v->lock);
		rc = db_ref_withdrawn_clear(v->db, QUEUE_CLEAR_CHUNK, &more,
					    err);
		pthread_mutex_unlock(&v->lock);
	}
	return rc;
}

int rejudge_all(struct verifier *v, unsigned int changes, const char *cause,
		int64_t now, struct rejudge_stats *stats, struct imt_error *err)
{
	struct rejudge_run run = {
		.v = v,
		.changes = changes,
		.cause = cause,
		.now = now,
		.stats = stats,
	};
	int rc = -1;

	memset(stats, 0, sizeof(*stats));
	run.rr.r = calloc(REJUDGE_RECORDS_PAGE, sizeof(*run.rr.r));
	run.u = calloc(REJUDGE_RECORDS_PAGE, sizeof(*run.u));
	if (run.rr.r == NULL || run.u == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		goto out;
	}
	if (with_lock_count(v, &run.queued, err) < 0 ||
	    rejudge_machines(&run, err) < 0)
		goto out;
	rc = run.queued > 0 ? clear_queue(v, err) : 0;
out:
	free(run.u);
	free(run.rr.r);
	return rc;
}

json_t *rejudge_stats_json(json_t *ans, const struct rejudge_stats *st)
{
	json_t *s = json_pack("{s:I,s:I,s:I,s:I}", "machines_rejudged",
			      (json_int_t)st->machines, "records_changed",
			      (json_int_t)st->records, "machines_now_trusted",
			      (json_int_t)st->now_trusted,
			      "machines_now_untrusted",
			      (json_int_t)st->now_untrusted);

	if (ans != NULL && s != NULL && json_object_update(ans, s) < 0) {
		json_decref(ans);
		ans = NULL;
	}
	json_decref(s);
	return ans;
}
