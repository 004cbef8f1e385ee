/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_policy.h - the "boot" section of a named policy: what a machine's
 * firmware event log must show for the machine to be trusted.
 * proto/DESIGN.md §12.
 *
 *   "boot": {
 *     "log": "required" | "optional",      a machine without a log
 *     "legacy_log": "allow" | "refuse",    a SHA-1-only (TCG 1.2) log:
 *                                          allow judges the machine as
 *                                          one without a log, refuse
 *                                          makes it a violation
 *     "secure_boot": "required" | "any",   the SecureBoot variable
 *     "pk", "kek", "db": [SHA-256 hex],    every X.509 certificate of the
 *                                          variable is one of these
 *     "dbx": [SHA-256 hex],                each of these is in dbx
 *     "applications": "references" | "any",
 *                                          every EFI application booted
 *                                          (PCR 4) has its Authenticode
 *                                          digest in an efi: source the
 *                                          policy selects
 *     "cmdline": [glob]                    the kernel command line, bound
 *                                          to quoted PCR 9, matches one
 *     "baseline": "first-boot" | "none"    PCRs 0-9 as the machine's
 *                                          baseline boot measured them
 *                                          (its first, until an operator
 *                                          approves another; judge.c,
 *                                          boot_baseline.c)
 *     "pcrs": {"PCR": [SHA-256 hex]}       the PCR (0-9, 11-23; never
 *                                          10, IMA's), which the log must
 *                                          extend, replays in its sha256
 *                                          bank to one of these values
 *     "uki": [{"name": N, ".SECTION": SHA-256 hex, ..}]
 *                                          the sections systemd-stub
 *                                          measured into PCR 11 are
 *                                          exactly those of one of these
 *     "sbat_level": {"COMPONENT": N}       shim's SbatLevel revokes each
 *                                          component below generation N
 *                                          at least ("sbat": its date)
 *     "authorities": [SHA-256 hex]         every EV_EFI_VARIABLE_AUTHORITY
 *                                          entry (db's, shim's vendor
 *                                          certificate, MokList's) is one
 *                                          of these
 *   }
 *
 * Absent fields (and an absent section) rule nothing.
 */
#ifndef IMATRUST_BOOT_POLICY_H
#define IMATRUST_BOOT_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "boot_facts.h"
#include "result.h"

#define BOOT_POLICY_CERTS_MAX 64     /* digests per variable list */
#define BOOT_POLICY_GLOBS_MAX 16     /* cmdline patterns */
#define BOOT_POLICY_GLOB_MAX 1024    /* bytes of one */
#define BOOT_POLICY_PCR_VALUES_MAX 8 /* values listed per PCR */
#define BOOT_POLICY_PCRS 24	     /* PCRs 0-23 */
#define BOOT_POLICY_IMA_PCR 10	     /* IMA's: no rule names it */
#define BOOT_POLICY_UKIS_MAX 16	     /* allowed UKIs */
#define BOOT_POLICY_UKI_NAME_MAX 64  /* bytes of an allowed UKI's name */
#define BOOT_POLICY_SBAT_MAX 16	     /* sbat_level components */
#define BOOT_POLICY_SBAT_NAME_MAX 32 /* bytes of a component's name */

/* "uki": one allowed unified kernel image, by its sections' sha256. */
struct boot_policy_uki {
	char name[BOOT_POLICY_UKI_NAME_MAX + 1];
	size_t n;
	char section[BOOT_FACTS_UKI_MAX][BOOT_FACTS_SECTION_MAX];
	uint8_t sha256[BOOT_FACTS_UKI_MAX][32];
};

/* "sbat_level": a component's least generation ("sbat": the date). */
struct boot_policy_sbat {
	char name[BOOT_POLICY_SBAT_NAME_MAX + 1];
	long long min;
};

/* "pcrs": the sha256 values one PCR's replay may have. */
struct boot_policy_pcr {
	size_t n; /* 0: the policy names not this PCR */
	uint8_t sha256[BOOT_POLICY_PCR_VALUES_MAX][32];
};

/* The variables a policy lists certificates of (boot_facts' order). */
struct boot_policy_certs {
	int set; /* the policy names this variable */
	size_t n;
	uint8_t sha256[BOOT_POLICY_CERTS_MAX][32];
};

struct boot_policy {
	int present; /* the policy has a "boot" section */
	int log_required;
	int legacy_log_refused; /* "legacy_log": "refuse" */
	int secure_boot_required;
	int applications_referenced;
	int baseline_first_boot;
	struct boot_policy_certs vars[BOOT_VAR_COUNT];
	size_t ncmdline;
	char *cmdline[BOOT_POLICY_GLOBS_MAX];
	struct boot_policy_pcr pcrs[BOOT_POLICY_PCRS];
	size_t nuki;
	struct boot_policy_uki uki[BOOT_POLICY_UKIS_MAX];
	size_t nsbat;
	struct boot_policy_sbat sbat[BOOT_POLICY_SBAT_MAX];
	struct boot_policy_certs authorities; /* every authority listed */
};

/**
 * boot_policy_parse() - the "boot" section @j (may be NULL) into @bp.
 * @j: the JSON object, or NULL when the policy has none
 * @bp: zeroed by the caller; filled
 * @err: names the field on failure
 *
 * Return: 0, or -1 (IMT_ERR_MALFORMED: an unknown field, a bad value).
 */
int boot_policy_parse(json_t *j, struct boot_policy *bp, struct imt_error *err);

/** boot_policy_to_json() - the section as stored and served, or NULL. */
json_t *boot_policy_to_json(const struct boot_policy *bp);

/** boot_policy_free() - what boot_policy_parse() allocated. */
void boot_policy_free(struct boot_policy *bp);

/* Whether an EFI application's digest is accepted (the caller looks in
 * the database and the policy's sources); 1 yes, 0 no, -1 failure. */
typedef int (*boot_policy_app_known)(void *ctx, const char *algo,
				     const uint8_t *digest, size_t len,
				     char *source, size_t source_len);

/**
 * boot_policy_judge() - does the boot of log @log pass @bp?
 * @bp: the policy's boot section
 * @policy: the policy's name, for the reason
 * @log: the boot's firmware event log, or NULL when it has none
 * @len: bytes in @log
 * @app_known: answers for "applications": "references"
 * @ctx: passed to @app_known
 * @reason: receives the JSON reason of the first violation:
 *	    {"check":"boot","rule":R,"policy":P,"why":TEXT[,"pcr":N,
 *	    "event":N,"type":T,"digest":"alg:hex","path":DEVICE_PATH]}
 * @reason_max: its size
 * @err: filled on failure (-1)
 *
 * The log has been replayed against the quote before (boot_check.c), so
 * its PCR 0-9 events are what the TPM measured; a SHA-1-only legacy log
 * (tcg_log_legacy()), which boot_check.c lets by unreplayed, is judged
 * by "legacy_log": as no log, or refused.
 *
 * Return: 1 the boot passes, 0 a rule is violated (@reason), -1 failure.
 */
int boot_policy_judge(const struct boot_policy *bp, const char *policy,
		      const uint8_t *log, size_t len,
		      boot_policy_app_known app_known, void *ctx, char *reason,
		      size_t reason_max, struct imt_error *err);

#endif /* IMATRUST_BOOT_POLICY_H */
