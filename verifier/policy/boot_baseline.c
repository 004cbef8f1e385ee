// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_baseline.c - a boot against the machine's baseline boot: replayed
 * PCRs 0-9 compared, and in the first that differs, the first event that
 * does, so the reason names what changed (a new kernel: PCR 4 and its
 * EV_EFI_BOOT_SERVICES_APPLICATION; another command line: PCR 9).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "boot_baseline.h"
#include "boot_log_json.h"
#include "hash_algo.h"
#include "hex.h"
#include "pcr_set.h"
#include "tcg_log.h"

#define ALG_SHA1 0x0004u
#define ALG_SHA256 0x000bu

/* Whether the log's Spec ID lists bank @alg. */
static int has_bank(const uint8_t *log, size_t len, uint16_t alg)
{
	struct tcg_log l;
	uint32_t i;

	if (tcg_log_open(&l, log, len, NULL) != IMT_OK)
		return 0;
	for (i = 0; i < l.spec.nbanks; i++) {
		if (l.spec.banks[i].alg_id == alg)
			return 1;
	}
	return 0;
}

/* The @k-th event (from 0) of PCR @pcr in @log, into @ev: 1 found, 0 not,
 * -1 a bad log. @ev's digests point into @l, which must outlive it. */
static int nth_event(struct tcg_log *l, const uint8_t *log, size_t len,
		     uint32_t pcr, size_t k, struct tcg_event *ev)
{
	size_t seen = 0;

	if (tcg_log_open(l, log, len, NULL) != IMT_OK)
		return -1;
	while (!tcg_log_done(l)) {
		if (tcg_log_next(l, ev, NULL) != IMT_OK)
			return -1;
		if (ev->index == 0 || ev->pcr != pcr)
			continue;
		if (seen++ == k)
			return 1;
	}
	return 0;
}

/* Where the boot and its baseline part in a PCR: this boot's event
 * (NULL: it has fewer there), the baseline's (NULL: it had fewer). */
struct parting {
	const struct tcg_event *ev, *bev;
	const struct hash_algo *a;
};

/* "alg:hex" of @ev's digest in bank @a. */
static void digest_text(const struct tcg_event *ev, const struct hash_algo *a,
			char *out, size_t max)
{
	char hex[2 * HASH_ALGO_MAX_SIZE + 1];
	const uint8_t *d = tcg_event_digest(ev, a->tpm_alg);

	if (d == NULL) {
		snprintf(out, max, "%s:none", a->name);
		return;
	}
	hex_encode(d, a->size, hex);
	snprintf(out, max, "%s:%s", a->name, hex);
}

static const char *type_name(const struct tcg_event *ev, char *buf, size_t n)
{
	const char *name = tcg_event_type_name(ev->type);

	if (name != NULL)
		return name;
	snprintf(buf, n, "0x%08x", ev->type);
	return buf;
}

/* An event's digest, type and description under keys @prefix..: what
 * this boot's event says, or what the baseline's said. */
static void put_event(json_t *j, const char *prefix, const struct tcg_event *ev,
		      const struct hash_algo *a)
{
	char key[40], text[BOOT_BASELINE_DESC_MAX], type[16];
	char digest[2 * HASH_ALGO_MAX_SIZE + 16];

	snprintf(key, sizeof(key), "%sevent", prefix);
	json_object_set_new(j, key, json_integer((json_int_t)ev->index));
	snprintf(key, sizeof(key), "%stype", prefix);
	json_object_set_new(j, key,
			    json_string(type_name(ev, type, sizeof(type))));
	digest_text(ev, a, digest, sizeof(digest));
	snprintf(key, sizeof(key), "%sdigest", prefix);
	json_object_set_new(j, key, json_string(digest));
	boot_log_event_description(ev, text, sizeof(text));
	snprintf(key, sizeof(key), "%sdescription", prefix);
	json_object_set_new(j, key, json_string(text));
}

/* @j as text into @reason; the descriptions go first when it does not
 * fit (the baseline's, then this boot's), the digests stay. */
static void dump_fitting(json_t *j, char *reason, size_t max)
{
	static const char *const drop[] = {
		"baseline_description",
		"description",
		NULL,
	};
	size_t k = 0;
	char *s;

	for (;;) {
		s = j != NULL ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) :
				NULL;
		if (s == NULL || strlen(s) < max || drop[k] == NULL)
			break;
		free(s);
		json_object_del(j, drop[k++]);
	}
	snprintf(reason, max, "%s",
		 s != NULL && strlen(s) < max ?
			 s :
			 "{\"check\":\"boot\",\"rule\":\"baseline\"}");
	free(s);
}

static int differ(char *reason, size_t max, const char *policy,
		  const char *approved_by, int pcr, const struct parting *p)
{
	char why[256];
	json_t *j;

	snprintf(why, sizeof(why),
		 "PCR %d differs from the machine's "
		 "baseline boot (%s)%s",
		 pcr,
		 approved_by[0] ? "approved by an operator" :
				  "its first boot, not yet approved",
		 p->ev == NULL && p->bev == NULL ?
			 ": the same events from "
			 "another start (locality)" :
		 p->ev == NULL ?
			 ": the baseline has events there this boot "
			 "lacks" :
		 p->bev == NULL ?
			 ": this boot has events there "
			 "the baseline lacks" :
			 ": the event differs, \"description\" "
			 "is what it says now, \"baseline_description\" what it said");
	j = json_pack("{s:s,s:s,s:s,s:i,s:s}", "check", "boot", "rule",
		      "baseline", "policy", policy, "pcr", pcr, "why", why);
	if (j != NULL && p->ev != NULL)
		put_event(j, "", p->ev, p->a);
	/* the baseline's event at that place: its digest beside this one,
	 * its index and type only when this boot has none there */
	if (j != NULL && p->bev != NULL) {
		put_event(j, "baseline_", p->bev, p->a);
		if (p->ev != NULL) {
			json_object_del(j, "baseline_event");
			json_object_del(j, "baseline_type");
		}
	}
	if (j != NULL && approved_by[0])
		json_object_set_new(j, "approved_by", json_string(approved_by));
	dump_fitting(j, reason, max);
	json_decref(j);
	return 0;
}

/* Name the first event of PCR @pcr where @log and @base part. */
static int name_event(const char *policy, const uint8_t *log, size_t len,
		      const uint8_t *base, size_t base_len,
		      const char *approved_by, int pcr,
		      const struct hash_algo *a, char *reason, size_t max,
		      struct imt_error *err)
{
	char cur[2 * HASH_ALGO_MAX_SIZE + 16], was[sizeof(cur)];
	/* an event's digests point into its cursor: both live as long */
	struct tcg_log l, bl;
	struct tcg_event ev, bev;
	struct parting p = { &ev, &bev, a };
	size_t k;
	int rc, brc;

	for (k = 0;; k++) {
		rc = nth_event(&l, log, len, (uint32_t)pcr, k, &ev);
		brc = nth_event(&bl, base, base_len, (uint32_t)pcr, k, &bev);
		if (rc < 0 || brc < 0)
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     IMT_NO_POS,
					     "boot baseline: a "
					     "log does not parse"),
			       -1;
		if (rc == 0 || brc == 0) {
			/* the baseline has more (or a locality), or fewer */
			p.ev = rc == 0 ? NULL : &ev;
			p.bev = brc == 0 ? NULL : &bev;
			return differ(reason, max, policy, approved_by, pcr,
				      &p);
		}
		digest_text(&ev, a, cur, sizeof(cur));
		digest_text(&bev, a, was, sizeof(was));
		if (strcmp(cur, was) != 0 || ev.type != bev.type)
			return differ(reason, max, policy, approved_by, pcr,
				      &p);
	}
}

/* A SHA-1-only baseline (the machine's first log, judged as no log):
 * no PCR to compare, so every other boot differs until approved. */
static int legacy_base(char *reason, size_t max, const char *policy)
{
	json_t *j = json_pack("{s:s,s:s,s:s,s:s}", "check", "boot", "rule",
			      "baseline", "policy", policy, "why",
			      "the machine's baseline boot sent a SHA-1-only "
			      "firmware event log (TCG 1.2 format): nothing to "
			      "compare this boot with until an operator "
			      "approves it as the baseline");
	char *s = j != NULL ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) :
			      NULL;

	json_decref(j);
	snprintf(reason, max, "%s",
		 s != NULL ? s : "{\"check\":\"boot\",\"rule\":\"baseline\"}");
	free(s);
	return 0;
}

int boot_baseline_judge(const char *policy, const uint8_t *log, size_t len,
			const uint8_t *base, size_t base_len,
			const char *approved_by, char *reason,
			size_t reason_max, struct imt_error *err)
{
	uint16_t alg = ALG_SHA256;
	const struct hash_algo *a;
	struct pcr_set now, then;
	int pcr;

	if (tcg_log_legacy(base, base_len))
		return legacy_base(reason, reason_max, policy);
	if (!has_bank(log, len, alg) || !has_bank(base, base_len, alg))
		alg = ALG_SHA1;
	if (!has_bank(log, len, alg) || !has_bank(base, base_len, alg))
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "boot baseline: the logs "
				     "share neither a sha256 nor a sha1 bank"),
		       -1;
	a = hash_algo_by_tpm(alg);
	pcr_set_init(&now, a);
	pcr_set_init(&then, a);
	if (tcg_log_replay(log, len, &now, 1, err) != IMT_OK ||
	    tcg_log_replay(base, base_len, &then, 1, err) != IMT_OK)
		return -1;
	for (pcr = 0; pcr < PCR_SET_COUNT; pcr++) {
		if ((BOOT_BASELINE_PCRS & (1u << pcr)) &&
		    memcmp(now.value[pcr], then.value[pcr], a->size) != 0)
			return name_event(policy, log, len, base, base_len,
					  approved_by, pcr, a, reason,
					  reason_max, err);
	}
	return 1;
}
