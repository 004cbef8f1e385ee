// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_list.c - the record buffer (agent_int.h) and the list's two
 * readers: the agent's, and the replay's, which reads ahead.
 */
#include <inttypes.h>
#include <string.h>

#include "agent_int.h"
#include "ima_list.h"
#include "log.h"
#include "pages.h"

/* ---- the record buffer ------------------------------------------------ */

/* The buffer empty, the next record it takes @first. */
static void agent_pend_empty(struct agent *a, uint64_t first)
{
	a->pend_len = 0;
	a->pend_count = 0;
	a->pend_first = first;
	a->pend_full = 0;
}

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
	agent_pend_empty(a, index);
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
void agent_resume(struct agent *a, uint64_t next_index)
{
	uint64_t drop;

	switch (rules_resume(a->pend_first, a->pend_count, next_index, &drop)) {
	case RULES_CONTINUE:
		agent_pend_empty(a, next_index);
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
	/* what a long list's first rounds filled goes back once proven */
	pages_trim(a->pend, a->pend_len, &a->pend_dirty);
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
	if (a->pend_len > a->pend_dirty)
		a->pend_dirty = a->pend_len;
	return 1;
}

/* Append what the list has added, until the buffer is full. */
int agent_fill(struct agent *a)
{
	int rc;

	while ((rc = agent_fill_once(a)) > 0)
		;
	return rc;
}

/* ---- export ----------------------------------------------------------- */

static void agent_replay_record(void *arg, const struct ima_record *rec)
{
	list_replay_record(arg, rec);
}

/* Close both readers of the list (a writer gets in only without them). */
void agent_list_close(struct agent *a)
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
int agent_list_open(struct agent *a, uint64_t index)
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
