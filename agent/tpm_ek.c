// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_ek.c - the agent's EK (tpm.h, tpm_ek_load()): the primary key of
 * the TCG EK Credential Profile templates, as tpm2_createek makes it,
 * used only through its policy (PolicySecret with the endorsement
 * hierarchy), and its certificate from NV.
 */
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>

#include "log.h"
#include "tpm_int.h"

#define TPM_NV_EK_CERT_RSA 0x01c00002 /* TCG EK Credential Profile 2.5 */
#define TPM_NV_EK_CERT_ECC 0x01c0000a /* (RSA 2048 and ECC NIST P-256) */

/* TCG EK Credential Profile, policy A: PolicySecret(TPM_RH_ENDORSEMENT). */
static const uint8_t tpm_ek_policy_a[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc,
	0x8d, 0x46, 0xa5, 0xd7, 0x24, 0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52,
	0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa,
};

/* Templates L-1 (RSA 2048) and L-2 (ECC NIST P-256) of the profile. */
static void tpm_ek_template(enum tpm_key_alg alg, TPM2B_PUBLIC *tmpl)
{
	TPMT_PUBLIC *p = &tmpl->publicArea;

	memset(tmpl, 0, sizeof(*tmpl));
	p->nameAlg = TPM2_ALG_SHA256;
	p->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_ADMINWITHPOLICY |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	p->authPolicy.size = sizeof(tpm_ek_policy_a);
	memcpy(p->authPolicy.buffer, tpm_ek_policy_a, sizeof(tpm_ek_policy_a));
	if (alg == TPM_KEY_ECC) {
		p->type = TPM2_ALG_ECC;
		p->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
		p->parameters.eccDetail.symmetric.keyBits.aes = 128;
		p->parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
		p->parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
		p->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
		p->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
		/* the profile's unique field: zeros of the coordinate size */
		p->unique.ecc.x.size = 32;
		p->unique.ecc.y.size = 32;
	} else {
		p->type = TPM2_ALG_RSA;
		p->parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_AES;
		p->parameters.rsaDetail.symmetric.keyBits.aes = 128;
		p->parameters.rsaDetail.symmetric.mode.aes = TPM2_ALG_CFB;
		p->parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
		p->parameters.rsaDetail.keyBits = 2048;
		p->parameters.rsaDetail.exponent = 0;
		p->unique.rsa.size = 256;
	}
}

/*
 * The length of the DER object at the start of @buf, or @len when the
 * header does not say: NV indices may be larger than the certificate.
 */
static size_t tpm_der_len(const uint8_t *buf, size_t len)
{
	size_t n;

	if (len < 2 || buf[0] != 0x30)
		return len;
	if (buf[1] < 0x80)
		n = 2 + (size_t)buf[1];
	else if (buf[1] == 0x81 && len >= 3)
		n = 3 + (size_t)buf[2];
	else if (buf[1] == 0x82 && len >= 4)
		n = 4 + ((size_t)buf[2] << 8 | buf[3]);
	else
		return len;
	return n <= len ? n : len;
}

/* Read the whole NV index @index (authorized by itself, empty password). */
static enum tpm_status tpm_nv_read(struct tpm *t, TPM2_HANDLE index,
				   uint8_t *buf, size_t max, size_t *len)
{
	ESYS_TR nv = ESYS_TR_NONE;
	TPM2B_NV_PUBLIC *nvpub = NULL;
	TPM2B_MAX_NV_BUFFER *data = NULL;
	enum tpm_status st = TPM_OK;
	uint16_t size, off, n;
	TSS2_RC rc;

	*len = 0;
	rc = Esys_TR_FromTPMPublic(t->esys, index, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, &nv);
	if (rc != TSS2_RC_SUCCESS) {
		nv = ESYS_TR_NONE;
		/* an absent index is an answer, not a failure to log */
		if (tpm_rc_status(rc) == TPM_ERR_NV_ABSENT)
			st = TPM_ERR_NV_ABSENT;
		else
			st = TPM_FAIL("TR_FromTPMPublic(NV)", rc);
		goto out;
	}
	rc = Esys_NV_ReadPublic(t->esys, nv, ESYS_TR_NONE, ESYS_TR_NONE,
				ESYS_TR_NONE, &nvpub, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("NV_ReadPublic", rc);
		goto out;
	}
	size = nvpub->nvPublic.dataSize;
	if (size > max) {
		log_warnx("%s: NV 0x%08x holds %u bytes, more than %zu",
			  __func__, index, size, max);
		st = TPM_ERR_OTHER;
		goto out;
	}
	for (off = 0; off < size; off += n) {
		n = size - off < t->nv_chunk ? size - off : t->nv_chunk;
		rc = Esys_NV_Read(t->esys, nv, nv, ESYS_TR_PASSWORD,
				  ESYS_TR_NONE, ESYS_TR_NONE, n, off, &data);
		if (rc != TSS2_RC_SUCCESS) {
			st = TPM_FAIL("NV_Read", rc);
			goto out;
		}
		if (data->size != n) {
			log_warnx("%s: NV 0x%08x: asked %u bytes, got %u",
				  __func__, index, n, data->size);
			st = TPM_ERR_OTHER;
			goto out;
		}
		memcpy(buf + off, data->buffer, n);
		Esys_Free(data);
		data = NULL;
	}
	*len = size;
out:
	Esys_Free(data);
	Esys_Free(nvpub);
	if (nv != ESYS_TR_NONE) {
		/* an NV index is only closed in ESAPI, never flushed */
		rc = Esys_TR_Close(t->esys, &nv);
		if (rc != TSS2_RC_SUCCESS)
			TPM_FAIL("TR_Close(NV)", rc);
	}
	return st;
}

enum tpm_status tpm_ek_load(struct tpm *t, enum tpm_key_alg alg,
			    struct tpm_ek *ek)
{
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION creation_pcrs = { 0 };
	TPM2B_PUBLIC tmpl;
	TPM2B_PUBLIC *pub = NULL;
	TPM2_HANDLE index;
	enum tpm_status st = TPM_OK;
	size_t off = 0;
	TSS2_RC rc;

	memset(ek, 0, sizeof(*ek));
	ek->alg = alg;
	/* the AK is a child of the EK: it goes with it */
	tpm_flush(t, &t->ak);
	tpm_flush(t, &t->ek);
	tpm_ek_template(alg, &tmpl);
	rc = Esys_CreatePrimary(t->esys, ESYS_TR_RH_ENDORSEMENT,
				ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
				&sens, &tmpl, &outside, &creation_pcrs, &t->ek,
				&pub, NULL, NULL, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		t->ek = ESYS_TR_NONE;
		st = TPM_FAIL("CreatePrimary(EK)", rc);
		goto out;
	}
	t->ek_alg = alg;
	rc = Tss2_MU_TPM2B_PUBLIC_Marshal(pub, ek->pub, sizeof(ek->pub), &off);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("marshal EK public", rc);
		goto out;
	}
	ek->pub_len = off;

	index = alg == TPM_KEY_ECC ? TPM_NV_EK_CERT_ECC : TPM_NV_EK_CERT_RSA;
	st = tpm_nv_read(t, index, ek->cert, sizeof(ek->cert), &ek->cert_len);
	if (st == TPM_ERR_NV_ABSENT) {
		log_info("no EK certificate in NV 0x%08x", index);
		st = TPM_OK;
	} else if (st == TPM_OK) {
		ek->cert_len = tpm_der_len(ek->cert, ek->cert_len);
	}
	if (st == TPM_OK)
		log_debug("%s: %s EK, certificate %zu bytes", __func__,
			  alg == TPM_KEY_ECC ? "ECC" : "RSA", ek->cert_len);
out:
	Esys_Free(pub);
	if (st != TPM_OK)
		tpm_flush(t, &t->ek);
	return st;
}
