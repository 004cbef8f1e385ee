// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm.c - the agent's TPM over tpm2-tss ESAPI (see tpm.h): the context,
 * the TCTI, return codes and the EK's policy session. The keys are in
 * tpm_ek.c and tpm_ak.c, quotes and PCRs in tpm_quote.c; tpm_int.h is
 * what they share.
 *
 * Only the agent's tpm*.c include tss2_esys.h. Every failing TSS call
 * goes through TPM_FAIL(), which logs the decoded TSS2_RC once and maps
 * it to an enum tpm_status. Objects and sessions live in ESYS_TR handles;
 * each function that makes one flushes it on every path through its one
 * cleanup label, and only the EK and AK outlive a call (in struct tpm,
 * flushed by tpm_close()).
 */
#include <stdlib.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include "log.h"
#include "tpm_int.h"

#define TPM_NV_CHUNK_DEFAULT 512 /* NV_Read size if the TPM won't say */

TSS2_RC tpm_rc_code(TSS2_RC rc)
{
	TSS2_RC layer = rc & TSS2_RC_LAYER_MASK;

	if (layer != TSS2_TPM_RC_LAYER && layer != TSS2_RESMGR_TPM_RC_LAYER)
		return 0;
	rc &= ~TSS2_RC_LAYER_MASK;
	if (rc & TPM2_RC_FMT1)
		return rc & (TPM2_RC_FMT1 | 0x3f);
	return rc & (TPM2_RC_WARN | TPM2_RC_VER1 | 0x7f);
}

enum tpm_status tpm_rc_status(TSS2_RC rc)
{
	TSS2_RC layer = rc & TSS2_RC_LAYER_MASK;
	TSS2_RC base = rc & ~TSS2_RC_LAYER_MASK;

	if (rc == TSS2_RC_SUCCESS)
		return TPM_OK;
	if (layer != TSS2_TPM_RC_LAYER && layer != TSS2_RESMGR_TPM_RC_LAYER) {
		/*
		 * TCTI, ESAPI, resource manager: I/O is transient; a bad or
		 * unknown TCTI configuration is not, retrying cannot fix it.
		 */
		if (base == TSS2_BASE_RC_IO_ERROR ||
		    base == TSS2_BASE_RC_NO_CONNECTION ||
		    base == TSS2_BASE_RC_TRY_AGAIN ||
		    base == TSS2_BASE_RC_MALFORMED_RESPONSE ||
		    (layer == TSS2_TCTI_RC_LAYER &&
		     base == TSS2_BASE_RC_GENERAL_FAILURE))
			return TPM_ERR_COMM;
		return TPM_ERR_OTHER;
	}
	switch (tpm_rc_code(rc)) {
	case TPM2_RC_RETRY:
	case TPM2_RC_YIELDED:
	case TPM2_RC_TESTING:
	case TPM2_RC_NV_RATE:
	case TPM2_RC_NV_UNAVAILABLE:
	case TPM2_RC_CANCELED:
	case TPM2_RC_MEMORY:
	case TPM2_RC_OBJECT_MEMORY:
	case TPM2_RC_SESSION_MEMORY:
		return TPM_ERR_COMM;
	case TPM2_RC_AUTH_FAIL:
	case TPM2_RC_BAD_AUTH:
	case TPM2_RC_POLICY_FAIL:
	case TPM2_RC_AUTH_MISSING:
	case TPM2_RC_AUTH_UNAVAILABLE:
	case TPM2_RC_LOCKOUT:
	case TPM2_RC_LOCALITY:
		return TPM_ERR_AUTH;
	case TPM2_RC_HANDLE:
		return TPM_ERR_NV_ABSENT;
	default:
		return TPM_ERR_OTHER;
	}
}

enum tpm_status tpm_rc_log(const char *func, const char *what, TSS2_RC rc)
{
	log_warnx("%s: %s: %s (0x%08x)", func, what, Tss2_RC_Decode(rc),
		  (unsigned int)rc);
	return tpm_rc_status(rc);
}

const char *tpm_status_name(enum tpm_status status)
{
	switch (status) {
	case TPM_OK:
		return "ok";
	case TPM_ERR_COMM:
		return "comm";
	case TPM_ERR_AUTH:
		return "auth";
	case TPM_ERR_NV_ABSENT:
		return "nv-absent";
	case TPM_ERR_OTHER:
		break;
	}
	return "other";
}

void tpm_flush(struct tpm *t, ESYS_TR *handle)
{
	TSS2_RC rc;

	if (*handle == ESYS_TR_NONE || *handle == ESYS_TR_PASSWORD) {
		*handle = ESYS_TR_NONE;
		return;
	}
	rc = Esys_FlushContext(t->esys, *handle);
	if (rc != TSS2_RC_SUCCESS)
		TPM_FAIL("FlushContext", rc);
	*handle = ESYS_TR_NONE;
}

/* Ask the TPM for TPM2_PT_NV_BUFFER_MAX; this is also the liveness probe. */
static enum tpm_status tpm_probe(struct tpm *t)
{
	TPMS_CAPABILITY_DATA *cap = NULL;
	TPMS_TAGGED_PROPERTY *prop;
	TPMI_YES_NO more;
	enum tpm_status st = TPM_OK;
	TSS2_RC rc;

	t->nv_chunk = TPM_NV_CHUNK_DEFAULT;
	rc = Esys_GetCapability(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				ESYS_TR_NONE, TPM2_CAP_TPM_PROPERTIES,
				TPM2_PT_NV_BUFFER_MAX, 1, &more, &cap);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("GetCapability", rc);
		goto out;
	}
	prop = &cap->data.tpmProperties.tpmProperty[0];
	if (cap->data.tpmProperties.count == 1 &&
	    prop->property == TPM2_PT_NV_BUFFER_MAX && prop->value > 0 &&
	    prop->value <= TPM2_MAX_NV_BUFFER_SIZE)
		t->nv_chunk = (uint16_t)prop->value;
out:
	Esys_Free(cap);
	return st;
}

enum tpm_status tpm_open(const char *tcti_conf, struct tpm **out)
{
	const char *conf = tcti_conf ? tcti_conf : "(default)";
	enum tpm_status st = TPM_ERR_OTHER;
	struct tpm *t;
	TSS2_RC rc;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		log_warn("%s: calloc", __func__);
		goto out;
	}
	t->ek = ESYS_TR_NONE;
	t->ak = ESYS_TR_NONE;

	/*
	 * The TSS logs its own errors to stderr as well; TPM_FAIL already
	 * logs each one decoded, so silence it unless the operator asked.
	 */
	if (setenv("TSS2_LOG", "all+NONE", 0) < 0)
		log_warn("%s: setenv TSS2_LOG", __func__);
	rc = Tss2_TctiLdr_Initialize(tcti_conf, &t->tcti);
	if (rc != TSS2_RC_SUCCESS) {
		t->tcti = NULL;
		log_warnx("%s: TCTI \"%s\"", __func__, conf);
		st = TPM_FAIL("Tss2_TctiLdr_Initialize", rc);
		goto out;
	}
	rc = Esys_Initialize(&t->esys, t->tcti, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		t->esys = NULL;
		st = TPM_FAIL("Esys_Initialize", rc);
		goto out;
	}
	st = tpm_probe(t);
	if (st == TPM_OK)
		log_debug("%s: TPM at \"%s\", NV chunk %u", __func__, conf,
			  t->nv_chunk);
out:
	if (st == TPM_OK)
		*out = t;
	else
		tpm_close(t);
	return st;
}

void tpm_close(struct tpm *t)
{
	if (!t)
		return;
	if (t->esys) {
		tpm_flush(t, &t->ak);
		tpm_flush(t, &t->ek);
		Esys_Finalize(&t->esys);
	}
	if (t->tcti)
		Tss2_TctiLdr_Finalize(&t->tcti);
	free(t);
}

/*
 * A policy session satisfying the EK's policy A: PolicySecret with the
 * endorsement hierarchy (empty password), in the EK's nameAlg. Each use
 * of the EK's authority needs a fresh one, since a policy session is
 * reset after a command. An EK with userWithAuth (the high range, whose
 * policy B is a PolicyOR) takes its empty password instead.
 */
enum tpm_status tpm_ek_session(struct tpm *t, ESYS_TR *session)
{
	TPMT_SYM_DEF sym = { .algorithm = TPM2_ALG_NULL };
	enum tpm_status st = TPM_OK;
	TSS2_RC rc;

	*session = ESYS_TR_NONE;
	if (t->ek_password) {
		*session = ESYS_TR_PASSWORD;
		return TPM_OK;
	}
	rc = Esys_StartAuthSession(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				   NULL, TPM2_SE_POLICY, &sym,
				   t->ek_name_alg != 0 ? t->ek_name_alg :
							 TPM2_ALG_SHA256,
				   session);
	if (rc != TSS2_RC_SUCCESS) {
		*session = ESYS_TR_NONE;
		st = TPM_FAIL("StartAuthSession", rc);
		goto out;
	}
	rc = Esys_PolicySecret(t->esys, ESYS_TR_RH_ENDORSEMENT, *session,
			       ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
			       NULL, NULL, NULL, 0, NULL, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("PolicySecret(endorsement)", rc);
		tpm_flush(t, session);
	}
out:
	return st;
}

uint16_t tpm_key_type(enum tpm_key_alg alg)
{
	return alg == TPM_KEY_ECC ? TPM2_ALG_ECC : TPM2_ALG_RSA;
}
