// SPDX-License-Identifier: GPL-2.0-only
/*
 * imatrust-agent.c - main: options, config, signals; agent.c does the rest.
 *
 *	imatrust-agent [-d] [-c FILE]	run (systemd Type=notify)
 *	imatrust-agent -n [-c FILE]	check the config file and exit
 *	imatrust-agent -H		print every config key and exit
 *
 * The options and the log level are the verifier's too (daemon.h).
 */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "agent_config.h"
#include "daemon.h"
#include "log.h"

/*
 * Blocks of this size and larger are mmap()ed, and returned to the
 * kernel when freed; free space at the heap's top past it as well.
 * glibc's default, but fixed: left alone, glibc raises both to the
 * largest block freed (the list readers' buffers at start, an evidence
 * body), after which each round's bodies come from the heap and stay
 * there for the rest of the run.
 */
#define AGENT_MMAP_THRESHOLD (128 * 1024)

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * SIGTERM and SIGINT stay blocked except while the agent sleeps (ppoll()
 * with @sleep_mask), so a stop never cuts a TPM command or a request
 * short and never slips in between a check of the flag and a sleep.
 */
static void signals_setup(sigset_t *sleep_mask)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGINT, &sa, NULL) < 0)
		fatal("sigaction");
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) < 0)
		fatal("sigaction");
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	if (sigprocmask(SIG_BLOCK, &block, sleep_mask) < 0)
		fatal("sigprocmask");
	sigdelset(sleep_mask, SIGTERM);
	sigdelset(sleep_mask, SIGINT);
}

static const struct daemon_info agent_daemon = {
	.name = "imatrust-agent",
	.config_default = AGENT_CONFIG_DEFAULT,
	.operands = NULL,
	.print_keys = agent_config_print_help,
};

int main(int argc, char **argv)
{
	struct daemon_opts o;
	struct agent_config cfg;
	char err[1024], id[128];
	sigset_t sleep_mask;
	int rc;

	mallopt(M_MMAP_THRESHOLD, AGENT_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, AGENT_MMAP_THRESHOLD);
	/* before libtss2 loads: its own stderr logging off (tpm.c logs) */
	setenv("TSS2_LOG", "all+none", 0);
	daemon_options(&agent_daemon, argc, argv, &o);
	if (agent_config_load(&cfg, o.config, err, sizeof(err)) < 0) {
		log_warnx("%s", err);
		return 1;
	}
	if (o.check) {
		snprintf(id, sizeof(id), "id %s", cfg.id);
		return daemon_checked(&o, id);
	}
	if (daemon_log_level(&o, cfg.log_level) < 0)
		return 1;
	signals_setup(&sleep_mask);
	log_info("starting: id %s, verifier %s, bank %s", cfg.id,
		 cfg.verifier_url, cfg.bank);
	rc = agent_run(&cfg, &stop_requested, &sleep_mask);
	log_info("stopped%s", rc != 0 ? " on an error" : "");
	return rc;
}
