/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_log_json.h - a firmware event log as JSON: decoded for people and
 * the CLI (`imatrust machine ID boot-log`), or in the TCG Canonical Event
 * Log (CEL) JSON encoding for other tools.
 *
 * Decoded:
 *	{"size": N, "sha256": "hex", "format": "crypto-agile",
 *	 "spec": {"version": "2.0", "uintn_size": N, "banks": ["sha1", ..]},
 *	 "events": [{"index", "pcr", "type", "type_name", "digests":
 *		     {"sha256": "hex", ..}, "size", "description", "data": {..}
 *		     or "data_hex": first BOOT_LOG_DATA_HEX_MAX bytes}],
 *	 "extended": [PCR, ..] (every PCR an event extends, ascending),
 *	 "pcrs": {"sha256": {"0": "hex", .., "9": "hex", "11": ..}, ..}
 *	 (replayed: PCRs 0-9 and the others the log extends, never 10),
 *	 "facts": {"secure_boot": true|false|null, "pk"/"kek"/"db"/"dbx":
 *		   [{"sha256", "type", "cn"}], "authorities": [..],
 *		   "applications": [{"index", "pcr", "digests", "path"}],
 *		   "cmdline": "..."|null, "cmdline_bound": bool,
 *		   "load_options_sha256": "hex"|null,
 *		   "separators": [PCR, ..], "uefi": bool (an EV_EFI_* event),
		   "flags": ["after_separator", ..], "flag_events":
		   {"after_separator": INDEX, ..} (each flag's first event),
 *		   "unknown": [{"fact", "event", "pcr", "type", "name",
 *			       "why"}], "unbound_events": N,
 *		   "first_unbound": {..} when N > 0}}
 *	a fact read from an event whose data does not hash to its digest
 *	is null (an authority {"unknown": true, "event"}) and listed in
 *	"unknown" (boot_facts.h)
 *	a SHA-1-only log of the TCG 1.2 format (tcg_log_legacy()):
 *	{"size", "sha256", "format": "legacy", "reason": TEXT, "events": [],
 *	 "extended": [], "pcrs": {}, "facts": null}
 * CEL (TCG Canonical Event Log Format 1.0, JSON, pcclient_std content):
 *	[{"recnum": N, "pcr": N, "digests": [{"hashAlg": "sha256",
 *	  "digest": "hex"}], "content_type": "pcclient_std",
 *	  "content": {"event_type": N, "event_data": "base64"}}, ..]
 * Every string is valid UTF-8 whatever the log holds.
 */
#ifndef IMATRUST_BOOT_LOG_JSON_H
#define IMATRUST_BOOT_LOG_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "result.h"

#define BOOT_LOG_DECODED 0u	  /* the decoded view (default) */
#define BOOT_LOG_CEL 1u		  /* TCG CEL JSON records */
#define BOOT_LOG_DATA_HEX_MAX 256 /* bytes shown of undecodable data */
#define BOOT_LOG_DESC_MAX 512	  /* bytes of one description */

#define BOOT_LOG_LEGACY_REASON \
	"a SHA-1-only firmware event log (TCG 1.2 " \
	"format, no \"Spec ID Event03\" header): no quote of a TPM 2.0 " \
	"bank can prove it, so the machine is judged as one without a " \
	"usable log (policy boot.legacy_log)"

/**
 * boot_log_json() - the log in @buf as JSON.
 * @buf: a TCG crypto-agile event log
 * @len: bytes in @buf
 * @flags: BOOT_LOG_DECODED or BOOT_LOG_CEL
 * @err: filled on failure
 * Event data that does not decode is shown as "data_hex" with the reason
 * in "description"; only a log that does not parse is an error.
 * Return: a new reference (json_decref() it), or NULL with @err filled:
 * a malformed or unsupported log, IMT_ERR_INTERNAL when memory runs out.
 */
json_t *boot_log_json(const uint8_t *buf, size_t len, unsigned flags,
		      struct imt_error *err);

struct tcg_event;

/**
 * boot_log_event_description() - what event @ev says, the text boot-log
 * shows as its "description" (a variable's name and value, a boot
 * option, an application's device path, the action's text).
 * @ev: the event
 * @out: receives the text, cut to @max bytes on a UTF-8 boundary
 * @max: its size
 */
void boot_log_event_description(const struct tcg_event *ev, char *out,
				size_t max);

#endif /* IMATRUST_BOOT_LOG_JSON_H */
