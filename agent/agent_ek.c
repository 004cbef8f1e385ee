// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_ek.c - which EK a machine keeps (agent_int.h): "ek = auto" is
 * decided once and remembered, so an agent's EK never changes under an
 * enrolled machine by itself.
 *
 * The verifier binds a machine id to the EK it enrolled with, and "auto"
 * takes the first EK whose certificate is in NV (tpm_ek_find()), which
 * is not the EK agents before "ek" used (always the low range of
 * key_alg's family) on a TPM whose certificates are elsewhere. So:
 *
 *  1. the template named in EK_STATE_FILE of state_dir, when there is
 *     one: the EK this agent took before;
 *  2. else, with an AK in state_dir (enrolled by an agent before "ek"),
 *     that agent's EK: L-1 for key_alg rsa, L-2 for ecc;
 *  3. else (a new machine) the search of "auto".
 *
 * Whatever EK was taken is written to EK_STATE_FILE. A kind the operator
 * names is taken as named: changing "ek" changes the EK on purpose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_int.h"
#include "file.h"
#include "log.h"

#define EK_STATE_FILE "ek.profile" /* in the state directory: "H-6\n" */
#define EK_STATE_MAX 16

static int state_path(const struct agent_config *c, const char *name, char *out,
		      size_t n)
{
	int len = snprintf(out, n, "%s/%s", c->state_dir, name);

	return len < 0 || (size_t)len >= n ? -1 : 0;
}

const char *agent_ek_kind(const struct agent_config *c, char *buf, size_t n)
{
	char path[AGENT_CONFIG_PATH_MAX + 32], why[AGENT_CONFIG_PATH_MAX + 64];
	char *text;
	size_t len;

	if (strcmp(c->ek, "auto") != 0 ||
	    state_path(c, EK_STATE_FILE, path, sizeof(path)) < 0)
		return c->ek;
	text = file_read(path, EK_STATE_MAX, &len, why, sizeof(why));
	if (text != NULL) {
		text[strcspn(text, "\n")] = '\0';
		snprintf(buf, n, "%s", text);
		free(text);
		log_info("ek = auto: the EK this machine took before (%s)",
			 buf);
		return buf;
	}
	if (state_path(c, TPM_AK_FILE, path, sizeof(path)) == 0 &&
	    access(path, F_OK) == 0) {
		snprintf(buf, n, "%s",
			 strcmp(c->key_alg, "ecc") == 0 ? "L-2" : "L-1");
		log_info("ek = auto: %s, the EK of the AK in %s (an agent "
			 "before \"ek\" made it)",
			 buf, c->state_dir);
		return buf;
	}
	return c->ek;
}

void agent_ek_remember(const struct agent_config *c, const struct tpm_ek *ek)
{
	char path[AGENT_CONFIG_PATH_MAX + 32], why[AGENT_CONFIG_PATH_MAX + 64];
	char line[EK_STATE_MAX];
	char *old;
	int len;

	if (state_path(c, EK_STATE_FILE, path, sizeof(path)) < 0)
		return;
	len = snprintf(line, sizeof(line), "%s\n", ek->profile);
	old = file_read(path, EK_STATE_MAX, NULL, why, sizeof(why));
	if (old == NULL || strcmp(old, line) != 0) {
		if (file_replace(path, line, (size_t)len, why, sizeof(why)) < 0)
			log_warnx("the EK taken: %s", why);
	}
	free(old);
}
