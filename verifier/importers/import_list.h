/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_list.h - a golden measurement list as references.
 *
 * A golden list is the binary_runtime_measurements of a machine known to
 * be good, saved with the PCRs of the same moment (the `INDEX HEX` lines
 * of /sys/class/tpm/tpm0/pcr-<bank>/, as tests/fixtures/ima/ holds).
 * The list is replayed for every bank given and must give that bank's
 * PCR 10, so what it names is what the kernel measured, in full.
 */
#ifndef IMATRUST_IMPORT_LIST_H
#define IMATRUST_IMPORT_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "import.h"
#include "pcr_set.h"
#include "result.h"

#define IMPORT_LIST_PCR 10 /* the PCR IMA extends */

/* The PCRs of one bank at the moment the list was saved. */
struct import_pcr {
	struct pcr_set set; /* PCR 10 required; with PCRs 0-7 (sha1)
				 * or 0-9 the boot_aggregate is checked */
};

struct import_list_info {
	size_t records;
	size_t files;		    /* IMPORT_REF_FILE calls */
	size_t buffers;		    /* IMPORT_REF_BUFFER calls */
	size_t violations;	    /* not references */
	size_t skipped;		    /* boot_aggregate, relative or empty names,
				 * records without a digest */
	int boot_aggregate_checked; /* against some bank's PCRs */
};

/**
 * import_pcr_parse() - read one bank's PCR file.
 * @pcr: receives the values
 * @bank: the bank's name ("sha256")
 * @text: `INDEX HEX` lines (need not be NUL-terminated)
 * @len: bytes in @text
 * @err: filled on failure, the line in ->record
 *
 * Return: 0, or -1: unknown bank, a bad line (pcr_set_parse_text()),
 * no PCR 10.
 */
int import_pcr_parse(struct import_pcr *pcr, const char *bank, const char *text,
		     size_t len, struct imt_error *err);

/**
 * import_list() - check a golden list against PCRs and feed @sink.
 * @list: the binary measurement list (legacy format, as securityfs's
 *	  binary_runtime_measurements)
 * @len: bytes in @list
 * @pcrs: one entry per bank to check, at least one, no bank twice
 * @npcrs: entries in @pcrs
 * @sink: receives, in list order, IMPORT_REF_FILE (path, algorithm,
 *	  file digest) for each measured file and IMPORT_REF_BUFFER for
 *	  each ima-buf record; only after every check passed
 * @info: filled on success; may be NULL
 * @err: filled on failure, naming the check
 *
 * Checks, in order: the list parses; each record's template digest is
 * that of its data; every record extends PCR 10; the replay of every
 * given bank gives its PCR 10 (the error names the bank, the expected
 * and the replayed value); record 0, boot_aggregate, matches the PCRs
 * 0-7/0-9 of the bank of its algorithm when that set has them.
 * Violations, boot_aggregate and records whose name is not an absolute
 * path (or holds a NUL) are no references.
 *
 * Return: 0, or -1 with @err filled (a sink's error passed on as is).
 */
int import_list(const uint8_t *list, size_t len, const struct import_pcr *pcrs,
		size_t npcrs, const struct import_sink *sink,
		struct import_list_info *info, struct imt_error *err);

#endif /* IMATRUST_IMPORT_LIST_H */
