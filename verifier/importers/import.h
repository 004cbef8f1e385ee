/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import.h - what every reference importer hands to the verifier.
 *
 * An importer (import_deb.c, import_apt.c, import_keylime.c,
 * import_list.c) parses one input from (buffer, length) and calls the
 * sink once per thing it found, in input order. It stores nothing
 * itself: the caller collects, checks and stores in one import (one
 * generation of one source), so a bad input stores nothing.
 *
 * A sink callback returns 0 to go on, or -1 with @err filled to stop the
 * import; the importer then returns -1 with that error unchanged.
 */
#ifndef IMATRUST_IMPORT_H
#define IMATRUST_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define IMPORT_ALGOS_MAX 4 /* banks one import may hash in */

enum import_ref_kind {
	IMPORT_REF_FILE,   /* a file's digest at an installed path */
	IMPORT_REF_BUFFER, /* an ima-buf record: name and buffer digest */
};

/* One reference found; every pointer is borrowed for the call only. */
struct import_ref {
	enum import_ref_kind kind;
	const char *path; /* absolute path, or the buffer's name */
	const char *algo; /* kernel hash name: "sha256", "sha1", ... */
	const uint8_t *digest;
	size_t digest_len;
	int conffile; /* a Debian conffile (policy decides) */
};

/* How an exclusion rule matches a path. */
enum import_rule_kind {
	IMPORT_RULE_PREFIX, /* path starts with the rule */
	IMPORT_RULE_GLOB,   /* fnmatch(3) without flags */
	IMPORT_RULE_REGEX,  /* POSIX extended, anchored at the start */
};

struct import_sink {
	/* a reference digest */
	int (*ref)(void *arg, const struct import_ref *ref,
		   struct imt_error *err);
	/* an exclusion rule; NULL: the importer refuses inputs that have any */
	int (*exclude)(void *arg, enum import_rule_kind kind, const char *rule,
		       struct imt_error *err);
	/* a signature key: DER of an X.509 certificate or of a
	 * SubjectPublicKeyInfo; NULL: refuse inputs that have any */
	int (*key)(void *arg, const uint8_t *der, size_t len,
		   struct imt_error *err);
	void *arg;
};

#endif /* IMATRUST_IMPORT_H */
