// SPDX-License-Identifier: GPL-2.0-only
/*
 * imatrust-agent.c - main: options, config, signals; agent.c does the rest.
 *
 *	imatrust-agent [-d] [-c FILE]	run (systemd Type=notify)
 *	imatrust-agent -n [-c FILE]	check the config file and exit
 *	imatrust-agent -H		print every config key and exit
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "agent_config.h"
#include "log.h"

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: imatrust-agent [-dn] [-c FILE]\n"
		"       imatrust-agent -H\n"
		"  -c FILE  configuration (default %s)\n"
		"  -d       log debug lines\n"
		"  -n       check the configuration and exit\n"
		"  -H       describe every configuration key\n",
		AGENT_CONFIG_DEFAULT);
	exit(2);
}

static const struct {
	const char *name;
	enum log_level level;
} levels[] = {
	{ "debug", LOG_LEVEL_DEBUG },
	{ "info", LOG_LEVEL_INFO },
	{ "warning", LOG_LEVEL_WARNING },
};

static void set_log_level(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (strcmp(levels[i].name, name) == 0)
			log_setlevel(levels[i].level);
	}
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

int main(int argc, char **argv)
{
	const char *path = AGENT_CONFIG_DEFAULT;
	struct agent_config cfg;
	char err[1024];
	sigset_t sleep_mask;
	int ch, debug = 0, check = 0;

	/* before libtss2 loads: its own stderr logging off (tpm.c logs) */
	setenv("TSS2_LOG", "all+none", 0);
	/* journald names the unit already: no program name on its lines */
	log_init(getenv("JOURNAL_STREAM") != NULL ? NULL : "imatrust-agent",
		 0);
	while ((ch = getopt(argc, argv, "c:dnH")) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'd':
			debug = 1;
			break;
		case 'n':
			check = 1;
			break;
		case 'H':
			agent_config_print_help(stdout);
			return 0;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (agent_config_load(&cfg, path, err, sizeof(err)) < 0) {
		log_warnx("%s", err);
		return 1;
	}
	if (check) {
		printf("%s: ok (id %s)\n", path, cfg.id);
		return 0;
	}
	set_log_level(cfg.log_level);
	if (debug)
		log_setlevel(LOG_LEVEL_DEBUG);
	signals_setup(&sleep_mask);
	log_info("starting: id %s, verifier %s, bank %s", cfg.id,
		 cfg.verifier_url, cfg.bank);
	ch = agent_run(&cfg, &stop_requested, &sleep_mask);
	log_info("stopped%s", ch != 0 ? " on an error" : "");
	return ch;
}
