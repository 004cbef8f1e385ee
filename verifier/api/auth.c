// SPDX-License-Identifier: GPL-2.0-only
/*
 * auth.c - bearer tokens for the operator routes.
 */
#include <string.h>
#include <strings.h>

#include "auth.h"
#include "db_token.h"
#include "engine_ops.h"

#define AUTH_SCHEME "Bearer"
#define AUTH_CHALLENGE "WWW-Authenticate: Bearer realm=\"imatrust\""

/* The token of "Bearer TOKEN", or NULL when the header is not that. */
static const char *bearer_token(const char *header, size_t *len)
{
	size_t n = strlen(AUTH_SCHEME);
	const char *t;

	if (header == NULL || strncasecmp(header, AUTH_SCHEME, n) != 0 ||
	    header[n] != ' ')
		return NULL;
	t = header + n;
	while (*t == ' ')
		t++;
	*len = strlen(t);
	while (*len > 0 && (t[*len - 1] == ' ' || t[*len - 1] == '\t'))
		(*len)--;
	return *len > 0 ? t : NULL;
}

_Static_assert(DB_NAME_MAX <= HTTP_OPERATOR_MAX,
	       "http_request.operator holds a token's name");

/*
 * Whose connection checks a request's token (issue #33): a read's (GET,
 * and the one-shot POST /v1/verify) the read view's, so it never waits
 * for evidence; a write's the writer's (engine_token_check()), whose lock
 * the write takes next anyway, so a write never waits for a read.
 */
static int is_read(const struct http_request *req)
{
	return req->method == NULL || strcmp(req->method, "GET") == 0 ||
	       strcmp(req->method, "HEAD") == 0 ||
	       (req->path != NULL && strcmp(req->path, "/v1/verify") == 0);
}

/* The one check of a token: @req's header against the stored hashes. */
static int check_token(struct verifier *v, const struct http_request *req,
		       struct http_response *res, char name[DB_NAME_MAX + 1])
{
	struct imt_error err;
	struct verifier *r;
	const char *token;
	size_t len = 0;
	int ok = 0, rc;

	name[0] = '\0';
	token = bearer_token(req->authorization, &len);
	if (token == NULL) {
		http_error(res, 401,
			   "operator token required: send "
			   "\"Authorization: Bearer TOKEN\" (%s)",
			   AUTH_CHALLENGE);
		return -1;
	}
	if (is_read(req)) {
		r = read_begin(v);
		rc = db_token_check(r->db, (const uint8_t *)token, len, name,
				    &ok, &err);
		read_end(r);
	} else {
		rc = engine_token_check(v, (const uint8_t *)token, len, name,
					&ok, &err);
	}
	if (rc < 0 && err.status != IMT_ERR_MALFORMED) {
		http_error(res, 500, "token check: %s", err.msg);
		return -1;
	}
	if (rc < 0 || !ok) {
		name[0] = '\0';
		http_error(res, 401,
			   "operator token not valid (%s, "
			   "error=\"invalid_token\")",
			   AUTH_CHALLENGE);
		return -1;
	}
	return 0;
}

int auth_guard(void *ctx, struct http_request *req, struct http_response *res)
{
	return check_token(ctx, req, res, req->op_name);
}

int auth_operator(struct verifier *v, const struct http_request *req,
		  struct http_response *res, char name[DB_NAME_MAX + 1])
{
	/* only auth_guard sets it, and only for a valid token */
	if (req->op_name[0] != '\0') {
		memcpy(name, req->op_name, DB_NAME_MAX);
		name[DB_NAME_MAX] = '\0';
		return 0;
	}
	return check_token(v, req, res, name);
}
