// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_ek.c - the agent's EK (tpm.h, tpm_ek_find()): the primary key of
 * a TCG EK Credential Profile template (low range L-1, L-2; high range
 * H-1, H-2, H-3, H-6), or of the template the TPM keeps in NV, used
 * only through its authorization (policy A's PolicySecret with the
 * endorsement hierarchy; the high range's userWithAuth), and its
 * certificate and certificate chain from NV.
 */
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>

#include "log.h"
#include "tpm_int.h"

#define TPM_NV_CHAIN_FIRST 0x01c00100 /* EK certificate chain (profile */
#define TPM_NV_CHAIN_LAST 0x01c001ff  /* 2.5 2.2.1.5): intermediates */

/* TCG EK Credential Profile, policy A: PolicySecret(TPM_RH_ENDORSEMENT). */
static const uint8_t tpm_ek_policy_a[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc,
	0x8d, 0x46, 0xa5, 0xd7, 0x24, 0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52,
	0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa,
};

/* Policy B of the high range (PolicyOR of policy A and C), SHA-256. */
static const uint8_t tpm_ek_policy_b256[32] = {
	0xca, 0x3d, 0x0a, 0x99, 0xa2, 0xb9, 0x39, 0x06, 0xf7, 0xa3, 0x34,
	0x24, 0x14, 0xef, 0xcf, 0xb3, 0xa3, 0x85, 0xd4, 0x4c, 0xd1, 0xfd,
	0x45, 0x90, 0x89, 0xd1, 0x9b, 0x50, 0x71, 0xc0, 0xb7, 0xa0,
};

/* Policy B, SHA-384 (templates H-3 and H-6). */
static const uint8_t tpm_ek_policy_b384[48] = {
	0xb2, 0x6e, 0x7d, 0x28, 0xd1, 0x1a, 0x50, 0xbc, 0x53, 0xd8, 0x82, 0xbc,
	0xf5, 0xfd, 0x3a, 0x1a, 0x07, 0x41, 0x48, 0xbb, 0x35, 0xd3, 0xb4, 0xe4,
	0xcb, 0x1c, 0x0a, 0xd9, 0xbd, 0xe4, 0x19, 0xca, 0xcb, 0x47, 0xba, 0x09,
	0x69, 0x96, 0x46, 0x15, 0x0f, 0x9f, 0xc0, 0x00, 0xf3, 0xf8, 0x0e, 0x12,
};

/*
 * The EKs of the profile the agent knows, in the order "ek = auto" and a
 * named kind try them: the low range first. A template index of 0 has
 * none; the high range has no nonce.
 */
static const struct tpm_ek_profile {
	const char *kind; /* what "ek =" names */
	const char *tmpl; /* the profile's name of the template */
	enum tpm_key_alg alg;
	uint16_t size; /* RSA bits, or ECC curve */
	TPM2_HANDLE cert, nonce, tmpl_nv;
} tpm_ek_profiles[] = {
	{ "rsa2048", "L-1", TPM_KEY_RSA, 2048, 0x01c00002, 0x01c00003,
	  0x01c00004 },
	{ "p256", "L-2", TPM_KEY_ECC, TPM2_ECC_NIST_P256, 0x01c0000a,
	  0x01c0000b, 0x01c0000c },
	{ "rsa2048", "H-1", TPM_KEY_RSA, 2048, 0x01c00012, 0, 0x01c00013 },
	{ "p256", "H-2", TPM_KEY_ECC, TPM2_ECC_NIST_P256, 0x01c00014, 0,
	  0x01c00015 },
	{ "p384", "H-3", TPM_KEY_ECC, TPM2_ECC_NIST_P384, 0x01c00016, 0,
	  0x01c00017 },
	{ "rsa3072", "H-6", TPM_KEY_RSA, 3072, 0x01c0001c, 0, 0x01c0001d },
};

#define TPM_EK_PROFILES (sizeof(tpm_ek_profiles) / sizeof(tpm_ek_profiles[0]))

/* The symmetric definition of an EK: AES-128-CFB, or AES-256 with 384. */
static void tpm_ek_sym(TPMT_SYM_DEF_OBJECT *sym, int big)
{
	sym->algorithm = TPM2_ALG_AES;
	sym->keyBits.aes = big ? 256 : 128;
	sym->mode.aes = TPM2_ALG_CFB;
}

/* The built-in template of profile @p (the low range's unique: zeros). */
static void tpm_ek_template(const struct tpm_ek_profile *p, TPM2B_PUBLIC *tmpl)
{
	TPMT_PUBLIC *t = &tmpl->publicArea;
	int high = p->nonce == 0;
	int big = p->size == 3072 || p->size == TPM2_ECC_NIST_P384;

	memset(tmpl, 0, sizeof(*tmpl));
	t->nameAlg = big ? TPM2_ALG_SHA384 : TPM2_ALG_SHA256;
	t->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_ADMINWITHPOLICY |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	if (high)
		t->objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
	if (!high) {
		t->authPolicy.size = sizeof(tpm_ek_policy_a);
		memcpy(t->authPolicy.buffer, tpm_ek_policy_a,
		       sizeof(tpm_ek_policy_a));
	} else if (big) {
		t->authPolicy.size = sizeof(tpm_ek_policy_b384);
		memcpy(t->authPolicy.buffer, tpm_ek_policy_b384,
		       sizeof(tpm_ek_policy_b384));
	} else {
		t->authPolicy.size = sizeof(tpm_ek_policy_b256);
		memcpy(t->authPolicy.buffer, tpm_ek_policy_b256,
		       sizeof(tpm_ek_policy_b256));
	}
	if (p->alg == TPM_KEY_ECC) {
		t->type = TPM2_ALG_ECC;
		tpm_ek_sym(&t->parameters.eccDetail.symmetric, big);
		t->parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
		t->parameters.eccDetail.curveID = p->size;
		t->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
		/* the low range's unique: zeros of the coordinate size */
		t->unique.ecc.x.size = high ? 0 : 32;
		t->unique.ecc.y.size = high ? 0 : 32;
	} else {
		t->type = TPM2_ALG_RSA;
		tpm_ek_sym(&t->parameters.rsaDetail.symmetric, big);
		t->parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
		t->parameters.rsaDetail.keyBits = p->size;
		t->parameters.rsaDetail.exponent = 0;
		t->unique.rsa.size = high ? 0 : 256;
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

/* Unmarshal the template the TPM keeps at @index into @tmpl; 0 when it
 * keeps none (absent, or not a TPMT_PUBLIC: logged), 1 when read. */
static int tpm_ek_nv_template(struct tpm *t, TPM2_HANDLE index,
			      TPM2B_PUBLIC *tmpl)
{
	uint8_t buf[TPM_BLOB_MAX];
	TPMT_PUBLIC pub;
	size_t len, off = 0;
	TSS2_RC rc;

	if (index == 0 ||
	    tpm_nv_read(t, index, buf, sizeof(buf), &len) != TPM_OK)
		return 0;
	memset(&pub, 0, sizeof(pub));
	rc = Tss2_MU_TPMT_PUBLIC_Unmarshal(buf, len, &off, &pub);
	if (rc != TSS2_RC_SUCCESS) {
		log_warnx("NV 0x%08x: not an EK template (TPMT_PUBLIC); "
			  "the profile's is used",
			  index);
		return 0;
	}
	memset(tmpl, 0, sizeof(*tmpl));
	tmpl->publicArea = pub;
	return 1;
}

/*
 * The template of profile @p: the one the TPM keeps in NV where it keeps
 * one (its unique field then the nonce of the low range, zero-padded, when
 * that index is there too), else the profile's own.
 */
static void tpm_ek_template_of(struct tpm *t, const struct tpm_ek_profile *p,
			       TPM2B_PUBLIC *tmpl)
{
	TPMT_PUBLIC *pub = &tmpl->publicArea;
	uint8_t nonce[256];
	size_t len;

	if (!tpm_ek_nv_template(t, p->tmpl_nv, tmpl)) {
		tpm_ek_template(p, tmpl);
		return;
	}
	log_info("EK %s: template from NV 0x%08x", p->tmpl, p->tmpl_nv);
	if (p->nonce == 0 ||
	    tpm_nv_read(t, p->nonce, nonce, sizeof(nonce), &len) != TPM_OK)
		return;
	if (pub->type == TPM2_ALG_RSA) {
		memset(pub->unique.rsa.buffer, 0, 256);
		memcpy(pub->unique.rsa.buffer, nonce, len);
		pub->unique.rsa.size = 256;
	} else if (len <= 32) {
		memset(&pub->unique.ecc, 0, sizeof(pub->unique.ecc));
		memcpy(pub->unique.ecc.x.buffer, nonce, len);
		pub->unique.ecc.x.size = 32;
		pub->unique.ecc.y.size = 32;
	}
}

/* Create the EK of @tmpl into t->ek and @ek->pub. */
static enum tpm_status tpm_ek_create(struct tpm *t, const TPM2B_PUBLIC *tmpl,
				     struct tpm_ek *ek)
{
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION creation_pcrs = { 0 };
	TPM2B_PUBLIC *pub = NULL;
	enum tpm_status st = TPM_OK;
	size_t off = 0;
	TSS2_RC rc;

	rc = Esys_CreatePrimary(t->esys, ESYS_TR_RH_ENDORSEMENT,
				ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
				&sens, tmpl, &outside, &creation_pcrs, &t->ek,
				&pub, NULL, NULL, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		t->ek = ESYS_TR_NONE;
		return TPM_FAIL("CreatePrimary(EK)", rc);
	}
	/* userWithAuth (the high range): the EK's empty password serves */
	t->ek_password = (tmpl->publicArea.objectAttributes &
			  TPMA_OBJECT_USERWITHAUTH) != 0;
	t->ek_name_alg = tmpl->publicArea.nameAlg;
	rc = Tss2_MU_TPM2B_PUBLIC_Marshal(pub, ek->pub, sizeof(ek->pub), &off);
	if (rc != TSS2_RC_SUCCESS)
		st = TPM_FAIL("marshal EK public", rc);
	ek->pub_len = off;
	Esys_Free(pub);
	return st;
}

/* Append the DER certificates of NV @index to @ek->cert; 0, or -1 when
 * they do not fit. */
static int tpm_ek_chain_add(struct tpm *t, TPM2_HANDLE index, struct tpm_ek *ek)
{
	uint8_t buf[TPM_CERT_MAX];
	size_t len, off, n;

	if (tpm_nv_read(t, index, buf, sizeof(buf), &len) != TPM_OK)
		return 0; /* logged; the verifier says what is missing */
	/* one or more certificates, maybe padded after the last */
	for (off = 0; off < len && buf[off] == 0x30; off += n) {
		n = tpm_der_len(buf + off, len - off);
		if (n > sizeof(ek->cert) - ek->cert_len) {
			log_warnx("EK certificate chain: NV 0x%08x does not fit in %zu bytes",
				  index, sizeof(ek->cert));
			return -1;
		}
		memcpy(ek->cert + ek->cert_len, buf + off, n);
		ek->cert_len += n;
		ek->chain_certs++;
	}
	return 0;
}

/* The intermediates of NV 0x01c00100-0x01c001ff after the EK certificate. */
static enum tpm_status tpm_ek_chain(struct tpm *t, struct tpm_ek *ek)
{
	TPMS_CAPABILITY_DATA *cap = NULL;
	TPMI_YES_NO more = 0;
	TPM2_HANDLE h;
	uint32_t i;
	TSS2_RC rc;

	rc = Esys_GetCapability(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				ESYS_TR_NONE, TPM2_CAP_HANDLES,
				TPM_NV_CHAIN_FIRST, TPM2_MAX_CAP_HANDLES, &more,
				&cap);
	if (rc != TSS2_RC_SUCCESS)
		return TPM_FAIL("GetCapability(NV chain)", rc);
	for (i = 0; i < cap->data.handles.count; i++) {
		h = cap->data.handles.handle[i];
		if (h < TPM_NV_CHAIN_FIRST || h > TPM_NV_CHAIN_LAST ||
		    tpm_ek_chain_add(t, h, ek) < 0)
			break;
	}
	Esys_Free(cap);
	return TPM_OK;
}

/*
 * Is @p one @kind names in @pass? "auto": its family in pass 0, the
 * other in pass 1; a kind ("rsa2048") or a template ("L-1"): pass 0.
 */
static int tpm_ek_named(const struct tpm_ek_profile *p, const char *kind,
			enum tpm_key_alg alg, int pass)
{
	if (strcmp(kind, "auto") == 0)
		return (p->alg == alg) == (pass == 0);
	return pass == 0 &&
	       (strcmp(p->kind, kind) == 0 || strcmp(p->tmpl, kind) == 0);
}

/*
 * The profiles @kind names into @out, in the order they are tried; for
 * "auto" those of @alg's family first. Return: how many.
 */
static size_t tpm_ek_candidates(const char *kind, enum tpm_key_alg alg,
				const struct tpm_ek_profile **out)
{
	size_t i, n = 0;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < TPM_EK_PROFILES; i++)
			if (tpm_ek_named(&tpm_ek_profiles[i], kind, alg, pass))
				out[n++] = &tpm_ek_profiles[i];
	return n;
}

/* Read the certificate of the first of @cand that has one into @ek. */
static enum tpm_status tpm_ek_pick(struct tpm *t,
				   const struct tpm_ek_profile **cand, size_t n,
				   const struct tpm_ek_profile **pick,
				   struct tpm_ek *ek)
{
	enum tpm_status st;
	size_t i;

	*pick = cand[0];
	for (i = 0; i < n; i++) {
		st = tpm_nv_read(t, cand[i]->cert, ek->cert, sizeof(ek->cert),
				 &ek->cert_len);
		if (st == TPM_OK) {
			*pick = cand[i];
			ek->cert_len = tpm_der_len(ek->cert, ek->cert_len);
			return TPM_OK;
		}
		if (st != TPM_ERR_NV_ABSENT)
			return st;
	}
	log_info("no EK certificate in NV 0x%08x%s", cand[0]->cert,
		 n > 1 ? " nor in the other indices of its kind" : "");
	return TPM_OK;
}

enum tpm_status tpm_ek_find(struct tpm *t, const char *kind,
			    enum tpm_key_alg alg, struct tpm_ek *ek)
{
	const struct tpm_ek_profile *cand[TPM_EK_PROFILES], *p;
	TPM2B_PUBLIC tmpl;
	enum tpm_status st;
	size_t n;

	memset(ek, 0, sizeof(*ek));
	n = tpm_ek_candidates(kind, alg, cand);
	if (n == 0) {
		log_warnx("ek = %s: not an EK of the profile the agent knows",
			  kind);
		return TPM_ERR_OTHER;
	}
	/* the AK is a child of the EK: it goes with it */
	tpm_flush(t, &t->ak);
	tpm_flush(t, &t->ek);
	st = tpm_ek_pick(t, cand, n, &p, ek);
	if (st != TPM_OK)
		return st;
	ek->alg = p->alg;
	ek->profile = p->tmpl;
	ek->kind = p->kind;
	tpm_ek_template_of(t, p, &tmpl);
	st = tpm_ek_create(t, &tmpl, ek);
	if (st == TPM_OK && ek->cert_len > 0)
		st = tpm_ek_chain(t, ek);
	if (st != TPM_OK) {
		tpm_flush(t, &t->ek);
		return st;
	}
	t->ek_alg = p->alg;
	log_debug("%s: EK %s (%s), certificate and chain %zu bytes, %zu intermediates",
		  __func__, p->kind, p->tmpl, ek->cert_len, ek->chain_certs);
	return TPM_OK;
}

enum tpm_status tpm_ek_load(struct tpm *t, enum tpm_key_alg alg,
			    struct tpm_ek *ek)
{
	return tpm_ek_find(t, alg == TPM_KEY_ECC ? "p256" : "rsa2048", alg, ek);
}
