// SPDX-License-Identifier: GPL-2.0-only
/*
 * rest.c - JSON answers, query arguments and bodies of the operator API.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "hex.h"
#include "rest.h"

void rest_reply(struct http_response *res, unsigned int status, json_t *obj)
{
	char *text = NULL;

	if (obj != NULL &&
	    json_object_set_new(obj, "v", json_integer(REST_VERSION)) == 0)
		text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(obj);
	if (text == NULL) {
		http_error(res, 500, "out of memory");
		return;
	}
	free(res->body);
	res->body = text;
	res->status = status;
}

void rest_db_error(struct http_response *res, const char *what,
		   const struct imt_error *err)
{
	http_error(res, engine_http_status(engine_storage_status(err->status)),
		   "%s: %s", what, err->msg);
}

int rest_query_uint(const struct http_request *req, struct http_response *res,
		    const char *key, uint64_t def, uint64_t max, uint64_t *out)
{
	const char *s = http_query(req, key);
	unsigned long long u;
	char *end;

	*out = def;
	if (s == NULL)
		return 0;
	errno = 0;
	u = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || u > max) {
		http_error(res, 400, "?%s=: want a number from 0 to %llu", key,
			   (unsigned long long)max);
		return -1;
	}
	*out = u;
	return 0;
}

int rest_query_limit(const struct http_request *req, struct http_response *res,
		     unsigned int *limit)
{
	uint64_t n;

	if (rest_query_uint(req, res, "limit", REST_PAGE_DEFAULT, REST_PAGE_MAX,
			    &n) < 0)
		return -1;
	if (n == 0) {
		http_error(res, 400, "?limit=: want 1 to %d", REST_PAGE_MAX);
		return -1;
	}
	*limit = (unsigned int)n;
	return 0;
}

const char *rest_check_keys(json_t *obj, const char *const *keys)
{
	const char *const *k;
	const char *key;
	json_t *value;

	json_object_foreach(obj, key, value) {
		for (k = keys; *k != NULL && strcmp(*k, key) != 0; k++)
			;
		if (*k == NULL)
			return key;
	}
	return NULL;
}

json_t *rest_body(const struct http_request *req, struct http_response *res,
		  const char *const *keys)
{
	json_error_t jerr;
	const char *extra;
	json_t *obj, *v;

	obj = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES,
			 &jerr);
	if (!json_is_object(obj)) {
		http_error(res, 400, "body is not a JSON object: %s",
			   obj == NULL ? jerr.text : "other type");
		goto bad;
	}
	v = json_object_get(obj, "v");
	if (!json_is_integer(v) || json_integer_value(v) != REST_VERSION) {
		http_error(res, 400, "\"v\" must be %d", REST_VERSION);
		goto bad;
	}
	json_object_del(obj, "v");
	extra = rest_check_keys(obj, keys);
	if (extra != NULL) {
		http_error(res, 400, "unknown field \"%.64s\"", extra);
		goto bad;
	}
	return obj;
bad:
	json_decref(obj);
	return NULL;
}

json_t *rest_time(int64_t t)
{
	return t != 0 ? json_integer((json_int_t)t) : json_null();
}
