/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy_choice.h - one two-valued field of a policy document, such as
 * "violations": "untrusted" | "allow" or "boot.log": "optional" | "required".
 */
#ifndef IMATRUST_POLICY_CHOICE_H
#define IMATRUST_POLICY_CHOICE_H

#include <jansson.h>

#include "result.h"

/*
 * policy_choice - read @obj's field @key, which must be the string @no or
 * @yes. *@out is 0 for @no, 1 for @yes and -1 when the field is absent
 * (the caller picks the default). Anything else: -1 with @err naming the
 * field as @section.@key (or @key when @section is NULL) and both values.
 */
int policy_choice(json_t *obj, const char *section, const char *key,
		  const char *no, const char *yes, int *out,
		  struct imt_error *err);

#endif
