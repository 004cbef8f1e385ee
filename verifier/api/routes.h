/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * routes.h - the verifier's REST API (the api room, verifier/README.md):
 * the route handlers under /v1, and the two answers every operator change
 * shares. Routes call the engine (engine.h) and the read view (verifier.h);
 * nothing below this room sees HTTP.
 */
#ifndef IMATRUST_ROUTES_H
#define IMATRUST_ROUTES_H

#include <stdint.h>

#include <jansson.h>

#include "http.h"
#include "verifier.h"

/**
 * cluster_change_begin() - take the change lock of this instance and of
 * the cluster (cluster_change_take()) for a route, or answer: 503 when
 * storage fails, 409 when another change is in progress.
 * Return: 0 with both locks held (cluster_change_end() releases them),
 * -1 when @res is answered.
 */
int cluster_change_begin(struct verifier *v, struct http_response *res);

/**
 * change_answer() - re-judge what @changes (REJUDGE_*) may have changed
 * (the change lock held, v->lock not) and answer @status with @ans
 * (consumed) plus the counts; 500 when the re-judge failed.
 */
void change_answer(struct verifier *v, struct http_response *res,
		   unsigned int status, unsigned int changes, json_t *ans,
		   const char *cause, int64_t now);

/* The REST routes under /v1, terminated by a NULL method. */
extern const struct http_route verifier_routes[];

/* route_whoami.c */
void route_whoami(void *ctx, const struct http_request *req,
		  struct http_response *res);

/* route_health.c */
void route_health(void *ctx, const struct http_request *req,
		  struct http_response *res);

/* route_agents.c: the agent side, authenticated by TPM evidence */
void route_agents_enroll(void *ctx, const struct http_request *req,
			 struct http_response *res);
void route_agents_activate(void *ctx, const struct http_request *req,
			   struct http_response *res);
void route_agents_nonce(void *ctx, const struct http_request *req,
			struct http_response *res);
void route_agents_evidence(void *ctx, const struct http_request *req,
			   struct http_response *res);

/* route_machines.c: the operator side (bearer token) */
void route_machines_list(void *ctx, const struct http_request *req,
			 struct http_response *res);
void route_machines_get(void *ctx, const struct http_request *req,
			struct http_response *res);
void route_machines_events(void *ctx, const struct http_request *req,
			   struct http_response *res);
void route_machines_records(void *ctx, const struct http_request *req,
			    struct http_response *res);
void route_machines_approve(void *ctx, const struct http_request *req,
			    struct http_response *res);

/* route_boot_log.c: the current boot's firmware event log (bearer token) */
void route_machines_boot_log(void *ctx, const struct http_request *req,
			     struct http_response *res);
void route_machines_boot_baseline(void *ctx, const struct http_request *req,
				  struct http_response *res);

/* route_identity.c: pre-registration, removal, audit (bearer token) */
void route_machines_add(void *ctx, const struct http_request *req,
			struct http_response *res);
void route_machines_remove(void *ctx, const struct http_request *req,
			   struct http_response *res);
void route_audit(void *ctx, const struct http_request *req,
		 struct http_response *res);

/* route_refs.c: reference digests (bearer token) */
void route_refs_import(void *ctx, const struct http_request *req,
		       struct http_response *res);
void route_refs_list(void *ctx, const struct http_request *req,
		     struct http_response *res);
void route_refs_delete(void *ctx, const struct http_request *req,
		       struct http_response *res);

/* route_sources.c: what the references came from (bearer token) */
void route_sources_list(void *ctx, const struct http_request *req,
			struct http_response *res);

/* route_policies.c: named policies (bearer token) */
void route_policies_list(void *ctx, const struct http_request *req,
			 struct http_response *res);
void route_policies_get(void *ctx, const struct http_request *req,
			struct http_response *res);
void route_policies_put(void *ctx, const struct http_request *req,
			struct http_response *res);
void route_policies_delete(void *ctx, const struct http_request *req,
			   struct http_response *res);

/* route_keys.c: signature keys (bearer token) */
void route_keys_add(void *ctx, const struct http_request *req,
		    struct http_response *res);
void route_keys_list(void *ctx, const struct http_request *req,
		     struct http_response *res);
void route_keys_delete(void *ctx, const struct http_request *req,
		       struct http_response *res);

/* route_webhooks.c: webhook endpoints (bearer token) */
void route_webhooks_add(void *ctx, const struct http_request *req,
			struct http_response *res);
void route_webhooks_list(void *ctx, const struct http_request *req,
			 struct http_response *res);
void route_webhooks_rotate(void *ctx, const struct http_request *req,
			   struct http_response *res);
void route_webhooks_delete(void *ctx, const struct http_request *req,
			   struct http_response *res);

/* route_results.c: signed attestation results (EAR) */
void route_results_jwks(void *ctx, const struct http_request *req,
			struct http_response *res);
void route_machines_result(void *ctx, const struct http_request *req,
			   struct http_response *res);

/* route_metrics.c: Prometheus text (no token); the console: www.h */
void route_metrics(void *ctx, const struct http_request *req,
		   struct http_response *res);

/* route_import.c: imports the verifier parses, retiring a source */
void route_import_deb(void *ctx, const struct http_request *req,
		      struct http_response *res);
void route_import_list(void *ctx, const struct http_request *req,
		       struct http_response *res);
void route_import_keylime(void *ctx, const struct http_request *req,
			  struct http_response *res);
void route_import_retire(void *ctx, const struct http_request *req,
			 struct http_response *res);
void route_export_keylime(void *ctx, const struct http_request *req,
			  struct http_response *res);
/* route_verify.c: one-shot verification of a bundle, stored nowhere */
void route_verify(void *ctx, const struct http_request *req,
		  struct http_response *res);

/* route_efi.c: EFI applications' Authenticode digests */
void route_import_efi(void *ctx, const struct http_request *req,
		      struct http_response *res);

#endif /* IMATRUST_ROUTES_H */
