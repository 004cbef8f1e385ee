// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_policy.c - a named policy's "boot" section (boot_policy.h): parse,
 * serve, and judge a boot's firmware event log by it.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "boot_policy.h"
#include "hash_algo.h"
#include "hex.h"
#include "policy_choice.h"
#include "tcg_log.h"

static const char *const var_keys[BOOT_VAR_COUNT] = {
	[BOOT_VAR_PK] = "pk",
	[BOOT_VAR_KEK] = "kek",
	[BOOT_VAR_DB] = "db",
	[BOOT_VAR_DBX] = "dbx",
};

/* A malformed "boot" section: @err filled, -1. */
#define bad(err, ...) \
	(imt_error_set((err), IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS, \
		       __VA_ARGS__), \
	 -1)

/* "boot.KEY": @no or absent -> 0, @yes -> 1. */
static int choice(json_t *j, const char *key, const char *no, const char *yes,
		  int *out, struct imt_error *err)
{
	int rc = policy_choice(j, "boot", key, no, yes, out, err);

	*out = *out == 1;
	return rc;
}

static int certs(json_t *j, const char *key, struct boot_policy_certs *c,
		 struct imt_error *err)
{
	json_t *arr = json_object_get(j, key), *it;
	size_t i;

	if (arr == NULL)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) > BOOT_POLICY_CERTS_MAX)
		return bad(err,
			   "boot.%s: not a list of at most %d SHA-256 "
			   "digests",
			   key, BOOT_POLICY_CERTS_MAX);
	c->set = 1;
	json_array_foreach(arr, i, it) {
		const char *s = json_string_value(it);

		if (s == NULL || strlen(s) != 64 ||
		    hex_decode(s, 64, c->sha256[i], 32) != 32)
			return bad(err,
				   "boot.%s[%zu]: not 64 hex digits (the "
				   "SHA-256 of a certificate or a hash)",
				   key, i);
		c->n = i + 1;
	}
	return 0;
}

static int globs(json_t *j, struct boot_policy *bp, struct imt_error *err)
{
	json_t *arr = json_object_get(j, "cmdline"), *it;
	size_t i;

	if (arr == NULL)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) == 0 ||
	    json_array_size(arr) > BOOT_POLICY_GLOBS_MAX)
		return bad(err, "boot.cmdline: not a list of 1 to %d patterns",
			   BOOT_POLICY_GLOBS_MAX);
	json_array_foreach(arr, i, it) {
		const char *s = json_string_value(it);

		if (s == NULL || s[0] == '\0' ||
		    strlen(s) > BOOT_POLICY_GLOB_MAX)
			return bad(err,
				   "boot.cmdline[%zu]: not a pattern of 1 "
				   "to %d bytes",
				   i, BOOT_POLICY_GLOB_MAX);
		bp->cmdline[i] = strdup(s);
		if (bp->cmdline[i] == NULL)
			return bad(err, "out of memory");
		bp->ncmdline = i + 1;
	}
	return 0;
}

/* "PCR" of "pcrs": 0-9 or 11-23, in decimal without leading zeros. */
static int pcr_key(const char *key)
{
	char *end;
	long n;

	if (key[0] < '0' || key[0] > '9' || (key[0] == '0' && key[1] != '\0'))
		return -1;
	n = strtol(key, &end, 10);
	if (*end != '\0' || n < 0 || n >= BOOT_POLICY_PCRS ||
	    n == BOOT_POLICY_IMA_PCR)
		return -1;
	return (int)n;
}

/* "pcrs": {"PCR": [SHA-256 hex, ..]}. */
static int pcr_rules(json_t *j, struct boot_policy *bp, struct imt_error *err)
{
	json_t *obj = json_object_get(j, "pcrs"), *arr, *it;
	struct boot_policy_pcr *r;
	const char *key;
	size_t i;
	int pcr;

	if (obj == NULL)
		return 0;
	if (!json_is_object(obj))
		return bad(err, "boot.pcrs: not an object of PCR to a list of "
				"SHA-256 values");
	json_object_foreach(obj, key, arr) {
		pcr = pcr_key(key);
		if (pcr < 0)
			return bad(err,
				   "boot.pcrs.%.8s: not a PCR 0-9 or 11-23 "
				   "(PCR 10 is IMA's)",
				   key);
		if (!json_is_array(arr) || json_array_size(arr) == 0 ||
		    json_array_size(arr) > BOOT_POLICY_PCR_VALUES_MAX)
			return bad(err,
				   "boot.pcrs.%d: not a list of 1 to %d "
				   "SHA-256 values",
				   pcr, BOOT_POLICY_PCR_VALUES_MAX);
		r = &bp->pcrs[pcr];
		json_array_foreach(arr, i, it) {
			const char *h = json_string_value(it);

			if (h == NULL || strlen(h) != 64 ||
			    hex_decode(h, 64, r->sha256[i], 32) != 32)
				return bad(err,
					   "boot.pcrs.%d[%zu]: not 64 hex "
					   "digits (the PCR's sha256 value)",
					   pcr, i);
			r->n = i + 1;
		}
	}
	return 0;
}

/* A UKI section's name: a dot and 1 to 7 printable ASCII characters. */
static int section_key(const char *key)
{
	size_t i, n = strlen(key);

	if (n < 2 || n >= BOOT_FACTS_SECTION_MAX || key[0] != '.')
		return 0;
	for (i = 1; i < n; i++) {
		if (key[i] < 0x21 || key[i] > 0x7e)
			return 0;
	}
	return 1;
}

/* "uki"[i]: {"name": N, ".SECTION": SHA-256 hex, ..}. */
static int uki_entry(json_t *o, size_t i, struct boot_policy_uki *u,
		     struct imt_error *err)
{
	const char *key, *h;
	json_t *val;

	if (!json_is_object(o))
		return bad(err,
			   "boot.uki[%zu]: not an object of \"name\" and "
			   "the sections' SHA-256 digests",
			   i);
	json_object_foreach(o, key, val) {
		h = json_string_value(val);
		if (strcmp(key, "name") == 0) {
			if (h == NULL || h[0] == '\0' ||
			    strlen(h) > BOOT_POLICY_UKI_NAME_MAX)
				return bad(err,
					   "boot.uki[%zu].name: not a name "
					   "of 1 to %d bytes",
					   i, BOOT_POLICY_UKI_NAME_MAX);
			snprintf(u->name, sizeof(u->name), "%s", h);
			continue;
		}
		if (!section_key(key) || u->n == BOOT_FACTS_UKI_MAX)
			return bad(err,
				   "boot.uki[%zu].%.16s: not \"name\" nor a "
				   "section (\".linux\": a dot and 1 to 7 "
				   "characters; at most %d sections)",
				   i, key, BOOT_FACTS_UKI_MAX);
		if (h == NULL || strlen(h) != 64 ||
		    hex_decode(h, 64, u->sha256[u->n], 32) != 32)
			return bad(err,
				   "boot.uki[%zu]%s: not 64 hex digits (the "
				   "SHA-256 of the section's contents)",
				   i, key);
		snprintf(u->section[u->n++], BOOT_FACTS_SECTION_MAX, "%s", key);
	}
	if (u->name[0] == '\0' || u->n == 0)
		return bad(err, "boot.uki[%zu]: needs a \"name\" and a section",
			   i);
	return 0;
}

/* "uki": [{"name": N, ".SECTION": SHA-256 hex, ..}, ..]. */
static int uki_rules(json_t *j, struct boot_policy *bp, struct imt_error *err)
{
	json_t *arr = json_object_get(j, "uki"), *it;
	size_t i;

	if (arr == NULL)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) == 0 ||
	    json_array_size(arr) > BOOT_POLICY_UKIS_MAX)
		return bad(err, "boot.uki: not a list of 1 to %d allowed UKIs",
			   BOOT_POLICY_UKIS_MAX);
	json_array_foreach(arr, i, it) {
		if (uki_entry(it, i, &bp->uki[i], err) < 0)
			return -1;
		bp->nuki = i + 1;
	}
	return 0;
}

/* "sbat_level": {"COMPONENT": least generation, ..}. */
static int sbat_rules(json_t *j, struct boot_policy *bp, struct imt_error *err)
{
	json_t *obj = json_object_get(j, "sbat_level"), *val;
	const char *key;

	if (obj == NULL)
		return 0;
	if (!json_is_object(obj) || json_object_size(obj) == 0 ||
	    json_object_size(obj) > BOOT_POLICY_SBAT_MAX)
		return bad(err,
			   "boot.sbat_level: not an object of 1 to %d "
			   "components to their least generation",
			   BOOT_POLICY_SBAT_MAX);
	json_object_foreach(obj, key, val) {
		struct boot_policy_sbat *r = &bp->sbat[bp->nsbat];

		if (key[0] == '\0' || strlen(key) > BOOT_POLICY_SBAT_NAME_MAX ||
		    strpbrk(key, ",\n") != NULL)
			return bad(err,
				   "boot.sbat_level.%.32s: not an SBAT "
				   "component name of 1 to %d bytes",
				   key, BOOT_POLICY_SBAT_NAME_MAX);
		if (!json_is_integer(val) || json_integer_value(val) < 0)
			return bad(err,
				   "boot.sbat_level.%s: not a generation (a "
				   "whole number; for \"sbat\" its date, "
				   "2023012900)",
				   key);
		snprintf(r->name, sizeof(r->name), "%s", key);
		r->min = json_integer_value(val);
		bp->nsbat++;
	}
	return 0;
}

int boot_policy_parse(json_t *j, struct boot_policy *bp, struct imt_error *err)
{
	static const char *const known[] = {
		"log",	"legacy_log", "secure_boot",  "pk",	     "kek",
		"db",	"dbx",	      "applications", "cmdline",     "baseline",
		"pcrs", "uki",	      "sbat_level",   "authorities", NULL,
	};
	const char *key;
	json_t *val;
	size_t i;

	if (j == NULL)
		return 0;
	if (!json_is_object(j))
		return bad(err, "boot: not an object");
	json_object_foreach(j, key, val) {
		for (i = 0; known[i] != NULL && strcmp(known[i], key) != 0; i++)
			;
		if (known[i] == NULL)
			return bad(err,
				   "boot.%s: not a boot policy field "
				   "(known: log, legacy_log, secure_boot, pk, "
				   "kek, db, dbx, applications, cmdline, "
				   "baseline, pcrs, uki, sbat_level, "
				   "authorities)",
				   key);
	}
	bp->present = 1;
	if (choice(j, "log", "optional", "required", &bp->log_required, err) <
		    0 ||
	    choice(j, "legacy_log", "allow", "refuse", &bp->legacy_log_refused,
		   err) < 0 ||
	    choice(j, "secure_boot", "any", "required",
		   &bp->secure_boot_required, err) < 0 ||
	    choice(j, "applications", "any", "references",
		   &bp->applications_referenced, err) < 0 ||
	    choice(j, "baseline", "none", "first-boot",
		   &bp->baseline_first_boot, err) < 0 ||
	    globs(j, bp, err) < 0 || pcr_rules(j, bp, err) < 0 ||
	    uki_rules(j, bp, err) < 0 || sbat_rules(j, bp, err) < 0 ||
	    certs(j, "authorities", &bp->authorities, err) < 0)
		return -1;
	for (i = 0; i < BOOT_VAR_COUNT; i++) {
		if (certs(j, var_keys[i], &bp->vars[i], err) < 0)
			return -1;
	}
	return 0;
}

/* "pcrs", when the policy names a PCR, into @j. */
static void pcr_rules_to_json(const struct boot_policy *bp, json_t *j)
{
	json_t *o = json_object(), *arr;
	char hex[65], key[4];
	size_t p, k;

	for (p = 0; o != NULL && p < BOOT_POLICY_PCRS; p++) {
		if (bp->pcrs[p].n == 0)
			continue;
		arr = json_array();
		for (k = 0; arr != NULL && k < bp->pcrs[p].n; k++) {
			hex_encode(bp->pcrs[p].sha256[k], 32, hex);
			json_array_append_new(arr, json_string(hex));
		}
		snprintf(key, sizeof(key), "%zu", p);
		json_object_set_new(o, key, arr);
	}
	if (json_object_size(o) > 0)
		json_object_set_new(j, "pcrs", o);
	else
		json_decref(o);
}

/* "uki", when the policy has it, into @j. */
static void uki_to_json(const struct boot_policy *bp, json_t *j)
{
	json_t *arr = bp->nuki > 0 ? json_array() : NULL, *o;
	char hex[65];
	size_t i, k;

	if (arr == NULL)
		return;
	for (i = 0; i < bp->nuki; i++) {
		o = json_pack("{s:s}", "name", bp->uki[i].name);
		for (k = 0; o != NULL && k < bp->uki[i].n; k++) {
			hex_encode(bp->uki[i].sha256[k], 32, hex);
			json_object_set_new(o, bp->uki[i].section[k],
					    json_string(hex));
		}
		json_array_append_new(arr, o);
	}
	json_object_set_new(j, "uki", arr);
}

/* "sbat_level", "authorities", when the policy has them, into @j. */
static void shim_to_json(const struct boot_policy *bp, json_t *j)
{
	json_t *o = bp->nsbat > 0 ? json_object() : NULL, *arr;
	char hex[65];
	size_t i;

	for (i = 0; o != NULL && i < bp->nsbat; i++)
		json_object_set_new(o, bp->sbat[i].name,
				    json_integer(bp->sbat[i].min));
	if (o != NULL)
		json_object_set_new(j, "sbat_level", o);
	arr = bp->authorities.set ? json_array() : NULL;
	for (i = 0; arr != NULL && i < bp->authorities.n; i++) {
		hex_encode(bp->authorities.sha256[i], 32, hex);
		json_array_append_new(arr, json_string(hex));
	}
	if (arr != NULL)
		json_object_set_new(j, "authorities", arr);
}

json_t *boot_policy_to_json(const struct boot_policy *bp)
{
	json_t *j, *arr;
	char hex[65];
	size_t i, k;

	if (!bp->present)
		return NULL;
	j = json_pack("{s:s,s:s,s:s,s:s,s:s}", "log",
		      bp->log_required ? "required" : "optional", "legacy_log",
		      bp->legacy_log_refused ? "refuse" : "allow",
		      "secure_boot",
		      bp->secure_boot_required ? "required" : "any",
		      "applications",
		      bp->applications_referenced ? "references" : "any",
		      "baseline",
		      bp->baseline_first_boot ? "first-boot" : "none");
	for (i = 0; j != NULL && i < BOOT_VAR_COUNT; i++) {
		if (!bp->vars[i].set)
			continue;
		arr = json_array();
		for (k = 0; arr != NULL && k < bp->vars[i].n; k++) {
			hex_encode(bp->vars[i].sha256[k], 32, hex);
			json_array_append_new(arr, json_string(hex));
		}
		json_object_set_new(j, var_keys[i], arr);
	}
	if (j != NULL && bp->ncmdline > 0) {
		arr = json_array();
		for (k = 0; arr != NULL && k < bp->ncmdline; k++)
			json_array_append_new(arr, json_string(bp->cmdline[k]));
		json_object_set_new(j, "cmdline", arr);
	}
	if (j != NULL) {
		pcr_rules_to_json(bp, j);
		uki_to_json(bp, j);
		shim_to_json(bp, j);
	}
	return j;
}

void boot_policy_free(struct boot_policy *bp)
{
	size_t i;

	for (i = 0; i < bp->ncmdline; i++)
		free(bp->cmdline[i]);
	bp->ncmdline = 0;
}

/* The reason of a violation; @extra adds fields (may be NULL). */
static int violate(char *reason, size_t max, const char *policy,
		   const char *rule, json_t *extra, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int violate(char *reason, size_t max, const char *policy,
		   const char *rule, json_t *extra, const char *fmt, ...)
{
	char why[512];
	json_t *j;
	char *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	j = extra != NULL ? extra : json_object();
	json_object_set_new(j, "check", json_string("boot"));
	json_object_set_new(j, "rule", json_string(rule));
	json_object_set_new(j, "policy", json_string(policy));
	json_object_set_new(j, "why", json_string(why));
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	snprintf(reason, max, "%s",
		 s != NULL ? s :
			     "{\"check\":\"boot\",\"why\":\"out of memory\"}");
	free(s);
	return 0;
}

#define NAME_SHOWN 64 /* bytes of a logged variable name shown */

/* @name (as logged, any length) cut to NAME_SHOWN bytes on a UTF-8
 * boundary: a reason is JSON of at most JUDGE_REASON_MAX bytes. */
static void shown_name(const char *name, char out[NAME_SHOWN + 1])
{
	size_t k = strlen(name);

	if (k > NAME_SHOWN) {
		k = NAME_SHOWN;
		while (k > 0 && (name[k] & 0xc0) == 0x80)
			k--;
	}
	memcpy(out, name, k);
	out[k] = '\0';
}

/*
 * "event N (PCR P, TYPE, NAME) does not hash to its sha256 digest": why a
 * fact read from event @r is unknown.
 */
static void unknown_why(const struct boot_event_ref *r, char *buf, size_t n)
{
	const struct hash_algo *a = hash_algo_by_tpm(r->bad_alg);
	const char *tn = tcg_event_type_name(r->type);
	char name[NAME_SHOWN + 1];
	char what[64];

	shown_name(r->name, name);
	if (r->why == BOOT_UNDECODABLE)
		snprintf(what, sizeof(what), "does not decode");
	else if (a != NULL)
		snprintf(what, sizeof(what), "does not hash to its %s digest",
			 a->name);
	else
		snprintf(what, sizeof(what),
			 "has no digest the verifier "
			 "computes");
	snprintf(buf, n, "event %zu (PCR %u, %s%s%s) %s", r->index, r->pcr,
		 tn != NULL ? tn : "?", name[0] ? ", " : "", name, what);
}

/* The fields naming event @r in a reason. */
static json_t *event_fields(const struct boot_event_ref *r)
{
	const char *tn = tcg_event_type_name(r->type);
	char name[NAME_SHOWN + 1];

	shown_name(r->name, name);
	return json_pack("{s:i,s:i,s:s,s:s}", "event", (int)r->index, "pcr",
			 (int)r->pcr, "type", tn != NULL ? tn : "?", "variable",
			 name);
}

/* A rule that needs a fact event @r made unknown refuses, naming it. */
static int refuse_unknown(char *reason, size_t max, const char *policy,
			  const char *rule, const char *fact,
			  const struct boot_event_ref *r)
{
	char why[256];

	unknown_why(r, why, sizeof(why));
	return violate(reason, max, policy, rule, event_fields(r),
		       "%s is unknown: %s", fact, why);
}

static int listed(const struct boot_policy_certs *c, const uint8_t *d)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (memcmp(c->sha256[i], d, 32) == 0)
			return 1;
	}
	return 0;
}

/* PK, KEK, db: every X.509 entry listed; dbx: every listed one there. */
static int judge_vars(const struct boot_policy *bp, const char *policy,
		      const struct boot_facts *f, char *reason, size_t max)
{
	char hex[65];
	size_t v, i;

	for (v = 0; v < BOOT_VAR_COUNT; v++) {
		const struct boot_var_facts *vf = &f->vars[v];
		const struct boot_policy_certs *c = &bp->vars[v];

		if (!c->set)
			continue;
		if (vf->unknown != BOOT_KNOWN)
			return refuse_unknown(reason, max, policy, var_keys[v],
					      boot_var_name(v), &vf->event);
		/* an event relabelled to a type not read hides a variable */
		if (!vf->measured)
			return violate(reason, max, policy, var_keys[v],
				       json_pack("{s:i}", "pcr", 7),
				       "%s is not measured", boot_var_name(v));
		if (vf->total > vf->count)
			return violate(reason, max, policy, var_keys[v], NULL,
				       "%s has %zu entries, more than the %d "
				       "the verifier reads",
				       boot_var_name(v), vf->total,
				       BOOT_FACTS_CERTS_MAX);
		if (v == BOOT_VAR_DBX) {
			for (i = 0; i < c->n; i++) {
				size_t k;

				for (k = 0; k < vf->count; k++) {
					if (memcmp(vf->certs[k].sha256,
						   c->sha256[i], 32) == 0)
						break;
				}
				if (k == vf->count) {
					hex_encode(c->sha256[i], 32, hex);
					return violate(reason, max, policy,
						       "dbx",
						       json_pack("{s:i,s:s}",
								 "pcr", 7,
								 "digest", hex),
						       "dbx lacks the revocation %s",
						       hex);
				}
			}
			continue;
		}
		for (i = 0; i < vf->count; i++) {
			if (vf->certs[i].kind != EFI_SIG_X509 ||
			    listed(c, vf->certs[i].sha256))
				continue;
			hex_encode(vf->certs[i].sha256, 32, hex);
			return violate(reason, max, policy, var_keys[v],
				       json_pack("{s:i,s:s,s:s}", "pcr", 7,
						 "digest", hex, "subject",
						 vf->certs[i].cn),
				       "%s holds a certificate the policy "
				       "does not list (CN=%s)",
				       boot_var_name(v), vf->certs[i].cn);
		}
	}
	return 1;
}

static int judge_apps(const struct boot_policy *bp, const char *policy,
		      const struct boot_facts *f,
		      boot_policy_app_known app_known, void *ctx, char *reason,
		      size_t max, struct imt_error *err)
{
	char hex[2 * HASH_ALGO_MAX_SIZE + 1], src[128], dig[160];
	const struct hash_algo *algo;
	size_t i, k;
	int rc;

	if (!bp->applications_referenced)
		return 1;
	if (f->apps_total > f->napps)
		return violate(reason, max, policy, "applications", NULL,
			       "%zu EFI applications, more than the %d the "
			       "verifier reads",
			       f->apps_total, BOOT_FACTS_APPS_MAX);
	for (i = 0; i < f->napps; i++) {
		const struct boot_app *a = &f->apps[i];
		const struct boot_app_digest *d = NULL;

		/* sha256 when the log has it, else its first known bank */
		for (k = 0; k < a->ndigests; k++) {
			algo = hash_algo_by_tpm(a->digests[k].alg_id);
			if (algo != NULL &&
			    (d == NULL || strcmp(algo->name, "sha256") == 0))
				d = &a->digests[k];
		}
		if (d == NULL)
			return violate(reason, max, policy, "applications",
				       json_pack("{s:i,s:i}", "pcr", a->pcr,
						 "event", (int)a->index),
				       "event %zu has no digest of a known "
				       "algorithm",
				       a->index);
		algo = hash_algo_by_tpm(d->alg_id);
		rc = app_known(ctx, algo->name, d->value, d->size, src,
			       sizeof(src));
		if (rc < 0)
			return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
					     IMT_NO_POS,
					     "boot policy: the "
					     "reference lookup failed"),
			       -1;
		if (rc > 0)
			continue;
		hex_encode(d->value, d->size, hex);
		snprintf(dig, sizeof(dig), "%s:%s", algo->name, hex);
		return violate(reason, max, policy, "applications",
			       json_pack("{s:i,s:i,s:s,s:s,s:s}", "pcr", a->pcr,
					 "event", (int)a->index, "type",
					 "EV_EFI_BOOT_SERVICES_APPLICATION",
					 "digest", dig, "path", a->path),
			       "EFI application %s (Authenticode %s) is in no "
			       "efi source of the policy",
			       a->path, dig);
	}
	return 1;
}

/*
 * The command line systemd-boot measured into PCR 12 (not quoted) counts
 * only when its event's digest is that of its text and equals the EFI
 * stub's load-options tag in PCR 9 (quoted, replayed).
 */
static int cmdline_bound(const struct boot_facts *f)
{
	return f->has_cmdline && f->cmdline_bound;
}

static int judge_cmdline(const struct boot_policy *bp, const char *policy,
			 const struct boot_facts *f, char *reason, size_t max)
{
	size_t i;

	if (bp->ncmdline == 0)
		return 1;
	if (!cmdline_bound(f))
		return violate(reason, max, policy, "cmdline",
			       json_pack("{s:i}", "pcr", 9),
			       "the log carries no kernel command line bound "
			       "to PCR 9 (systemd-boot's PCR 12 event and the "
			       "EFI stub's load-options tag must agree)");
	for (i = 0; i < bp->ncmdline; i++) {
		if (fnmatch(bp->cmdline[i], f->cmdline, 0) == 0)
			return 1;
	}
	return violate(reason, max, policy, "cmdline",
		       json_pack("{s:i,s:s}", "pcr", 9, "cmdline", f->cmdline),
		       "the kernel command line matches no pattern of the "
		       "policy");
}

/* What a suspicious log fails the "log" rule for, first rule first. */
static const struct {
	uint32_t flag;
	const char *why;
} log_flags[] = {
	{ BOOT_FACT_SEPARATOR_UNKNOWN, "a separator whose data does not hash "
				       "to its digest (its value is unknown)" },
	{ BOOT_FACT_SEPARATOR_ERROR, "a separator with the error value" },
	{ BOOT_FACT_REPEATED, "a Secure Boot variable measured twice" },
	{ BOOT_FACT_AFTER_SEPARATOR, "an event after its PCR's separator" },
};

/* The "log" rule: names the first event of the flag that breaks it. */
static int judge_log(const char *policy, const struct boot_facts *f,
		     char *reason, size_t max)
{
	const struct boot_flag_event *e;
	const char *tn;
	size_t i;

	for (i = 0; i < sizeof(log_flags) / sizeof(log_flags[0]); i++) {
		e = boot_facts_flag_event(f, log_flags[i].flag);
		if (e == NULL)
			continue;
		tn = tcg_event_type_name(e->type);
		return violate(reason, max, policy, "log",
			       json_pack("{s:i,s:i,s:s}", "event",
					 (int)e->index, "pcr", (int)e->pcr,
					 "type", tn != NULL ? tn : "?"),
			       "event %zu (PCR %u, %s): %s", e->index, e->pcr,
			       tn != NULL ? tn : "?", log_flags[i].why);
	}
	return 1;
}

static int judge_secure_boot(const struct boot_policy *bp, const char *policy,
			     const struct boot_facts *f, char *reason,
			     size_t max)
{
	if (!bp->secure_boot_required || f->secure_boot == 1)
		return 1;
	if (f->secure_boot == BOOT_SB_UNKNOWN)
		return refuse_unknown(reason, max, policy, "secure_boot",
				      "Secure Boot", &f->secure_boot_event);
	if (f->secure_boot == 0)
		return violate(reason, max, policy, "secure_boot",
			       event_fields(&f->secure_boot_event),
			       "Secure Boot is off (event %zu: SecureBoot is "
			       "0 or has no data)",
			       f->secure_boot_event.index);
	return violate(reason, max, policy, "secure_boot",
		       json_pack("{s:i,s:s}", "pcr", 7, "type",
				 "EV_EFI_VARIABLE_DRIVER_CONFIG"),
		       "Secure Boot is not measured");
}

/*
 * A SHA-1-only log of the TCG 1.2 format cannot be replayed against the
 * quote, so it proves nothing: the machine is one without a usable log,
 * unless "legacy_log": "refuse" makes the log itself a violation.
 */
static int judge_legacy(const struct boot_policy *bp, const char *policy,
			char *reason, size_t max)
{
	if (bp->legacy_log_refused)
		return violate(reason, max, policy, "legacy_log", NULL,
			       "the machine sent a SHA-1-only firmware event "
			       "log (TCG 1.2 format, no crypto-agile header), "
			       "which the policy refuses");
	if (bp->log_required)
		return violate(reason, max, policy, "log", NULL,
			       "the machine sent a SHA-1-only firmware event "
			       "log (TCG 1.2 format), which no quote can "
			       "prove: it has no usable log");
	return 1;
}

/*
 * "pcrs": each PCR named is one the log extends (else the log says
 * nothing the quote proved of it: boot_check.c compares only those) and
 * replays in sha256 to a listed value.
 */
static int judge_pcrs(const struct boot_policy *bp, const char *policy,
		      const uint8_t *log, size_t len, char *reason, size_t max)
{
	struct pcr_set set;
	uint32_t extended;
	char hex[65];
	size_t k;
	int p;

	for (p = 0; p < BOOT_POLICY_PCRS && bp->pcrs[p].n == 0; p++)
		;
	if (p == BOOT_POLICY_PCRS)
		return 1;
	pcr_set_init(&set, hash_algo_bank("sha256"));
	if (tcg_log_extended(log, len, &extended, NULL) != IMT_OK ||
	    tcg_log_replay(log, len, &set, 1, NULL) != IMT_OK)
		return violate(reason, max, policy, "pcrs", NULL,
			       "the firmware event log has no sha256 bank to "
			       "replay the PCRs the policy names");
	for (; p < BOOT_POLICY_PCRS; p++) {
		if (bp->pcrs[p].n == 0)
			continue;
		if (!(extended & (1u << p)))
			return violate(reason, max, policy, "pcrs",
				       json_pack("{s:i}", "pcr", p),
				       "the firmware event log does not extend "
				       "PCR %d",
				       p);
		for (k = 0; k < bp->pcrs[p].n && memcmp(bp->pcrs[p].sha256[k],
							set.value[p], 32) != 0;
		     k++)
			;
		if (k < bp->pcrs[p].n)
			continue;
		hex_encode(set.value[p], 32, hex);
		return violate(reason, max, policy, "pcrs",
			       json_pack("{s:i,s:s}", "pcr", p, "digest", hex),
			       "PCR %d replays to sha256 %s, which the policy "
			       "does not list",
			       p, hex);
	}
	return 1;
}

/* A section's contents digest in the sha256 bank, or NULL. */
static const uint8_t *section_sha256(const struct boot_uki_section *s)
{
	uint32_t i;

	for (i = 0; i < s->ndigests; i++) {
		if (s->digests[i].alg_id == 0x000b) /* TPM2_ALG_SHA256 */
			return s->digests[i].value;
	}
	return NULL;
}

/* Allowed UKI @u's digest of section @name, or NULL when it has none. */
static const uint8_t *uki_allows(const struct boot_policy_uki *u,
				 const char *name)
{
	size_t k;

	for (k = 0; k < u->n; k++) {
		if (strcmp(u->section[k], name) == 0)
			return u->sha256[k];
	}
	return NULL;
}

/* Whether the log measured section @name. */
static int uki_has(const struct boot_facts *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nuki; i++) {
		if (strcmp(f->uki[i].name, name) == 0)
			return 1;
	}
	return 0;
}

/* How many sections differ between the measured UKI and @u. */
static size_t uki_distance(const struct boot_facts *f,
			   const struct boot_policy_uki *u)
{
	const uint8_t *want;
	size_t i, d = 0;

	for (i = 0; i < f->nuki; i++) {
		want = uki_allows(u, f->uki[i].name);
		if (want == NULL ||
		    memcmp(want, section_sha256(&f->uki[i]), 32) != 0)
			d++;
	}
	for (i = 0; i < u->n; i++)
		d += !uki_has(f, u->section[i]);
	return d;
}

static const char *hex_of(const uint8_t *d, char out[65])
{
	hex_encode(d, 32, out);
	return out;
}

/* The first section in which the measured UKI differs from @u. */
static int uki_differs(const char *policy, const struct boot_facts *f,
		       const struct boot_policy_uki *u, size_t d, char *reason,
		       size_t max)
{
	const struct boot_uki_section *s;
	char hex[65], want[65], more[48] = "", why[400];
	const uint8_t *w;
	size_t i;

	if (d > 1)
		snprintf(more, sizeof(more), " (%zu sections differ)", d);
	for (i = 0; i < f->nuki; i++) {
		s = &f->uki[i];
		w = uki_allows(u, s->name);
		hex_encode(section_sha256(s), 32, hex);
		if (w != NULL && memcmp(w, section_sha256(s), 32) == 0)
			continue;
		if (w == NULL)
			snprintf(why, sizeof(why),
				 "the UKI has a section %s (%s, event %zu) "
				 "that the allowed %s has not%s",
				 s->name, hex, s->contents_event, u->name,
				 more);
		else
			snprintf(why, sizeof(why),
				 "the UKI's %s is %s (event %zu), not the "
				 "allowed %s's %s%s",
				 s->name, hex, s->contents_event, u->name,
				 hex_of(w, want), more);
		return violate(reason, max, policy, "uki",
			       json_pack("{s:i,s:i,s:s,s:s,s:s}", "pcr",
					 BOOT_UKI_PCR, "event",
					 (int)s->contents_event, "section",
					 s->name, "digest", hex, "uki",
					 u->name),
			       "%s", why);
	}
	for (i = 0; i < u->n && uki_has(f, u->section[i]); i++)
		;
	return violate(reason, max, policy, "uki",
		       json_pack("{s:i,s:s,s:s}", "pcr", BOOT_UKI_PCR,
				 "section", u->section[i], "uki", u->name),
		       "the UKI lacks the allowed %s's section %s%s", u->name,
		       u->section[i], more);
}

/* What makes the measured sections unfit to compare, or 1. */
static int uki_readable(const char *policy, const struct boot_facts *f,
			char *reason, size_t max)
{
	size_t i;

	if (f->nuki == 0)
		return violate(reason, max, policy, "uki",
			       json_pack("{s:i}", "pcr", BOOT_UKI_PCR),
			       "the firmware event log has no UKI sections in "
			       "PCR 11 (systemd-stub's events): no UKI was "
			       "booted");
	if (f->uki_total > f->nuki)
		return violate(reason, max, policy, "uki",
			       json_pack("{s:i}", "pcr", BOOT_UKI_PCR),
			       "the UKI has %zu sections, more than the %d the "
			       "verifier reads",
			       f->uki_total, BOOT_FACTS_UKI_MAX);
	for (i = 0; i < f->nuki; i++) {
		if (f->uki[i].event.why != BOOT_KNOWN)
			return refuse_unknown(reason, max, policy, "uki",
					      "A UKI section's name",
					      &f->uki[i].event);
		if (f->uki[i].contents_event == 0 ||
		    section_sha256(&f->uki[i]) == NULL)
			return violate(reason, max, policy, "uki",
				       json_pack("{s:i,s:i,s:s}", "pcr",
						 BOOT_UKI_PCR, "event",
						 (int)f->uki[i].event.index,
						 "section", f->uki[i].name),
				       "the UKI's section %s (event %zu) has no "
				       "sha256 digest of its contents",
				       f->uki[i].name, f->uki[i].event.index);
	}
	return 1;
}

/*
 * "uki": the sections measured into PCR 11 are exactly one allowed UKI's
 * (the same names, the same sha256 digests); otherwise the reason names
 * the first section that differs from the closest allowed UKI.
 */
static int judge_uki(const struct boot_policy *bp, const char *policy,
		     const struct boot_facts *f, char *reason, size_t max)
{
	size_t k, d, best = 0, best_d = (size_t)-1;
	int rc;

	if (bp->nuki == 0)
		return 1;
	rc = uki_readable(policy, f, reason, max);
	if (rc != 1)
		return rc;
	for (k = 0; k < bp->nuki; k++) {
		d = uki_distance(f, &bp->uki[k]);
		if (d == 0)
			return 1;
		if (d < best_d) {
			best_d = d;
			best = k;
		}
	}
	return uki_differs(policy, f, &bp->uki[best], best_d, reason, max);
}

/*
 * Generation of @name in SbatLevel @text ("sbat": the date of its first
 * line, "sbat,1,2023012900"), or -1 when it has no such line.
 */
static long long sbat_generation(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *line, *p;
	char *end;
	long long g;

	for (line = text; *line != '\0'; line = p + (*p != '\0')) {
		p = strchr(line, '\n');
		if (p == NULL)
			p = line + strlen(line);
		if ((size_t)(p - line) <= n || strncmp(line, name, n) != 0 ||
		    line[n] != ',')
			continue;
		line += n + 1;
		if (strcmp(name, "sbat") == 0) { /* "1,DATE" */
			line = strchr(line, ',');
			if (line == NULL || line > p)
				return -1;
			line++;
		}
		g = strtoll(line, &end, 10);
		if (end == line || (end != p && *end != ','))
			return -1;
		return g;
	}
	return -1;
}

/* "sbat_level": shim's SbatLevel, bound, revokes as much as listed. */
static int judge_sbat(const struct boot_policy *bp, const char *policy,
		      const struct boot_facts *f, char *reason, size_t max)
{
	const struct boot_policy_sbat *r;
	long long g;
	size_t i;

	if (bp->nsbat == 0)
		return 1;
	if (f->sbat_unknown != BOOT_KNOWN)
		return refuse_unknown(reason, max, policy, "sbat_level",
				      "SbatLevel", &f->sbat_event);
	if (!f->sbat_measured)
		return violate(reason, max, policy, "sbat_level",
			       json_pack("{s:i}", "pcr", 7),
			       "SbatLevel is not measured (shim logs it in "
			       "PCR 7)");
	for (i = 0; i < bp->nsbat; i++) {
		r = &bp->sbat[i];
		g = sbat_generation(f->sbat, r->name);
		if (g >= r->min)
			continue;
		if (g < 0)
			return violate(reason, max, policy, "sbat_level",
				       event_fields(&f->sbat_event),
				       "SbatLevel (event %zu) has no %s entry, "
				       "the policy asks for generation %lld",
				       f->sbat_event.index, r->name, r->min);
		return violate(reason, max, policy, "sbat_level",
			       event_fields(&f->sbat_event),
			       "SbatLevel (event %zu) has %s at generation "
			       "%lld, the policy asks for %lld",
			       f->sbat_event.index, r->name, g, r->min);
	}
	return 1;
}

/* "authorities": every authority entry listed; none unknown. */
static int judge_authorities(const struct boot_policy *bp, const char *policy,
			     const struct boot_facts *f, char *reason,
			     size_t max)
{
	const struct boot_cert *c;
	char hex[65];
	size_t i;

	if (!bp->authorities.set)
		return 1;
	if (f->nauth == 0)
		return violate(reason, max, policy, "authorities",
			       json_pack("{s:i}", "pcr", 7),
			       "no authority is measured (PCR 7)");
	if (f->nauth == BOOT_FACTS_AUTH_MAX && (f->flags & BOOT_FACT_OVERFLOW))
		return violate(reason, max, policy, "authorities", NULL,
			       "more authorities than the %d the verifier "
			       "reads",
			       BOOT_FACTS_AUTH_MAX);
	for (i = 0; i < f->nauth; i++) {
		c = &f->auth[i];
		if (c->unknown)
			return refuse_unknown(reason, max, policy,
					      "authorities", "An authority",
					      &f->unbound_auth);
		if (listed(&bp->authorities, c->sha256))
			continue;
		hex_encode(c->sha256, 32, hex);
		return violate(reason, max, policy, "authorities",
			       json_pack("{s:i,s:i,s:s,s:s}", "pcr", 7, "event",
					 (int)c->event, "digest", hex,
					 "subject", c->cn),
			       "event %zu: an authority the policy does not "
			       "list (%s, CN=%s)",
			       c->event, hex, c->cn);
	}
	return 1;
}

int boot_policy_judge(const struct boot_policy *bp, const char *policy,
		      const uint8_t *log, size_t len,
		      boot_policy_app_known app_known, void *ctx, char *reason,
		      size_t reason_max, struct imt_error *err)
{
	struct boot_facts *f;
	struct imt_error ferr;
	int rc;

	if (!bp->present)
		return 1;
	if (log != NULL && tcg_log_legacy(log, len))
		return judge_legacy(bp, policy, reason, reason_max);
	if (log == NULL)
		return bp->log_required ?
			       violate(reason, reason_max, policy, "log", NULL,
				       "the machine sent no firmware event log") :
			       1;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return bad(err, "out of memory");
	if (boot_facts_extract(log, len, f, &ferr) != IMT_OK) {
		rc = violate(reason, reason_max, policy, "log", NULL,
			     "the firmware event log does not decode: %s",
			     ferr.msg);
		goto out;
	}
	rc = judge_log(policy, f, reason, reason_max);
	if (rc == 1)
		rc = judge_secure_boot(bp, policy, f, reason, reason_max);
	if (rc == 1)
		rc = judge_vars(bp, policy, f, reason, reason_max);
	if (rc == 1)
		rc = judge_apps(bp, policy, f, app_known, ctx, reason,
				reason_max, err);
	if (rc == 1)
		rc = judge_cmdline(bp, policy, f, reason, reason_max);
	if (rc == 1)
		rc = judge_pcrs(bp, policy, log, len, reason, reason_max);
	if (rc == 1)
		rc = judge_uki(bp, policy, f, reason, reason_max);
	if (rc == 1)
		rc = judge_sbat(bp, policy, f, reason, reason_max);
	if (rc == 1)
		rc = judge_authorities(bp, policy, f, reason, reason_max);
out:
	free(f);
	return rc;
}
