// SPDX-License-Identifier: GPL-2.0-only
/*
 * fz_db.c - where a harness keeps its database (fz_db.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fz_db.h"

void fz_db_path(char *out, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(out, len, "%s/imatrust-fuzz-%s-%ld.db",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
		 tmp != NULL		       ? tmp :
						 "/tmp",
		 name, (long)getpid());
}

void fz_db_remove(const char *path)
{
	char side[512];

	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}
