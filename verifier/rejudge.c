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

#include "judge.h"
#include "rejudge.h"

struct machine_ref {
	char id[DB_MACHINE_ID_MAX + 1];
	enum db_machine_state state;
};

struct machine_round {
	struct machine_ref *m;
	size_t n;
};

/* A stored record, copied out of the listing. */
struct stored_record {
	uint64_t index;
	char *path;
	char *algo;
	uint8_t digest[DB_DIGEST_MAX];
	size_t digest_len;
	enum db_verdict verdict;
};

struct record_round {
	struct stored_record *r;
	size_t n;
	int oom;
};

static int collect_machine(const struct db_machine *m, void *arg)
{
	struct machine_round *mr = arg;

	strcpy(mr->m[mr->n].id, m->id);
	mr->m[mr->n++].state = m->state;
	return 0;
}

static int collect_record(int64_t boot_id, const struct db_record *rec,
			  void *arg)
{
	struct record_round *rr = arg;
	struct stored_record *s = &rr->r[rr->n];

	(void)boot_id;
	memset(s, 0, sizeof(*s));
	s->index = rec->index;
	s->verdict = rec->verdict;
	s->path = strdup(rec->path != NULL ? rec->path : "");
	s->algo = rec->digest_algo != NULL ? strdup(rec->digest_algo) : NULL;
	if (rec->digest != NULL && rec->digest_len <= DB_DIGEST_MAX) {
		memcpy(s->digest, rec->digest, rec->digest_len);
		s->digest_len = rec->digest_len;
	}
	rr->n++;
	if (s->path == NULL || (rec->digest_algo != NULL && s->algo == NULL))
		rr->oom = 1;
	return rr->oom;
}

static void round_clear(struct record_round *rr)
{
	size_t i;

	for (i = 0; i < rr->n; i++) {
		free(rr->r[i].path);
		free(rr->r[i].algo);
	}
	rr->n = 0;
	rr->oom = 0;
}

/* Judge one round again; store the verdicts that changed. */
static int judge_round(struct verifier *v, int64_t boot_id,
		       struct record_round *rr, struct db_verdict_update *u,
		       struct rejudge_stats *stats, struct imt_error *err)
{
	enum db_verdict verdict;
	size_t i, n = 0;

	for (i = 0; i < rr->n; i++) {
		const struct stored_record *s = &rr->r[i];
		struct judge_input in = {
			.path = s->path, .algo = s->algo,
			.digest = s->digest_len > 0 ? s->digest : NULL,
			.digest_len = s->digest_len,
		};

		if (judge_record(v, &in, &verdict, err) < 0)
			return -1;
		if (verdict == s->verdict)
			continue;
		u[n].index = s->index;
		u[n++].verdict = verdict;
	}
	stats->records += n;
	return n > 0 ? db_record_set_verdicts(v->db, boot_id, u, n, err) : 0;
}

/*
 * The unknown and mismatch records of @boot, judged again round by round.
 * @examined receives how many there were.
 */
static int rejudge_boot(struct verifier *v, const struct db_boot *boot,
			struct record_round *rr, struct db_verdict_update *u,
			size_t *examined, struct rejudge_stats *stats,
			struct imt_error *err)
{
	uint64_t from = 0;
	size_t got;
	int rc;

	*examined = 0;
	do {
		rc = db_record_list(v->db, boot->id, from,
				    REJUDGE_RECORDS_PAGE, 1, collect_record,
				    rr, err);
		if (rc == 0 && rr->oom) {
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "out of memory");
			rc = -1;
		}
		got = rr->n;
		*examined += got;
		if (got > 0)
			from = rr->r[got - 1].index + 1;
		if (rc == 0)
			rc = judge_round(v, boot->id, rr, u, stats, err);
		round_clear(rr);
	} while (rc == 0 && got == REJUDGE_RECORDS_PAGE);
	return rc;
}

static int rejudge_machine(struct verifier *v, const struct machine_ref *m,
			   const char *reason, int64_t now,
			   struct record_round *rr,
			   struct db_verdict_update *u,
			   struct rejudge_stats *stats, struct imt_error *err)
{
	char why[JUDGE_REASON_MAX];
	struct db_boot boot;
	size_t examined;
	int found = 0, ok = 0;

	if (db_boot_current(v->db, m->id, &boot, &found, err) < 0)
		return -1;
	if (!found)
		return 0;
	if (rejudge_boot(v, &boot, rr, u, &examined, stats, err) < 0)
		return -1;
	if (examined > 0)
		stats->machines++;
	if (m->state != DB_STATE_UNTRUSTED)
		return 0;
	if (judge_boot(v, boot.id, boot.next_record_index, &ok, why,
		       err) < 0)
		return -1;
	if (!ok)
		return 0;
	if (db_machine_set_state(v->db, m->id, DB_STATE_TRUSTED, reason, now,
				 err) < 0)
		return -1;
	stats->now_trusted++;
	return 0;
}

int rejudge_all(struct verifier *v, const char *reason, int64_t now,
		struct rejudge_stats *stats, struct imt_error *err)
{
	struct machine_round mr = { 0 };
	struct record_round rr = { 0 };
	struct db_verdict_update *u;
	char after[DB_MACHINE_ID_MAX + 1] = "";
	size_t i;
	int rc = -1;

	memset(stats, 0, sizeof(*stats));
	mr.m = calloc(REJUDGE_MACHINES_PAGE, sizeof(*mr.m));
	rr.r = calloc(REJUDGE_RECORDS_PAGE, sizeof(*rr.r));
	u = calloc(REJUDGE_RECORDS_PAGE, sizeof(*u));
	if (mr.m == NULL || rr.r == NULL || u == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		goto out;
	}
	do {
		mr.n = 0;
		if (db_machine_list(v->db, after[0] ? after : NULL,
				    REJUDGE_MACHINES_PAGE, collect_machine,
				    &mr, err) < 0)
			goto out;
		for (i = 0; i < mr.n; i++) {
			if (rejudge_machine(v, &mr.m[i], reason, now, &rr, u,
					    stats, err) < 0)
				goto out;
		}
		if (mr.n > 0)
			strcpy(after, mr.m[mr.n - 1].id);
	} while (mr.n == REJUDGE_MACHINES_PAGE);
	rc = 0;
out:
	free(u);
	free(rr.r);
	free(mr.m);
	return rc;
}
