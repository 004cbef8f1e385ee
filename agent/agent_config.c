// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_config.c - imatrust-agent's configuration file: its key table and
 * the checks across keys. The parsing is proto/conf.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_config.h"
#include "conf.h"
#include "file.h"
#include "wire.h"

#define STR(n, f, d, r, c, h) CONF_STR(agent_config, n, f, d, r, c, h)
#define NUM(n, f, lo, hi, d, h) CONF_NUM(agent_config, n, f, lo, hi, d, h)

static const struct conf_key keys[] = {
	STR("verifier_url", verifier_url, "", 1, NULL,
	    "base URL of the verifier, https://HOST[:PORT]; the agent adds /v1/..."),
	STR("ca_cert", ca_cert, "", 1, NULL,
	    "PEM file: the fleet CA the verifier's server certificate must chain to"),
	STR("id", id, "", 0, NULL,
	    "agent id, 1-64 of [A-Za-z0-9._-] (default: the host name)"),
	STR("tcti", tcti, "device:/dev/tpmrm0", 0, NULL,
	    "tpm2-tss TCTI of the TPM: device:/dev/tpmrm0, swtpm:host=H,port=P, mssim:..."),
	STR("state_dir", state_dir, "/var/lib/imatrust-agent", 0, NULL,
	    "directory the agent keeps its attestation key blob (ak.blob) in"),
	STR("measurement_list", measurement_list,
	    "/sys/kernel/security/ima/binary_runtime_measurements", 0, NULL,
	    "the IMA binary measurement list to stream"),
	STR("boot_log", boot_log,
	    "/sys/kernel/security/tpm0/binary_bios_measurements", 0, NULL,
	    "the firmware's TCG event log, sent with the first evidence of each boot; none: never"),
	STR("bank", bank, "sha256", 0, "sha256|sha1|sha384|sha512",
	    "PCR bank the quotes cover (PCRs 0-10); the TPM must have it allocated"),
	STR("key_alg", key_alg, "rsa", 0, "rsa|ecc",
	    "AK algorithm (RSA 2048 or ECC NIST P-256), and the EK family ek = auto tries first"),
	STR("ek", ek, "auto", 0, "auto|rsa2048|rsa3072|p256|p384",
	    "the EK: a TCG EK Credential Profile kind, low range before high (rsa2048: L-1, H-1; p256: L-2, H-2; rsa3072: H-6; p384: H-3), the first whose certificate is in NV; auto: the first of key_alg's family, then of the other, with a certificate, else key_alg's low-range EK"),
	NUM("heartbeat", heartbeat, 1, 3600, "10",
	    "seconds between evidence when the list does not grow"),
	NUM("poll_fallback_ms", poll_fallback_ms, 10, 60000, "200",
	    "milliseconds between list reads on kernels whose list cannot be polled"),
	NUM("backoff_max", backoff_max, 1, 3600, "30",
	    "longest wait in seconds between retries (1 s doubling up to this)"),
	STR("export", export, "off", 0, "on|off",
	    "on: delete records the verifier has stored from kernel memory (needs CONFIG_IMA_STAGING; the agent says once at start when the kernel cannot)"),
	NUM("export_records", export_records, 1, 100000000, "10000",
	    "with export = on: records the kernel's list holds before the agent stages them for deletion"),
	STR("log_level", log_level, "info", 0, "debug|info|warning",
	    "lowest level logged"),
};

#define KEY_COUNT (sizeof(keys) / sizeof(keys[0]))

void agent_config_defaults(struct agent_config *c)
{
	/* tests/unit/agent/test_agent_config.c checks the defaults */
	conf_defaults(keys, KEY_COUNT, c, sizeof(*c), NULL);
}

int agent_config_parse(struct agent_config *c, const char *path,
		       const char *text, size_t len, char *errbuf,
		       size_t errlen)
{
	struct imt_error err;

	if (conf_parse(keys, KEY_COUNT, c, path, text, len, &err) != IMT_OK) {
		snprintf(errbuf, errlen, "%s", err.msg);
		return -1;
	}
	return 0;
}

int agent_config_check(struct agent_config *c, char *errbuf, size_t errlen)
{
	struct imt_error err;
	size_t n;

	if (conf_check(keys, KEY_COUNT, c, &err) != IMT_OK) {
		snprintf(errbuf, errlen, "%s", err.msg);
		return -1;
	}
	if (strncmp(c->verifier_url, "https://", 8) != 0 ||
	    c->verifier_url[8] == '\0' || c->verifier_url[8] == '/') {
		snprintf(errbuf, errlen,
			 "verifier_url must be https://HOST[:PORT], not '%s'",
			 c->verifier_url);
		return -1;
	}
	/* the agent appends "/v1/...": drop a trailing slash */
	n = strlen(c->verifier_url);
	while (n > 8 && c->verifier_url[n - 1] == '/')
		c->verifier_url[--n] = '\0';
	if (c->id[0] == '\0' && gethostname(c->id, sizeof(c->id)) < 0) {
		snprintf(errbuf, errlen, "id: no host name: %s",
			 strerror(errno));
		return -1;
	}
	c->id[sizeof(c->id) - 1] = '\0';
	if (!wire_id_ok(c->id)) {
		snprintf(errbuf, errlen,
			 "id '%s' is not 1-64 of [A-Za-z0-9._-]", c->id);
		return -1;
	}
	return 0;
}

int agent_config_load(struct agent_config *c, const char *path, char *errbuf,
		      size_t errlen)
{
	size_t len = 0;
	char *text;
	int ret = -1;

	agent_config_defaults(c);
	text = file_read(path, AGENT_CONFIG_FILE_MAX, &len, errbuf, errlen);
	if (text == NULL)
		return -1;
	if (agent_config_parse(c, path, text, len, errbuf, errlen) < 0)
		goto out;
	if (agent_config_check(c, errbuf, errlen) < 0) {
		/* name the file: the message names only the key */
		char why[512];

		snprintf(why, sizeof(why), "%s", errbuf);
		snprintf(errbuf, errlen, "%s: %s", path, why);
		goto out;
	}
	ret = 0;
out:
	free(text);
	return ret;
}

void agent_config_print_help(FILE *out)
{
	char line[512];
	size_t i;

	for (i = 0; i < KEY_COUNT; i++) {
		conf_describe(&keys[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
}
