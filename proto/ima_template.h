/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_template.h - IMA template fields and template descriptors.
 *
 * A template is an ordered list of fields ("d-ng|n-ng|sig"). The binary
 * measurement list names the template of each record but not its fields,
 * so the reader needs this table: the kernel's built-in templates, plus
 * any the caller registers (a kernel booted with ima_template_fmt=).
 * An unknown field or template is an error that names it, never a skip.
 */
#ifndef IMATRUST_IMA_TEMPLATE_H
#define IMATRUST_IMA_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "result.h"

#define IMA_TEMPLATE_NAME_MAX 32   /* kernel allows 15; leave headroom */
#define IMA_TEMPLATE_FIELDS_MAX 15 /* IMA_TEMPLATE_NUM_FIELDS_MAX */
#define IMA_TEMPLATE_SET_MAX 16	   /* caller-registered templates */
#define IMA_EVENT_NAME_LEN_MAX 255 /* 'ima' template name, before padding */
#define IMA_PATH_MAX 4096	   /* n-ng name incl. NUL (PATH_MAX) */

/* How a field's bytes are laid out (the kernel's enum data_formats). */
enum ima_field_fmt {
	IMA_FMT_DIGEST,		  /* raw digest: "d" */
	IMA_FMT_DIGEST_ALGO,	  /* "sha256:\0" + digest: "d-ng" */
	IMA_FMT_DIGEST_TYPE_ALGO, /* "ima:sha256:\0" + digest: "d-ngv2" */
	IMA_FMT_STRING,		  /* NUL-terminated string */
	IMA_FMT_HEX,		  /* opaque bytes, shown as hex */
	IMA_FMT_UINT,		  /* little-endian 1/2/4/8-byte integer */
};

/* What a field means to a verifier, beyond its layout. */
enum ima_field_role {
	IMA_ROLE_OTHER,
	IMA_ROLE_FILE_DIGEST, /* d, d-ng, d-ngv2 */
	IMA_ROLE_NAME,	      /* n, n-ng */
	IMA_ROLE_BUF,	      /* buf */
};

struct ima_field_def {
	const char *id; /* "d-ng", "n-ng", "sig", ... */
	enum ima_field_fmt fmt;
	enum ima_field_role role;
};

struct ima_template {
	char name[IMA_TEMPLATE_NAME_MAX + 1];
	int legacy; /* the 2008 'ima' layout and hash */
	size_t nfields;
	const struct ima_field_def *fields[IMA_TEMPLATE_FIELDS_MAX];
};

/* Templates a caller adds at run time; zero-initialise before use. */
struct ima_template_set {
	size_t count;
	struct ima_template templates[IMA_TEMPLATE_SET_MAX];
};

/**
 * ima_field_def_lookup() - find a field definition by id.
 * @id: field id bytes
 * @len: length of @id
 *
 * Return: the definition, or NULL when the field is unknown.
 */
const struct ima_field_def *ima_field_def_lookup(const char *id, size_t len);

/**
 * ima_template_lookup() - find the template a record names.
 * @set: caller-registered templates, searched first; may be NULL
 * @name: template name bytes (not NUL-terminated)
 * @len: length of @name
 *
 * Return: the descriptor, or NULL when neither @set nor the built-in
 * table knows @name.
 */
const struct ima_template *
ima_template_lookup(const struct ima_template_set *set, const char *name,
		    size_t len);

/**
 * ima_template_set_add() - register template @name with format @fmt.
 * @set: the set to add to
 * @name: template name as it appears in the list ("" is allowed: that is
 *	  what a kernel booted with ima_template_fmt= writes)
 * @fmt: '|'-separated field ids, e.g. "d-ng|n-ng|buf"
 * @err: filled on failure
 *
 * Return: IMT_OK; IMT_ERR_UNSUPPORTED naming an unknown field;
 * IMT_ERR_MALFORMED for an empty or oversized name or format;
 * IMT_ERR_LIMIT when @set is full.
 */
enum imt_result ima_template_set_add(struct ima_template_set *set,
				     const char *name, const char *fmt,
				     struct imt_error *err);

#endif /* IMATRUST_IMA_TEMPLATE_H */
