// SPDX-License-Identifier: GPL-2.0-only
/*
 * routes.c - the REST API of imatrust-verifier, one line per route
 * (method, path, handler, largest body, guard). The contract is written
 * down in verifier/api/openapi.json (operators) and proto/PROTOCOL.md
 * (agents).
 *
 * Operator routes carry auth_guard: the server checks the bearer token
 * with the headers and answers 401 before it reads a byte of the body.
 * Agent routes carry none (the TPM authenticates them); their bodies are
 * capped by the max_body key as well. The console's files (route_www.c)
 * carry none either: they hold no data; nor does the public key that
 * signs attestation results (route_results.c).
 */
#include "auth.h"
#include "db_key.h"
#include "db_token.h"
#include "verifier.h"
#include "wire.h"
#include "www.h"
#include "routes.h"

#define REFS_BODY_MAX (64u << 20)  /* one reference import request */
#define IDENTITY_BODY_MAX 4096	   /* a pre-registration, an approval */
#define POLICY_BODY_MAX (1u << 20) /* one policy document */
#define KEY_BODY_MAX (DB_KEY_DER_MAX * 2 + 1024) /* PEM, in JSON */
#define WEBHOOK_BODY_MAX 16384			 /* an endpoint: URL, CA path */
/*
 * An enrollment: the EK and AK public areas and the EK certificate in
 * base64, at most (4096 + 8192 + 4096) * 4 / 3 = 21,848 bytes and a few
 * names; a swtpm's is about 2.6 KiB. An activation: an id and a 32-byte
 * proof, about 150 bytes. Not the 6 MiB of evidence: a stranger may send
 * these, and they are read before anything is proven.
 */
#define ENROLL_BODY_MAX (64u * 1024)
#define ACTIVATE_BODY_MAX 4096
/*
 * TOKEN: the route needs an operator's token (auth_guard). The last
 * column is the role the token must have (issue #36), the one table of
 * it: READER for every GET and for POST /v1/verify (it stores nothing);
 * OPERATOR for what changes references, policies, identities and boot
 * baselines; ADMIN for what changes who is trusted to sign and who is
 * told (keys, webhooks). A guarded route with no role needs ADMIN
 * (auth.c), and test_routes fails it.
 */
#define TOKEN auth_guard
#define ANYONE DB_ROLE_NONE /* no guard: no token asked */
#define READER DB_ROLE_READER
#define OPERATOR DB_ROLE_OPERATOR
#define ADMIN DB_ROLE_ADMIN

_Static_assert(REFS_BODY_MAX <= CONFIG_INFLIGHT_MIN,
	       "max_inflight_body must admit the largest body");
_Static_assert(ENROLL_BODY_MAX >=
		       2 * (WIRE_TPM_BLOB_MAX * 2 + WIRE_CERT_MAX) * 4 / 3,
	       "an enrollment of the protocol's largest blobs fits, twice");

const struct http_route verifier_routes[] = {
	{ "GET", "/", route_www, 0, NULL, NULL, 0, ANYONE },
	{ "GET", "/app.js", route_www, 0, NULL, NULL, 0, ANYONE },
	{ "GET", "/app.css", route_www, 0, NULL, NULL, 0, ANYONE },
	{ "GET", "/v1/health", route_health, 0, NULL, NULL, 0, ANYONE },
	{ "GET", "/v1/metrics", route_metrics, 0, NULL, NULL, 0, ANYONE },
	{ "GET", "/v1/results/jwks", route_results_jwks, 0, NULL, NULL, 0,
	  ANYONE },

	{ "POST", "/v1/agents", route_agents_enroll, ENROLL_BODY_MAX, NULL,
	  NULL, 1, ANYONE },
	{ "POST", "/v1/agents/{}/activate", route_agents_activate,
	  ACTIVATE_BODY_MAX, NULL, NULL, 0, ANYONE },
	{ "POST", "/v1/agents/{}/nonce", route_agents_nonce, 0, NULL, NULL, 0,
	  ANYONE },
	{ "POST", "/v1/agents/{}/evidence", route_agents_evidence,
	  WIRE_BODY_MAX, NULL, WIRE_EVIDENCE_FRAMED_TYPE, 1, ANYONE },

	{ "GET", "/v1/machines", route_machines_list, 0, TOKEN, NULL, 0,
	  READER },
	{ "POST", "/v1/machines", route_machines_add, IDENTITY_BODY_MAX, TOKEN,
	  NULL, 0, OPERATOR },
	{ "GET", "/v1/machines/{}", route_machines_get, 0, TOKEN, NULL, 0,
	  READER },
	{ "DELETE", "/v1/machines/{}", route_machines_remove, 0, TOKEN, NULL, 0,
	  OPERATOR },
	{ "GET", "/v1/machines/{}/events", route_machines_events, 0, TOKEN,
	  NULL, 0, READER },
	{ "GET", "/v1/machines/{}/records", route_machines_records, 0, TOKEN,
	  NULL, 0, READER },
	{ "GET", "/v1/machines/{}/boot-log", route_machines_boot_log, 0, TOKEN,
	  NULL, 0, READER },
	{ "POST", "/v1/machines/{}/boot-baseline", route_machines_boot_baseline,
	  0, TOKEN, NULL, 0, OPERATOR },
	{ "GET", "/v1/machines/{}/result", route_machines_result, 0, TOKEN,
	  NULL, 0, READER },
	{ "POST", "/v1/machines/{}/approve", route_machines_approve,
	  IDENTITY_BODY_MAX, TOKEN, NULL, 0, OPERATOR },
	{ "GET", "/v1/audit", route_audit, 0, TOKEN, NULL, 0, READER },
	{ "GET", "/v1/whoami", route_whoami, 0, TOKEN, NULL, 0, READER },
	{ "POST", "/v1/verify", route_verify, WIRE_BODY_MAX, TOKEN, NULL, 0,
	  READER },

	{ "POST", "/v1/references", route_refs_import, REFS_BODY_MAX, TOKEN,
	  NULL, 0, OPERATOR },
	{ "GET", "/v1/references", route_refs_list, 0, TOKEN, NULL, 0, READER },
	{ "POST", "/v1/references/deb", route_import_deb, REFS_BODY_MAX, TOKEN,
	  NULL, 0, OPERATOR },
	{ "POST", "/v1/references/list", route_import_list, REFS_BODY_MAX,
	  TOKEN, NULL, 0, OPERATOR },
	{ "POST", "/v1/references/keylime", route_import_keylime, REFS_BODY_MAX,
	  TOKEN, NULL, 0, OPERATOR },
	{ "POST", "/v1/references/efi", route_import_efi, REFS_BODY_MAX, TOKEN,
	  NULL, 0, OPERATOR },
	{ "POST", "/v1/references/retire", route_import_retire,
	  IDENTITY_BODY_MAX, TOKEN, NULL, 0, OPERATOR },
	{ "GET", "/v1/policies/{}/keylime", route_export_keylime, 0, TOKEN,
	  NULL, 0, READER },
	{ "DELETE", "/v1/references", route_refs_delete, REFS_BODY_MAX, TOKEN,
	  NULL, 0, OPERATOR },
	{ "GET", "/v1/sources", route_sources_list, 0, TOKEN, NULL, 0, READER },

	{ "GET", "/v1/policies", route_policies_list, 0, TOKEN, NULL, 0,
	  READER },
	{ "GET", "/v1/policies/{}", route_policies_get, 0, TOKEN, NULL, 0,
	  READER },
	{ "PUT", "/v1/policies/{}", route_policies_put, POLICY_BODY_MAX, TOKEN,
	  NULL, 0, OPERATOR },
	{ "DELETE", "/v1/policies/{}", route_policies_delete, 0, TOKEN, NULL, 0,
	  OPERATOR },

	{ "POST", "/v1/keys", route_keys_add, KEY_BODY_MAX, TOKEN, NULL, 0,
	  ADMIN },
	{ "GET", "/v1/keys", route_keys_list, 0, TOKEN, NULL, 0, READER },
	{ "DELETE", "/v1/keys/{}", route_keys_delete, 0, TOKEN, NULL, 0,
	  ADMIN },

	{ "POST", "/v1/webhooks", route_webhooks_add, WEBHOOK_BODY_MAX, TOKEN,
	  NULL, 0, ADMIN },
	{ "GET", "/v1/webhooks", route_webhooks_list, 0, TOKEN, NULL, 0,
	  READER },
	{ "DELETE", "/v1/webhooks/{}", route_webhooks_delete, 0, TOKEN, NULL, 0,
	  ADMIN },
	{ "POST", "/v1/webhooks/{}/rotate", route_webhooks_rotate,
	  WEBHOOK_BODY_MAX, TOKEN, NULL, 0, ADMIN },
	{ NULL, NULL, NULL, 0, NULL, NULL, 0, 0 },
};
