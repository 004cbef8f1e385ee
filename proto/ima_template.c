// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_template.c - IMA template field table and template descriptors.
 *
 * The field ids and built-in templates are those of
 * security/integrity/ima/ima_template.c in Linux 6.1.
 */
#include <string.h>

#include "ima_template.h"

/* Indices into field_defs[], so the built-in templates can be const. */
enum field_index {
	F_D,
	F_N,
	F_D_NG,
	F_D_NGV2,
	F_N_NG,
	F_SIG,
	F_BUF,
	F_D_MODSIG,
	F_MODSIG,
	F_EVMSIG,
	F_IUID,
	F_IGID,
	F_IMODE,
	F_XATTRNAMES,
	F_XATTRLENGTHS,
	F_XATTRVALUES,
	F_COUNT
};

static const struct ima_field_def field_defs[F_COUNT] = {
	[F_D] = { "d", IMA_FMT_DIGEST, IMA_ROLE_FILE_DIGEST },
	[F_N] = { "n", IMA_FMT_STRING, IMA_ROLE_NAME },
	[F_D_NG] = { "d-ng", IMA_FMT_DIGEST_ALGO, IMA_ROLE_FILE_DIGEST },
	[F_D_NGV2] = { "d-ngv2", IMA_FMT_DIGEST_TYPE_ALGO,
		       IMA_ROLE_FILE_DIGEST },
	[F_N_NG] = { "n-ng", IMA_FMT_STRING, IMA_ROLE_NAME },
	[F_SIG] = { "sig", IMA_FMT_HEX },
	[F_BUF] = { "buf", IMA_FMT_HEX, IMA_ROLE_BUF },
	[F_D_MODSIG] = { "d-modsig", IMA_FMT_DIGEST_ALGO },
	[F_MODSIG] = { "modsig", IMA_FMT_HEX },
	[F_EVMSIG] = { "evmsig", IMA_FMT_HEX },
	[F_IUID] = { "iuid", IMA_FMT_UINT },
	[F_IGID] = { "igid", IMA_FMT_UINT },
	[F_IMODE] = { "imode", IMA_FMT_UINT },
	[F_XATTRNAMES] = { "xattrnames", IMA_FMT_STRING },
	[F_XATTRLENGTHS] = { "xattrlengths", IMA_FMT_HEX },
	[F_XATTRVALUES] = { "xattrvalues", IMA_FMT_HEX },
};

#define FD(i) (&field_defs[(i)])

/* The kernel's builtin_templates[], minus the empty custom slot. */
static const struct ima_template builtin_templates[] = {
	{ "ima", 1, 2, { FD(F_D), FD(F_N) } },
	{ "ima-ng", 0, 2, { FD(F_D_NG), FD(F_N_NG) } },
	{ "ima-ngv2", 0, 2, { FD(F_D_NGV2), FD(F_N_NG) } },
	{ "ima-sig", 0, 3, { FD(F_D_NG), FD(F_N_NG), FD(F_SIG) } },
	{ "ima-sigv2", 0, 3, { FD(F_D_NGV2), FD(F_N_NG), FD(F_SIG) } },
	{ "ima-buf", 0, 3, { FD(F_D_NG), FD(F_N_NG), FD(F_BUF) } },
	{ "ima-modsig",
	  0,
	  5,
	  { FD(F_D_NG), FD(F_N_NG), FD(F_SIG), FD(F_D_MODSIG), FD(F_MODSIG) } },
	{ "evm-sig",
	  0,
	  9,
	  { FD(F_D_NG), FD(F_N_NG), FD(F_EVMSIG), FD(F_XATTRNAMES),
	    FD(F_XATTRLENGTHS), FD(F_XATTRVALUES), FD(F_IUID), FD(F_IGID),
	    FD(F_IMODE) } },
};

#define BUILTIN_COUNT (sizeof(builtin_templates) / sizeof(builtin_templates[0]))

const struct ima_field_def *ima_field_def_lookup(const char *id, size_t len)
{
	size_t i;

	for (i = 0; i < F_COUNT; i++) {
		if (strlen(field_defs[i].id) == len &&
		    memcmp(field_defs[i].id, id, len) == 0)
			return &field_defs[i];
	}
	return NULL;
}

/* Parse "a|b|c" into @tmpl->fields; the name is left to the caller. */
static enum imt_result parse_fmt(struct ima_template *tmpl, const char *fmt,
				 struct imt_error *err)
{
	const char *p = fmt;

	tmpl->nfields = 0;
	if (*fmt == '\0')
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS, "empty template format");
	for (;;) {
		const char *bar = strchr(p, '|');
		size_t len = bar != NULL ? (size_t)(bar - p) : strlen(p);
		const struct ima_field_def *def = ima_field_def_lookup(p, len);

		if (def == NULL)
			return imt_error_set(err, IMT_ERR_UNSUPPORTED,
					     IMT_NO_POS, IMT_NO_POS,
					     "unknown template field '%.*s'",
					     (int)len, p);
		if (tmpl->nfields == IMA_TEMPLATE_FIELDS_MAX)
			return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
					     IMT_NO_POS,
					     "template has more than %d fields",
					     IMA_TEMPLATE_FIELDS_MAX);
		tmpl->fields[tmpl->nfields++] = def;
		if (bar == NULL)
			break;
		p = bar + 1;
	}
	return IMT_OK;
}

static int name_equals(const char *a, const char *b, size_t blen)
{
	return strlen(a) == blen && memcmp(a, b, blen) == 0;
}

const struct ima_template *
ima_template_lookup(const struct ima_template_set *set, const char *name,
		    size_t len)
{
	size_t i;

	if (set != NULL) {
		for (i = 0; i < set->count; i++) {
			if (name_equals(set->templates[i].name, name, len))
				return &set->templates[i];
		}
	}
	for (i = 0; i < BUILTIN_COUNT; i++) {
		if (name_equals(builtin_templates[i].name, name, len))
			return &builtin_templates[i];
	}
	return NULL;
}

enum imt_result ima_template_set_add(struct ima_template_set *set,
				     const char *name, const char *fmt,
				     struct imt_error *err)
{
	struct ima_template tmpl;
	enum imt_result rc;

	if (strlen(name) > IMA_TEMPLATE_NAME_MAX)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "template name longer than %d bytes",
				     IMA_TEMPLATE_NAME_MAX);
	if (set->count == IMA_TEMPLATE_SET_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "more than %d custom templates",
				     IMA_TEMPLATE_SET_MAX);
	memset(&tmpl, 0, sizeof(tmpl));
	strcpy(tmpl.name, name);
	rc = parse_fmt(&tmpl, fmt, err);
	if (rc != IMT_OK)
		return rc;
	/* The kernel keys the 2008 layout on the name "ima" alone. */
	if (strcmp(name, "ima") == 0) {
		if (strcmp(fmt, "d|n") != 0)
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     IMT_NO_POS,
					     "template 'ima' must be \"d|n\"");
		tmpl.legacy = 1;
	}
	set->templates[set->count++] = tmpl;
	return IMT_OK;
}
