// SPDX-License-Identifier: GPL-2.0-only
/*
 * ak_blob.c - the agent's AK state file over (buffer, length) (ak_blob.h).
 */
#include <string.h>

#include <tss2/tss2_mu.h>

#include "ak_blob.h"

#define AK_BLOB_MAGIC "IMAK"
#define AK_BLOB_VERSION 1
#define AK_BLOB_HEADER 8

enum imt_result ak_blob_write(uint16_t ek_type, const TPM2B_PUBLIC *pub,
			      const TPM2B_PRIVATE *priv, uint8_t *buf,
			      size_t size, size_t *len, struct imt_error *err)
{
	size_t off = AK_BLOB_HEADER;
	TSS2_RC rc;

	*len = 0;
	if (size < AK_BLOB_HEADER)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, 0,
				     "AK file: no room for the header");
	memcpy(buf, AK_BLOB_MAGIC, 4);
	buf[4] = AK_BLOB_VERSION >> 8;
	buf[5] = AK_BLOB_VERSION & 0xff;
	buf[6] = ek_type >> 8;
	buf[7] = ek_type & 0xff;
	rc = Tss2_MU_TPM2B_PUBLIC_Marshal(pub, buf, size, &off);
	if (rc == TSS2_RC_SUCCESS)
		rc = Tss2_MU_TPM2B_PRIVATE_Marshal(priv, buf, size, &off);
	if (rc != TSS2_RC_SUCCESS)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, off,
				     "AK file: the keys do not fit in %zu "
				     "bytes (0x%08x)",
				     size, (unsigned int)rc);
	*len = off;
	return IMT_OK;
}

enum imt_result ak_blob_parse(const uint8_t *buf, size_t len, uint16_t *ek_type,
			      TPM2B_PUBLIC *pub, TPM2B_PRIVATE *priv,
			      struct imt_error *err)
{
	size_t off = AK_BLOB_HEADER;
	unsigned int version;

	memset(pub, 0, sizeof(*pub));
	memset(priv, 0, sizeof(*priv));
	if (len > AK_BLOB_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
				     AK_BLOB_MAX,
				     "AK file: %zu bytes, more than %d", len,
				     AK_BLOB_MAX);
	if (len < AK_BLOB_HEADER || memcmp(buf, AK_BLOB_MAGIC, 4) != 0)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "not an AK file");
	version = (unsigned int)(buf[4] << 8 | buf[5]);
	if (version != AK_BLOB_VERSION)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, 4,
				     "AK file version %u, expected %u", version,
				     AK_BLOB_VERSION);
	*ek_type = (uint16_t)(buf[6] << 8 | buf[7]);
	/*
	 * Tss2_MU takes the TPMT_PUBLIC as it parses, whatever its size
	 * field says: the two must agree, and an empty one is no key.
	 */
	if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(buf, len, &off, pub) !=
		    TSS2_RC_SUCCESS ||
	    pub->size == 0 || off - AK_BLOB_HEADER - 2 != pub->size)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     AK_BLOB_HEADER,
				     "AK file: malformed public area");
	if (Tss2_MU_TPM2B_PRIVATE_Unmarshal(buf, len, &off, priv) !=
	    TSS2_RC_SUCCESS)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, off,
				     "AK file: malformed private blob");
	if (off != len)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, off,
				     "AK file: %zu bytes after the private blob",
				     len - off);
	return IMT_OK;
}
