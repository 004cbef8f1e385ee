// SPDX-License-Identifier: GPL-2.0-only
/*
 * imatrust-verifier.c - the verifier daemon: configuration, the database,
 * the HTTPS front, the housekeeping clock (stale machines, retention) and
 * the webhook delivery thread (webhook.c).
 *
 *	imatrust-verifier [-d] [-c FILE]		serve
 *	  SIGTERM, SIGINT: stop; SIGHUP: read the TLS pair, the EK CA and
 *	  the run-time keys again (reload()), connections stay open
 *	imatrust-verifier -n [-c FILE]			check the config, exit
 *	imatrust-verifier -H				print the config keys
 *	imatrust-verifier [-c FILE] token add NAME [--role R] [--expires W]
 *	imatrust-verifier [-c FILE] token list|rm [NAME]	operator tokens
 *	imatrust-verifier [-c FILE] key rotate		a new result key
 *
 * The options and the log level are the agent's too (daemon.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <openssl/rand.h>
#include <openssl/x509_vfy.h>

#include "cluster.h"
#include "daemon.h"
#include "db.h"
#include "db_machine.h"
#include "db_token.h"
#include "engine.h"
#include "engine_housekeeping.h"
#include "engine_journal.h"
#include "engine_ops.h"
#include "enroll.h"
#include "file.h"
#include "hex.h"
#include "import_deb_child.h"
#include "import_store.h"
#include "keyring.h"
#include "log.h"
#include "notify.h"
#include "policies.h"
#include "result_keys.h"
#include "verifier.h"
#include "webhook.h"
#include "routes.h"
#include "token_cmd.h"

#define DEFAULT_CONFIG "/etc/imatrust/verifier.conf"
#define PEM_MAX (1u << 20)  /* a larger certificate or key file is bogus */
#define RETENTION_PERIOD 60 /* seconds between retention passes */
#define FD_RESERVE \
	64		/* descriptors besides connections: listener,
				 * database, log; plus FD_PER_THREAD each */
#define FD_PER_THREAD 4 /* a worker's epoll and wakeup descriptors */
/* seconds a replaced EK CA store is kept for the enrollment checks that
 * took it a moment before */
#define EK_CA_GRACE 60

static volatile sig_atomic_t quit, hup;

/* Only a flag: the main loop does the work. */
static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup = 1;
	else
		quit = 1;
}

/*
 * EK CA stores replaced by a reload: enrollment checks read v->ek_ca
 * outside v->lock, so a replaced store is freed only once EK_CA_GRACE
 * has passed (at a later reload), or at the stop.
 */
struct retired_ca {
	X509_STORE *store;
	time_t at;
	struct retired_ca *next;
};

static struct retired_ca *retired_cas;

/* Keep @old (may be NULL) for the grace; free those past theirs. */
static void ek_ca_retire(X509_STORE *old, time_t now)
{
	struct retired_ca **pp = &retired_cas, *r;

	while ((r = *pp) != NULL) {
		if (now < 0 || now - r->at > EK_CA_GRACE) {
			*pp = r->next;
			X509_STORE_free(r->store);
			free(r);
		} else {
			pp = &r->next;
		}
	}
	if (old == NULL)
		return;
	r = malloc(sizeof(*r));
	if (r == NULL)
		return; /* never freed rather than freed in use */
	r->store = old;
	r->at = now;
	r->next = retired_cas;
	retired_cas = r;
}

/* file_read() with the reason logged; NULL on failure. */
static char *slurp(const char *path, size_t max, size_t *len)
{
	char err[512];
	char *buf = file_read(path, max, len, err, sizeof(err));

	if (buf == NULL)
		log_warnx("%s", err);
	return buf;
}

static int load_config(struct config *c, const char *path)
{
	char err[512];
	size_t len;
	char *text = slurp(path, CONFIG_FILE_MAX, &len);
	int rc;

	if (text == NULL)
		return -1;
	config_defaults(c);
	rc = config_parse(c, path, text, len, err, sizeof(err));
	free(text);
	if (rc == 0)
		rc = config_check(c, err, sizeof(err));
	if (rc < 0)
		log_warnx("%s", err);
	return rc;
}

static X509_STORE *load_ek_ca(const char *path)
{
	X509_STORE *store;
	char why[CONFIG_PATH_MAX + 64];

	if (path[0] == '\0') {
		log_info(
			"no ek_ca: every machine waits in 'pending' for an operator");
		return NULL;
	}
	store = enroll_ca_load(path, why, sizeof(why));
	if (store == NULL)
		log_warnx("%s", why);
	return store;
}

static int open_db(struct verifier *v)
{
	struct imt_error err;

	char shown[CONFIG_PATH_MAX];

	if (db_open(v->cfg.database, &v->db, &err) < 0) {
		db_path_for_log(v->cfg.database, shown, sizeof(shown));
		log_warnx("%s: %s", shown, err.msg);
		return -1;
	}
	return 0;
}

/* The read view (reader.c): a read-only connection beside the writer. */
static int open_reader(struct verifier *v)
{
	char shown[CONFIG_PATH_MAX];
	struct imt_error err;

	if (verifier_reader_open(v, &err) < 0) {
		db_path_for_log(v->cfg.database, shown, sizeof(shown));
		log_warnx("%s: reader: %s", shown, err.msg);
		return -1;
	}
	return 0;
}

/* The key that signs attestation results: loaded, or made on first start. */
static int load_result_key(struct verifier *v)
{
	char path[CONFIG_PATH_MAX], why[CONFIG_PATH_MAX + 256];
	int created;

	if (result_key_path(&v->cfg, path, sizeof(path)) < 0) {
		log_warnx("result_key: path too long, or not set (a "
			  "PostgreSQL database has no directory to put it in)");
		return -1;
	}
	v->result_keys = result_keys_open(path,
					  (int64_t)v->cfg.result_key_rotate,
					  &created, why, sizeof(why));
	if (v->result_keys == NULL) {
		log_warnx("result key: %s", why);
		return -1;
	}
	log_info("%s result signing key %s (kid %s)",
		 created ? "made the" : "loaded the", path,
		 result_keys_hold(v->result_keys, (int64_t)time(NULL))->kid);
	result_keys_release(v->result_keys);
	return 0;
}

/* `key rotate`: a new result signing key, the old one kept as previous. */
static int key_command(struct verifier *v, int argc, char **argv)
{
	char path[CONFIG_PATH_MAX], why[CONFIG_PATH_MAX + 256];
	char kid[RESULT_KID_MAX];

	if (argc != 2 || strcmp(argv[1], "rotate") != 0) {
		fprintf(stderr, "usage:%s", KEY_CMD_USAGE + 6);
		return 2;
	}
	if (result_key_path(&v->cfg, path, sizeof(path)) < 0) {
		fprintf(stderr, "imatrust-verifier: result_key: path too "
				"long, or not set\n");
		return 1;
	}
	if (result_key_rotate(path, 0, (int64_t)time(NULL), kid, why,
			      sizeof(why)) < 0) {
		fprintf(stderr, "imatrust-verifier: key rotate: %s\n", why);
		return 1;
	}
	printf("%s\n", kid);
	return 0;
}

static int token_command(struct verifier *v, int argc, char **argv)
{
	int rc = token_cmd_check(argc, argv);

	if (rc != 0)
		return rc;
	if (open_db(v) < 0)
		return 1;
	rc = token_cmd_run(v->db, argc, argv, (int64_t)time(NULL));
	db_close(v->db);
	return rc;
}

/*
 * Databases older than schema 3 have machines without EK fingerprint:
 * compute them from ek_pub. When two ids share an EK the first enrolled
 * keeps it; the other stays without (it cannot re-enroll or be approved,
 * only removed) and the audit trail names both.
 */
static void fill_fingerprints(struct verifier *v)
{
	char holder[DB_MACHINE_ID_MAX + 1];
	uint8_t fpr[DB_FPR_SIZE];
	struct imt_error err;
	struct db_machine m;
	int64_t cursor = 0;
	int found = 1;

	while (found) {
		if (db_machine_next_unfingerprinted(v->db, &cursor, &m, &found,
						    &err) < 0) {
			log_warnx("EK fingerprints: %s", err.msg);
			return;
		}
		if (!found)
			break;
		if (enroll_fingerprint(m.ek_pub, m.ek_pub_len, fpr, &err) !=
		    IMT_OK)
			log_warnx("%s: no EK fingerprint: %s", m.id, err.msg);
		else if (db_machine_fill_fpr(v->db, m.id, fpr, time(NULL),
					     holder, &err) < 0)
			log_warnx("%s: EK fingerprint: %s", m.id, err.msg);
		else if (holder[0] != '\0')
			log_warnx("%s: its EK is %s's too; only %s keeps it "
				  "(imatrust machine rm %s)",
				  m.id, holder, holder, m.id);
		else
			log_info("%s: EK fingerprint filled", m.id);
		db_machine_release(&m);
	}
}

/*
 * Every connection is a descriptor: raise the soft RLIMIT_NOFILE to fit
 * @max connections, or lower @max to what the hard limit leaves (with a
 * warning), rather than fail accept() with EMFILE under load.
 */
static int fit_fd_limit(unsigned int *max, unsigned int threads)
{
	rlim_t reserve = FD_RESERVE + (rlim_t)FD_PER_THREAD * threads;
	rlim_t want = *max + reserve;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur >= want)
		return 0;
	if (rl.rlim_max > rl.rlim_cur) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur >= want)
			return 0;
	}
	if (rl.rlim_cur <= reserve) {
		log_warnx("open-file limit %llu leaves no descriptors for connections (raise LimitNOFILE=)",
			  (unsigned long long)rl.rlim_cur);
		return -1;
	}
	log_warnx("max_connections %u lowered to %llu: the open-file limit is %llu (raise LimitNOFILE=)",
		  *max, (unsigned long long)(rl.rlim_cur - reserve),
		  (unsigned long long)rl.rlim_cur);
	*max = (unsigned int)(rl.rlim_cur - reserve);
	return 0;
}

/* The HTTPS front's settings from the configuration's keys. */
static void http_config_of(struct verifier *v, const char *cert,
			   const char *key, struct http_config *hc)
{
	hc->addr = v->cfg.listen_addr;
	hc->port = (unsigned int)v->cfg.listen_port;
	hc->cert_pem = cert;
	hc->key_pem = key;
	hc->max_connections = (unsigned int)v->cfg.max_connections;
	hc->threads = (unsigned int)v->cfg.threads;
	hc->max_per_ip = (unsigned int)v->cfg.max_connections_per_ip;
	hc->timeout = (unsigned int)v->cfg.connection_timeout;
	hc->max_body = (size_t)v->cfg.max_body;
	hc->max_inflight = (size_t)v->cfg.max_inflight_body;
	hc->header_timeout = (unsigned int)v->cfg.header_timeout;
	hc->body_min_rate = (size_t)v->cfg.body_min_rate;
	/* 0: no limit (behind a TCP proxy every agent shares its address) */
	hc->fail_burst = v->cfg.max_failed_checks != 0 ?
				 (unsigned int)v->cfg.max_failed_checks :
				 HTTP_FAIL_OFF;
	hc->stats = v->http_stats;
}

/* SIGHUP: the TLS pair of @next's files, or the one in force stays. */
static int reload_tls(struct http_server *srv, const struct config *next)
{
	char *cert = slurp(next->tls_cert, PEM_MAX, NULL);
	char *key = slurp(next->tls_key, PEM_MAX, NULL);
	char why[256];
	int rc = -1;

	if (cert == NULL || key == NULL)
		log_warnx("reload: the certificate in force stays");
	else if (http_reload_tls(srv, cert, key, why, sizeof(why)) < 0)
		log_warnx("reload: tls_cert %s, tls_key %s: %s; the certificate in force stays",
			  next->tls_cert, next->tls_key, why);
	else
		rc = 0;
	if (rc == 0)
		log_info("reload: new connections get the certificate of %s",
			 next->tls_cert);
	if (key != NULL)
		explicit_bzero(key, strlen(key));
	free(key);
	free(cert);
	return rc;
}

/* SIGHUP: the EK CA of @next (load_ek_ca()), or the one in force stays. */
static int reload_ek_ca(struct verifier *v, const struct config *next)
{
	X509_STORE *store = load_ek_ca(next->ek_ca), *old;

	if (store == NULL && next->ek_ca[0] != '\0') {
		log_warnx("reload: the EK CA in force stays");
		return -1;
	}
	old = engine_ek_ca_swap(v, store);
	ek_ca_retire(old, time(NULL));
	return 0;
}

static void note_key(const char *key, int taken)
{
	if (taken)
		log_info("reload: %s changed", key);
	else
		log_warnx("reload: %s changed: needs a restart (the running value stays)",
			  key);
}

/* SIGHUP: the run-time keys of @next, in @v and in its read view. */
static void reload_config(struct verifier *v, const struct config *next)
{
	engine_config_reload(v, next, note_key);
}

/*
 * SIGHUP, in the main loop: the configuration file, the TLS certificate
 * and key and the EK CA again, while every connection stays open. What
 * fails to load is logged and what is in force stays.
 */
static void reload(struct verifier *v, struct http_server *srv,
		   const struct daemon_opts *o)
{
	static struct config next; /* 50 KiB: not on the stack */
	int failed = 0;

	notify_send("RELOADING=1\nSTATUS=reloading");
	log_info("SIGHUP: reading %s again", o->config);
	if (load_config(&next, o->config) < 0) {
		log_warnx("reload: %s not taken; nothing changed", o->config);
		failed = 1;
	} else {
		/* files not taken: their keys keep naming those in force */
		if (reload_tls(srv, &next) < 0) {
			memcpy(next.tls_cert, v->cfg.tls_cert,
			       sizeof(next.tls_cert));
			memcpy(next.tls_key, v->cfg.tls_key,
			       sizeof(next.tls_key));
			failed = 1;
		}
		if (reload_ek_ca(v, &next) < 0) {
			memcpy(next.ek_ca, v->cfg.ek_ca, sizeof(next.ek_ca));
			failed = 1;
		}
		reload_config(v, &next);
		daemon_log_level(o, v->cfg.log_level);
		log_info("reload: done");
	}
	notify_send(failed ? "READY=1\nSTATUS=serving; the last reload "
			     "kept what was in force (see the log)" :
			     "READY=1\nSTATUS=serving");
}

static int serve(struct verifier *v, const struct daemon_opts *o)
{
	struct http_config hc = { 0 };
	struct http_server *srv = NULL;
	char *cert = NULL, *key = NULL, errbuf[256], shown[CONFIG_PATH_MAX];
	time_t last_retention = 0;
	int rc = 1;

	cert = slurp(v->cfg.tls_cert, PEM_MAX, NULL);
	key = slurp(v->cfg.tls_key, PEM_MAX, NULL);
	if (cert == NULL || key == NULL)
		goto out;
	if (v->cfg.ek_ca[0] != '\0' &&
	    (v->ek_ca = load_ek_ca(v->cfg.ek_ca)) == NULL)
		goto out;
	if (open_db(v) < 0 || load_result_key(v) < 0 ||
	    verifier_caches_new(v) < 0)
		goto out;
	fill_fingerprints(v);
	engine_journal_start(v);
	if (webhook_start(v) < 0)
		goto out;
	http_config_of(v, cert, key, &hc);
	if (fit_fd_limit(&hc.max_connections, hc.threads) < 0)
		goto out;
	v->started = time(NULL);
	/* machines past their deadline while the verifier was down */
	if (cluster_lead(v))
		engine_stale_tick(v, v->started);
	/* reference changes a crash or a kill cut short */
	engine_resume_changes(v, (int64_t)v->started);
	engine_load_references(v);
	if (open_reader(v) < 0)
		goto out;
	srv = http_start(&hc, verifier_routes, v, errbuf, sizeof(errbuf));
	if (srv == NULL) {
		log_warnx("%s", errbuf);
		goto out;
	}
	db_path_for_log(v->cfg.database, shown, sizeof(shown));
	log_info("listening on https://%s:%u/ (database %s)",
		 v->cfg.listen_addr, http_port(srv), shown);
	notify_send("READY=1\nSTATUS=serving");
	while (!quit) {
		time_t now = time(NULL);

		if (hup) {
			hup = 0;
			reload(v, srv, o);
		}

		/* with several instances on one database, one keeps the
		 * clock; another takes over when its session ends */
		if (cluster_lead(v)) {
			engine_stale_tick(v, now);
			if (now - last_retention >= RETENTION_PERIOD) {
				engine_retention(v, (int64_t)now);
				import_retire_due(v, now);
				last_retention = now;
			}
		}
		sleep(1);
	}
	notify_send("STOPPING=1");
	log_info("stopping");
	rc = 0;
out:
	http_stop(srv);
	webhook_stop(v);
	verifier_reader_close(v);
	db_close(v->db);
	verifier_caches_free(v);
	policies_free(v);
	keyring_free(v);
	X509_STORE_free(v->ek_ca);
	ek_ca_retire(NULL, -1);
	result_keys_close(v->result_keys);
	if (key != NULL)
		explicit_bzero(key, strlen(key));
	free(key);
	free(cert);
	return rc;
}

/* -H: config.c's table (its printer takes a FILE * as void *). */
static void print_keys(FILE *out)
{
	config_print_help(out);
}

static const struct daemon_info verifier_daemon = {
	.name = "imatrust-verifier",
	.config_default = DEFAULT_CONFIG,
	.operands =
		"[token add NAME [--role R] [--expires W] | list | rm NAME] "
		"| [key rotate]",
	.print_keys = print_keys,
};

int main(int argc, char **argv)
{
	static struct verifier v;
	static struct http_stats http_stats;
	struct sigaction sa = { .sa_handler = on_signal };
	struct daemon_opts o;

	/* the package parser child (import_deb_child.h), before anything */
	if (argc > 1 && strcmp(argv[1], IMPORT_DEB_CHILD_ARG) == 0)
		return import_deb_child_main(argc, argv);
	daemon_options(&verifier_daemon, argc, argv, &o);
	if (load_config(&v.cfg, o.config) < 0)
		return 1;
	if (o.check)
		return daemon_checked(&o, NULL);
	if (daemon_log_level(&o, v.cfg.log_level) < 0)
		return 1;
	pthread_mutex_init(&v.lock, NULL);
	v.http_stats = &http_stats;
	if (o.argc > 0 && strcmp(o.argv[0], "token") == 0)
		return token_command(&v, o.argc, o.argv);
	if (o.argc > 0 && strcmp(o.argv[0], "key") == 0)
		return key_command(&v, o.argc, o.argv);
	if (o.argc > 0) {
		fprintf(stderr, TOKEN_CMD_USAGE KEY_CMD_USAGE);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return serve(&v, &o);
}
