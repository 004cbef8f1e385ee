/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpm_int.h - what the agent's TPM files share (agent/tpm*.c): the
 * handle, the one way a TSS failure is reported, and the EK's policy
 * session. Not for anyone else: tpm.h is the interface.
 */
#ifndef IMATRUST_TPM_INT_H
#define IMATRUST_TPM_INT_H

#include <tss2/tss2_esys.h>

#include "tpm.h"

#define TPM_PCR_MAX 24 /* PCRs of a PC client TPM */

struct tpm {
	TSS2_TCTI_CONTEXT *tcti;
	ESYS_CONTEXT *esys;
	ESYS_TR ek; /* ESYS_TR_NONE until tpm_ek_load() */
	enum tpm_key_alg ek_alg;
	int ek_password;      /* the EK has userWithAuth: its (empty)
			       * password authorizes, not policy A */
	uint16_t ek_name_alg; /* of the EK: its policy session's hash */
	ESYS_TR ak;	      /* ESYS_TR_NONE until tpm_ak_load() */
	uint16_t nv_chunk;    /* TPM2_PT_NV_BUFFER_MAX */
};

/* The error number of a TPM response code, without handle/parameter bits. */
TSS2_RC tpm_rc_code(TSS2_RC rc);

/* The status a caller can act on; see enum tpm_status. */
enum tpm_status tpm_rc_status(TSS2_RC rc);

/* Log one failed TSS call with its decoded return code; see TPM_FAIL. */
enum tpm_status tpm_rc_log(const char *func, const char *what, TSS2_RC rc);

/* The one way a TSS failure is reported: logged, decoded, mapped. */
#define TPM_FAIL(what, rc) tpm_rc_log(__func__, (what), (rc))

/* Flush a transient object or session; a no-op for ESYS_TR_NONE and
 * ESYS_TR_PASSWORD (which it sets to ESYS_TR_NONE). */
void tpm_flush(struct tpm *t, ESYS_TR *handle);

/*
 * A policy session satisfying the EK's policy A (PolicySecret with the
 * endorsement hierarchy), fresh for each use of the EK's authority; or
 * ESYS_TR_PASSWORD for an EK with userWithAuth (the high range).
 */
enum tpm_status tpm_ek_session(struct tpm *t, ESYS_TR *session);

/* TPM2_ALG_RSA or TPM2_ALG_ECC for @alg. */
uint16_t tpm_key_type(enum tpm_key_alg alg);

#endif /* IMATRUST_TPM_INT_H */
