/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent_config.h - imatrust-agent's configuration: one file, one struct.
 *
 * Format and parser are proto/conf.h's ("key = value", '#' comments).
 * Every key, its type, bounds, default and help text live in one table in
 * agent_config.c; `imatrust-agent -H` prints it, and imatrust-agent.conf(5)
 * is made from that output.
 */
#ifndef IMATRUST_AGENT_CONFIG_H
#define IMATRUST_AGENT_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wire.h"

#define AGENT_CONFIG_PATH_MAX 4096
#define AGENT_CONFIG_URL_MAX 1024
#define AGENT_CONFIG_FILE_MAX (64 * 1024) /* a larger file is a mistake */
#define AGENT_CONFIG_DEFAULT "/etc/imatrust/agent.conf"

struct agent_config {
	char verifier_url[AGENT_CONFIG_URL_MAX]; /* https://host[:port] */
	char ca_cert[AGENT_CONFIG_PATH_MAX];	 /* PEM: fleet CA */
	char id[WIRE_ID_MAX + 1];		 /* "" until the hostname */
	char tcti[256];				 /* tpm2-tss TCTI string */
	char state_dir[AGENT_CONFIG_PATH_MAX];	 /* holds the AK blob */
	char measurement_list[AGENT_CONFIG_PATH_MAX];
	char boot_log[AGENT_CONFIG_PATH_MAX]; /* firmware event log, "none" */
	char bank[8];			      /* sha256 | sha1 */
	char key_alg[4];		      /* rsa | ecc */
	char ek[8];			      /* auto | rsa2048 | p384 ... */
	uint64_t heartbeat;		      /* seconds between evidence */
	uint64_t poll_fallback_ms;	      /* list timer without poll() */
	uint64_t backoff_max;		      /* seconds, retry ceiling */
	char export[4];			      /* on | off */
	uint64_t export_records;	      /* list size that triggers it */
	char log_level[8];		      /* debug | info | warning */
};

/**
 * agent_config_defaults() - fill @c with every key's default.
 * @c: the configuration
 */
void agent_config_defaults(struct agent_config *c);

/**
 * agent_config_parse() - apply the "key = value" lines of @text to @c.
 * @c: the configuration, defaults already set
 * @path: file name for messages
 * @text: the file's contents (need not be NUL-terminated)
 * @len: bytes in @text
 * @errbuf: receives "path:line: message" on failure
 * @errlen: size of @errbuf
 *
 * Return: 0, or -1 at the first bad line.
 */
int agent_config_parse(struct agent_config *c, const char *path,
		       const char *text, size_t len, char *errbuf,
		       size_t errlen);

/**
 * agent_config_check() - checks across keys once the file is read.
 * @c: the configuration; an empty id becomes the host name
 * @errbuf: receives the message on failure
 * @errlen: size of @errbuf
 *
 * Return: 0, or -1 when a required key is missing, verifier_url is not
 * https://, or the id is not 1-64 of [A-Za-z0-9._-].
 */
int agent_config_check(struct agent_config *c, char *errbuf, size_t errlen);

/**
 * agent_config_load() - defaults, then the file at @path, then the checks.
 * @c: the configuration
 * @path: the config file
 * @errbuf: receives "path:line: message" or "path: why" on failure
 * @errlen: size of @errbuf
 *
 * Return: 0 or -1.
 */
int agent_config_load(struct agent_config *c, const char *path, char *errbuf,
		      size_t errlen);

/**
 * agent_config_print_help() - every key: name, default, bounds, help.
 * @out: where to write
 */
void agent_config_print_help(FILE *out);

#endif /* IMATRUST_AGENT_CONFIG_H */
