// SPDX-License-Identifier: GPL-2.0-only
/* route_agents.c - STUB: replaced by the attestation work. */
#include "verifier.h"

#define STUB(fn) \
void fn(void *ctx, const struct http_request *req, struct http_response *res) \
{ (void)ctx; (void)req; http_error(res, 501, "not implemented yet"); }
STUB(route_agents_enroll)
STUB(route_agents_activate)
STUB(route_agents_nonce)
STUB(route_agents_evidence)
