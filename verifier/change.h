/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * change.h - what every operator change that re-judges shares (imports,
 * retirements, policies, keys): the cause its events carry, its audit
 * entry, and the re-judge with the answer.
 */
#ifndef IMATRUST_CHANGE_H
#define IMATRUST_CHANGE_H

#include <stdint.h>

#include <jansson.h>

#include "http.h"
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

/**
 * change_answer() - re-judge what @changes (REJUDGE_*) may have changed (the change
 * lock held, v->lock not) and answer @status with @ans (consumed) plus
 * the counts; 500 when the re-judge failed.
 */
void change_answer(struct verifier *v, struct http_response *res,
		   unsigned int status, unsigned int changes, json_t *ans,
		   const char *cause, int64_t now);

#endif /* IMATRUST_CHANGE_H */
