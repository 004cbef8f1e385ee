// SPDX-License-Identifier: GPL-2.0-only
/*
 * grow.c - a byte buffer that doubles until it holds what it must.
 */
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

void *grow(void *buf, size_t *cap, size_t need, size_t first)
{
	size_t c = *cap != 0 ? *cap : first;
	void *grown;

	if (buf != NULL && need <= *cap)
		return buf;
	if (c == 0)
		c = 1;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	grown = realloc(buf, c);
	if (grown != NULL)
		*cap = c;
	return grown;
}
