// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent.c - the imatrust-agent state machine (see agent.h): start, stop
 * and the step table; agent_int.h says which file does which step.
 */
#define _GNU_SOURCE /* ppoll() */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_int.h"
#include "file.h"
#include "log.h"
#include "notify.h"

uint64_t agent_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleep @ms unless a stop request comes first. */
void agent_sleep(struct agent *a, uint32_t ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	if (!*a->stop)
		ppoll(NULL, 0, &ts, a->sigmask);
}

/* STATUS= for `systemctl status`. */
void __attribute__((format(printf, 1, 2))) agent_status(const char *fmt, ...)
{
	char status[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(status, sizeof(status), fmt, ap);
	va_end(ap);
	notify_status(status);
}

/* ---- start and the step table ----------------------------------------- */

/* PCR 10 from where the list starts: zero, or after what was deleted. */
static int agent_replay_start(struct agent *a)
{
	static const uint8_t zero[HASH_ALGO_MAX_SIZE];
	struct imt_error err;

	a->replay = list_replay_new(a->bank, a->export_on ? a->exp.deleted : 0,
				    a->export_on ? a->exp.pcr : zero, &err);
	if (a->replay == NULL)
		log_warnx("replay: %s", err.msg);
	return a->replay != NULL ? 0 : -1;
}

/* Open the TPM, make the EK, load or make the AK; retried while the TPM
 * does not answer. Return: 0, 1 on a stop request, -1 on failure. */
static int agent_tpm_start(struct agent *a)
{
	char buf[16];
	const char *kind = agent_ek_kind(a->cfg, buf, sizeof(buf));
	enum tpm_status st;
	uint32_t ms;

	for (;;) {
		st = tpm_open(a->cfg->tcti, &a->tpm);
		if (st == TPM_OK)
			st = tpm_ek_find(a->tpm, kind, a->alg, &a->ek);
		if (st == TPM_OK)
			st = tpm_ak_load(a->tpm, a->cfg->state_dir, a->alg,
					 &a->ak);
		if (st == TPM_OK) {
			agent_ek_remember(a->cfg, &a->ek);
			return 0;
		}
		tpm_close(a->tpm);
		a->tpm = NULL;
		if (st != TPM_ERR_COMM) {
			log_warnx("TPM %s: %s", a->cfg->tcti,
				  tpm_status_name(st));
			return -1;
		}
		ms = backoff_next(&a->backoff);
		log_warnx("TPM %s does not answer; retrying in %u ms",
			  a->cfg->tcti, ms);
		agent_status("waiting for the TPM");
		agent_sleep(a, ms);
		if (*a->stop)
			return 1;
	}
}

static int agent_paths(struct agent *a)
{
	static const struct {
		size_t off;
		const char *suffix;
	} paths[] = {
		{ offsetof(struct agent, path_nonce), "nonce" },
		{ offsetof(struct agent, path_activate), "activate" },
		{ offsetof(struct agent, path_evidence), "evidence" },
	};
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if ((size_t)snprintf((char *)a + paths[i].off, AGENT_PATH_MAX,
				     "/v1/agents/%s/%s", a->cfg->id,
				     paths[i].suffix) >= AGENT_PATH_MAX)
			return -1;
	}
	return 0;
}

/*
 * Read the firmware event log once (it does not change within a boot). A
 * machine without one (BIOS, no TPM driver, boot_log = none) sends none.
 */
static void agent_boot_log_load(struct agent *a)
{
	const char *path = a->cfg->boot_log;
	char err[AGENT_CONFIG_PATH_MAX + 128];

	a->pcr_mask = rules_pcr_mask(NULL, 0);
	if (strcmp(path, "none") == 0 || path[0] == '\0') {
		log_info("boot_log = none: no firmware event log is sent");
		return;
	}
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		log_info("%s: no such file: this machine has no firmware event log; none is sent",
			 path);
		return;
	}
	a->boot_log = file_read(path, WIRE_BOOT_LOG_MAX, &a->boot_log_len, err,
				sizeof(err));
	if (a->boot_log != NULL && a->boot_log_len == 0) {
		free(a->boot_log);
		a->boot_log = NULL;
		snprintf(err, sizeof(err), "%s: empty", path);
	}
	if (a->boot_log == NULL) {
		log_warnx("firmware event log: %s; none is sent", err);
		return;
	}
	a->pcr_mask =
		rules_pcr_mask((const uint8_t *)a->boot_log, a->boot_log_len);
	log_info("firmware event log %s: %zu bytes; PCRs 0x%06x quoted", path,
		 a->boot_log_len, (unsigned int)a->pcr_mask);
	a->boot_log_due = 1;
}

static int agent_start(struct agent *a)
{
	struct client_opts co;
	int rc;

	a->bank = hash_algo_bank(a->cfg->bank);
	a->alg = strcmp(a->cfg->key_alg, "ecc") == 0 ? TPM_KEY_ECC :
						       TPM_KEY_RSA;
	backoff_init(&a->backoff, (uint32_t)a->cfg->backoff_max * 1000,
		     ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
			     agent_now_ms());
	if (a->bank == NULL || agent_paths(a) < 0) {
		log_warnx("bank '%s' or id '%s' unusable", a->cfg->bank,
			  a->cfg->id);
		return -1;
	}
	a->pend = malloc(WIRE_RECORDS_MAX);
	if (a->pend == NULL) {
		log_warnx("out of memory");
		return -1;
	}
	if (agent_list_open(a, 0) < 0)
		return -1;
	a->pollable = list_follow_pollable(a->list);
	agent_boot_log_load(a);
	log_info("list %s: %s", a->cfg->measurement_list,
		 a->pollable ? "poll() reports new records" :
			       "no poll() support, reading on a timer");
	rc = agent_tpm_start(a);
	if (rc != 0)
		return rc;
	log_info("TPM %s: EK %s (%s)%s, %zu intermediates; %s AK %s",
		 a->cfg->tcti, a->ek.kind, a->ek.profile,
		 a->ek.cert_len != 0 ? " with certificate" : "",
		 a->ek.chain_certs, a->cfg->key_alg,
		 a->ak.created ? "created" : "loaded");
	/* the list again, numbered from what this boot deleted (closed
	 * meanwhile: a writer gets in only while no reader is open) */
	agent_list_close(a);
	if (agent_export_start(a) < 0 || agent_replay_start(a) < 0 ||
	    agent_list_open(a, 0) < 0)
		return -1;
	a->pend_first = list_follow_base(a->list);
	backoff_reset(&a->backoff);
	client_opts_init(&co, a->cfg->verifier_url, a->cfg->ca_cert);
	co.user_agent = "imatrust-agent/1";
	a->client = client_new(&co);
	if (a->client == NULL) {
		log_warnx("HTTPS client: cannot start libcurl");
		return -1;
	}
	return 0;
}

static void agent_stop(struct agent *a)
{
	client_free(a->client);
	tpm_close(a->tpm);
	agent_list_close(a);
	list_replay_free(a->replay);
	free(a->pend);
	free(a->boot_log);
}

static enum agent_step (*const agent_steps[STEP_COUNT])(struct agent *) = {
	[STEP_CONNECT] = agent_connect, [STEP_ENROLL] = agent_enroll,
	[STEP_PENDING] = agent_pending, [STEP_STREAM] = agent_stream,
	[STEP_BACKOFF] = agent_backoff,
};

int agent_run(const struct agent_config *cfg, volatile sig_atomic_t *stop,
	      const sigset_t *sigmask)
{
	struct agent *a = calloc(1, sizeof(*a));
	enum agent_step step;
	int rc;

	if (a == NULL)
		fatal("%s", __func__);
	a->cfg = cfg;
	a->stop = stop;
	a->sigmask = sigmask;
	rc = agent_start(a);
	if (rc != 0)
		goto out;
	notify_ready("connecting to the verifier");
	/* a new AK is unknown to the verifier: enroll it right away */
	step = a->ak.created ? STEP_ENROLL : STEP_CONNECT;
	while (!*stop && step != STEP_STOP)
		step = agent_steps[step](a);
out:
	notify_stopping();
	agent_stop(a);
	free(a);
	return rc < 0 ? 1 : 0;
}
