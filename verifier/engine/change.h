/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * change.h - what every operator change that re-judges shares (imports,
 * retirements, policies, keys): the cause its events carry and its audit
 * entry (the re-judge with the answer: change_answer(), routes.h).
 */
#ifndef IMATRUST_CHANGE_H
#define IMATRUST_CHANGE_H

#include <stdint.h>

#include <jansson.h>

#include "verifier.h"

/**
 * change_cause() - {"check":"rejudge","change":@change,@key:@value,
 * "operator":@op_name} as JSON text (caller frees); @value is stolen.
 * Return: the text, or NULL when out of memory.
 */
char *change_cause(const char *change, const char *key, json_t *value,
		   const char *op_name);

/**
 * change_audit() - the audit entry of a change that is made (v->lock
 * held); @detail is JSON text. A failure is logged, not undone.
 */
void change_audit(struct verifier *v, const char *op_name, const char *action,
		  const char *detail, int64_t now);

#endif /* IMATRUST_CHANGE_H */
