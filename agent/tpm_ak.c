// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_ak.c - the agent's AK (tpm.h, tpm_ak_load()): an ordinary child
 * key of the EK, as tpm2_createak makes it, whose private blob is kept on
 * disk in the AK file (proto/ak_blob.h), and the credential activation
 * that proves it to the verifier.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>

#include "ak_blob.h"
#include "file.h"
#include "log.h"
#include "tpm_int.h"
#include "tpm_public.h"

static enum tpm_status tpm_ak_save(const char *path, uint16_t ek_type,
				   const TPM2B_PUBLIC *pub,
				   const TPM2B_PRIVATE *priv)
{
	uint8_t buf[AK_BLOB_MAX];
	char why[PATH_MAX + 128];
	struct imt_error err;
	size_t len;
	int rc;

	if (ak_blob_write(ek_type, pub, priv, buf, sizeof(buf), &len, &err) !=
	    IMT_OK) {
		log_warnx("%s: %s", __func__, err.msg);
		return TPM_ERR_OTHER;
	}
	rc = file_replace(path, buf, len, why, sizeof(why));
	explicit_bzero(buf, sizeof(buf));
	if (rc < 0) {
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
	uint8_t buf[AK_BLOB_MAX + 1];
	struct imt_error err;
	size_t len = 0;
	int fd, ret = -1;
	ssize_t n;

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
	if (ak_blob_parse(buf, len, ek_type, pub, priv, &err) != IMT_OK) {
		log_warnx("%s: %s: %s", __func__, path, err.msg);
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
