// SPDX-License-Identifier: GPL-2.0-only
/*
 * history_judge.c - what a boot's deleted records mean for its machine
 * (history.h): the same words whether the evidence or a re-judge asks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "db_boot.h"
#include "history.h"

int history_judge(const struct policy *p, const struct db_boot *b,
		  char reason[JUDGE_REASON_MAX])
{
	unsigned long long from = b->history_from, last = b->history_to - 1;
	int accept = p->history_accept && !b->history_followed;
	char msg[512];
	json_t *j;
	char *s;

	reason[0] = '\0';
	if (b->history_to == 0)
		return 1;
	if (b->history_followed)
		snprintf(msg, sizeof(msg),
			 "history gap: records %llu..%llu of this boot were deleted from the machine after the verifier had stored records before them; an agent deletes only records the verifier confirmed, so this hides something or the verifier's database was restored (untrusted under every policy)",
			 from, last);
	else
		snprintf(msg, sizeof(msg),
			 "history incomplete: records %llu..%llu of this boot were deleted from the machine before the verifier stored them",
			 from, last);
	j = json_pack("{s:s,s:I,s:I,s:b,s:s,s:s,s:s}", "check", "history",
		      "from", (json_int_t)from, "to", (json_int_t)last,
		      "followed", b->history_followed, "policy", p->name,
		      "history_incomplete", accept ? "accept" : "refuse",
		      "message", msg);
	s = j != NULL ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) :
			NULL;
	snprintf(reason, JUDGE_REASON_MAX, "%s",
		 s != NULL && strlen(s) < JUDGE_REASON_MAX ?
			 s :
			 "{\"check\":\"history\"}");
	free(s);
	json_decref(j);
	return accept;
}

char *history_with_note(const char *reason, const char *note)
{
	json_t *j = json_loads(reason, 0, NULL);
	json_t *n = json_loads(note, 0, NULL);
	char *s = NULL;

	if (json_is_object(j) && json_is_object(n)) {
		/* takes @n, on failure too */
		if (json_object_set_new(j, "history", n) == 0)
			s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
		n = NULL;
	}
	json_decref(n);
	json_decref(j);
	return s;
}
