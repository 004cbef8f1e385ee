/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_keylime.h - Keylime runtime policies, in and out.
 *
 * A Keylime runtime policy (keylime/ima/ima.py, RUNTIME_POLICY_SCHEMA,
 * format version 1) is one JSON object with eight required members:
 *
 *	meta			{"version": 1, "generator": 0-3,
 *				 "timestamp": "..." (optional)}
 *	release			integer >= 0, the user's own number
 *	digests			path -> [hex digest, ...] (at least one)
 *	excludes		[Python regex, ...], matched at the start
 *	keyrings		keyring name -> [hex digest of the key]
 *	ima			{"ignored_keyrings": [...],
 *				 "log_hash_alg": "sha1"|"sha256"|...,
 *				 "dm_policy": null}
 *	ima-buf			buffer name -> [hex digest of the buffer]
 *	verification-keys	a string: "" or the JSON of one IMA keyring,
 *				{"keyids": [int, ...],
 *				 "pubkeys": [base64 SubjectPublicKeyInfo DER]}
 *
 * Digests are lower-case hex; the algorithm is implied by the length
 * (40 sha1, 64 sha256, 96 sha384, 128 sha512), as Keylime compares the
 * hex of the log's digest with the list.
 */
#ifndef IMATRUST_IMPORT_KEYLIME_H
#define IMATRUST_IMPORT_KEYLIME_H

#include <stddef.h>
#include <stdint.h>

#include "import.h"
#include "result.h"

#define KEYLIME_POLICY_VERSION 1   /* RUNTIME_POLICY_CURRENT_VERSION */
#define KEYLIME_GENERATOR_LEGACY 3 /* what `keylime_policy create` writes */
#define KEYLIME_KEY_NAME_MAX 64
/*
 * Excludes of one policy: every record not known is matched against
 * each regex of its machine's policy (Keylime's own policies carry tens;
 * 20,000 cost every record 8 ms). A literal prefix costs a strncmp.
 */
#define KEYLIME_EXCLUDES_MAX 1000
#define KEYLIME_EXCLUDE_LEN_MAX 4096 /* bytes of one exclude (DB_PATH_MAX) */

/*
 * Entries Keylime loads but the verifier cannot use, each named with why
 * (struct keylime_info): the first KEYLIME_NOT_IMPORTED_NAMED of them.
 */
#define KEYLIME_NOT_IMPORTED_NAMED 16
#define KEYLIME_WHAT_MAX 160 /* "digests./a/path": truncated beyond */

struct keylime_skip {
	char what[KEYLIME_WHAT_MAX]; /* the member: "excludes[3]" */
	char why[IMT_ERROR_MSG_MAX];
};

/* What an import found besides what went to the sink. */
struct keylime_info {
	long long release;
	int generator;	       /* meta.generator */
	char log_hash_alg[8];  /* ima.log_hash_alg: the template hash */
	size_t files;	       /* distinct paths of digests */
	size_t file_digests;   /* IMPORT_REF_FILE calls */
	size_t buffer_digests; /* IMPORT_REF_BUFFER calls */
	size_t excludes;
	size_t exclude_prefixes; /* of them, literal prefixes */
	size_t keys;
	size_t boot_aggregates;	 /* digests["boot_aggregate"]: no refs */
	size_t ignored_keyrings; /* ima.ignored_keyrings: not imported */
	size_t unknown_keys;	 /* top-level members Keylime ignores */
	char unknown_key[KEYLIME_KEY_NAME_MAX]; /* the first of them */
	size_t not_imported; /* entries left out, each in @skip while room */
	struct keylime_skip skip[KEYLIME_NOT_IMPORTED_NAMED];
};

/**
 * import_keylime() - read a Keylime runtime policy and feed @sink.
 * @buf: the policy's JSON (need not be NUL-terminated)
 * @len: bytes in @buf
 * @sink: receives, in document order, IMPORT_REF_FILE for each digest of
 *	  "digests", IMPORT_REF_BUFFER for each of "keyrings" and "ima-buf"
 *	  (name = keyring or buffer name), for each of "excludes"
 *	  IMPORT_RULE_PREFIX when it is a literal prefix
 *	  (keylime_literal_prefix()), IMPORT_RULE_REGEX else, and the DER of each key of "verification-keys"
 *	  (SubjectPublicKeyInfo, or the certificate when one is stored)
 * @info: filled on success; may be NULL
 * @err: filled on failure, naming the member ("digests./usr/bin/ls[1]:
 *	 not a hex digest")
 *
 * Refused: invalid JSON or duplicate member names; a missing required
 * member or one of the wrong type; meta.version other than 1; a digest
 * that is not lower-case hex or of no known length; an empty digest list;
 * more than KEYLIME_EXCLUDES_MAX excludes (IMT_ERR_LIMIT); a non-null
 * ima.dm_policy; a key that is not RSA or EC; a DSSE envelope (verify
 * and unwrap the signed policy first).
 *
 * Left out, and each named in @info->skip with why (never silently, and
 * never making the policy looser than Keylime's reading of it): a path of
 * "digests" that is not absolute (IMA names files by absolute path: no
 * record could match it); "boot_aggregate"'s digests (the verifier checks
 * the boot aggregate against the quoted PCRs); an exclude that
 * regcomp(REG_EXTENDED) refuses, that means something else in POSIX
 * than in Python, or that exceeds a regex limit (keylime_regex_check(),
 * KEYLIME_EXCLUDE_LEN_MAX): the files it names are judged; each of
 * ima.ignored_keyrings (that keyring's keys are judged against
 * "keyrings" like any other's); unknown top-level members, which Keylime
 * ignores too (also counted in @info->unknown_keys).
 *
 * Return: 0, or -1 with @err filled (a sink's error is passed on as is).
 */
int import_keylime(const uint8_t *buf, size_t len,
		   const struct import_sink *sink, struct keylime_info *info,
		   struct imt_error *err);

/**
 * keylime_literal_prefix() - is the exclude @re a literal prefix?
 * @re: NUL-terminated regular expression, matched at the start
 * @out: receives the prefix, backslash escapes undone
 * @outlen: bytes of @out
 *
 * A literal prefix is an optional "^", then bytes none of which is a
 * regex metacharacter unless escaped by a backslash ("\." is "."),
 * then an optional ".*" at the very end: "^/usr/share/doc/.*",
 * "/var/log/", "^/usr/lib/python3\.11/". Such an exclude matches
 * exactly the paths that start with @out, and is kept as a prefix rule:
 * no regcomp, a strncmp per record.
 *
 * Return: 1 (and @out filled, not empty), or 0: a regex.
 */
int keylime_literal_prefix(const char *re, char *out, size_t outlen);

/**
 * keylime_regex_check() - can @re be given to Keylime and to regcomp(3)?
 * @re: NUL-terminated regular expression
 * @what: how the error names it ("excludes[3]")
 * @err: filled on failure
 *
 * Keylime matches its excludes with Python's re.match(), the verifier
 * with regcomp(REG_EXTENDED) anchored at the start. Refused, besides
 * what regcomp refuses: Python-only syntax ("(?...)", escapes such as
 * \d or \A) and what differs in meaning (a backslash inside [...], which
 * is literal in POSIX; [:class:] inside brackets, unknown to Python).
 *
 * Return: 0, or -1 with @err filled.
 */
int keylime_regex_check(const char *re, const char *what,
			struct imt_error *err);

struct keylime_rule {
	enum import_rule_kind kind;
	const char *rule;
};

struct keylime_key {
	const uint8_t *der; /* X.509 certificate or SubjectPublicKeyInfo */
	size_t len;
};

/* What keylime_policy_export() writes; every pointer is borrowed. */
struct keylime_export {
	const struct import_ref *refs; /* files and buffers, by ->kind */
	size_t nrefs;
	const struct keylime_rule *rules;
	size_t nrules;
	const struct keylime_key *keys;
	size_t nkeys;
	const char *log_hash_alg; /* NULL: "sha1", Keylime's default */
	const char *timestamp;	  /* meta.timestamp; NULL: none */
};

/**
 * keylime_policy_export() - write a Keylime runtime policy.
 * @in: references, rules and keys
 * @err: filled on failure
 *
 * File references go to "digests" (one list per path, in order of first
 * appearance, without repeats); buffer references to "keyrings" when
 * the name is a kernel keyring's (it starts with '.' or '_': ".ima",
 * "_ima", ".builtin_trusted_keys"), else to "ima-buf". Rules become
 * Python regexes matched at the start: a prefix "^<escaped>.*", a glob
 * "^<translated>$" ('*' any characters, '?' one, [...] a class; a class
 * holding '\' or '[' is refused), a regex as it is (after
 * keylime_regex_check()). Keys go to "verification-keys" as
 * SubjectPublicKeyInfo with Keylime's keyid (a certificate's subject key
 * identifier, else of the key). meta is version 1, generator 3 (as
 * Keylime's own `keylime_policy create runtime`), release 0.
 *
 * Refused: a digest algorithm other than sha1/sha256/sha384/sha512 or a
 * digest of the wrong size for it, a relative path, a key that does not
 * parse or is neither RSA nor EC, a rule that cannot be translated.
 *
 * Return: the policy as a NUL-terminated string the caller free()s, or
 * NULL with @err filled.
 */
char *keylime_policy_export(const struct keylime_export *in,
			    struct imt_error *err);

#endif /* IMATRUST_IMPORT_KEYLIME_H */
