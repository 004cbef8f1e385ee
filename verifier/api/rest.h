/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rest.h - what the operator routes share: JSON answers, query arguments,
 * request bodies, storage errors as HTTP statuses.
 *
 * Every answer is a JSON object carrying "v": 1; errors go through
 * http_error() ({"v":1,"error":{"status":N,"message":"..."}}).
 */
#ifndef IMATRUST_REST_H
#define IMATRUST_REST_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "http.h"
#include "result.h"

#define REST_VERSION 1
#define REST_PAGE_DEFAULT 100 /* rows of a page when ?limit= is absent */
#define REST_PAGE_MAX 1000    /* rows one page may list (?limit=) */

/**
 * rest_reply() - answer @status with @obj plus "v": 1.
 * @res: the response
 * @status: HTTP status
 * @obj: the answer; this call takes the reference. NULL (an allocation
 *       failed while building it) answers 500.
 */
void rest_reply(struct http_response *res, unsigned int status, json_t *obj);

/**
 * rest_db_error() - answer a failed db_* call: 400 for bad arguments,
 * 409 for a conflict with stored state, 413 for a limit, else 500.
 * @res: the response
 * @what: what was being done, for the message
 * @err: the storage layer's report
 */
void rest_db_error(struct http_response *res, const char *what,
		   const struct imt_error *err);

/**
 * rest_query_uint() - a decimal query argument ?@key=N, at most @max.
 * @req: the request
 * @res: receives a 400 when the argument is malformed or too large
 * @key: the argument's name
 * @def: value when the argument is absent
 * @max: largest value accepted
 * @out: receives the value
 *
 * Return: 0, or -1 after answering 400.
 */
int rest_query_uint(const struct http_request *req, struct http_response *res,
		    const char *key, uint64_t def, uint64_t max, uint64_t *out);

/**
 * rest_query_limit() - ?limit=, 1..REST_PAGE_MAX, REST_PAGE_DEFAULT.
 * Return: 0, or -1 after answering 400.
 */
int rest_query_limit(const struct http_request *req, struct http_response *res,
		     unsigned int *limit);

/**
 * rest_body() - the request body as a JSON object with "v": 1 and no key
 * outside @keys (a NULL-terminated list besides "v"); "v" is removed.
 * @req: the request
 * @res: receives a 400 naming what is wrong
 * @keys: the keys the object may have
 *
 * Return: the object (caller decrefs), or NULL after answering 400.
 */
json_t *rest_body(const struct http_request *req, struct http_response *res,
		  const char *const *keys);

/**
 * rest_check_keys() - does @obj have keys only from @keys?
 * @obj: a JSON object
 * @keys: NULL-terminated list
 *
 * Return: NULL, or the first key that is not in @keys (borrowed).
 */
const char *rest_check_keys(json_t *obj, const char *const *keys);

/** rest_time() - seconds since the epoch as an integer, 0 as null. */
json_t *rest_time(int64_t t);

#endif /* IMATRUST_REST_H */
