// SPDX-License-Identifier: GPL-2.0-only
/*
 * routes.c - the REST API of imatrust-verifier, one line per route
 * (method, path, handler, largest body). The contract is written down in
 * verifier/openapi.json (operators) and proto/PROTOCOL.md (agents).
 */
#include "verifier.h"
#include "wire.h"

#define REFS_BODY_MAX (64u << 20)	/* one reference import request */
#define IDENTITY_BODY_MAX 4096		/* a pre-registration, an approval */

const struct http_route verifier_routes[] = {
	{ "GET", "/", route_page, 0 },
	{ "GET", "/v1/health", route_health, 0 },
	{ "GET", "/v1/metrics", route_metrics, 0 },

	{ "POST", "/v1/agents", route_agents_enroll, WIRE_BODY_MAX },
	{ "POST", "/v1/agents/{}/activate", route_agents_activate,
	  WIRE_BODY_MAX },
	{ "POST", "/v1/agents/{}/nonce", route_agents_nonce, 0 },
	{ "POST", "/v1/agents/{}/evidence", route_agents_evidence,
	  WIRE_BODY_MAX },

	{ "GET", "/v1/machines", route_machines_list, 0 },
	{ "POST", "/v1/machines", route_machines_add, IDENTITY_BODY_MAX },
	{ "GET", "/v1/machines/{}", route_machines_get, 0 },
	{ "DELETE", "/v1/machines/{}", route_machines_remove, 0 },
	{ "GET", "/v1/machines/{}/events", route_machines_events, 0 },
	{ "GET", "/v1/machines/{}/records", route_machines_records, 0 },
	{ "POST", "/v1/machines/{}/approve", route_machines_approve,
	  IDENTITY_BODY_MAX },
	{ "GET", "/v1/audit", route_audit, 0 },

	{ "POST", "/v1/references", route_refs_import, REFS_BODY_MAX },
	{ "GET", "/v1/references", route_refs_list, 0 },
	{ "DELETE", "/v1/references", route_refs_delete, REFS_BODY_MAX },
	{ NULL, NULL, NULL, 0 },
};
