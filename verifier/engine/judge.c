// SPDX-License-Identifier: GPL-2.0-only
/*
 * judge.c - one record's verdict under the reference digests and policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "boot_baseline.h"
#include "db_boot.h"
#include "db_efi.h"
#include "db_ref.h"
#include "ima_list.h"
#include "tcg_log.h"
#include "hex.h"
#include "history.h"
#include "judge.h"
#include "json_text.h"
#include "keyring.h"
#include "log.h"
#include "policies.h"

static enum db_verdict lookup_verdict(struct verifier *v,
				      const struct policy *p,
				      enum db_ref_class cls)
{
	switch (cls) {
	case DB_REF_KNOWN:
		return DB_VERDICT_KNOWN;
	case DB_REF_MISMATCH_CONFFILE:
		return p->conffiles == POLICY_CONFFILES_ANY ?
			       DB_VERDICT_KNOWN :
			       DB_VERDICT_MISMATCH;
	case DB_REF_MISMATCH:
		return DB_VERDICT_MISMATCH;
	case DB_REF_KNOWN_ANY_PATH:
		return policies_any_path_allowed(v, p) ? DB_VERDICT_KNOWN :
							 DB_VERDICT_UNKNOWN;
	default:
		return DB_VERDICT_UNKNOWN;
	}
}

int judge_record(struct verifier *v, const struct policy *p,
		 const struct judge_input *in, enum db_verdict *verdict,
		 struct imt_error *err)
{
	struct keyring_check kc;
	enum db_ref_class cls;

	if (in->violation) {
		*verdict = DB_VERDICT_VIOLATION;
		return 0;
	}
	if (in->boot_aggregate) {
		*verdict = DB_VERDICT_EXCLUDED;
		return 0;
	}
	/* no digest, or no name (no reference can name it): unknown */
	if (in->algo == NULL || in->digest == NULL || in->path == NULL ||
	    in->path[0] == '\0') {
		*verdict = DB_VERDICT_UNKNOWN;
		return 0;
	}
	if (policy_excluded(p, in->path) != NULL) {
		*verdict = DB_VERDICT_EXCLUDED;
		return 0;
	}
	keyring_check(v, p, in->sig, in->sig_len, in->algo, in->digest,
		      in->digest_len, &kc);
	if (kc.result == KEYRING_GOOD || kc.result == KEYRING_BAD) {
		*verdict = kc.result == KEYRING_GOOD ? DB_VERDICT_SIGNED :
						       DB_VERDICT_BAD_SIGNATURE;
		return 0;
	}
	if (db_ref_lookup_policy(v->db, p->name, in->path, in->algo, in->digest,
				 in->digest_len, &cls, err) < 0)
		return -1;
	*verdict = lookup_verdict(v, p, cls);
	return 0;
}

int judge_acceptable(const struct verifier *v, const struct policy *p,
		     enum db_verdict verdict)
{
	switch (verdict) {
	case DB_VERDICT_KNOWN:
	case DB_VERDICT_EXCLUDED:
	case DB_VERDICT_SIGNED:
		return 1;
	case DB_VERDICT_VIOLATION:
		return policies_violations_allowed(v, p);
	default:
		return 0;
	}
}

/*
 * A path is bytes, not necessarily UTF-8, and JSON text must be: bytes
 * outside printable ASCII become "\xNN" (as text), so the reason is
 * always valid and still names the file. Cut at @max bytes of output.
 */
static void printable_path(const char *path, char *out, size_t max)
{
	size_t o = 0;

	for (; path != NULL && *path != '\0' && o + 5 < max; path++)
		o += text_byte_printable((unsigned char)*path, out + o);
	out[o] = '\0';
}

/* Why a record is not acceptable, in words an operator can act on. */
static void why_not(const struct policy *p, const struct judge_input *in,
		    enum db_verdict verdict, const struct keyring_check *kc,
		    char *out, size_t max)
{
	switch (verdict) {
	case DB_VERDICT_BAD_SIGNATURE:
		snprintf(out, max,
			 "its IMA signature (key %08x, %s) does "
			 "not verify: %s",
			 kc->keyid, kc->key, kc->why);
		break;
	case DB_VERDICT_MISMATCH:
		snprintf(out, max,
			 "no imported package or other source "
			 "of policy %s provides this file with this digest "
			 "(they list other digests for its path)",
			 p->name);
		break;
	case DB_VERDICT_VIOLATION:
		snprintf(out, max,
			 "a measurement violation (a file changed "
			 "while measured, or read while open for writing); "
			 "policy %s does not allow violations",
			 p->name);
		break;
	default:
		if (kc->result == KEYRING_UNKNOWN_KEY)
			snprintf(out, max,
				 "signed by key %08x, which is not "
				 "a key of policy %s, and no source of it "
				 "provides this file",
				 kc->keyid, p->name);
		else if (in->path != NULL && in->path[0] == '/')
			snprintf(out, max,
				 "no source of policy %s (no "
				 "imported package, list, tree or key) "
				 "provides this file",
				 p->name);
		else
			snprintf(out, max,
				 "no buffer reference of policy %s "
				 "names this buffer",
				 p->name);
		break;
	}
}

void judge_reason(struct verifier *v, const struct policy *p, uint64_t index,
		  const struct judge_input *in, enum db_verdict verdict,
		  char out[JUDGE_REASON_MAX])
{
	char digest[2 * DB_DIGEST_MAX + 32] = "", path[512], why[512];
	struct keyring_check kc = { .result = KEYRING_NO_SIGNATURE };
	json_t *j;
	char *s;

	if (in->algo != NULL && in->digest != NULL &&
	    in->digest_len <= DB_DIGEST_MAX) {
		size_t n = (size_t)snprintf(digest, sizeof(digest),
					    "%s:", in->algo);

		if (n + 2 * in->digest_len < sizeof(digest))
			hex_encode(in->digest, in->digest_len, digest + n);
	}
	if (in->sig != NULL && in->algo != NULL && in->digest != NULL)
		keyring_check(v, p, in->sig, in->sig_len, in->algo, in->digest,
			      in->digest_len, &kc);
	printable_path(in->path, path, sizeof(path));
	why_not(p, in, verdict, &kc, why, sizeof(why));
	j = json_pack("{s:s,s:I,s:s,s:s,s:s,s:s,s:s}", "check", "record",
		      "index", (json_int_t)index, "path", path, "digest",
		      digest, "verdict", db_verdict_name(verdict), "policy",
		      p->name, "why", why);
	if (j != NULL && kc.result != KEYRING_NO_SIGNATURE) {
		char id[9];

		snprintf(id, sizeof(id), "%08x", kc.keyid);
		json_object_set_new(j, "keyid", json_string(id));
	}
	s = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;
	snprintf(out, JUDGE_REASON_MAX, "%s",
		 s != NULL && strlen(s) < JUDGE_REASON_MAX ?
			 s :
			 "{\"check\":\"record\"}");
	free(s);
	json_decref(j);
}

static json_t *explain_ref(struct verifier *v, const struct policy *p,
			   const struct judge_input *in)
{
	struct db_ref_origin o;
	struct imt_error err;
	char src[DB_NAME_MAX + 32];
	json_t *j;
	int found;

	if (db_ref_origin(v->db, p->name, in->path, in->algo, in->digest,
			  in->digest_len, policies_any_path_allowed(v, p),
			  p->conffiles == POLICY_CONFFILES_ANY, &o, &found,
			  &err) < 0 ||
	    !found)
		return json_pack("{s:s}", "source", "none");
	snprintf(src, sizeof(src), "%s:%s", db_source_kind_name(o.kind),
		 o.name);
	j = json_pack("{s:s}", "source", src);
	if (j != NULL && o.package[0] != '\0') {
		json_object_set_new(j, "package", json_string(o.package));
		json_object_set_new(j, "version", json_string(o.version));
		json_object_set_new(j, "arch", json_string(o.arch));
	}
	if (j != NULL && o.conffile)
		json_object_set_new(j, "conffile", json_true());
	if (j != NULL && o.other_path)
		json_object_set_new(j, "other_path", json_true());
	return j;
}

json_t *judge_explain(struct verifier *v, const struct policy *p,
		      const struct judge_input *in, enum db_verdict verdict)
{
	const struct policy_rule *r;
	struct keyring_check kc;
	char text[DB_PATH_MAX + 16], id[9];

	switch (verdict) {
	case DB_VERDICT_KNOWN:
		return explain_ref(v, p, in);
	case DB_VERDICT_EXCLUDED:
		if (in->boot_aggregate || in->path == NULL ||
		    ima_name_is_boot_aggregate(in->path, strlen(in->path)))
			return json_pack("{s:s}", "check",
					 "boot_aggregate against PCRs 0-9");
		r = policy_excluded(p, in->path);
		if (r == NULL)
			return json_pack("{s:s}", "rule", "none");
		policy_rule_text(r, text, sizeof(text));
		return r->source != NULL ? json_pack("{s:s,s:s}", "rule", text,
						     "source", r->source) :
					   json_pack("{s:s}", "rule", text);
	case DB_VERDICT_SIGNED:
		keyring_check(v, p, in->sig, in->sig_len, in->algo, in->digest,
			      in->digest_len, &kc);
		snprintf(id, sizeof(id), "%08x", kc.keyid);
		return json_pack("{s:s,s:s}", "key", kc.key, "keyid", id);
	case DB_VERDICT_VIOLATION:
		return json_pack("{s:s}", "policy",
				 policies_violations_allowed(v, p) ?
					 "violations=allow" :
					 "violations=untrusted");
	default:
		return json_object();
	}
}

char *judge_check_reason(const char *check, const char *message)
{
	json_t *j = json_pack("{s:s,s:s}", "check", check, "message", message);
	char *s = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	return s;
}

int judge_copy_set(struct judge_copy *c, const struct db_record *r)
{
	memset(c, 0, sizeof(*c));
	c->index = r->index;
	c->verdict = r->verdict;
	c->path = strdup(r->path != NULL ? r->path : "");
	c->algo = r->digest_algo != NULL ? strdup(r->digest_algo) : NULL;
	if (r->digest != NULL && r->digest_len <= DB_DIGEST_MAX) {
		memcpy(c->digest, r->digest, r->digest_len);
		c->digest_len = r->digest_len;
	}
	if (r->sig != NULL && r->sig_len > 0) {
		c->sig = malloc(r->sig_len);
		if (c->sig != NULL) {
			memcpy(c->sig, r->sig, r->sig_len);
			c->sig_len = r->sig_len;
		}
	}
	if (c->path == NULL || (r->digest_algo != NULL && c->algo == NULL) ||
	    (r->sig != NULL && r->sig_len > 0 && c->sig == NULL))
		return -1;
	return 0;
}

void judge_copy_free(struct judge_copy *c)
{
	free(c->path);
	free(c->algo);
	free(c->sig);
	c->path = c->algo = NULL;
	c->sig = NULL;
}

void judge_input_of(const struct judge_copy *c, struct judge_input *in)
{
	*in = (struct judge_input){
		.path = c->path,
		.algo = c->algo,
		.digest = c->digest_len > 0 ? c->digest : NULL,
		.digest_len = c->digest_len,
		.sig = c->sig,
		.sig_len = c->sig_len,
		.boot_aggregate = ima_is_boot_aggregate(c->index, c->path,
							strlen(c->path)),
		.violation = c->verdict == DB_VERDICT_VIOLATION,
	};
}

struct first_bad {
	struct verifier *v;
	const struct policy *p;
	int found;
	char *reason;
};

static int find_bad(int64_t boot_id, const struct db_record *rec, void *arg)
{
	struct first_bad *fb = arg;
	struct judge_input in = {
		.path = rec->path,
		.algo = rec->digest_algo,
		.digest = rec->digest,
		.digest_len = rec->digest_len,
		.sig = rec->sig,
		.sig_len = rec->sig_len,
	};

	(void)boot_id;
	if (judge_acceptable(fb->v, fb->p, rec->verdict))
		return 0;
	fb->found = 1;
	judge_reason(fb->v, fb->p, rec->index, &in, rec->verdict, fb->reason);
	return 1;
}

int judge_boot(struct verifier *v, const struct policy *p, int64_t boot_id,
	       uint64_t nrecords, int *ok, char reason[JUDGE_REASON_MAX],
	       struct imt_error *err)
{
	struct first_bad fb = { v, p, 0, reason };
	struct db_boot b;
	uint64_t from;
	int found;

	reason[0] = '\0';
	/* records deleted before they were stored: the policy's word first */
	if (db_boot_get(v->db, boot_id, &b, &found, err) < 0)
		return -1;
	if (found && !history_judge(p, &b, reason)) {
		*ok = 0;
		return 0;
	}
	reason[0] = '\0';
	/* unknown and mismatch are indexed: the common question is cheap */
	if (db_record_list(v->db, boot_id, 0, 1, 1, find_bad, &fb, err) < 0)
		return -1;
	/* violations are only unacceptable by policy: scan for them then */
	for (from = 0;
	     !fb.found && !judge_acceptable(v, p, DB_VERDICT_VIOLATION) &&
	     from < nrecords;
	     from += DB_LIST_MAX) {
		if (db_record_list(v->db, boot_id, from, DB_LIST_MAX, 0,
				   find_bad, &fb, err) < 0)
			return -1;
	}
	*ok = !fb.found;
	if (!*ok)
		return 0;
	return judge_boot_log(v, p, boot_id, ok, reason, err);
}

/* For boot_policy_judge(): is an EFI application's digest in an efi:
 * source that policy @p selects? */
struct app_lookup {
	struct verifier *v;
	const struct policy *p;
};

static int app_known(void *ctx, const char *algo, const uint8_t *digest,
		     size_t len, char *source, size_t source_len)
{
	struct app_lookup *l = ctx;
	struct db_efi_hit hit;
	struct imt_error err;
	char name[DB_NAME_MAX + 8];
	int rc;

	rc = db_efi_find(l->v->db, algo, digest, len, &hit, &err);
	if (rc < 0)
		log_warnx("efi reference lookup: %s", err.msg);
	if (rc <= 0)
		return rc;
	snprintf(name, sizeof(name), "efi:%s", hit.source);
	snprintf(source, source_len, "%s", name);
	return policy_selects(l->p, name);
}

/*
 * A log in hand (NULL: the boot has none) under @p's boot section, then,
 * with "baseline": "first-boot", against the machine's baseline @b (NULL:
 * none yet, so this log is about to become it: nothing to say).
 * 1 passes, 0 not (@reason), -1 failure.
 */
static int judge_log(struct verifier *v, const struct policy *p,
		     const uint8_t *log, size_t len,
		     const struct db_boot_baseline *b,
		     char reason[JUDGE_REASON_MAX], struct imt_error *err)
{
	struct app_lookup l = { v, p };
	int rc;

	rc = boot_policy_judge(&p->boot, p->name, log, len, app_known, &l,
			       reason, JUDGE_REASON_MAX, err);
	if (rc == 1 && log != NULL && b != NULL &&
	    p->boot.baseline_first_boot && !tcg_log_legacy(log, len) &&
	    (b->len != len || memcmp(b->data, log, len) != 0))
		rc = boot_baseline_judge(p->name, log, len, b->data, b->len,
					 b->approved_by, reason,
					 JUDGE_REASON_MAX, err);
	return rc;
}

int judge_boot_log(struct verifier *v, const struct policy *p, int64_t boot_id,
		   int *ok, char reason[JUDGE_REASON_MAX],
		   struct imt_error *err)
{
	struct db_boot_baseline b = { 0 };
	struct db_boot_log log = { 0 };
	int found = 0, have_b = 0, rc = 1;

	if (p->boot.present &&
	    (db_boot_log_get(v->db, boot_id, 1, &log, &found, err) < 0 ||
	     (found && p->boot.baseline_first_boot &&
	      db_boot_baseline_of_boot(v->db, boot_id, 1, &b, &have_b, err) <
		      0)))
		rc = -1;
	else if (p->boot.present)
		rc = judge_log(v, p, found ? log.data : NULL,
			       found ? log.len : 0, have_b ? &b : NULL, reason,
			       err);
	db_boot_baseline_release(&b);
	db_boot_log_release(&log);
	*ok = rc != 0;
	return rc < 0 ? -1 : 0;
}

int judge_boot_log_data(struct verifier *v, const struct policy *p,
			const uint8_t *log, size_t len, const char *machine,
			int *ok, char reason[JUDGE_REASON_MAX],
			struct imt_error *err)
{
	struct db_boot_baseline b = { 0 };
	int have_b = 0, rc = 1;

	if (p->boot.present && log != NULL && machine != NULL &&
	    p->boot.baseline_first_boot &&
	    db_boot_baseline_get(v->db, machine, 1, &b, &have_b, err) < 0)
		rc = -1;
	else if (p->boot.present)
		rc = judge_log(v, p, log, len, have_b ? &b : NULL, reason, err);
	db_boot_baseline_release(&b);
	*ok = rc != 0;
	return rc < 0 ? -1 : 0;
}
