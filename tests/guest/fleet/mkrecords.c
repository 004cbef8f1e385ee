// SPDX-License-Identifier: GPL-2.0
/*
 * mkrecords.c - add N measurement records in a fleet guest, fast: each one
 * a new file under DIR, read as root (the tcb policy measures it) and
 * removed, so a small disk holds any number. Static, copied to the guest's
 * site disk by tests/guest/fleet/export.sh.
 *
 *   mkrecords DIR N [BURST PAUSE_MS]
 *
 * With BURST, it sleeps PAUSE_MS after every BURST records: the agent
 * quotes between bursts (a quote needs PCRs that hold still from the PCR
 * read before it to the one after it).
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
	unsigned long n, i, burst = 0, pause_ms = 0;
	struct timespec ts;

	if (argc != 3 && argc != 5)
		die("usage: mkrecords DIR N [BURST PAUSE_MS]");
	n = number("N", argv[2]);
	if (argc == 5) {
		burst = number("BURST", argv[3]);
		pause_ms = number("PAUSE_MS", argv[4]);
	}
	ts.tv_sec = (time_t)(pause_ms / 1000);
	ts.tv_nsec = (long)(pause_ms % 1000) * 1000000L;
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST)
		die("mkdir %s", argv[1]);
	errno = 0;
	for (i = 0; i < n; i++) {
		gen_record(argv[1], "r", 0);
		if (burst > 0 && (i + 1) % burst == 0)
			nanosleep(&ts, NULL);
	}
	result(1, "%lu records", n);
	return 0;
}
