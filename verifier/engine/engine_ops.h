/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine_ops.h - what operators change besides identities, the engine's
 * side (engine_ops.c): named policies, signature keys, webhook
 * endpoints, a machine's boot baseline and EFI references, each stored
 * with its audit entry in one hold of v->lock, which these entry points
 * take and release themselves (issue #35). The routes check the token,
 * decode the request, take the change lock (cluster_change_begin()),
 * call one of these and encode the answer; the re-judge that follows a
 * change (change_answer()) runs after, without v->lock.
 *
 * Each change fills a struct engine_answer: ENGINE_OK or ENGINE_CREATED,
 * else the status and the message to answer with; a storage failure is
 * "WHAT: why" with its kind as the status (engine_storage_status()), as
 * rest_db_error() writes it. Last, the token check of an operator's
 * write, on the writer's connection, shaped as db_token_check().
 */
#ifndef IMATRUST_ENGINE_OPS_H
#define IMATRUST_ENGINE_OPS_H

#include <stdint.h>

#include <openssl/x509_vfy.h>

#include "db_boot.h"
#include "import_efi.h"
#include "db_key.h"
#include "db_token.h"
#include "db_webhook.h"
#include "engine.h"
#include "policy.h"
#include "verifier.h"

#define ENGINE_WEBHOOKS_MAX 64 /* endpoints at most, config file's included */

/**
 * engine_policy_is_default() - is the policy named @name, as in force,
 * the default one?
 * Return: 1 when it is, 0 when it is not or there is no such policy.
 */
int engine_policy_is_default(struct verifier *v, const char *name);

/**
 * engine_policy_put() - store @p as the document @text, with a
 * "policy-put" audit entry, and read the policies again before their
 * next use.
 * @v: the verifier
 * @p: the parsed policy (its name, default mark and sources)
 * @text: its document as stored (policy_to_json()'s, compact)
 * @op_name: the operator, for the audit entry
 * @now: seconds since the epoch
 * @ans: ENGINE_CREATED (a new name), ENGINE_OK (replaced), or a storage
 *       failure's kind ("store policy: ...", ENGINE_TOO_LARGE past
 *       DB_POLICIES_MAX)
 */
void engine_policy_put(struct verifier *v, const struct policy *p,
		       const char *text, const char *op_name, int64_t now,
		       struct engine_answer *ans);

/**
 * engine_policy_delete() - forget the policy named @name, with a
 * "policy-delete" audit entry whose detail is @cause (JSON text).
 * @ans: ENGINE_OK, ENGINE_UNKNOWN (no such policy), or a storage
 *       failure's kind ("delete policy: ...", ENGINE_CONFLICT for the
 *       default policy)
 */
void engine_policy_delete(struct verifier *v, const char *name,
			  const char *op_name, const char *cause, int64_t now,
			  struct engine_answer *ans);

/**
 * engine_key_add() - import key @k on its own (source "key:NAME"), with
 * a "key-add" audit entry whose detail is @cause, and read the keyring
 * again before its next use.
 * @ans: ENGINE_CREATED, or a storage failure's kind ("add key: ...",
 *       ENGINE_CONFLICT for a name or certificate there already)
 */
void engine_key_add(struct verifier *v, const struct db_key *k,
		    const char *op_name, const char *cause, int64_t now,
		    struct engine_answer *ans);

/**
 * engine_key_delete() - forget key @name imported on its own, with a
 * "key-delete" audit entry whose detail is @cause.
 * @ans: ENGINE_OK, ENGINE_UNKNOWN (no such key on its own: a key that
 *       came with an import goes with it), or a storage failure's kind
 *       ("delete key: ...")
 */
void engine_key_delete(struct verifier *v, const char *name,
		       const char *op_name, const char *cause, int64_t now,
		       struct engine_answer *ans);

/**
 * engine_webhook_add() - store endpoint @n, with a "webhook-add" audit
 * entry ({"name","url","key_id"}), while fewer than ENGINE_WEBHOOKS_MAX
 * are there.
 * @ans: ENGINE_CREATED, ENGINE_TOO_LARGE (ENGINE_WEBHOOKS_MAX endpoints
 *       already), or a storage failure's kind ("add webhook: ...",
 *       ENGINE_CONFLICT for a name taken)
 */
void engine_webhook_add(struct verifier *v, const struct db_webhook_new *n,
			const char *op_name, int64_t now,
			struct engine_answer *ans);

/**
 * engine_webhook_delete() - forget endpoint @name and its queue, with a
 * "webhook-delete" audit entry ({"name"}); one of the config file's stays.
 * @ans: ENGINE_OK, ENGINE_CONFLICT (the config file defines it),
 *       ENGINE_UNKNOWN (no such endpoint), or a storage failure's kind
 *       ("delete webhook: ...")
 */
void engine_webhook_delete(struct verifier *v, const char *name,
			   const char *op_name, int64_t now,
			   struct engine_answer *ans);

/**
 * engine_webhook_rotate() - begin (@secret set) or finish (@secret NULL)
 * a rotation of endpoint @name's secret (db_webhook_rotate()), with a
 * "webhook-rotate" or "webhook-rotate-finish" audit entry ({"name",
 * "key_id"}: the new secret's, null at the finish).
 * @v: the verifier
 * @name: the endpoint
 * @secret: the new secret, or NULL to finish
 * @secret_len: its length
 * @key_id: its key id (NULL to finish)
 * @op_name: the token's name
 * @now: seconds since the epoch
 * @ans: ENGINE_OK, ENGINE_UNKNOWN (no such endpoint), ENGINE_CONFLICT
 *       (the config file defines it; a rotation under way already, or
 *       none to finish), or a storage failure's kind
 */
void engine_webhook_rotate(struct verifier *v, const char *name,
			   const uint8_t *secret, size_t secret_len,
			   const char *key_id, const char *op_name, int64_t now,
			   struct engine_answer *ans);

/**
 * engine_boot_baseline() - the firmware event log of machine @id's
 * current boot approved by @op_name as its boot baseline, with a
 * "boot-baseline" audit entry whose detail is @cause.
 * @sha256: receives the SHA-256 of the log approved (ENGINE_OK)
 * @ans: ENGINE_OK, ENGINE_UNKNOWN (no such machine, or its current boot
 *       has no firmware event log), or a storage failure's kind
 *       ("approve boot baseline: ...")
 */
void engine_boot_baseline(struct verifier *v, const char *id,
			  const char *op_name, const char *cause, int64_t now,
			  uint8_t sha256[DB_BOOT_LOG_SHA256_SIZE],
			  struct engine_answer *ans);

/**
 * engine_efi_import() - store the digests of @imp's images as the source
 * efi:@name (@version, or NULL), in one transaction; when they add
 * anything, with an "import" audit entry whose detail is @cause.
 * @added: receives how many digests were new (0: the same images again)
 * @ans: ENGINE_OK, or what was refused, nothing stored: ENGINE_MALFORMED
 *       (a value the storage refuses) or ENGINE_INTERNAL, the message
 *       "not imported: ...; nothing stored"
 */
void engine_efi_import(struct verifier *v, const char *name,
		       const char *version, const struct import_efi *imp,
		       const char *op_name, const char *cause, int64_t now,
		       size_t *added, struct engine_answer *ans);

/**
 * engine_token_check() - db_token_lookup() of @token (@len bytes) on the
 * writer's connection, under v->lock: the check of a write's token, which
 * the write takes the lock after anyway, so it never waits for a read (a
 * read's token goes through the read view, auth.c). The same shape as
 * db_token_lookup(), so that auth.c's two branches answer alike.
 * @tok: receives the matching token's row (name "" when none)
 * @ok: receives 1 on a match, else 0
 *
 * Return: 0, or -1 with @err (IMT_ERR_MALFORMED: not a token's shape).
 */
int engine_token_check(struct verifier *v, const uint8_t *token, size_t len,
		       struct db_token *tok, int *ok, struct imt_error *err);

/**
 * engine_token_touch() - db_token_touch() of @name at @now on the writer's
 * connection. With @try_only (a read's check) only when v->lock is free
 * at once: a read never waits for evidence to say when a token was used,
 * and a skipped touch is written by the token's next request. The caller
 * throttles (auth.c: once a minute a token). A failure is logged, not
 * answered: the request it follows was allowed.
 */
void engine_token_touch(struct verifier *v, const char *name, int64_t now,
			int try_only);

/**
 * engine_ek_ca_swap() - put @store in force as the EK CA of the writer and
 * of the read view (SIGHUP), each under its lock.
 * Return: the store that was in force, for the caller to free once no
 * enrollment can still hold it (enrollment reads it outside the lock).
 */
X509_STORE *engine_ek_ca_swap(struct verifier *v, X509_STORE *store);

/**
 * engine_config_reload() - the keys of @next that may change at run time
 * into the writer's configuration, then the read view's (SIGHUP), each
 * under its lock; config_reload() calls @note for each changed key.
 */
void engine_config_reload(struct verifier *v, const struct config *next,
			  void (*note)(const char *key, int taken));

#endif /* IMATRUST_ENGINE_OPS_H */
