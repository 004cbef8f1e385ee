// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_ops.c - what operators change besides identities (engine_ops.h):
 * each change and its audit entry in one hold of v->lock, taken here. The
 * routes (route_policies.c, route_keys.c, route_webhooks.c,
 * route_boot_baseline.c, route_efi.c) check the token, decode, hold the
 * change lock where a re-judge follows, and encode the answer. Last, the
 * writer's token check (auth.c).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "change.h"
#include "db_boot.h"
#include "db_efi.h"
#include "db_key.h"
#include "db_machine.h"
#include "db_policy.h"
#include "db_token.h"
#include "db_webhook.h"
#include "engine_internal.h"
#include "engine_ops.h"
#include "import_efi_rows.h"
#include "keyring.h"
#include "log.h"
#include "policies.h"

int engine_policy_is_default(struct verifier *v, const char *name)
{
	const struct policy *p;
	int is_default;

	pthread_mutex_lock(&v->lock);
	p = policies_find(v, name);
	is_default = p != NULL && p->is_default;
	pthread_mutex_unlock(&v->lock);
	return is_default;
}

/* Store @p as @text with its audit entry (v->lock held). *@created. */
static int store_policy(struct verifier *v, const struct policy *p,
			const char *text, const char *op_name, int64_t now,
			int *created, struct imt_error *err)
{
	char *detail;

	*created = policies_find(v, p->name) == NULL;
	if (db_policy_put(v->db, p->name, text, p->is_default,
			  (const char *const *)p->sources, p->nsources, now,
			  err) < 0)
		return -1;
	policies_invalidate(v);
	detail = change_cause(*created ? "create" : "replace", "policy",
			      json_string(p->name), op_name);
	change_audit(v, op_name, "policy-put", detail, now);
	free(detail);
	return 0;
}

void engine_policy_put(struct verifier *v, const struct policy *p,
		       const char *text, const char *op_name, int64_t now,
		       struct engine_answer *ans)
{
	struct imt_error err;
	int created = 0, rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = store_policy(v, p, text, op_name, now, &created, &err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "store policy", &err);
	else
		ans->status = created ? ENGINE_CREATED : ENGINE_OK;
}

void engine_policy_delete(struct verifier *v, const char *name,
			  const char *op_name, const char *cause, int64_t now,
			  struct engine_answer *ans)
{
	struct imt_error err;
	int found = 0, rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = db_policy_delete(v->db, name, &found, &err);
	if (rc == 0 && found) {
		policies_invalidate(v);
		change_audit(v, op_name, "policy-delete", cause, now);
	}
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "delete policy", &err);
	else if (!found)
		engine_answer_set(ans, ENGINE_UNKNOWN, "no policy \"%s\"",
				  name);
	else
		ans->status = ENGINE_OK;
}

void engine_key_add(struct verifier *v, const struct db_key *k,
		    const char *op_name, const char *cause, int64_t now,
		    struct engine_answer *ans)
{
	struct imt_error err;
	int rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = db_key_add(v->db, k, now, &err);
	if (rc == 0) {
		keyring_invalidate(v);
		change_audit(v, op_name, "key-add", cause, now);
	}
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "add key", &err);
	else
		ans->status = ENGINE_CREATED;
}

void engine_key_delete(struct verifier *v, const char *name,
		       const char *op_name, const char *cause, int64_t now,
		       struct engine_answer *ans)
{
	struct imt_error err;
	int found = 0, rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = db_key_delete(v->db, name, &found, &err);
	if (rc == 0 && found) {
		keyring_invalidate(v);
		change_audit(v, op_name, "key-delete", cause, now);
	}
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "delete key", &err);
	else if (!found)
		engine_answer_set(ans, ENGINE_UNKNOWN,
				  "no key \"%s\" imported on its own (a "
				  "key that came with an import goes with it)",
				  name);
	else
		ans->status = ENGINE_OK;
}

/* How many endpoints there are; whether @name is one, from the config. */
struct webhook_find {
	const char *name; /* the endpoint looked for, or NULL */
	int found, from_config;
	size_t count;
};

static int webhook_find_one(const struct db_webhook *w, void *arg)
{
	struct webhook_find *f = arg;

	f->count++;
	if (f->name != NULL && strcmp(f->name, w->name) == 0) {
		f->found = 1;
		f->from_config = w->from_config;
	}
	return 0;
}

/* The audit entry of a webhook change, @detail consumed (v->lock held). */
static void webhook_audit(struct verifier *v, const char *op_name,
			  const char *action, json_t *detail, int64_t now)
{
	char *text =
		detail != NULL ?
			json_dumps(detail, JSON_COMPACT | JSON_PRESERVE_ORDER) :
			NULL;

	change_audit(v, op_name, action, text, now);
	free(text);
	json_decref(detail);
}

void engine_webhook_add(struct verifier *v, const struct db_webhook_new *n,
			const char *op_name, int64_t now,
			struct engine_answer *ans)
{
	struct webhook_find f = { 0 };
	struct imt_error err;
	int rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = db_webhook_list(v->db, webhook_find_one, &f, &err);
	if (rc == 0 && f.count < ENGINE_WEBHOOKS_MAX)
		rc = db_webhook_add(v->db, n, now, &err);
	if (rc == 0 && f.count < ENGINE_WEBHOOKS_MAX)
		webhook_audit(v, op_name, "webhook-add",
			      json_pack("{s:s,s:s,s:s}", "name", n->name, "url",
					n->url, "key_id", n->key_id),
			      now);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "add webhook", &err);
	else if (f.count >= ENGINE_WEBHOOKS_MAX)
		engine_answer_set(ans, ENGINE_TOO_LARGE,
				  "%d webhook endpoints already",
				  ENGINE_WEBHOOKS_MAX);
	else
		ans->status = ENGINE_CREATED;
}

void engine_webhook_delete(struct verifier *v, const char *name,
			   const char *op_name, int64_t now,
			   struct engine_answer *ans)
{
	struct webhook_find f = { .name = name };
	struct imt_error err;
	int found = 0, rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = db_webhook_list(v->db, webhook_find_one, &f, &err);
	if (rc == 0 && f.found && !f.from_config)
		rc = db_webhook_delete(v->db, name, &found, &err);
	if (rc == 0 && found)
		webhook_audit(v, op_name, "webhook-delete",
			      json_pack("{s:s}", "name", name), now);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "delete webhook", &err);
	else if (f.found && f.from_config)
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "webhook \"%s\" is defined in the config "
				  "file: remove its webhook line and restart",
				  name);
	else if (!found)
		engine_answer_set(ans, ENGINE_UNKNOWN, "no webhook \"%s\"",
				  name);
	else
		ans->status = ENGINE_OK;
}

/* @ans for a rotation of @name that did not happen, said why. */
static void rotation_refused(struct engine_answer *ans, const char *name,
			     enum db_webhook_rotation outcome)
{
	switch (outcome) {
	case DB_WEBHOOK_NO_ENDPOINT:
		engine_answer_set(ans, ENGINE_UNKNOWN, "no webhook \"%s\"",
				  name);
		break;
	case DB_WEBHOOK_FROM_CONFIG:
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "webhook \"%s\" is defined in the config "
				  "file: rotate with secret= and "
				  "secret_previous= there and restart",
				  name);
		break;
	case DB_WEBHOOK_UNDER_WAY:
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "webhook \"%s\": a rotation is under way: "
				  "finish it first (its receivers hold the "
				  "new secret)",
				  name);
		break;
	default:
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "webhook \"%s\": no rotation under way",
				  name);
		break;
	}
}

void engine_webhook_rotate(struct verifier *v, const char *name,
			   const uint8_t *secret, size_t secret_len,
			   const char *key_id, const char *op_name, int64_t now,
			   struct engine_answer *ans)
{
	enum db_webhook_rotation outcome = DB_WEBHOOK_NO_ENDPOINT;
	struct imt_error err;
	int rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	if (secret != NULL)
		rc = db_webhook_rotate(v->db, name, secret, secret_len, key_id,
				       &outcome, &err);
	else
		rc = db_webhook_rotate_finish(v->db, name, &outcome, &err);
	if (rc == 0 && outcome == DB_WEBHOOK_ROTATED)
		webhook_audit(v, op_name,
			      secret != NULL ? "webhook-rotate" :
					       "webhook-rotate-finish",
			      json_pack("{s:s,s:s?}", "name", name, "key_id",
					key_id),
			      now);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "rotate webhook secret", &err);
	else if (outcome != DB_WEBHOOK_ROTATED)
		rotation_refused(ans, name, outcome);
	else
		ans->status = ENGINE_OK;
}

/*
 * The current boot's log approved as @id's baseline (v->lock held): 0
 * with *@found 0 when there is no such machine or log, or -1 with @err.
 */
static int baseline_approve(struct verifier *v, const char *id,
			    const char *op_name, const char *cause, int64_t now,
			    uint8_t *sha256, int *found, struct imt_error *err)
{
	struct db_machine m;
	struct db_boot boot;
	struct db_boot_log log = { 0 };
	int rc;

	*found = 0;
	if (db_machine_get(v->db, id, &m, found, err) < 0)
		return -1;
	if (!*found)
		return 0;
	db_machine_release(&m);
	if (db_boot_current(v->db, id, &boot, found, err) < 0)
		return -1;
	if (*found && db_boot_log_get(v->db, boot.id, 1, &log, found, err) < 0)
		return -1;
	if (!*found)
		return 0;
	rc = db_boot_baseline_approve(v->db, id, log.data, log.len, op_name,
				      now, err);
	if (rc == 0) {
		memcpy(sha256, log.sha256, sizeof(log.sha256));
		change_audit(v, op_name, "boot-baseline", cause, now);
	}
	db_boot_log_release(&log);
	return rc;
}

void engine_boot_baseline(struct verifier *v, const char *id,
			  const char *op_name, const char *cause, int64_t now,
			  uint8_t sha256[DB_BOOT_LOG_SHA256_SIZE],
			  struct engine_answer *ans)
{
	struct imt_error err;
	int found = 0, rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = baseline_approve(v, id, op_name, cause, now, sha256, &found, &err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "approve boot baseline", &err);
	else if (!found)
		engine_answer_set(ans, ENGINE_UNKNOWN,
				  "no machine \"%s\" with a firmware event "
				  "log for its current boot",
				  id);
	else
		ans->status = ENGINE_OK;
}

void engine_efi_import(struct verifier *v, const char *name,
		       const char *version, const struct import_efi *imp,
		       const char *op_name, const char *cause, int64_t now,
		       size_t *added, struct engine_answer *ans)
{
	struct import_efi_rows *rows = malloc(sizeof(*rows));
	struct imt_error err;
	int rc;

	memset(ans, 0, sizeof(*ans));
	*added = 0;
	if (rows == NULL) {
		engine_answer_set(ans, ENGINE_INTERNAL,
				  "not imported: out of memory; nothing stored");
		return;
	}
	import_efi_rows(imp, rows);
	pthread_mutex_lock(&v->lock);
	rc = db_efi_import(v->db, name, version, rows->entry, rows->n, now,
			   added, &err);
	if (rc == 0 && *added > 0)
		change_audit(v, op_name, "import", cause, now);
	pthread_mutex_unlock(&v->lock);
	free(rows);
	if (rc < 0)
		engine_answer_set(ans,
				  err.status == IMT_ERR_MALFORMED ?
					  ENGINE_MALFORMED :
					  ENGINE_INTERNAL,
				  "not imported: %s; nothing stored", err.msg);
	else
		ans->status = ENGINE_OK;
}

int engine_token_check(struct verifier *v, const uint8_t *token, size_t len,
		       struct db_token *tok, int *ok, struct imt_error *err)
{
	int rc;

	pthread_mutex_lock(&v->lock);
	rc = db_token_lookup(v->db, token, len, tok, ok, err);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

void engine_token_touch(struct verifier *v, const char *name, int64_t now,
			int try_only)
{
	struct imt_error err;
	int rc;

	if (try_only) {
		if (pthread_mutex_trylock(&v->lock) != 0)
			return;
	} else {
		pthread_mutex_lock(&v->lock);
	}
	rc = db_token_touch(v->db, name, now, &err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		log_warnx("token %s last used: %s", name, err.msg);
}

X509_STORE *engine_ek_ca_swap(struct verifier *v, X509_STORE *store)
{
	X509_STORE *old;

	pthread_mutex_lock(&v->lock);
	old = v->ek_ca;
	v->ek_ca = store;
	pthread_mutex_unlock(&v->lock);
	if (v->reader != NULL) {
		pthread_mutex_lock(&v->reader->lock);
		v->reader->ek_ca = store;
		pthread_mutex_unlock(&v->reader->lock);
	}
	return old;
}

void engine_config_reload(struct verifier *v, const struct config *next,
			  void (*note)(const char *key, int taken))
{
	pthread_mutex_lock(&v->lock);
	config_reload(&v->cfg, next, note);
	pthread_mutex_unlock(&v->lock);
	if (v->reader != NULL) {
		pthread_mutex_lock(&v->reader->lock);
		config_reload(&v->reader->cfg, &v->cfg, NULL);
		pthread_mutex_unlock(&v->reader->lock);
	}
}
