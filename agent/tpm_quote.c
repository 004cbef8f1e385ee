// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_quote.c - the agent's quotes and PCRs (tpm.h): PCR values read in
 * as few calls as the TPM allows, a quote over them that is retried while
 * they move, the reset count, and PCR_Extend for the tests' tools.
 */
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>

#include "log.h"
#include "tpm_int.h"
#include "tpm_quote.h"

#define TPM_QUOTE_TRIES 8 /* quote rounds while PCRs move */

/* A selection of @mask in one bank, the way TPM2_Quote/PCR_Read take it. */
static void tpm_pcr_selection(uint16_t alg, uint32_t mask,
			      TPML_PCR_SELECTION *sel)
{
	memset(sel, 0, sizeof(*sel));
	sel->count = 1;
	sel->pcrSelections[0].hash = alg;
	sel->pcrSelections[0].sizeofSelect = 3;
	sel->pcrSelections[0].pcrSelect[0] = mask & 0xff;
	sel->pcrSelections[0].pcrSelect[1] = (mask >> 8) & 0xff;
	sel->pcrSelections[0].pcrSelect[2] = (mask >> 16) & 0xff;
}

/*
 * Read PCRs @mask of @bank into @pcrs, in as few PCR_Read calls as the
 * TPM allows (it returns at most eight digests per call and says which).
 * *@counter receives the TPM's pcrUpdateCounter; *@moved is set when it
 * changed between the calls, i.e. the values may not belong together.
 */
static enum tpm_status tpm_pcr_read(struct tpm *t, const struct hash_algo *bank,
				    uint32_t mask, struct pcr_set *pcrs,
				    uint32_t *counter, int *moved)
{
	TPML_PCR_SELECTION sel, *got = NULL;
	TPML_DIGEST *values = NULL;
	enum tpm_status st = TPM_OK;
	uint32_t left = mask, done, c;
	unsigned int i, k;
	int first = 1;
	TSS2_RC rc;

	*moved = 0;
	while (left) {
		tpm_pcr_selection(bank->tpm_alg, left, &sel);
		rc = Esys_PCR_Read(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, &sel, &c, &got, &values);
		if (rc != TSS2_RC_SUCCESS) {
			st = TPM_FAIL("PCR_Read", rc);
			goto out;
		}
		if (!first && c != *counter)
			*moved = 1;
		*counter = c;
		first = 0;
		done = tpm_selection_mask(got, bank->tpm_alg);
		if (done & ~left) {
			log_warnx("%s: TPM answered PCRs 0x%06x for 0x%06x",
				  __func__, done, left);
			st = TPM_ERR_OTHER;
			goto out;
		}
		for (i = 0, k = 0; i < TPM_PCR_MAX; i++) {
			if (!(done & (1u << i)))
				continue;
			if (k >= values->count ||
			    values->digests[k].size != bank->size) {
				log_warnx("%s: no %s digest for PCR %u",
					  __func__, bank->name, i);
				st = TPM_ERR_OTHER;
				goto out;
			}
			memcpy(pcrs->value[i], values->digests[k].buffer,
			       bank->size);
			pcrs->present |= 1u << i;
			k++;
		}
		if (!done) {
			/* no progress: the bank is not allocated */
			log_warnx("%s: the TPM has no %s PCR bank (0x%06x)",
				  __func__, bank->name, left);
			st = TPM_ERR_OTHER;
			goto out;
		}
		left &= ~done;
		Esys_Free(got);
		Esys_Free(values);
		got = NULL;
		values = NULL;
	}
out:
	Esys_Free(got);
	Esys_Free(values);
	return st;
}

/*
 * One try: PCR values, quote, and whether any PCR moved meanwhile; when
 * one did, @resolve (if any) may find the quoted values.
 */
static enum tpm_status tpm_quote_round(struct tpm *t,
				       const struct hash_algo *bank,
				       uint32_t mask, const TPM2B_DATA *nonce,
				       tpm_quote_resolver resolve, void *arg,
				       struct tpm_evidence_quote *q, int *moved)
{
	TPMT_SIG_SCHEME scheme = { .scheme = TPM2_ALG_NULL };
	TPML_PCR_SELECTION sel;
	TPM2B_ATTEST *attest = NULL;
	TPMT_SIGNATURE *sig = NULL;
	struct pcr_set check;
	uint32_t before = 0, after = 0;
	enum tpm_status st;
	int moved_before;
	size_t off = 0;
	TSS2_RC rc;

	pcr_set_init(&q->pcrs, bank);
	st = tpm_pcr_read(t, bank, mask, &q->pcrs, &before, moved);
	/* moved between two PCR_Read calls: a resolver may still find them */
	if (st != TPM_OK || (*moved && resolve == NULL))
		goto out;
	moved_before = *moved;
	tpm_pcr_selection(bank->tpm_alg, mask, &sel);
	/* scheme NULL: the AK's own scheme (RSASSA or ECDSA, SHA-256) */
	rc = Esys_Quote(t->esys, t->ak, ESYS_TR_PASSWORD, ESYS_TR_NONE,
			ESYS_TR_NONE, nonce, &scheme, &sel, &attest, &sig);
	if (rc != TSS2_RC_SUCCESS) {
		attest = NULL;
		sig = NULL;
		st = TPM_FAIL("Quote", rc);
		goto out;
	}
	/* one PCR is enough to learn the update counter after the quote */
	pcr_set_init(&check, bank);
	st = tpm_pcr_read(t, bank, mask & -mask, &check, &after, moved);
	if (st != TPM_OK)
		goto out;
	if (attest->size > sizeof(q->attest)) {
		log_warnx("%s: attestation of %u bytes", __func__,
			  attest->size);
		st = TPM_ERR_OTHER;
		goto out;
	}
	memcpy(q->attest, attest->attestationData, attest->size);
	q->attest_len = attest->size;
	rc = Tss2_MU_TPMT_SIGNATURE_Marshal(sig, q->sig, sizeof(q->sig), &off);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("marshal signature", rc);
		goto out;
	}
	q->sig_len = off;
	*moved = (moved_before || after != before) &&
		 (resolve == NULL || resolve(arg, q) < 0);
out:
	Esys_Free(attest);
	Esys_Free(sig);
	return st;
}

enum tpm_status tpm_quote(struct tpm *t, const struct hash_algo *bank,
			  uint32_t mask, const uint8_t *nonce, size_t nonce_len,
			  struct tpm_evidence_quote *q)
{
	return tpm_quote_resolved(t, bank, mask, nonce, nonce_len, NULL, NULL,
				  q);
}

enum tpm_status tpm_quote_resolved(struct tpm *t, const struct hash_algo *bank,
				   uint32_t mask, const uint8_t *nonce,
				   size_t nonce_len, tpm_quote_resolver resolve,
				   void *arg, struct tpm_evidence_quote *q)
{
	TPM2B_DATA data = { 0 };
	enum tpm_status st = TPM_ERR_COMM;
	int try, moved = 0;

	memset(q, 0, sizeof(*q));
	if (t->ak == ESYS_TR_NONE) {
		log_warnx("%s: no AK loaded", __func__);
		return TPM_ERR_OTHER;
	}
	if (!bank || !bank->bank || !bank->tpm_alg || mask == 0 ||
	    mask >= 1u << TPM_PCR_MAX || nonce_len > TPM_NONCE_MAX ||
	    nonce_len > sizeof(data.buffer)) {
		log_warnx("%s: bad bank, PCR mask 0x%x or nonce length %zu",
			  __func__, mask, nonce_len);
		return TPM_ERR_OTHER;
	}
	data.size = (uint16_t)nonce_len;
	memcpy(data.buffer, nonce, nonce_len);

	for (try = 0; try < TPM_QUOTE_TRIES; try++) {
		memset(q, 0, sizeof(*q));
		st = tpm_quote_round(t, bank, mask, &data, resolve, arg, q,
				     &moved);
		if (st != TPM_OK || !moved)
			break;
		log_debug("%s: PCRs changed during the quote, again", __func__);
	}
	if (st == TPM_OK && moved) {
		log_warnx("%s: PCRs changed during %d quotes in a row",
			  __func__, TPM_QUOTE_TRIES);
		st = TPM_ERR_COMM;
	}
	if (st != TPM_OK)
		memset(q, 0, sizeof(*q));
	return st;
}

enum tpm_status tpm_reset_count(struct tpm *t, uint32_t *reset_count)
{
	TPMS_TIME_INFO *info = NULL;
	TSS2_RC rc;

	rc = Esys_ReadClock(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
			    &info);
	if (rc != TSS2_RC_SUCCESS)
		return TPM_FAIL("ReadClock", rc);
	*reset_count = info->clockInfo.resetCount;
	Esys_Free(info);
	return TPM_OK;
}

enum tpm_status tpm_pcr_extend(struct tpm *t, unsigned int pcr,
			       const struct tpm_digest *values, size_t count)
{
	TPML_DIGEST_VALUES dv = { 0 };
	const struct hash_algo *a;
	TSS2_RC rc;
	size_t i;

	if (pcr >= TPM_PCR_MAX || count == 0 || count > TPM2_NUM_PCR_BANKS) {
		log_warnx("%s: bad PCR %u or bank count %zu", __func__, pcr,
			  count);
		return TPM_ERR_OTHER;
	}
	for (i = 0; i < count; i++) {
		a = values[i].algo;
		if (!a || !a->bank || !a->tpm_alg ||
		    a->size > sizeof(dv.digests[i].digest)) {
			log_warnx("%s: bank %zu is not a PCR bank", __func__,
				  i);
			return TPM_ERR_OTHER;
		}
		dv.digests[i].hashAlg = a->tpm_alg;
		memcpy(&dv.digests[i].digest, values[i].value, a->size);
	}
	dv.count = (uint32_t)count;
	rc = Esys_PCR_Extend(t->esys, ESYS_TR_PCR0 + pcr, ESYS_TR_PASSWORD,
			     ESYS_TR_NONE, ESYS_TR_NONE, &dv);
	if (rc != TSS2_RC_SUCCESS)
		return TPM_FAIL("PCR_Extend", rc);
	return TPM_OK;
}
