/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fz_public.h - TPM public areas shaped by the fuzzer: a real one (the
 * fixtures' EKs and AKs, the software AKs) with fields changed, marshalled,
 * then perhaps bytes changed in the marshalled form.
 */
#ifndef IMATRUST_FZ_PUBLIC_H
#define IMATRUST_FZ_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_tpm2_types.h>

#include "fz_input.h"

/* The real public areas a harness starts from. */
enum fz_public_src {
	FZ_PUB_EK_RSA,
	FZ_PUB_EK_ECC,
	FZ_PUB_AK_RSA,
	FZ_PUB_AK_RSA2,
	FZ_PUB_AK_RSAPSS,
	FZ_PUB_AK_ECC,
	FZ_PUB_SOFT_RSASSA,
	FZ_PUB_SOFT_RSAPSS,
	FZ_PUB_SOFT_ECC256,
	FZ_PUB_SOFT_ECC384,
	FZ_PUB_COUNT,
};

/**
 * fz_public_get() - the TPMT_PUBLIC and Name of source @src.
 * @src: which
 * @pub: receives the public area
 * @name: receives its Name (nameAlg || digest), TPM_NAME_MAX bytes
 * @name_len: receives the Name's length
 *
 * For the fixtures the Name is the one the TPM reported (*.name, EKs
 * excepted: computed here), for the software keys the one computed when
 * the key was made.
 */
void fz_public_get(enum fz_public_src src, TPMT_PUBLIC *pub, uint8_t *name,
		   size_t *name_len);

/**
 * fz_public_mutate() - change fields of @pub as the input says.
 * @in: the input
 * @pub: the public area
 *
 * Return: the number of changes made (0: @pub is as it was).
 */
unsigned int fz_public_mutate(struct fz_in *in, TPMT_PUBLIC *pub);

/**
 * fz_public_bytes() - marshal @pub as a TPM2B_PUBLIC, then change bytes.
 * @in: the input
 * @pub: the public area
 * @out: receives the bytes, sizeof(TPM2B_PUBLIC) + 64 available
 * @changed: receives 1 when the bytes are not @pub's marshalling
 *
 * A public area libtss2-mu cannot marshal (an unknown type, say) is
 * written with its type and nameAlg and whatever bytes the input gives.
 *
 * Return: the number of bytes.
 */
size_t fz_public_bytes(struct fz_in *in, const TPMT_PUBLIC *pub, uint8_t *out,
		       int *changed);

#define FZ_PUBLIC_BYTES_MAX (sizeof(TPM2B_PUBLIC) + 64)

#endif /* IMATRUST_FZ_PUBLIC_H */
