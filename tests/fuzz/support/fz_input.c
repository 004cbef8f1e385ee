// SPDX-License-Identifier: GPL-2.0-only
/*
 * fz_input.c - structured reads from a fuzzer's input.
 */
#include <string.h>

#include "fz_input.h"

uint8_t fz_u8(struct fz_in *in)
{
	uint8_t b = 0;

	fz_bytes(in, &b, 1);
	return b;
}

uint16_t fz_u16(struct fz_in *in)
{
	uint16_t hi = fz_u8(in);

	return (uint16_t)(hi << 8 | fz_u8(in));
}

uint32_t fz_u32(struct fz_in *in)
{
	uint32_t hi = fz_u16(in);

	return hi << 16 | fz_u16(in);
}

uint64_t fz_u64(struct fz_in *in)
{
	uint64_t hi = fz_u32(in);

	return hi << 32 | fz_u32(in);
}

size_t fz_range(struct fz_in *in, size_t lo, size_t hi)
{
	size_t span = hi - lo + 1;

	if (hi <= lo)
		return lo;
	return lo + (span <= 256 ? fz_u8(in) : fz_u16(in)) % span;
}

size_t fz_bytes(struct fz_in *in, uint8_t *out, size_t len)
{
	size_t got = len < in->n ? len : in->n;

	memcpy(out, in->p, got);
	memset(out + got, 0, len - got);
	in->p += got;
	in->n -= got;
	return got;
}

const uint8_t *fz_take(struct fz_in *in, size_t max, size_t *len)
{
	const uint8_t *p = in->p;

	*len = max < in->n ? max : in->n;
	in->p += *len;
	in->n -= *len;
	return p;
}
