// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm.c - the agent's TPM over tpm2-tss ESAPI (see tpm.h).
 *
 * The only file of the agent that includes tss2_esys.h. Every failing
 * TSS call goes through TPM_FAIL(), which logs the decoded TSS2_RC once
 * and maps it to an enum tpm_status. Objects and sessions live in ESYS_TR
 * handles; each function that makes one flushes it on every path through
 * its one cleanup label, and only the EK and AK outlive a call (in struct
 * tpm, flushed by tpm_close()).
 *
 * The EK and AK follow what tpm2_createek and tpm2_createak do, so keys
 * made here can be checked with tpm2-tools: the EK is the primary key of
 * the TCG EK Credential Profile templates, used only through its policy
 * (PolicySecret with the endorsement hierarchy); the AK is an ordinary
 * child key of the EK whose private blob is kept on disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include "file.h"
#include "log.h"
#include "tpm.h"
#include "tpm_public.h"

#define TPM_NV_EK_CERT_RSA 0x01c00002 /* TCG EK Credential Profile 2.5 */
#define TPM_NV_EK_CERT_ECC 0x01c0000a /* (RSA 2048 and ECC NIST P-256) */
#define TPM_NV_CHUNK_DEFAULT 512      /* NV_Read size if the TPM won't say */
#define TPM_QUOTE_TRIES 8	      /* quote rounds while PCRs move */
#define TPM_PCR_MAX 24		      /* PCRs of a PC client TPM */
#define TPM_AK_FILE_MAX 4096	      /* an AK file larger is not ours */

/*
 * AK state file, version 1 (all integers big endian):
 *
 *	4 bytes		magic "IMAK"
 *	2 bytes		version, 1
 *	2 bytes		TPM2_ALG_ID of the EK it was made under (RSA or ECC)
 *	TPM2B_PUBLIC	the AK's public area, marshalled
 *	TPM2B_PRIVATE	the AK's private blob (wrapped by the EK), marshalled
 *
 * and nothing after. Only the TPM that holds the EK can load the blob.
 */
#define TPM_AK_MAGIC "IMAK"
#define TPM_AK_VERSION 1
#define TPM_AK_HEADER 8

struct tpm {
	TSS2_TCTI_CONTEXT *tcti;
	ESYS_CONTEXT *esys;
	ESYS_TR ek; /* ESYS_TR_NONE until tpm_ek_load() */
	enum tpm_key_alg ek_alg;
	ESYS_TR ak;	   /* ESYS_TR_NONE until tpm_ak_load() */
	uint16_t nv_chunk; /* TPM2_PT_NV_BUFFER_MAX */
};

/* TCG EK Credential Profile, policy A: PolicySecret(TPM_RH_ENDORSEMENT). */
static const uint8_t tpm_ek_policy_a[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc,
	0x8d, 0x46, 0xa5, 0xd7, 0x24, 0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52,
	0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa,
};

/* The error number of a TPM response code, without handle/parameter bits. */
static TSS2_RC tpm_rc_code(TSS2_RC rc)
{
	TSS2_RC layer = rc & TSS2_RC_LAYER_MASK;

	if (layer != TSS2_TPM_RC_LAYER && layer != TSS2_RESMGR_TPM_RC_LAYER)
		return 0;
	rc &= ~TSS2_RC_LAYER_MASK;
	if (rc & TPM2_RC_FMT1)
		return rc & (TPM2_RC_FMT1 | 0x3f);
	return rc & (TPM2_RC_WARN | TPM2_RC_VER1 | 0x7f);
}

/* The status a caller can act on; see enum tpm_status. */
static enum tpm_status tpm_rc_status(TSS2_RC rc)
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

/* Log one failed TSS call with its decoded return code; see TPM_FAIL. */
static enum tpm_status tpm_rc_log(const char *func, const char *what,
				  TSS2_RC rc)
{
	log_warnx("%s: %s: %s (0x%08x)", func, what, Tss2_RC_Decode(rc),
		  (unsigned int)rc);
	return tpm_rc_status(rc);
}

/* The one way a TSS failure is reported: logged, decoded, mapped. */
#define TPM_FAIL(what, rc) tpm_rc_log(__func__, (what), (rc))

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

/* Flush a transient object or session; a no-op for ESYS_TR_NONE. */
static void tpm_flush(struct tpm *t, ESYS_TR *handle)
{
	TSS2_RC rc;

	if (*handle == ESYS_TR_NONE)
		return;
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
 * endorsement hierarchy (empty password). Each use of the EK's authority
 * needs a fresh one, since a policy session is reset after a command.
 */
static enum tpm_status tpm_ek_session(struct tpm *t, ESYS_TR *session)
{
	TPMT_SYM_DEF sym = { .algorithm = TPM2_ALG_NULL };
	enum tpm_status st = TPM_OK;
	TSS2_RC rc;

	*session = ESYS_TR_NONE;
	rc = Esys_StartAuthSession(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				   NULL, TPM2_SE_POLICY, &sym, TPM2_ALG_SHA256,
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

static uint16_t tpm_key_type(enum tpm_key_alg alg)
{
	return alg == TPM_KEY_ECC ? TPM2_ALG_ECC : TPM2_ALG_RSA;
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

static enum tpm_status tpm_ak_save(const char *path, uint16_t ek_type,
				   const TPM2B_PUBLIC *pub,
				   const TPM2B_PRIVATE *priv)
{
	uint8_t buf[TPM_AK_FILE_MAX];
	size_t off = TPM_AK_HEADER;
	char why[PATH_MAX + 128];
	TSS2_RC rc;

	memcpy(buf, TPM_AK_MAGIC, 4);
	buf[4] = TPM_AK_VERSION >> 8;
	buf[5] = TPM_AK_VERSION & 0xff;
	buf[6] = ek_type >> 8;
	buf[7] = ek_type & 0xff;
	rc = Tss2_MU_TPM2B_PUBLIC_Marshal(pub, buf, sizeof(buf), &off);
	if (rc == TSS2_RC_SUCCESS)
		rc = Tss2_MU_TPM2B_PRIVATE_Marshal(priv, buf, sizeof(buf),
						   &off);
	if (rc != TSS2_RC_SUCCESS)
		return TPM_FAIL("marshal AK file", rc);
	if (file_replace(path, buf, off, why, sizeof(why)) < 0) {
		log_warnx("saving the AK: %s", why);
		return TPM_ERR_OTHER;
	}
	return TPM_OK;
}

/*
 * Read the AK file at @path. Return: 1 when read, 0 when there is none,
 * -1 on a read error or malformed contents (logged).
 */
static int tpm_ak_read(const char *path, uint16_t *ek_type, TPM2B_PUBLIC *pub,
		       TPM2B_PRIVATE *priv)
{
	uint8_t buf[TPM_AK_FILE_MAX + 1];
	size_t len = 0, off = TPM_AK_HEADER;
	int fd, ret = -1;
	ssize_t n;
	TSS2_RC rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			ret = 0;
		else
			log_warn("%s: open %s", __func__, path);
		goto out;
	}
	while (len < sizeof(buf)) {
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_warn("%s: read %s", __func__, path);
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > TPM_AK_FILE_MAX || len < TPM_AK_HEADER ||
	    memcmp(buf, TPM_AK_MAGIC, 4) != 0) {
		log_warnx("%s: %s: not an AK file", __func__, path);
		goto out;
	}
	if ((buf[4] << 8 | buf[5]) != TPM_AK_VERSION) {
		log_warnx("%s: %s: AK file version %u, expected %u", __func__,
			  path, buf[4] << 8 | buf[5], TPM_AK_VERSION);
		goto out;
	}
	*ek_type = (uint16_t)(buf[6] << 8 | buf[7]);
	memset(pub, 0, sizeof(*pub));
	memset(priv, 0, sizeof(*priv));
	rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(buf, len, &off, pub);
	if (rc == TSS2_RC_SUCCESS)
		rc = Tss2_MU_TPM2B_PRIVATE_Unmarshal(buf, len, &off, priv);
	if (rc != TSS2_RC_SUCCESS || off != len) {
		log_warnx("%s: %s: malformed AK file", __func__, path);
		goto out;
	}
	ret = 1;
out:
	if (fd >= 0)
		close(fd);
	explicit_bzero(buf, sizeof(buf));
	return ret;
}

/* Load @pub/@priv under the EK into t->ak. */
static enum tpm_status tpm_ak_load_blob(struct tpm *t, const TPM2B_PUBLIC *pub,
					const TPM2B_PRIVATE *priv,
					TSS2_RC *rc_out)
{
	ESYS_TR session = ESYS_TR_NONE;
	enum tpm_status st;
	TSS2_RC rc;

	*rc_out = TSS2_RC_SUCCESS;
	st = tpm_ek_session(t, &session);
	if (st != TPM_OK)
		goto out;
	rc = Esys_Load(t->esys, t->ek, session, ESYS_TR_NONE, ESYS_TR_NONE,
		       priv, pub, &t->ak);
	if (rc != TSS2_RC_SUCCESS) {
		t->ak = ESYS_TR_NONE;
		*rc_out = rc;
		st = TPM_FAIL("Load(AK)", rc);
	}
out:
	tpm_flush(t, &session);
	return st;
}

/* Make a new AK under the EK, keep it in @path, and load it. */
static enum tpm_status tpm_ak_create(struct tpm *t, const char *path,
				     enum tpm_key_alg alg)
{
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION creation_pcrs = { 0 };
	TPM2B_PUBLIC tmpl;
	TPM2B_PUBLIC *pub = NULL;
	TPM2B_PRIVATE *priv = NULL;
	ESYS_TR session = ESYS_TR_NONE;
	enum tpm_status st;
	TSS2_RC rc;

	tpm_public_ak_template(tpm_key_type(alg), &tmpl);
	st = tpm_ek_session(t, &session);
	if (st != TPM_OK)
		goto out;
	rc = Esys_Create(t->esys, t->ek, session, ESYS_TR_NONE, ESYS_TR_NONE,
			 &sens, &tmpl, &outside, &creation_pcrs, &priv, &pub,
			 NULL, NULL, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("Create(AK)", rc);
		goto out;
	}
	tpm_flush(t, &session);
	st = tpm_ak_save(path, tpm_key_type(t->ek_alg), pub, priv);
	if (st != TPM_OK)
		goto out;
	st = tpm_ak_load_blob(t, pub, priv, &rc);
	if (st == TPM_OK)
		log_info("created a new %s AK in %s",
			 alg == TPM_KEY_ECC ? "ECC" : "RSA", path);
out:
	tpm_flush(t, &session);
	if (priv)
		explicit_bzero(priv, sizeof(*priv));
	Esys_Free(priv);
	Esys_Free(pub);
	return st;
}

/* Fill @ak from the loaded t->ak. */
static enum tpm_status tpm_ak_describe(struct tpm *t, struct tpm_ak *ak)
{
	TPM2B_PUBLIC *pub = NULL;
	TPM2B_NAME *name = NULL;
	enum tpm_status st = TPM_OK;
	size_t off = 0;
	TSS2_RC rc;

	rc = Esys_ReadPublic(t->esys, t->ak, ESYS_TR_NONE, ESYS_TR_NONE,
			     ESYS_TR_NONE, &pub, NULL, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("ReadPublic(AK)", rc);
		goto out;
	}
	rc = Tss2_MU_TPM2B_PUBLIC_Marshal(pub, ak->pub, sizeof(ak->pub), &off);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("marshal AK public", rc);
		goto out;
	}
	ak->pub_len = off;
	rc = Esys_TR_GetName(t->esys, t->ak, &name);
	if (rc != TSS2_RC_SUCCESS) {
		st = TPM_FAIL("TR_GetName(AK)", rc);
		goto out;
	}
	if (name->size > sizeof(ak->name)) {
		log_warnx("%s: AK Name of %u bytes", __func__, name->size);
		st = TPM_ERR_OTHER;
		goto out;
	}
	memcpy(ak->name, name->name, name->size);
	ak->name_len = name->size;
out:
	Esys_Free(name);
	Esys_Free(pub);
	return st;
}

enum tpm_status tpm_ak_load(struct tpm *t, const char *state_dir,
			    enum tpm_key_alg alg, struct tpm_ak *ak)
{
	char path[PATH_MAX];
	TPM2B_PUBLIC pub;
	TPM2B_PRIVATE priv;
	uint16_t ek_type = 0;
	enum tpm_status st;
	TSS2_RC rc;
	int n, found;

	memset(ak, 0, sizeof(*ak));
	memset(&priv, 0, sizeof(priv));
	ak->alg = alg;
	st = TPM_ERR_OTHER;
	tpm_flush(t, &t->ak);
	if (t->ek == ESYS_TR_NONE) {
		log_warnx("%s: no EK loaded", __func__);
		goto out;
	}
	n = snprintf(path, sizeof(path), "%s/%s", state_dir, TPM_AK_FILE);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		log_warnx("%s: state directory path too long", __func__);
		goto out;
	}
	found = tpm_ak_read(path, &ek_type, &pub, &priv);
	if (found < 0)
		goto out;
	if (found && ek_type != tpm_key_type(t->ek_alg)) {
		log_warnx("%s: AK was made under another EK type (0x%04x); "
			  "making a new AK",
			  path, ek_type);
		found = 0;
	} else if (found && pub.publicArea.type != tpm_key_type(alg)) {
		log_warnx("%s: AK is of type 0x%04x, configured 0x%04x; "
			  "making a new AK",
			  path, pub.publicArea.type, tpm_key_type(alg));
		found = 0;
	}
	if (found) {
		st = tpm_ak_load_blob(t, &pub, &priv, &rc);
		/*
		 * An integrity failure means the blob was wrapped by another
		 * EK seed (the TPM was cleared): that AK can never load again.
		 */
		if (st != TPM_OK && tpm_rc_code(rc) == TPM2_RC_INTEGRITY) {
			log_warnx("%s: AK does not belong to this TPM; "
				  "making a new AK",
				  path);
			found = 0;
		} else if (st != TPM_OK) {
			goto out;
		}
	}
	if (!found) {
		st = tpm_ak_create(t, path, alg);
		if (st != TPM_OK)
			goto out;
		ak->created = 1;
	}
	st = tpm_ak_describe(t, ak);
out:
	explicit_bzero(&priv, sizeof(priv));
	if (st != TPM_OK)
		tpm_flush(t, &t->ak);
	return st;
}

enum tpm_status tpm_activate_credential(struct tpm *t, const uint8_t *cred,
					size_t cred_len, const uint8_t *secret,
					size_t secret_len, uint8_t *out,
					size_t *out_len)
{
	TPM2B_ID_OBJECT blob = { 0 };
	TPM2B_ENCRYPTED_SECRET enc = { 0 };
	TPM2B_DIGEST *info = NULL;
	ESYS_TR session = ESYS_TR_NONE;
	enum tpm_status st;
	size_t off = 0;
	TSS2_RC rc;

	*out_len = 0;
	st = TPM_ERR_OTHER;
	if (t->ek == ESYS_TR_NONE || t->ak == ESYS_TR_NONE) {
		log_warnx("%s: EK and AK must be loaded", __func__);
		goto out;
	}
	rc = Tss2_MU_TPM2B_ID_OBJECT_Unmarshal(cred, cred_len, &off, &blob);
	if (rc != TSS2_RC_SUCCESS || off != cred_len) {
		log_warnx("%s: credential blob is not a TPM2B_ID_OBJECT",
			  __func__);
		goto out;
	}
	off = 0;
	rc = Tss2_MU_TPM2B_ENCRYPTED_SECRET_Unmarshal(secret, secret_len, &off,
						      &enc);
	if (rc != TSS2_RC_SUCCESS || off != secret_len) {
		log_warnx("%s: secret is not a TPM2B_ENCRYPTED_SECRET",
			  __func__);
		goto out;
	}

	st = tpm_ek_session(t, &session);
	if (st != TPM_OK)
		goto out;
	/* the AK authorizes with its (empty) password, the EK by policy */
	rc = Esys_ActivateCredential(t->esys, t->ak, t->ek, ESYS_TR_PASSWORD,
				     session, ESYS_TR_NONE, &blob, &enc, &info);
	if (rc != TSS2_RC_SUCCESS) {
		info = NULL;
		st = TPM_FAIL("ActivateCredential", rc);
		goto out;
	}
	if (info->size > TPM_SECRET_MAX) {
		log_warnx("%s: secret of %u bytes", __func__, info->size);
		st = TPM_ERR_OTHER;
		goto out;
	}
	memcpy(out, info->buffer, info->size);
	*out_len = info->size;
out:
	tpm_flush(t, &session);
	if (info) {
		explicit_bzero(info, sizeof(*info));
		Esys_Free(info);
	}
	return st;
}

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

/* The PCRs of bank @alg that @sel selects, as a mask. */
static uint32_t tpm_selection_mask(const TPML_PCR_SELECTION *sel, uint16_t alg)
{
	const TPMS_PCR_SELECTION *s;
	uint32_t mask = 0;
	unsigned int i, j;

	for (i = 0; i < sel->count && i < TPM2_NUM_PCR_BANKS; i++) {
		s = &sel->pcrSelections[i];
		if (s->hash != alg)
			continue;
		for (j = 0; j < s->sizeofSelect && j < TPM_PCR_MAX / 8; j++)
			mask |= (uint32_t)s->pcrSelect[j] << (8 * j);
	}
	return mask;
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
