/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fz_input.h - read structured choices from a fuzzer's input.
 *
 * A harness takes the values it needs one after another; past the end of
 * the input every read yields zeros, so any input is a complete choice
 * and the first bytes pick the most important things (which key, which
 * mode). Nothing here allocates.
 */
#ifndef IMATRUST_FZ_INPUT_H
#define IMATRUST_FZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct fz_in {
	const uint8_t *p;
	size_t n; /* bytes left */
};

static inline struct fz_in fz_in_init(const uint8_t *data, size_t size)
{
	return (struct fz_in){ data, size };
}

uint8_t fz_u8(struct fz_in *in);
uint16_t fz_u16(struct fz_in *in);
uint32_t fz_u32(struct fz_in *in);
uint64_t fz_u64(struct fz_in *in);

/* A value in [@lo, @hi], from one byte (or two when the range is wide). */
size_t fz_range(struct fz_in *in, size_t lo, size_t hi);

/* @len bytes into @out, zero-filled past the end; returns bytes read. */
size_t fz_bytes(struct fz_in *in, uint8_t *out, size_t len);

/* Borrow up to @max of the next bytes; *@len receives how many. */
const uint8_t *fz_take(struct fz_in *in, size_t max, size_t *len);

/* Pick one of @n table entries. */
#define FZ_PICK(in, table) \
	((table)[fz_u8(in) % (sizeof(table) / sizeof((table)[0]))])

#endif /* IMATRUST_FZ_INPUT_H */
