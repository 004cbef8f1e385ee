// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_journal.c - the audit trail to the systemd journal
 * (engine_journal.h): one message per entry with its fields, sent with
 * sd_journal_sendv() from db_commit() through db_audit_on_commit(), so
 * under v->lock and only for what the database kept.
 *
 * The fields: MESSAGE (one line for a person), MESSAGE_ID
 * (ENGINE_JOURNAL_AUDIT_ID), PRIORITY 5 (notice), SYSLOG_IDENTIFIER
 * imatrust-verifier, IMATRUST_AUDIT_ID (the entry's id in GET /v1/audit),
 * IMATRUST_ACTION, IMATRUST_TIME (seconds since the epoch), and when the
 * entry has them IMATRUST_MACHINE_ID, IMATRUST_OPERATOR, IMATRUST_ROLE,
 * IMATRUST_EK_FPR (hex) and IMATRUST_DETAIL (JSON).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <systemd/sd-journal.h>

#include "db_audit.h"
#include "engine_internal.h"
#include "engine_journal.h"
#include "hex.h"
#include "log.h"

#define FIELDS_MAX 12	    /* fields of one message */
#define FIELD_SHORT_MAX 320 /* bytes of a field but the detail */

struct fields {
	struct iovec iov[FIELDS_MAX];
	char buf[FIELDS_MAX][FIELD_SHORT_MAX];
	int n;
};

/* Add "KEY=value" (@value NULL: nothing) within FIELD_SHORT_MAX. */
static void field(struct fields *f, const char *key, const char *value)
{
	int len;

	if (value == NULL || f->n == FIELDS_MAX)
		return;
	len = snprintf(f->buf[f->n], FIELD_SHORT_MAX, "%s=%s", key, value);
	if (len < 0)
		return;
	f->iov[f->n].iov_base = f->buf[f->n];
	f->iov[f->n].iov_len = (size_t)len < FIELD_SHORT_MAX ?
				       (size_t)len :
				       FIELD_SHORT_MAX - 1;
	f->n++;
}

/* Only the first failure and the recovery are logged; under v->lock. */
static int journal_failing;

static void send_fields(struct fields *f, const char *detail)
{
	char *d = NULL;
	size_t len;
	int rc;

	if (detail != NULL && f->n < FIELDS_MAX) {
		len = strlen("IMATRUST_DETAIL=") + strlen(detail);
		d = malloc(len + 1);
		if (d != NULL) {
			snprintf(d, len + 1, "IMATRUST_DETAIL=%s", detail);
			f->iov[f->n].iov_base = d;
			f->iov[f->n++].iov_len = len;
		}
	}
	rc = sd_journal_sendv(f->iov, f->n);
	free(d);
	if (rc < 0 && !journal_failing)
		log_warnx("audit: the journal refused an entry (%s); the "
			  "audit table has it (GET /v1/audit), the journal "
			  "not until it answers",
			  strerror(-rc));
	else if (rc >= 0 && journal_failing)
		log_info("audit: the journal takes entries again");
	journal_failing = rc < 0;
}

static void on_commit(const struct db_audit *a, void *arg)
{
	char msg[FIELD_SHORT_MAX], num[24], fpr[2 * DB_FPR_SIZE + 1];
	struct fields f = { .n = 0 };

	(void)arg;
	if (a == NULL) {
		log_warnx("audit: a transaction wrote more than %d entries; "
			  "those past it are in GET /v1/audit only, not in "
			  "the journal",
			  DB_AUDIT_HELD_MAX);
		return;
	}
	snprintf(msg, sizeof(msg), "audit: %s%s%s by %s%s%s%s", a->action,
		 a->machine_id != NULL ? " " : "",
		 a->machine_id != NULL ? a->machine_id : "",
		 a->op_name != NULL ? a->op_name : "the verifier",
		 a->role != NULL ? " (" : "", a->role != NULL ? a->role : "",
		 a->role != NULL ? ")" : "");
	field(&f, "MESSAGE", msg);
	field(&f, "MESSAGE_ID", ENGINE_JOURNAL_AUDIT_ID);
	field(&f, "PRIORITY", "5");
	field(&f, "SYSLOG_IDENTIFIER", "imatrust-verifier");
	snprintf(num, sizeof(num), "%lld", (long long)a->id);
	field(&f, "IMATRUST_AUDIT_ID", num);
	field(&f, "IMATRUST_ACTION", a->action);
	snprintf(num, sizeof(num), "%lld", (long long)a->time);
	field(&f, "IMATRUST_TIME", num);
	field(&f, "IMATRUST_MACHINE_ID", a->machine_id);
	field(&f, "IMATRUST_OPERATOR", a->op_name);
	field(&f, "IMATRUST_ROLE", a->role);
	if (a->ek_fpr != NULL) {
		hex_encode(a->ek_fpr, DB_FPR_SIZE, fpr);
		field(&f, "IMATRUST_EK_FPR", fpr);
	}
	send_fields(&f, a->detail);
}

void engine_journal_start(struct verifier *v)
{
	pthread_mutex_lock(&v->lock);
	db_audit_on_commit(v->db, on_commit, v);
	pthread_mutex_unlock(&v->lock);
}
