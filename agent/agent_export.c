// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_export.c - export = on: stage and delete the records the
 * verifier has stored from the kernel's memory (list_export.h).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "agent_int.h"
#include "log.h"

/* Where the kernel's list starts, for the verifier (PROTOCOL.md). */
void agent_export_fields(const struct agent *a, struct wire_evidence *ev)
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
void agent_export(struct agent *a)
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
int agent_export_start(struct agent *a)
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
