/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * webhook_ca.h - the CA bundle a webhook endpoint names: only a file of
 * the directory webhook_ca_dir (issue 33). An operator token, or a
 * stolen one, must not make the verifier (root) read any file it likes
 * as a CA bundle, so both the config file's "ca=FILE" and the API's
 * "ca" are a plain file name there: no '/', not starting with '.', not
 * a symbolic link (opened with O_NOFOLLOW relative to the directory), a
 * regular file of at most WEBHOOK_CA_MAX bytes holding a PEM
 * certificate. Read again at every delivery, by the same rule.
 */
#ifndef IMATRUST_WEBHOOK_CA_H
#define IMATRUST_WEBHOOK_CA_H

#include <stddef.h>

#define WEBHOOK_CA_MAX (1024 * 1024) /* bytes of one CA bundle */
#define WEBHOOK_CA_NAME_MAX 255	     /* a file name (NAME_MAX) */

/**
 * webhook_ca_name_check() - is @name a plain file name (no I/O)?
 * @name: the name given as ca
 * @why: receives the reason when not
 * @whylen: size of @why
 *
 * 1-255 bytes, no '/', not starting with '.' (so neither "." nor ".."),
 * no control character.
 *
 * Return: 0, or -1 with @why filled.
 */
int webhook_ca_name_check(const char *name, char *why, size_t whylen);

/**
 * webhook_ca_read() - the contents of CA file @name in @dir.
 * @dir: webhook_ca_dir
 * @name: the file name (webhook_ca_name_check() is applied)
 * @len: receives the length
 * @why: receives the reason on failure (names the rule, never the
 *       file's contents)
 * @whylen: size of @why
 *
 * Return: the NUL-terminated contents (free()), or NULL with @why.
 */
char *webhook_ca_read(const char *dir, const char *name, size_t *len, char *why,
		      size_t whylen);

#endif /* IMATRUST_WEBHOOK_CA_H */
