// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_keylime.c - read a Keylime runtime policy into an import sink.
 *
 * The checks follow what Keylime itself validates (RUNTIME_POLICY_SCHEMA
 * and the IMA keyring schema of keylime/ima/), so a policy Keylime would
 * load imports and one it would refuse does not. An entry Keylime loads
 * that the verifier cannot use (a relative path, an exclude POSIX reads
 * otherwise than Python, an ignored keyring) is left out and named in
 * struct keylime_info, never so that the policy is looser than Keylime's.
 */
#include <ctype.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "b64.h"
#include "hash_algo.h"
#include "hex.h"
#include "ima_list.h"
#include "import_keylime.h"
#include "keylime_key.h"

#define WHAT_MAX KEYLIME_WHAT_MAX /* how an error names a member */
#define KEYLIME_REGEX_DEPTH 32	  /* nested groups */
#define KEYLIME_REGEX_COST 4096	  /* atoms a regex may expand to */
/*
 * Optional atoms (in copies made by x?, x*, x{m,n} beyond m) it may
 * expand to: regcomp's epsilon closures grow with the square of a run of
 * them. "(a?){4000}" takes 1.2 GB, "x{0,4096}" 131 MB, and at 64 none
 * takes 2 MB (fuzz_policy found "c{0,00020000}").
 */
#define KEYLIME_REGEX_OPTIONAL 64
/* regex bytes escaped with a backslash that stay themselves */
#define KEYLIME_RE_META ".[]()*+?{}|^$\\"

struct kl_ctx {
	const struct import_sink *sink;
	struct keylime_info *info;
	struct imt_error *err;
};

static int kl_fail(struct imt_error *err, enum imt_result status,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int kl_fail(struct imt_error *err, enum imt_result status,
		   const char *fmt, ...)
{
	char msg[IMT_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	imt_error_set(err, status, IMT_NO_POS, IMT_NO_POS, "%s", msg);
	return -1;
}

static void not_imported(struct kl_ctx *c, const char *what, const char *fmt,
			 ...) __attribute__((format(printf, 3, 4)));

/* Note an entry left out: named while there is room, always counted. */
static void not_imported(struct kl_ctx *c, const char *what, const char *fmt,
			 ...)
{
	struct keylime_skip *s;
	va_list ap;

	if (c->info->not_imported++ >= KEYLIME_NOT_IMPORTED_NAMED)
		return;
	s = &c->info->skip[c->info->not_imported - 1];
	snprintf(s->what, sizeof(s->what), "%s", what);
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
}

static const char *type_name(json_type t)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "a list",
		[JSON_STRING] = "a string",  [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a number",    [JSON_TRUE] = "true",
		[JSON_FALSE] = "false",	     [JSON_NULL] = "null",
	};

	return names[t];
}

/* An integer, or a number with an integral value (JSON Schema's view). */
static int int_of(const json_t *v, long long *out)
{
	double d;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (!json_is_real(v))
		return -1;
	d = json_real_value(v);
	if (d != (double)(long long)d || d > 9e15 || d < -9e15)
		return -1;
	*out = (long long)d;
	return 0;
}

static int type_ok(const json_t *v, json_type want)
{
	long long i;

	if (want == JSON_INTEGER)
		return int_of(v, &i) == 0;
	return json_typeof(v) == want;
}

static int want_type(struct kl_ctx *c, const char *what, const json_t *v,
		     json_type want)
{
	if (type_ok(v, want))
		return 0;
	return kl_fail(c->err, IMT_ERR_MALFORMED, "%s: %s is required, not %s",
		       what, type_name(want), type_name(json_typeof(v)));
}

/* ---- digests ---- */

static const struct {
	size_t hexlen;
	const char *algo;
} digest_lengths[] = {
	{ 40, "sha1" },
	{ 64, "sha256" },
	{ 96, "sha384" },
	{ 128, "sha512" },
};

static const struct hash_algo *algo_of_hexlen(size_t hexlen)
{
	size_t i;

	for (i = 0; i < sizeof(digest_lengths) / sizeof(digest_lengths[0]); i++)
		if (digest_lengths[i].hexlen == hexlen)
			return hash_algo_bank(digest_lengths[i].algo);
	return NULL;
}

/* Keylime's pattern ^[0-9a-f]{40,128}$ and a length some algorithm has. */
static int parse_digest(struct kl_ctx *c, const char *what, const json_t *v,
			uint8_t *out, const struct hash_algo **algo)
{
	const char *s;
	size_t n, i;

	if (want_type(c, what, v, JSON_STRING) < 0)
		return -1;
	s = json_string_value(v);
	n = json_string_length(v);
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
			return kl_fail(c->err, IMT_ERR_MALFORMED,
				       "%s: not a hex digest (lower-case 0-9a-f, as Keylime writes them)",
				       what);
	*algo = algo_of_hexlen(n);
	if (*algo == NULL)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "%s: %zu hex digits is no known digest length (40 sha1, 64 sha256, 96 sha384, 128 sha512)",
			       what, n);
	if (hex_decode(s, n, out, HASH_ALGO_MAX_SIZE) < 0)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "%s: not a hex digest", what);
	return 0;
}

/* Each digest of the list @v of "@section.@name", to the sink as @kind. */
static int load_digest_list(struct kl_ctx *c, const char *section,
			    const char *name, const json_t *v,
			    enum import_ref_kind kind, int emit)
{
	char what[WHAT_MAX];
	uint8_t d[HASH_ALGO_MAX_SIZE];
	struct import_ref ref = { .kind = kind, .path = name, .digest = d };
	const struct hash_algo *algo = NULL;
	size_t i;
	json_t *item;

	snprintf(what, sizeof(what), "%s.%s", section, name);
	if (want_type(c, what, v, JSON_ARRAY) < 0)
		return -1;
	if (json_array_size(v) == 0)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "%s: an empty list (Keylime requires at least one digest)",
			       what);
	json_array_foreach(v, i, item) {
		snprintf(what, sizeof(what), "%s.%s[%zu]", section, name, i);
		if (parse_digest(c, what, item, d, &algo) < 0)
			return -1;
		if (!emit)
			continue;
		ref.algo = algo->name;
		ref.digest_len = algo->size;
		if (c->sink->ref(c->sink->arg, &ref, c->err) < 0)
			return -1;
		if (kind == IMPORT_REF_FILE)
			c->info->file_digests++;
		else
			c->info->buffer_digests++;
	}
	return 0;
}

static int load_digests(struct kl_ctx *c, json_t *v)
{
	char what[WHAT_MAX];
	const char *path;
	json_t *list;
	int ba, usable;

	json_object_foreach(v, path, list) {
		ba = ima_name_is_boot_aggregate(path, strlen(path));
		usable = !ba && path[0] == '/';
		if (load_digest_list(c, "digests", path, list, IMPORT_REF_FILE,
				     usable) < 0)
			return -1;
		snprintf(what, sizeof(what), "digests.%s", path);
		if (usable)
			c->info->files++;
		else if (!ba)
			not_imported(c, what,
				     "not an absolute path: IMA names a file by its absolute path, so no record could match it");
		else {
			/* what the boot measured: attest.c checks the PCRs */
			c->info->boot_aggregates += json_array_size(list);
			not_imported(c, what,
				     "%zu digests not needed: the verifier checks boot_aggregate against the quoted PCRs",
				     json_array_size(list));
		}
	}
	return 0;
}

static int load_buffers(struct kl_ctx *c, const char *section, json_t *v)
{
	const char *name;
	json_t *list;

	json_object_foreach(v, name, list) {
		if (name[0] == '\0')
			return kl_fail(c->err, IMT_ERR_MALFORMED,
				       "%s: an empty name", section);
		if (load_digest_list(c, section, name, list, IMPORT_REF_BUFFER,
				     1) < 0)
			return -1;
	}
	return 0;
}

static int load_keyrings(struct kl_ctx *c, json_t *v)
{
	return load_buffers(c, "keyrings", v);
}

static int load_ima_buf(struct kl_ctx *c, json_t *v)
{
	return load_buffers(c, "ima-buf", v);
}

/* ---- excludes ---- */

/* Escapes of letters and digits that POSIX (glibc) and Python agree on. */
static const char same_escapes[] = "wWsSbB123456789";

/* The bracket expression at @re[*i] == '['; *i ends on its ']'. */
static int check_bracket(const char *re, size_t *i, const char *what,
			 struct imt_error *err)
{
	size_t j = *i + 1;

	if (re[j] == '^')
		j++;
	if (re[j] == ']')
		j++;
	for (; re[j] != '\0' && re[j] != ']'; j++) {
		if (re[j] == '\\')
			return kl_fail(err, IMT_ERR_MALFORMED,
				       "%s: a backslash inside [...] is an escape in Python but a literal backslash in POSIX",
				       what);
		if (re[j] == '[' && strchr(":=.", re[j + 1]) != NULL &&
		    re[j + 1] != '\0')
			return kl_fail(err, IMT_ERR_MALFORMED,
				       "%s: [%c...%c] inside brackets is POSIX-only syntax",
				       what, re[j + 1], re[j + 1]);
	}
	*i = re[j] == '\0' ? j - 1 : j; /* unterminated: regcomp says so */
	return 0;
}

/*
 * The walk over a regex: the size it expands to (glibc's regcomp copies
 * a repeated atom once per repetition, so "a{255}{255}" or "x++++..."
 * take memory exponential in their length), and how many of those
 * atoms are optional, kept per group.
 */
struct re_walk {
	const char *re, *what;
	struct imt_error *err;
	size_t depth;
	unsigned long sum[KEYLIME_REGEX_DEPTH + 1]; /* size of the group */
	unsigned long opt[KEYLIME_REGEX_DEPTH + 1]; /* its optional atoms */
	unsigned long last;	/* size of the atom a quantifier repeats */
	unsigned long last_opt; /* the optional atoms within it */
	int quantified;		/* the previous token was a quantifier */
};

static unsigned long sat_add(unsigned long a, unsigned long b)
{
	return a + b > KEYLIME_REGEX_COST ? KEYLIME_REGEX_COST + 1 : a + b;
}

static unsigned long sat_mul(unsigned long a, unsigned long b)
{
	return b != 0 && a > KEYLIME_REGEX_COST / b ? KEYLIME_REGEX_COST + 1 :
						      a * b;
}

static void re_atom(struct re_walk *w, unsigned long size, unsigned long opt)
{
	w->last = size;
	w->last_opt = opt;
	w->sum[w->depth] = sat_add(w->sum[w->depth], size);
	w->opt[w->depth] = sat_add(w->opt[w->depth], opt);
	w->quantified = 0;
}

/* A decimal number of a bound, saturated past KEYLIME_REGEX_COST. */
static unsigned long re_number(unsigned long v, char digit)
{
	return sat_add(sat_mul(v, 10), (unsigned long)(digit - '0'));
}

/*
 * "{m}", "{m,}", "{m,n}" at @p: the most repetitions, 0 if not a bound;
 * *@min the fewest. Any number of digits, leading zeros too, as regcomp
 * reads them.
 */
static unsigned long re_bound(const char *p, size_t *len, unsigned long *min)
{
	unsigned long m = 0, n = 0;
	const char *q = p + 1;
	int comma = 0, digits = 0;

	for (; *q != '}'; q++) {
		if (*q == ',' && !comma) {
			comma = 1;
		} else if (*q >= '0' && *q <= '9') {
			digits = 1;
			if (comma)
				n = re_number(n, *q);
			else
				m = re_number(m, *q);
		} else {
			return 0;
		}
	}
	if (!digits && !comma)
		return 0; /* "{}": text; "{,}" is {0,} to regcomp */
	*len = (size_t)(q - p);
	*min = m;
	if (comma && n == 0)
		n = m + 1; /* {m,}: m copies and a star */
	return comma ? n : m;
}

/* A quantifier at @w->re[*i]: repeat the last atom. */
static int re_quantifier(struct re_walk *w, size_t *i)
{
	const char *p = w->re + *i;
	unsigned long times = 1, min = 1, opt;
	size_t len = 0;

	if (w->quantified && *p == '?' && w->quantified == 1) {
		w->quantified = 2; /* lazy in Python, (x*)? in POSIX */
		return 0;
	}
	if (w->quantified)
		return kl_fail(w->err, IMT_ERR_MALFORMED,
			       "%s: a quantifier after a quantifier (Python reads it as possessive or refuses it)",
			       w->what);
	if (w->last == 0)
		return kl_fail(w->err, IMT_ERR_MALFORMED,
			       "%s: nothing to repeat before '%c'", w->what,
			       *p);
	if (*p == '+')
		times = 2;
	else if (*p == '{')
		times = re_bound(p, &len, &min);
	else
		min = 0; /* '*' and '?': one copy, optional */
	*i += len;
	if (times > 1)
		w->sum[w->depth] =
			sat_add(w->sum[w->depth], sat_mul(w->last, times - 1));
	/* every copy's optional atoms, and the optional copies whole */
	opt = sat_add(sat_mul(w->last_opt, times),
		      sat_mul(w->last, times > min ? times - min : 0));
	w->opt[w->depth] = sat_add(w->opt[w->depth] - w->last_opt, opt);
	w->last = sat_mul(w->last, times);
	w->last_opt = opt;
	w->quantified = 1;
	return 0;
}

static int re_group(struct re_walk *w, char c)
{
	unsigned long size, opt;

	if (c == '(') {
		if (w->depth == KEYLIME_REGEX_DEPTH)
			return kl_fail(w->err, IMT_ERR_LIMIT,
				       "%s: groups nested deeper than %d",
				       w->what, KEYLIME_REGEX_DEPTH);
		w->sum[++w->depth] = 0;
		w->opt[w->depth] = 0;
		w->last = 0;
		w->last_opt = 0;
		w->quantified = 0;
		return 0;
	}
	if (w->depth == 0)
		return 0; /* unmatched: regcomp says so */
	size = w->sum[w->depth];
	opt = w->opt[w->depth--];
	re_atom(w, size > 0 ? size : 1, opt);
	return 0;
}

static int re_escape(struct re_walk *w, size_t *i)
{
	char c = w->re[++*i];

	if (c == '\0') {
		--*i; /* trailing backslash: regcomp says so */
		return 0;
	}
	if (isalnum((unsigned char)c) && strchr(same_escapes, c) == NULL)
		return kl_fail(w->err, IMT_ERR_MALFORMED,
			       "%s: \"\\%c\" means one thing in Python and another (or nothing) in POSIX",
			       w->what, c);
	re_atom(w, 1, 0);
	return 0;
}

static int re_token(struct re_walk *w, size_t *i)
{
	char c = w->re[*i];

	if (c == '\\')
		return re_escape(w, i);
	if (c == '(' && w->re[*i + 1] == '?')
		return kl_fail(w->err, IMT_ERR_MALFORMED,
			       "%s: \"(?\" is Python-only syntax", w->what);
	if (c == '(' || c == ')')
		return re_group(w, c);
	if (c == '*' || c == '+' || c == '?' ||
	    (c == '{' &&
	     re_bound(w->re + *i, &(size_t){ 0 }, &(unsigned long){ 0 }) > 0))
		return re_quantifier(w, i);
	if (c == '|' || c == '^' || c == '$') {
		w->last = 0; /* nothing a quantifier could repeat */
		w->last_opt = 0;
		w->quantified = 0;
		return 0;
	}
	if (c == '[' && check_bracket(w->re, i, w->what, w->err) < 0)
		return -1;
	re_atom(w, 1, 0);
	return 0;
}

static int check_syntax(const char *re, const char *what, struct imt_error *err)
{
	struct re_walk w = { .re = re, .what = what, .err = err };
	size_t i;

	for (i = 0; re[i] != '\0'; i++) {
		if (re_token(&w, &i) < 0)
			return -1;
		if (w.sum[w.depth] > KEYLIME_REGEX_COST ||
		    w.last > KEYLIME_REGEX_COST)
			return kl_fail(err, IMT_ERR_LIMIT,
				       "%s: expands to more than %d atoms",
				       what, KEYLIME_REGEX_COST);
		if (w.opt[w.depth] > KEYLIME_REGEX_OPTIONAL ||
		    w.last_opt > KEYLIME_REGEX_OPTIONAL)
			return kl_fail(err, IMT_ERR_LIMIT,
				       "%s: expands to more than %d optional atoms (x?, x*, x{m,n})",
				       what, KEYLIME_REGEX_OPTIONAL);
	}
	return 0;
}

int keylime_regex_check(const char *re, const char *what, struct imt_error *err)
{
	char msg[96];
	regex_t rx;
	int rc;

	if (check_syntax(re, what, err) < 0)
		return -1;
	rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		regerror(rc, &rx, msg, sizeof(msg));
		return kl_fail(err, IMT_ERR_MALFORMED,
			       "%s: not a POSIX extended regular expression (%s): %.80s",
			       what, msg, re);
	}
	regfree(&rx);
	return 0;
}

int keylime_literal_prefix(const char *re, char *out, size_t outlen)
{
	size_t n = 0;

	if (*re == '^')
		re++;
	for (; *re != '\0' && strcmp(re, ".*") != 0; re++) {
		if (*re == '\\' && re[1] != '\0' &&
		    strchr(KEYLIME_RE_META "/-", re[1]) != NULL)
			re++;
		else if (strchr(KEYLIME_RE_META, *re) != NULL)
			return 0;
		if (n + 1 >= outlen)
			return 0;
		out[n++] = *re;
	}
	out[n] = '\0';
	return n > 0;
}

/* @msg without its leading "@what: ", which the report names apart. */
static const char *msg_after(const char *msg, const char *what)
{
	size_t n = strlen(what);

	if (strncmp(msg, what, n) == 0 && strncmp(msg + n, ": ", 2) == 0)
		return msg + n + 2;
	return msg;
}

/*
 * One exclude: a literal prefix as such, a regex checked first. One the
 * verifier cannot apply is left out, named: it only makes the policy
 * stricter (the files it names are judged).
 * Return: 1 applied, 0 left out, -1 the sink's error.
 */
static int load_exclude(struct kl_ctx *c, const char *re, const char *what)
{
	char prefix[KEYLIME_EXCLUDE_LEN_MAX + 1];
	struct imt_error why;

	if (c->sink->exclude == NULL)
		return kl_fail(c->err, IMT_ERR_UNSUPPORTED,
			       "%s: this import takes no exclusion rules",
			       what);
	if (strlen(re) > KEYLIME_EXCLUDE_LEN_MAX) {
		not_imported(c, what,
			     "%zu bytes, at most %d (KEYLIME_EXCLUDE_LEN_MAX); not applied: the files it names are judged",
			     strlen(re), KEYLIME_EXCLUDE_LEN_MAX);
		return 0;
	}
	if (keylime_literal_prefix(re, prefix, sizeof(prefix))) {
		c->info->exclude_prefixes++;
		if (c->sink->exclude(c->sink->arg, IMPORT_RULE_PREFIX, prefix,
				     c->err) < 0)
			return -1;
		return 1;
	}
	if (keylime_regex_check(re, what, &why) < 0) {
		not_imported(c, what,
			     "%.160s; not applied: the files it names are judged",
			     msg_after(why.msg, what));
		return 0;
	}
	if (c->sink->exclude(c->sink->arg, IMPORT_RULE_REGEX, re, c->err) < 0)
		return -1;
	return 1;
}

static int load_excludes(struct kl_ctx *c, json_t *v)
{
	char what[WHAT_MAX];
	json_t *item;
	size_t i;
	int rc;

	if (json_array_size(v) > KEYLIME_EXCLUDES_MAX)
		return kl_fail(c->err, IMT_ERR_LIMIT,
			       "limit KEYLIME_EXCLUDES_MAX reached: %zu excludes, at most %d in one policy",
			       json_array_size(v), KEYLIME_EXCLUDES_MAX);
	json_array_foreach(v, i, item) {
		snprintf(what, sizeof(what), "excludes[%zu]", i);
		if (want_type(c, what, item, JSON_STRING) < 0)
			return -1;
		rc = load_exclude(c, json_string_value(item), what);
		if (rc < 0)
			return -1;
		c->info->excludes += rc;
	}
	return 0;
}

/* ---- meta, release, ima ---- */

static int load_meta(struct kl_ctx *c, json_t *v)
{
	json_t *version = json_object_get(v, "version");
	json_t *gen = json_object_get(v, "generator");
	json_t *ts = json_object_get(v, "timestamp");
	long long n = 0, g = 0;

	if (version == NULL)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "meta.version: missing");
	if (want_type(c, "meta.version", version, JSON_INTEGER) < 0)
		return -1;
	int_of(version, &n);
	if (n != KEYLIME_POLICY_VERSION)
		return kl_fail(c->err, IMT_ERR_UNSUPPORTED,
			       "meta.version: %lld is not supported (%d is)", n,
			       KEYLIME_POLICY_VERSION);
	if (gen == NULL)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "meta.generator: missing");
	if (want_type(c, "meta.generator", gen, JSON_INTEGER) < 0)
		return -1;
	int_of(gen, &g);
	if (g < 0 || g > KEYLIME_GENERATOR_LEGACY)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "meta.generator: %lld is not one of Keylime's (0-%d)",
			       g, KEYLIME_GENERATOR_LEGACY);
	c->info->generator = (int)g;
	if (ts != NULL && want_type(c, "meta.timestamp", ts, JSON_STRING) < 0)
		return -1;
	return 0;
}

static int load_release(struct kl_ctx *c, json_t *v)
{
	long long n = 0;

	int_of(v, &n);
	if (n < 0)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "release: %lld is negative", n);
	c->info->release = n;
	return 0;
}

static const char *const log_hash_algs[] = {
	"sha1",
	"sha256",
	"sha384",
	"sha512",
};

static int load_log_hash_alg(struct kl_ctx *c, const json_t *v)
{
	size_t i;

	if (want_type(c, "ima.log_hash_alg", v, JSON_STRING) < 0)
		return -1;
	for (i = 0; i < sizeof(log_hash_algs) / sizeof(log_hash_algs[0]); i++)
		if (strcmp(json_string_value(v), log_hash_algs[i]) == 0) {
			strcpy(c->info->log_hash_alg, log_hash_algs[i]);
			return 0;
		}
	return kl_fail(c->err, IMT_ERR_MALFORMED,
		       "ima.log_hash_alg: \"%.32s\" is not sha1, sha256, sha384 or sha512",
		       json_string_value(v));
}

static int load_ima(struct kl_ctx *c, json_t *v)
{
	static const char *const required[] = {
		"ignored_keyrings",
		"log_hash_alg",
		"dm_policy",
	};
	char what[WHAT_MAX];
	json_t *ign, *item;
	size_t i;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (json_object_get(v, required[i]) == NULL)
			return kl_fail(c->err, IMT_ERR_MALFORMED,
				       "ima.%s: missing", required[i]);
	ign = json_object_get(v, "ignored_keyrings");
	if (want_type(c, "ima.ignored_keyrings", ign, JSON_ARRAY) < 0)
		return -1;
	json_array_foreach(ign, i, item) {
		snprintf(what, sizeof(what), "ima.ignored_keyrings[%zu]", i);
		if (want_type(c, what, item, JSON_STRING) < 0)
			return -1;
		not_imported(c, what,
			     "\"%.64s\" not ignored: its keys are judged against \"keyrings\" like any other keyring's",
			     json_string_value(item));
	}
	c->info->ignored_keyrings = json_array_size(ign);
	if (load_log_hash_alg(c, json_object_get(v, "log_hash_alg")) < 0)
		return -1;
	/* Keylime's schema: null; a device-mapper policy has no equivalent */
	if (!json_is_null(json_object_get(v, "dm_policy")))
		return kl_fail(c->err, IMT_ERR_UNSUPPORTED,
			       "ima.dm_policy: must be null (device-mapper policies are not imported)");
	return 0;
}

/* ---- verification-keys ---- */

static int load_one_key(struct kl_ctx *c, size_t i, const json_t *v)
{
	char what[WHAT_MAX];
	uint8_t *raw = NULL, *der = NULL;
	size_t n, der_len;
	long got;
	int rc = -1;

	snprintf(what, sizeof(what), "verification-keys.pubkeys[%zu]", i);
	if (want_type(c, what, v, JSON_STRING) < 0)
		return -1;
	n = json_string_length(v);
	raw = malloc(B64_DECODED_MAX(n) + 1);
	if (raw == NULL) {
		kl_fail(c->err, IMT_ERR_INTERNAL, "out of memory");
		goto out;
	}
	got = b64_decode(json_string_value(v), n, raw);
	if (got <= 0) {
		kl_fail(c->err, IMT_ERR_MALFORMED, "%s: not base64", what);
		goto out;
	}
	if (keylime_key_der(raw, (size_t)got, &der, &der_len, what, c->err) < 0)
		goto out;
	if (c->sink->key == NULL) {
		kl_fail(c->err, IMT_ERR_UNSUPPORTED,
			"%s: this import takes no keys", what);
		goto out;
	}
	if (c->sink->key(c->sink->arg, der, der_len, c->err) < 0)
		goto out;
	c->info->keys++;
	rc = 0;
out:
	free(der);
	free(raw);
	return rc;
}

/* The IMA keyring schema: {"meta"?: {"version": >= 1}, "keyids": [int],
 * "pubkeys": [string]}; the keyids are Keylime's own lookup keys. */
static int check_keyring(struct kl_ctx *c, const json_t *ring)
{
	static const char pre[] = "verification-keys";
	json_t *meta = json_object_get(ring, "meta");
	json_t *ids = json_object_get(ring, "keyids");
	char what[WHAT_MAX];
	json_t *item;
	long long n = 0;
	size_t i;

	if (meta != NULL) {
		json_t *ver = json_object_get(meta, "version");

		if (want_type(c, "verification-keys.meta", meta, JSON_OBJECT) <
		    0)
			return -1;
		if (ver == NULL || int_of(ver, &n) < 0 || n < 1)
			return kl_fail(c->err, IMT_ERR_MALFORMED,
				       "%s.meta.version: an integer >= 1 is required",
				       pre);
	}
	if (ids == NULL || json_object_get(ring, "pubkeys") == NULL)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "%s: \"keyids\" and \"pubkeys\" are required",
			       pre);
	if (want_type(c, "verification-keys.keyids", ids, JSON_ARRAY) < 0)
		return -1;
	json_array_foreach(ids, i, item) {
		snprintf(what, sizeof(what), "%s.keyids[%zu]", pre, i);
		if (!json_is_integer(item))
			return want_type(c, what, item, JSON_INTEGER);
	}
	return want_type(c, "verification-keys.pubkeys",
			 json_object_get(ring, "pubkeys"), JSON_ARRAY);
}

static int load_keys(struct kl_ctx *c, json_t *v)
{
	json_error_t jerr;
	json_t *ring, *item;
	size_t i;
	int rc = -1;

	if (json_string_length(v) == 0)
		return 0;
	ring = json_loadb(json_string_value(v), json_string_length(v),
			  JSON_REJECT_DUPLICATES, &jerr);
	if (ring == NULL)
		return kl_fail(c->err, IMT_ERR_MALFORMED,
			       "verification-keys: not JSON (column %d: %s)",
			       jerr.column, jerr.text);
	if (want_type(c, "verification-keys", ring, JSON_OBJECT) < 0 ||
	    check_keyring(c, ring) < 0)
		goto out;
	json_array_foreach(json_object_get(ring, "pubkeys"), i, item) {
		if (load_one_key(c, i, item) < 0)
			goto out;
	}
	rc = 0;
out:
	json_decref(ring);
	return rc;
}

/* ---- the policy ---- */

static const struct member {
	const char *name;
	json_type type;
	int (*load)(struct kl_ctx *c, json_t *v);
} members[] = {
	{ "meta", JSON_OBJECT, load_meta },
	{ "release", JSON_INTEGER, load_release },
	{ "digests", JSON_OBJECT, load_digests },
	{ "excludes", JSON_ARRAY, load_excludes },
	{ "keyrings", JSON_OBJECT, load_keyrings },
	{ "ima", JSON_OBJECT, load_ima },
	{ "ima-buf", JSON_OBJECT, load_ima_buf },
	{ "verification-keys", JSON_STRING, load_keys },
};

#define MEMBER_COUNT (sizeof(members) / sizeof(members[0]))

static const struct member *member_of(const char *name)
{
	size_t i;

	for (i = 0; i < MEMBER_COUNT; i++)
		if (strcmp(members[i].name, name) == 0)
			return &members[i];
	return NULL;
}

/* Every required member present and of its type, before any is read. */
static int check_members(struct kl_ctx *c, const json_t *doc)
{
	const json_t *v;
	size_t i;

	if (json_object_get(doc, "payload") != NULL &&
	    json_object_get(doc, "meta") == NULL)
		return kl_fail(c->err, IMT_ERR_UNSUPPORTED,
			       "policy: a DSSE envelope (a signed policy); verify it and import its payload");
	for (i = 0; i < MEMBER_COUNT; i++) {
		v = json_object_get(doc, members[i].name);
		if (v == NULL)
			return kl_fail(c->err, IMT_ERR_MALFORMED,
				       "%s: missing (a Keylime runtime policy has meta, release, digests, excludes, keyrings, ima, ima-buf, verification-keys)",
				       members[i].name);
		if (want_type(c, members[i].name, v, members[i].type) < 0)
			return -1;
	}
	return 0;
}

static void note_unknown(struct kl_ctx *c, const char *name)
{
	if (c->info->unknown_keys++ == 0)
		snprintf(c->info->unknown_key, sizeof(c->info->unknown_key),
			 "%s", name);
	not_imported(c, name,
		     "not a member of a Keylime runtime policy: ignored, as Keylime does");
}

int import_keylime(const uint8_t *buf, size_t len,
		   const struct import_sink *sink, struct keylime_info *info,
		   struct imt_error *err)
{
	struct keylime_info local;
	struct kl_ctx c = { sink, info != NULL ? info : &local, err };
	const struct member *m;
	json_error_t jerr;
	const char *name;
	json_t *doc, *v;
	int rc = -1;

	memset(c.info, 0, sizeof(*c.info));
	doc = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (doc == NULL)
		return kl_fail(err, IMT_ERR_MALFORMED,
			       "policy: not JSON (line %d column %d: %s)",
			       jerr.line, jerr.column, jerr.text);
	if (want_type(&c, "policy", doc, JSON_OBJECT) < 0 ||
	    check_members(&c, doc) < 0)
		goto out;
	json_object_foreach(doc, name, v) {
		m = member_of(name);
		if (m == NULL)
			note_unknown(&c, name);
		else if (m->load(&c, v) < 0)
			goto out;
	}
	rc = 0;
out:
	json_decref(doc);
	return rc;
}
