/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ak_blob.h - the agent's AK state file over (buffer, length): what the
 * agent keeps on disk so that the TPM that holds its EK can load the same
 * AK again. Pure functions over bytes: the agent reads and writes the
 * file (agent/tpm_ak.c), this only builds and checks it.
 *
 * Version 1 (all integers big endian):
 *
 *	4 bytes		magic "IMAK"
 *	2 bytes		version, 1
 *	2 bytes		TPM2_ALG_ID of the EK it was made under (RSA or ECC)
 *	TPM2B_PUBLIC	the AK's public area, marshalled
 *	TPM2B_PRIVATE	the AK's private blob (wrapped by the EK), marshalled
 *
 * and nothing after. Only the TPM that holds the EK can load the blob.
 */
#ifndef IMATRUST_AK_BLOB_H
#define IMATRUST_AK_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_tpm2_types.h>

#include "result.h"

#define AK_BLOB_MAX 4096 /* an AK file larger is not ours */

/**
 * ak_blob_write() - the AK file for @pub and @priv made under an EK of
 * type @ek_type.
 * @buf: receives the file; @size bytes at most (AK_BLOB_MAX is enough)
 * @len: receives its length
 * @err: filled on failure
 *
 * Return: IMT_OK, or IMT_ERR_LIMIT when @buf is too small.
 */
enum imt_result ak_blob_write(uint16_t ek_type, const TPM2B_PUBLIC *pub,
			      const TPM2B_PRIVATE *priv, uint8_t *buf,
			      size_t size, size_t *len, struct imt_error *err);

/**
 * ak_blob_parse() - check an AK file of @len bytes and take it apart.
 * @ek_type: receives the EK type it was made under
 * @pub, @priv: receive the AK's public area and private blob
 * @err: filled on failure, with the byte offset where it stopped
 *
 * Return: IMT_OK; IMT_ERR_MALFORMED (not an AK file, a TPM2B that does
 * not parse, bytes after the private blob); IMT_ERR_UNSUPPORTED (another
 * version); IMT_ERR_LIMIT (longer than AK_BLOB_MAX).
 */
enum imt_result ak_blob_parse(const uint8_t *buf, size_t len, uint16_t *ek_type,
			      TPM2B_PUBLIC *pub, TPM2B_PRIVATE *priv,
			      struct imt_error *err);

#endif /* IMATRUST_AK_BLOB_H */
