// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_check.c - the firmware event log against the quoted PCRs: the log
 * is replayed in the quote's bank and PCRs 0-9 (what the firmware, the
 * boot loader and the EFI stub extend, and what IMA's boot_aggregate
 * covers) and every PCR 11-23 the log extends (systemd-stub's 11-13,
 * shim's 14, ...) must be quoted and equal the quoted values. PCR 10 is
 * IMA's: never replayed from this log. proto/DESIGN.md §4, §12.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "boot_check.h"
#include "tcg_log.h"

/* PCRs 0-9: the boot chain up to the kernel (boot_aggregate's PCRs). */
#define BOOT_CHECK_PCRS 0x3ffu
#define BOOT_CHECK_IMA_PCR 10
#define BOOT_CHECK_UKI_PCR 11 /* systemd-stub's, then systemd-pcrphase's */

/*
 * The PCRs to compare: 0-9 and those 11-23 the log extends, each of which
 * the quote (@quoted->present) must select, or its events would hide.
 */
static enum imt_result compared_pcrs(const uint8_t *log, size_t len,
				     const struct pcr_set *quoted,
				     uint32_t *mask, char *reason,
				     size_t reason_len)
{
	uint32_t extended, missing;
	struct imt_error err;
	enum imt_result rc;
	int pcr;

	rc = tcg_log_extended(log, len, &extended, &err);
	if (rc != IMT_OK) {
		snprintf(reason, reason_len, "firmware event log: %s", err.msg);
		return rc;
	}
	extended &= ~(BOOT_CHECK_PCRS | 1u << BOOT_CHECK_IMA_PCR);
	missing = extended & ~quoted->present;
	for (pcr = 0; pcr < PCR_SET_COUNT; pcr++) {
		if (missing & (1u << pcr)) {
			snprintf(reason, reason_len,
				 "the firmware event log extends PCR %d, which the quote does not select: its events would go unproven",
				 pcr);
			return IMT_ERR_MISMATCH;
		}
	}
	*mask = BOOT_CHECK_PCRS | extended;
	return IMT_OK;
}

/*
 * What systemd-pcrphase (systemd 252) extends into PCR 11 after the
 * firmware log closed, in the order a boot reaches it: each word hashed
 * without its NUL in the bank (tpm2_extend_bytes()). A UKI without an
 * initrd starts at "sysinit".
 */
static const char *const pcrphase_words[] = {
	"enter-initrd", "leave-initrd", "sysinit", "ready",
	"shutdown",	"final",	NULL,
};

/* @pcr (@size bytes) extended by the @algo hash of @word; 1 on success. */
static int extend_word(const struct hash_algo *algo, uint8_t *pcr,
		       const char *word)
{
	const EVP_MD *md = EVP_get_digestbyname(algo->name);
	uint8_t both[2 * HASH_ALGO_MAX_SIZE];

	if (md == NULL)
		return 0;
	memcpy(both, pcr, algo->size);
	return EVP_Digest(word, strlen(word), both + algo->size, NULL, md,
			  NULL) &&
	       EVP_Digest(both, 2 * algo->size, pcr, NULL, md, NULL);
}

const char *boot_check_pcrphase(const uint8_t *replayed, const uint8_t *quoted,
				const struct hash_algo *algo)
{
	static const size_t starts[] = { 0, 2 };
	uint8_t v[HASH_ALGO_MAX_SIZE];
	size_t s, i;

	if (memcmp(replayed, quoted, algo->size) == 0)
		return "";
	for (s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
		memcpy(v, replayed, algo->size);
		for (i = starts[s]; pcrphase_words[i] != NULL; i++) {
			if (!extend_word(algo, v, pcrphase_words[i]))
				return NULL;
			if (memcmp(v, quoted, algo->size) == 0)
				return pcrphase_words[i];
		}
	}
	return NULL;
}

enum imt_result boot_check_evidence(const uint8_t *log, size_t len,
				    const struct pcr_set *quoted, char *reason,
				    size_t reason_len)
{
	struct pcr_set replayed;
	struct imt_error err;
	enum imt_result rc;
	uint32_t mask;

	reason[0] = '\0';
	/* it proves nothing, and fails nothing: the policy judges it as
	 * no log ("legacy_log", boot_policy.c) */
	if (tcg_log_legacy(log, len))
		return IMT_OK;
	pcr_set_init(&replayed, quoted->algo);
	rc = tcg_log_replay(log, len, &replayed, 1, &err);
	if (rc != IMT_OK) {
		snprintf(reason, reason_len, "firmware event log: %s", err.msg);
		return rc;
	}
	rc = compared_pcrs(log, len, quoted, &mask, reason, reason_len);
	if (rc != IMT_OK)
		return rc;
	/* PCR 11 past the log by systemd-pcrphase's words is explained */
	if ((mask & (1u << BOOT_CHECK_UKI_PCR)) &&
	    (quoted->present & (1u << BOOT_CHECK_UKI_PCR)) &&
	    boot_check_pcrphase(replayed.value[BOOT_CHECK_UKI_PCR],
				quoted->value[BOOT_CHECK_UKI_PCR],
				quoted->algo) != NULL)
		memcpy(replayed.value[BOOT_CHECK_UKI_PCR],
		       quoted->value[BOOT_CHECK_UKI_PCR], quoted->algo->size);
	rc = tcg_pcrs_compare(&replayed, quoted, mask, NULL, &err);
	if (rc != IMT_OK)
		snprintf(reason, reason_len,
			 "firmware event log disagrees with the quote: %s",
			 err.msg);
	return rc;
}
