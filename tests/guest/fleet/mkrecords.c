// SPDX-License-Identifier: GPL-2.0
/*
 * mkrecords.c - add N measurement records in a fleet guest, fast: each one
 * a new file under DIR, read as root (the tcb policy measures it) and
 * removed, so a small disk holds any number. Static, copied to the guest's
 * site disk by tests/guest/fleet/export.sh. It runs without a pause, as
 * a busy machine measures: the agent must quote while PCR 10 moves.
 *
 *   mkrecords DIR N
 *
 * File names are DIR/r<PID>-<SEQ>: unique within a boot, so the verifier
 * must hold each path exactly once. Prints "RESULT ok N records" at the
 * end.
 */
#include <sys/stat.h>

#include "../streaming/guest_common.h"

static unsigned long number(const char *what, const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end != '\0' || end == s || errno != 0)
		die("%s: not a number: %s", what, s);
	return v;
}

int main(int argc, char **argv)
{
	unsigned long n, i;

	if (argc != 3)
		die("usage: mkrecords DIR N");
	n = number("N", argv[2]);
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST)
		die("mkdir %s", argv[1]);
	errno = 0;
	for (i = 0; i < n; i++)
		gen_record(argv[1], "r", 0);
	result(1, "%lu records", n);
	return 0;
}
