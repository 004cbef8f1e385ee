// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_log_json.c - PLACEHOLDER (boot_log_json.h): size, digest, no events.
 */
#include <openssl/evp.h>

#include "boot_log_json.h"
#include "hex.h"

json_t *boot_log_json(const uint8_t *buf, size_t len, unsigned int flags,
		      struct imt_error *err)
{
	uint8_t d[32];
	char h[65];

	(void)flags;
	if (!EVP_Digest(buf, len, d, NULL, EVP_sha256(), NULL)) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "sha256 unavailable");
		return NULL;
	}
	hex_encode(d, sizeof(d), h);
	return json_pack("{s:I,s:s,s:[]}", "size", (json_int_t)len, "sha256",
			 h, "events");
}
