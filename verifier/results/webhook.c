// SPDX-License-Identifier: GPL-2.0-only
/*
 * webhook.c - the webhook delivery thread.
 *
 * Each pass takes the due messages (at most one per endpoint and machine:
 * the database hands out only the oldest undelivered message of each)
 * from the engine (engine_outbox.h, under v->lock), posts them all at
 * once (client_post_all(), proto/io/client.h) without the lock, then notes each
 * outcome through the engine again. So a slow or dead receiver delays
 * neither the engine nor the other receivers, and a machine's messages
 * arrive in order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "client.h"
#include "db.h"
#include "db_machine.h"
#include "db_webhook.h"
#include "engine_outbox.h"
#include "file.h"
#include "log.h"
#include "webhook.h"
#include "webhook_body.h"
#include "webhook_ca.h"
#include "webhook_endpoint.h"
#include "webhook_sign.h"

#define BATCH 32    /* messages in flight at once, at most */
#define POLL_MS 200 /* how soon a stop is noticed mid-attempt */
#define IDLE_SECONDS \
	1		      /* between passes when nothing was due and
				 * no commit queued a message */
#define DROP_CHECK_SECONDS 10 /* between looks at the dropped counts */
#define ENDPOINTS_SEEN 256    /* endpoints whose dropped count is known */
#define SECRET_FILE_MAX 1024  /* a secret file is one short line */
#define HEADER_MAX (DB_WEBHOOK_NAME_MAX + 64)
#define HEADERS 6		 /* content-type, webhook-*, user-agent */
#define CONFIG_ENDPOINTS_MAX 256 /* webhook lines in the config file */

/* One due message, copied out of the database, and its attempt. */
struct message {
	int64_t seq;
	unsigned int attempts;
	char id[WEBHOOK_ID_MAX];
	char endpoint[DB_WEBHOOK_NAME_MAX + 1];
	char machine[DB_MACHINE_ID_MAX + 1];
	uint8_t secret[DB_WEBHOOK_SECRET_MAX];
	size_t secret_len;
	/* "CURRENT PREVIOUS" during a rotation (key_ids) */
	char key_ids[2 * DB_WEBHOOK_KEY_ID_MAX + 2];
	uint8_t previous[DB_WEBHOOK_SECRET_MAX];
	size_t previous_len; /* 0: no rotation under way */
	int allow_http;
	char *url, *ca_file, *body; /* owned */
	char *ca_pem;		    /* ca_file's contents, read to send */
	size_t ca_len;
	char header[HEADERS][HEADER_MAX + WEBHOOK_SIGNATURES_MAX];
	const char *headers[HEADERS + 1]; /* header's lines, NULL-ended */
	char refused[DB_WEBHOOK_ERROR_MAX - 16]; /* webhook_addr_check()'s no */
	char error[DB_WEBHOOK_ERROR_MAX];	 /* "" when delivered */
	int done;				 /* the attempt finished */
};

struct batch {
	struct message m[BATCH];
	size_t n;
	struct client_post post[BATCH]; /* of the messages that can go */
	struct message *of[BATCH];	/* post[i] is of[i]'s */
	const char *ca_dir;		/* webhook_ca_dir: where ca_file is */
};

struct seen {
	char name[DB_WEBHOOK_NAME_MAX + 1];
	uint64_t dropped;
};

struct webhooks {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	int kicked; /* a commit queued messages since the last pass */
	struct seen seen[ENDPOINTS_SEEN];
	size_t nseen;
};

unsigned int webhook_backoff(unsigned int failures, uint32_t rnd)
{
	unsigned int d = WEBHOOK_BACKOFF_MAX;

	if (failures < 1)
		failures = 1;
	if (failures <= 9 && (1u << (failures - 1)) < d)
		d = 1u << (failures - 1);
	return d - rnd % (d / 4 + 1);
}

static int stopping(struct webhooks *w)
{
	int s;

	pthread_mutex_lock(&w->mu);
	s = w->stop;
	pthread_mutex_unlock(&w->mu);
	return s;
}

/* ---- one pass ----------------------------------------------------------- */

static void message_free(struct message *m)
{
	free(m->url);
	free(m->ca_file);
	free(m->ca_pem);
	free(m->body);
	OPENSSL_cleanse(m->secret, sizeof(m->secret));
	OPENSSL_cleanse(m->previous, sizeof(m->previous));
}

static char *dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* The secret a rotation replaced, when one is under way, and both ids. */
static void copy_previous(struct message *m,
			  const struct db_webhook_message *dm)
{
	snprintf(m->key_ids, sizeof(m->key_ids), "%s", dm->key_id);
	if (dm->secret_previous == NULL || dm->key_id_previous == NULL ||
	    dm->secret_previous_len > sizeof(m->previous))
		return;
	m->previous_len = dm->secret_previous_len;
	memcpy(m->previous, dm->secret_previous, m->previous_len);
	snprintf(m->key_ids, sizeof(m->key_ids), "%s %s", dm->key_id,
		 dm->key_id_previous);
}

static int collect(const struct db_webhook_message *dm, void *arg)
{
	struct batch *b = arg;
	struct message *m = &b->m[b->n];

	memset(m, 0, sizeof(*m));
	m->seq = dm->seq;
	m->attempts = dm->attempts;
	webhook_id(dm, m->id, sizeof(m->id));
	snprintf(m->endpoint, sizeof(m->endpoint), "%s", dm->endpoint);
	copy_previous(m, dm);
	snprintf(m->machine, sizeof(m->machine), "%s", dm->machine_id);
	m->secret_len = dm->secret_len <= sizeof(m->secret) ? dm->secret_len :
							      sizeof(m->secret);
	memcpy(m->secret, dm->secret, m->secret_len);
	m->allow_http = dm->allow_http;
	m->url = dup_or_null(dm->url);
	m->ca_file = dup_or_null(dm->ca_file);
	if (m->url == NULL || (dm->ca_file != NULL && m->ca_file == NULL)) {
		message_free(m);
		return 1; /* out of memory: send what we have */
	}
	/* written now from the queued facts (a body that cannot be is an
	 * attempt that fails, saying why) */
	m->body = webhook_body(dm, m->error, sizeof(m->error));
	b->n++;
	return b->n == BATCH;
}

/* The headers of @m's attempt at @ts, signed with @sig. */
static void set_headers(struct message *m, const char *ts, const char *sig)
{
	const char *const hv[HEADERS][2] = {
		{ "content-type", "application/json" },
		{ "webhook-id", m->id },
		{ "webhook-timestamp", ts },
		{ "webhook-signature", sig },
		{ "webhook-key-id", m->key_ids },
		{ "user-agent", "imatrust-verifier" },
	};
	size_t i;

	for (i = 0; i < HEADERS; i++) {
		snprintf(m->header[i], sizeof(m->header[i]), "%s: %s", hv[i][0],
			 hv[i][1]);
		m->headers[i] = m->header[i];
	}
	m->headers[HEADERS] = NULL;
}

/* A connection only to an address that webhook_addr_check() accepts,
 * whatever the name resolved to. */
static int addr_ok(const void *sa, void *arg)
{
	struct message *m = arg;

	return webhook_addr_check(sa, strncmp(m->url, "http:", 5) == 0,
				  m->allow_http, m->refused,
				  sizeof(m->refused));
}

/*
 * Sign @m and set up its attempt in @p; -1 with m->error when it cannot
 * go. Its peer is verified against its CA file only, when it names one:
 * the file's bytes, read now from @ca_dir by webhook_ca.h's rule (an
 * endpoint stored with a path before the rule fails here, saying so).
 */
static int prepare(struct message *m, int64_t now, const char *ca_dir,
		   struct client_post *p)
{
	char sig[WEBHOOK_SIGNATURES_MAX], ts[24];

	if (m->body == NULL) /* webhook_body() said why, in m->error */
		return -1;
	if (webhook_url_check(m->url, m->allow_http, m->error,
			      sizeof(m->error)) < 0)
		return -1;
	snprintf(ts, sizeof(ts), "%" PRId64, now);
	if (webhook_sign_all(m->secret, m->secret_len,
			     m->previous_len > 0 ? m->previous : NULL,
			     m->previous_len, m->id, now, m->body,
			     strlen(m->body), sig) < 0) {
		snprintf(m->error, sizeof(m->error), "out of memory");
		return -1;
	}
	if (m->ca_file != NULL) {
		m->ca_pem = webhook_ca_read(ca_dir, m->ca_file, &m->ca_len,
					    m->error, sizeof(m->error));
		if (m->ca_pem == NULL)
			return -1;
	}
	set_headers(m, ts, sig);
	*p = (struct client_post){
		.url = m->url,
		.headers = m->headers,
		.body = m->body,
		.len = strlen(m->body),
		.ca_pem = m->ca_pem,
		.ca_len = m->ca_len,
		.connect_timeout_ms = WEBHOOK_CONNECT_TIMEOUT * 1000L,
		.timeout_ms = WEBHOOK_TIMEOUT * 1000L,
		.addr_ok = addr_ok,
		.arg = m,
	};
	return 0;
}

/* The outcome of @p, @m's attempt, into m->error ("" = delivered). */
static void finish(struct message *m, const struct client_post *p)
{
	if (p->err == CLIENT_ERR_STOPPED)
		return; /* abandoned: not done */
	m->done = 1;
	if (p->err == CLIENT_ERR_REFUSED) {
		snprintf(m->error, sizeof(m->error), "refused: %s", m->refused);
		return;
	}
	if (p->err != CLIENT_ERR_NONE) {
		/* One coarse reason for whoever reads last_error (closed,
		 * reset, silent and TLS ports would otherwise tell a port
		 * scan apart); the detail goes to the operator's log. */
		log_warnx("webhook %s: %s: %s", m->endpoint, m->url, p->error);
		snprintf(m->error, sizeof(m->error),
			 "no HTTP answer (the "
			 "verifier's log has the detail)");
		return;
	}
	if (p->status < 200 || p->status > 299)
		snprintf(m->error, sizeof(m->error), "HTTP %ld", p->status);
}

static int stop_asked(void *arg)
{
	return stopping(arg);
}

/* Post every message of @b that can go at once, until done or stopping. */
static void send_all(struct webhooks *w, struct batch *b, int64_t now)
{
	struct message *m;
	size_t i, n = 0;

	for (i = 0; i < b->n; i++) {
		m = &b->m[i];
		if (prepare(m, now, b->ca_dir, &b->post[n]) < 0) {
			m->done = 1;
			continue;
		}
		b->of[n++] = m;
	}
	client_post_all(b->post, n, stop_asked, w, POLL_MS);
	for (i = 0; i < n; i++)
		finish(b->of[i], &b->post[i]);
}

/* Note what became of @m; an abandoned one stays as is. */
static void note(struct verifier *v, const struct message *m, int64_t now)
{
	struct imt_error err;
	unsigned int failures = m->attempts + 1;
	uint32_t rnd = 0;

	if (!m->done)
		return;
	if (m->error[0] == '\0') {
		if (engine_outbox_delivered(v, m->seq, now, &err) < 0)
			log_warnx("webhook %s: %s delivered, not noted: %s",
				  m->endpoint, m->id, err.msg);
		else if (m->attempts > 0)
			log_info("webhook %s: %s delivered after %u failed attempts",
				 m->endpoint, m->id, m->attempts);
		return;
	}
	RAND_bytes((uint8_t *)&rnd, sizeof(rnd));
	if (engine_outbox_failed(v, m->seq,
				 now + webhook_backoff(failures, rnd), m->error,
				 &err) < 0)
		log_warnx("webhook %s: %s: %s", m->endpoint, m->id, err.msg);
	/* the first failure and every tenth: a dead receiver is not spam */
	if (failures == 1 || failures % 10 == 0)
		log_warnx("webhook %s: %s (machine %s) not delivered, attempt %u: %s",
			  m->endpoint, m->id, m->machine, failures, m->error);
	else
		log_debug("webhook %s: %s attempt %u: %s", m->endpoint, m->id,
			  failures, m->error);
}

/* One pass; returns how many messages were due (BATCH: maybe more). */
static size_t deliver_due(struct verifier *v, struct webhooks *w)
{
	static struct batch b; /* only this thread uses it */
	struct imt_error err;
	int64_t now = (int64_t)time(NULL);
	size_t i, n;

	/* the leader delivers every instance's messages, so two instances
	 * never post the same one at once (cluster.h) */
	if (!atomic_load(&v->leader))
		return 0;
	b.n = 0;
	b.ca_dir = v->cfg.webhook_ca_dir;
	if (engine_outbox_due(v, now, BATCH, collect, &b, &err) < 0)
		log_warnx("webhooks: %s", err.msg);
	if (b.n == 0)
		return 0;
	send_all(w, &b, now);
	now = (int64_t)time(NULL);
	for (i = 0; i < b.n; i++)
		note(v, &b.m[i], now);
	n = b.n;
	for (i = 0; i < b.n; i++)
		message_free(&b.m[i]);
	return n;
}

/* ---- dropped messages: said loudly ------------------------------------- */

static struct seen *seen_of(struct webhooks *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nseen; i++) {
		if (strcmp(w->seen[i].name, name) == 0)
			return &w->seen[i];
	}
	if (w->nseen == ENDPOINTS_SEEN)
		return NULL;
	snprintf(w->seen[w->nseen].name, sizeof(w->seen[0].name), "%s", name);
	w->seen[w->nseen].dropped = 0;
	return &w->seen[w->nseen++];
}

static int check_one(const struct db_webhook *e, void *arg)
{
	struct webhooks *w = arg;
	struct seen *s = seen_of(w, e->name);

	if (s == NULL || e->dropped <= s->dropped)
		return 0;
	log_warnx("webhook %s: outbox full (webhook_max_pending %u): %" PRIu64
		  " oldest undelivered messages dropped, %" PRIu64
		  " in all; its receiver missed state changes: resynchronize it from GET /v1/machines",
		  e->name, e->max_pending, e->dropped - s->dropped, e->dropped);
	s->dropped = e->dropped;
	return 0;
}

static void check_dropped(struct verifier *v, struct webhooks *w)
{
	struct imt_error err;

	if (engine_outbox_list(v, check_one, w, &err) < 0)
		log_warnx("webhooks: %s", err.msg);
}

static void *run(void *arg)
{
	struct verifier *v = arg;
	struct webhooks *w = v->webhooks;
	time_t last_check = 0;
	struct timespec until;

	while (!stopping(w)) {
		if (time(NULL) - last_check >= DROP_CHECK_SECONDS) {
			check_dropped(v, w);
			last_check = time(NULL);
		}
		if (deliver_due(v, w) == BATCH)
			continue;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += IDLE_SECONDS;
		pthread_mutex_lock(&w->mu);
		if (!w->stop && !w->kicked)
			pthread_cond_timedwait(&w->cv, &w->mu, &until);
		w->kicked = 0;
		pthread_mutex_unlock(&w->mu);
	}
	return NULL;
}

/* ---- start: the config file's endpoints -------------------------------- */

/* One endpoint of the config file, its secrets read. */
struct config_endpoint {
	struct webhook_spec s;
	uint8_t secret[DB_WEBHOOK_SECRET_MAX];
	size_t secret_len;
	char key_id[WEBHOOK_KEY_ID_LEN + 1];
	uint8_t previous[DB_WEBHOOK_SECRET_MAX]; /* secret_previous= */
	size_t previous_len;			 /* 0: none */
	char key_id_previous[WEBHOOK_KEY_ID_LEN + 1];
};

/* Is @s's CA file one delivery will read (webhook_ca.h)? Else say why. */
static int check_ca(struct verifier *v, const struct webhook_spec *s)
{
	char why[256];
	size_t len;
	char *text = webhook_ca_read(v->cfg.webhook_ca_dir, s->ca_file, &len,
				     why, sizeof(why));

	if (text == NULL) {
		log_warnx("webhook %s: %s", s->name, why);
		return -1;
	}
	free(text);
	return 0;
}

/* The secret in @file of endpoint @name into @secret, its id @key_id. */
static int read_secret(const char *name, const char *file, uint8_t *secret,
		       size_t *secret_len, char key_id[WEBHOOK_KEY_ID_LEN + 1])
{
	char err_text[512];
	size_t len = 0;
	char *text;
	int rc;

	text = file_read(file, SECRET_FILE_MAX, &len, err_text,
			 sizeof(err_text));
	if (text == NULL) {
		log_warnx("webhook %s: %s", name, err_text);
		return -1;
	}
	rc = webhook_secret_parse(text, len, secret, secret_len);
	OPENSSL_cleanse(text, len);
	free(text);
	if (rc < 0) {
		log_warnx("webhook %s: %s: not a secret (whsec_ and the base64 of %d to %d bytes)",
			  name, file, DB_WEBHOOK_SECRET_MIN,
			  DB_WEBHOOK_SECRET_MAX);
		return -1;
	}
	webhook_key_id(secret, *secret_len, key_id);
	return 0;
}

/* Read the secrets of @c's files and check its CA file. */
static int read_spec(struct verifier *v, struct config_endpoint *c)
{
	const struct webhook_spec *s = &c->s;

	if (read_secret(s->name, s->secret_file, c->secret, &c->secret_len,
			c->key_id) < 0)
		return -1;
	if (s->secret_previous_file[0] != '\0' &&
	    read_secret(s->name, s->secret_previous_file, c->previous,
			&c->previous_len, c->key_id_previous) < 0)
		return -1;
	if (s->ca_file[0] != '\0' && check_ca(v, s) < 0)
		return -1;
	return 0;
}

/* @c as the database stores it; pointers into @c. */
static void to_new(struct verifier *v, const struct config_endpoint *c,
		   struct db_webhook_new *n)
{
	memset(n, 0, sizeof(*n));
	n->name = c->s.name;
	n->url = c->s.url;
	n->ca_file = c->s.ca_file[0] != '\0' ? c->s.ca_file : NULL;
	n->allow_http = c->s.allow_http;
	n->secret = c->secret;
	n->secret_len = c->secret_len;
	n->key_id = c->key_id;
	if (c->previous_len > 0) {
		n->secret_previous = c->previous;
		n->secret_previous_len = c->previous_len;
		n->key_id_previous = c->key_id_previous;
	}
	n->from_config = 1;
	n->max_pending = (unsigned int)v->cfg.webhook_max_pending;
}

/* Parse and read every endpoint of the config file into @eps. */
static int read_config(struct verifier *v, struct config_endpoint *eps,
		       struct db_webhook_new *news, size_t *n)
{
	const char *line;
	size_t pos = 0, len;
	char why[512];

	*n = 0;
	while (webhook_spec_next(&v->cfg, &pos, &line, &len)) {
		if (*n == CONFIG_ENDPOINTS_MAX) {
			log_warnx("webhooks: more than %d in the config file",
				  CONFIG_ENDPOINTS_MAX);
			return -1;
		}
		if (webhook_spec_parse(line, len, &eps[*n].s, why,
				       sizeof(why)) < 0) {
			log_warnx("%s", why);
			return -1;
		}
		if (read_spec(v, &eps[*n]) < 0)
			return -1;
		to_new(v, &eps[*n], &news[*n]);
		(*n)++;
	}
	return 0;
}

/* The config file's endpoints into the database (engine_outbox_sync()). */
static int sync_db(struct verifier *v)
{
	struct config_endpoint *eps =
		calloc(CONFIG_ENDPOINTS_MAX, sizeof(*eps));
	struct db_webhook_new *news =
		calloc(CONFIG_ENDPOINTS_MAX, sizeof(*news));
	size_t n = 0;
	int rc = -1;

	if (eps == NULL || news == NULL)
		log_warnx("webhooks: out of memory");
	else if (read_config(v, eps, news, &n) == 0)
		rc = engine_outbox_sync(v, news, n);
	if (eps != NULL)
		OPENSSL_cleanse(eps, CONFIG_ENDPOINTS_MAX * sizeof(*eps));
	free(eps);
	free(news);
	return rc;
}

/* A commit queued messages (engine_outbox_on_queued(); v->lock is held). */
static void kick(void *arg)
{
	struct webhooks *w = arg;

	pthread_mutex_lock(&w->mu);
	w->kicked = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

int webhook_start(struct verifier *v)
{
	struct webhooks *w;

	if (client_post_start() < 0) {
		log_warnx("webhooks: libcurl does not start");
		return -1;
	}
	w = sync_db(v) == 0 ? calloc(1, sizeof(*w)) : NULL;
	if (w == NULL) {
		client_post_end();
		return -1;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	v->webhooks = w;
	engine_outbox_on_queued(v, kick, w);
	if (pthread_create(&w->thread, NULL, run, v) != 0) {
		log_warnx("webhooks: cannot start the delivery thread");
		engine_outbox_on_queued(v, NULL, NULL);
		v->webhooks = NULL;
		free(w);
		client_post_end();
		return -1;
	}
	return 0;
}

void webhook_stop(struct verifier *v)
{
	struct webhooks *w = v->webhooks;

	if (w == NULL)
		return;
	engine_outbox_on_queued(v, NULL, NULL);
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
	v->webhooks = NULL;
	client_post_end();
}
