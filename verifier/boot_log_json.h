/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_log_json.h - a firmware event log as JSON for operators.
 * PLACEHOLDER: the event-log parser's branch brings the real decoder.
 */
#ifndef IMATRUST_BOOT_LOG_JSON_H
#define IMATRUST_BOOT_LOG_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "result.h"

#define BOOT_LOG_DECODED 0	/* {"spec", "events", "pcrs"} */
#define BOOT_LOG_CEL 1		/* TCG Canonical Event Log JSON */

/**
 * boot_log_json() - decode the raw event log @buf.
 * @buf: binary_bios_measurements bytes
 * @len: their length
 * @flags: BOOT_LOG_DECODED or BOOT_LOG_CEL
 * @err: filled on failure
 *
 * Return: a new reference, or NULL with @err.
 */
json_t *boot_log_json(const uint8_t *buf, size_t len, unsigned int flags,
		      struct imt_error *err);

#endif /* IMATRUST_BOOT_LOG_JSON_H */
