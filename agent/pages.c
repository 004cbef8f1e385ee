// SPDX-License-Identifier: GPL-2.0-only
/*
 * pages.c - give the unused pages of a large buffer back (see pages.h).
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pages.h"

void pages_release(void *buf, size_t from, size_t to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)buf + from + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)buf + to) & ~(page - 1);

	if (from < to && start < end)
		(void)madvise((void *)start, end - start, MADV_DONTNEED);
}

void pages_trim(void *buf, size_t used, size_t *written)
{
	pages_release(buf, used, *written);
	*written = used;
}
