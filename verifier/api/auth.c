// SPDX-License-Identifier: GPL-2.0-only
/*
 * auth.c - bearer tokens for the operator routes.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth.h"
#include "db_token.h"
#include "engine_ops.h"
#include "utc.h"

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

/*
 * last_used is written at most once a minute a token: the stored value
 * is the throttle, read with the token's row, so no state is kept here
 * and a GET adds no write in the other 59 seconds.
 */
#define AUTH_TOUCH_EVERY 60

/* The token's row for @req's header, from the read view or the writer. */
static int lookup(struct verifier *v, const struct http_request *req,
		  const char *token, size_t len, struct db_token *tok, int *ok,
		  struct imt_error *err)
{
	struct verifier *r;
	int rc;

	if (!is_read(req))
		return engine_token_check(v, (const uint8_t *)token, len, tok,
					  ok, err);
	r = read_begin(v);
	rc = db_token_lookup(r->db, (const uint8_t *)token, len, tok, ok, err);
	read_end(r);
	return rc;
}

/*
 * The role @req's route needs: the route table's (routes.c). A guarded
 * route that names none, or a handler called without the server whose
 * request is a write, needs admin: a route forgotten fails closed.
 */
static enum db_token_role role_needed(const struct http_request *req)
{
	if (req->route != NULL && req->route->role != DB_ROLE_NONE)
		return req->route->role;
	if (req->route == NULL && is_read(req))
		return DB_ROLE_READER;
	return DB_ROLE_ADMIN;
}

/* Is @tok, valid, allowed @req now? Else @res answers 401 or 403. */
static int allowed(const struct http_request *req, const struct db_token *tok,
		   int64_t now, struct http_response *res)
{
	enum db_token_role need = role_needed(req);
	char when[UTC_TEXT_MAX];

	if (tok->expires_at != 0 && now >= tok->expires_at) {
		http_error(res, 401,
			   "token expired at %s (%s, error=\"invalid_token\")",
			   utc_text(tok->expires_at, when, sizeof(when)),
			   AUTH_CHALLENGE);
		return -1;
	}
	if (tok->role < need) {
		http_error(res, 403,
			   "this token's role %s cannot %s %s: needs %s",
			   db_token_role_name(tok->role),
			   req->method != NULL ? req->method : "?",
			   req->path != NULL ? req->path : "?",
			   db_token_role_name(need));
		return -1;
	}
	return 0;
}

/*
 * The one check of a token: @req's header against the stored hashes, its
 * expiry, then its role against the route's, all from the headers.
 */
static int check_token(struct verifier *v, const struct http_request *req,
		       struct http_response *res, struct db_token *tok)
{
	int64_t now = (int64_t)time(NULL);
	struct imt_error err;
	const char *token;
	size_t len = 0;
	int ok = 0, rc;

	memset(tok, 0, sizeof(*tok));
	token = bearer_token(req->authorization, &len);
	if (token == NULL) {
		http_error(res, 401,
			   "operator token required: send "
			   "\"Authorization: Bearer TOKEN\" (%s)",
			   AUTH_CHALLENGE);
		return -1;
	}
	rc = lookup(v, req, token, len, tok, &ok, &err);
	if (rc < 0 && err.status != IMT_ERR_MALFORMED) {
		http_error(res, 500, "token check: %s", err.msg);
		return -1;
	}
	if (rc < 0 || !ok) {
		http_error(res, 401,
			   "operator token not valid (%s, "
			   "error=\"invalid_token\")",
			   AUTH_CHALLENGE);
		return -1;
	}
	if (allowed(req, tok, now, res) < 0)
		return -1;
	if (now - tok->last_used >= AUTH_TOUCH_EVERY)
		engine_token_touch(v, tok->name, now, is_read(req));
	return 0;
}

int auth_guard(void *ctx, struct http_request *req, struct http_response *res)
{
	struct db_token tok;

	req->op_name[0] = '\0';
	if (check_token(ctx, req, res, &tok) < 0)
		return -1;
	memcpy(req->op_name, tok.name, DB_NAME_MAX + 1);
	return 0;
}

int auth_token(struct verifier *v, const struct http_request *req,
	       struct http_response *res, struct db_token *tok)
{
	return check_token(v, req, res, tok);
}

int auth_operator(struct verifier *v, const struct http_request *req,
		  struct http_response *res, char name[DB_NAME_MAX + 1])
{
	struct db_token tok;

	/* only auth_guard sets it, and only for a valid token */
	if (req->op_name[0] != '\0') {
		memcpy(name, req->op_name, DB_NAME_MAX);
		name[DB_NAME_MAX] = '\0';
		return 0;
	}
	name[0] = '\0';
	if (check_token(v, req, res, &tok) < 0)
		return -1;
	memcpy(name, tok.name, DB_NAME_MAX + 1);
	return 0;
}
