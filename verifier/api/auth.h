/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * auth.h - operator authentication: "Authorization: Bearer TOKEN".
 *
 * Tokens are made by `imatrust-verifier token add NAME` and stored as
 * SHA-256 hashes (db_token_add); a request's token is hashed and compared
 * with every stored hash in constant time (db_token_lookup). Operator
 * routes carry auth_guard in the route table, so the server checks the
 * token with the headers, before it reads a byte of the body: its
 * expiry (401), then its role against the role the route table names
 * for the route (403, naming the role needed; issue #36).
 */
#ifndef IMATRUST_AUTH_H
#define IMATRUST_AUTH_H

#include "db.h"
#include "db_token.h"
#include "http.h"
#include "verifier.h"

/**
 * auth_guard() - the http_route guard of the operator routes: checks the
 * token of @req's Authorization header and keeps the operator's name in
 * req->operator. Takes the verifier's lock for the lookup.
 * @ctx: the verifier
 * @req: the request, headers only
 * @res: receives the 401, 403 or 500 as auth_operator() answers it
 *
 * Return: 0 when the token is valid, else -1 with @res answered.
 */
int auth_guard(void *ctx, struct http_request *req, struct http_response *res);

/**
 * auth_operator() - is @req from an operator? Every operator route calls
 * this first. When the route's auth_guard passed (req->operator is set)
 * that is the answer; otherwise (a handler called without the server)
 * the token is checked here, taking v->lock for the lookup.
 * @v: the verifier
 * @req: the request
 * @res: receives 401 when the token is missing, wrong or expired (the
 *       message says what WWW-Authenticate would: Bearer
 *       realm="imatrust"), 403 when its role is below the route's (with
 *       no route, a write needs admin), 500 on a storage failure
 * @name: receives the token's name (the operator, for events)
 *
 * Return: 0 when the token is valid, else -1 with @res answered.
 */
int auth_operator(struct verifier *v, const struct http_request *req,
		  struct http_response *res, char name[DB_NAME_MAX + 1]);

/**
 * auth_token() - the whole row of @req's token (GET /v1/whoami), checked
 * as auth_guard() checks it: a second lookup, for the one route that
 * answers more than the name.
 * @tok: receives the row (name, role, expiry, last use)
 *
 * Return: 0 when the token is valid, else -1 with @res answered.
 */
int auth_token(struct verifier *v, const struct http_request *req,
	       struct http_response *res, struct db_token *tok);

#endif /* IMATRUST_AUTH_H */
