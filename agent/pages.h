/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pages.h - give the unused pages of a large buffer back to the kernel.
 *
 * The agent's record buffer and its two list readers are blocks of
 * several MiB (WIRE_RECORDS_MAX, LIST_FOLLOW_BATCH_MAX) that a long
 * list's first rounds fill, and that an idle agent reuses from their
 * start for a few records: without this, each keeps what it held at
 * its fullest resident for the rest of the run.
 */
#ifndef IMATRUST_AGENT_PAGES_H
#define IMATRUST_AGENT_PAGES_H

#include <stddef.h>

/**
 * pages_release() - drop from memory the whole pages of @buf[@from, @to)
 * (madvise MADV_DONTNEED): they read as zeros when used again.
 * @buf: a block of at least @to bytes (malloc()); only pages wholly in
 *	the range go, so nothing outside it (the allocator's own words)
 *	is touched
 * @from: the first byte the caller no longer needs
 * @to: the end of what it may have written
 *
 * A refusal of the kernel only leaves the pages where they are.
 */
void pages_release(void *buf, size_t from, size_t to);

/**
 * pages_trim() - keep @buf[0, @used) and give back what was written past
 * it since the last trim: pages_release(@buf, @used, *@written), then
 * *@written = @used.
 * @buf: the block
 * @used: the bytes still needed
 * @written: the high-water mark of the bytes written, which the caller
 *	     raises as it writes
 */
void pages_trim(void *buf, size_t used, size_t *written);

#endif /* IMATRUST_AGENT_PAGES_H */
