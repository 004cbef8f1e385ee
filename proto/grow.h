/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grow.h - a byte buffer that doubles until it holds what it must.
 */
#ifndef IMATRUST_GROW_H
#define IMATRUST_GROW_H

#include <stddef.h>

/**
 * grow() - make @buf hold at least @need bytes, as realloc() would.
 * @buf: the buffer, NULL for none yet
 * @cap: its capacity in bytes (0 with none); updated on success only
 * @need: the bytes it must hold
 * @first: the capacity to start doubling from when @cap is 0
 *
 * The capacity doubles until it reaches @need, so appending byte by byte
 * costs amortized constant time.
 *
 * Return: @buf itself when it holds @need bytes already, else the grown
 * buffer; NULL when the capacity would overflow or realloc() fails, with
 * @buf and @cap left as they were.
 */
void *grow(void *buf, size_t *cap, size_t need, size_t first);

#endif
