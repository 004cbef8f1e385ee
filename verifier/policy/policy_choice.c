// SPDX-License-Identifier: GPL-2.0-only
/*
 * policy_choice.c - one two-valued field of a policy document
 * (policy_choice.h), shared by the named policy and its boot section.
 */
#include <string.h>

#include "policy_choice.h"

int policy_choice(json_t *obj, const char *section, const char *key,
		  const char *no, const char *yes, int *out,
		  struct imt_error *err)
{
	json_t *v = json_object_get(obj, key);
	const char *s = json_string_value(v);

	*out = -1;
	if (v == NULL)
		return 0;
	if (s != NULL && strcmp(s, no) == 0) {
		*out = 0;
		return 0;
	}
	if (s != NULL && strcmp(s, yes) == 0) {
		*out = 1;
		return 0;
	}
	imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
		      "%s%s%s: must be \"%s\" or \"%s\"",
		      section != NULL ? section : "",
		      section != NULL ? "." : "", key, no, yes);
	return -1;
}
