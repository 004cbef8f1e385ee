/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * le_cursor.h - bounded little-endian reads over (buffer, length), for
 * the firmware structures (TCG event log, UEFI variables, device paths)
 * that are all little-endian whatever the verifier's byte order.
 * Every read checks what remains first and leaves the cursor unchanged
 * when the bytes are not there, so a caller names the field that ran out.
 */
#ifndef IMATRUST_LE_CURSOR_H
#define IMATRUST_LE_CURSOR_H

#include <stddef.h>
#include <stdint.h>

struct le_cursor {
	const uint8_t *buf; /* borrowed */
	size_t len;
	size_t pos;
};

/**
 * le_cursor_init() - a cursor at the start of @buf.
 * @c: the cursor
 * @buf: the bytes (borrowed)
 * @len: number of bytes in @buf
 */
static inline void le_cursor_init(struct le_cursor *c, const uint8_t *buf,
				  size_t len)
{
	c->buf = buf;
	c->len = len;
	c->pos = 0;
}

/**
 * le_left() - bytes not read yet.
 * @c: the cursor
 * Return: the count.
 */
static inline size_t le_left(const struct le_cursor *c)
{
	return c->len - c->pos;
}

/**
 * le_take() - borrow the next @n bytes.
 * @c: the cursor; advanced by @n on success
 * @n: how many
 * Return: a pointer into the buffer, or NULL (cursor unchanged) when
 * fewer than @n bytes remain.
 */
static inline const uint8_t *le_take(struct le_cursor *c, size_t n)
{
	const uint8_t *p;

	if (le_left(c) < n)
		return NULL;
	p = c->buf + c->pos;
	c->pos += n;
	return p;
}

/**
 * le_u8() - read one byte.
 * @c: the cursor
 * @v: receives the value
 * Return: 0, or -1 (nothing read) at the end of the buffer.
 */
static inline int le_u8(struct le_cursor *c, uint8_t *v)
{
	const uint8_t *p = le_take(c, 1);

	if (!p)
		return -1;
	*v = p[0];
	return 0;
}

/**
 * le_u16() - read a little-endian 16-bit value.
 * @c: the cursor
 * @v: receives the value
 * Return: 0, or -1 (nothing read) when fewer than 2 bytes remain.
 */
static inline int le_u16(struct le_cursor *c, uint16_t *v)
{
	const uint8_t *p = le_take(c, 2);

	if (!p)
		return -1;
	*v = (uint16_t)(p[0] | p[1] << 8);
	return 0;
}

/**
 * le_u32() - read a little-endian 32-bit value.
 * @c: the cursor
 * @v: receives the value
 * Return: 0, or -1 (nothing read) when fewer than 4 bytes remain.
 */
static inline int le_u32(struct le_cursor *c, uint32_t *v)
{
	const uint8_t *p = le_take(c, 4);

	if (!p)
		return -1;
	*v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	     (uint32_t)p[3] << 24;
	return 0;
}

/**
 * le_u64() - read a little-endian 64-bit value.
 * @c: the cursor
 * @v: receives the value
 * Return: 0, or -1 (nothing read) when fewer than 8 bytes remain.
 */
static inline int le_u64(struct le_cursor *c, uint64_t *v)
{
	const uint8_t *p = le_take(c, 8);
	int i;

	if (!p)
		return -1;
	*v = 0;
	for (i = 7; i >= 0; i--)
		*v = *v << 8 | p[i];
	return 0;
}

#endif /* IMATRUST_LE_CURSOR_H */
