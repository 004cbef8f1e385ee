/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * auth.h - operator authentication: "Authorization: Bearer TOKEN".
 *
 * Tokens are made by `imatrust-verifier token add NAME` and stored as
 * SHA-256 hashes (db_token_add); a request's token is hashed and compared
 * with every stored hash in constant time (db_token_check).
 */
#ifndef IMATRUST_AUTH_H
#define IMATRUST_AUTH_H

#include "db.h"
#include "http.h"
#include "verifier.h"

/**
 * auth_operator() - is @req from an operator? Every operator route calls
 * this first. Takes v->lock for the lookup.
 * @v: the verifier
 * @req: the request
 * @res: receives 401 when the token is missing or wrong (the message
 *       says what WWW-Authenticate would: Bearer realm="imatrust"), 500
 *       on a storage failure
 * @name: receives the token's name (the operator, for events)
 *
 * Return: 0 when the token is valid, else -1 with @res answered.
 */
int auth_operator(struct verifier *v, const struct http_request *req,
		  struct http_response *res, char name[DB_NAME_MAX + 1]);

#endif /* IMATRUST_AUTH_H */
