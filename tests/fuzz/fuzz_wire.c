// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_wire.c - libFuzzer target: every protocol message decoder, and a
 * re-encode of whatever it accepts (which must decode again).
 *
 * The first input byte picks the message kind; kind 5 is evidence in
 * the framed form (JSON text, NUL, records), re-encoded framed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union {
		struct wire_enroll enroll;
		struct wire_challenge challenge;
		struct wire_activate activate;
		struct wire_evidence evidence;
		struct wire_verdict verdict;
	} msg, again;
	enum wire_kind kind;
	size_t len;
	char *json;

	if (size == 0)
		return 0;
	if (data[0] % 6 == 5) {
		if (wire_decode_evidence_framed((const char *)data + 1,
						size - 1, &msg.evidence,
						NULL) != IMT_OK)
			return 0;
		json = wire_encode_evidence_framed(&msg.evidence, &len, NULL);
		if (json == NULL ||
		    wire_decode_evidence_framed(json, len, &again.evidence,
						NULL) != IMT_OK ||
		    again.evidence.records.len != msg.evidence.records.len ||
		    (msg.evidence.records.len > 0 &&
		     memcmp(again.evidence.records.data,
			    msg.evidence.records.data,
			    msg.evidence.records.len) != 0))
			abort();
		wire_free(WIRE_EVIDENCE, &again.evidence);
		wire_free(WIRE_EVIDENCE, &msg.evidence);
		free(json);
		return 0;
	}
	kind = (enum wire_kind)(data[0] % 6);
	if (wire_decode(kind, (const char *)data + 1, size - 1, &msg, NULL) !=
	    IMT_OK)
		return 0;
	json = wire_encode(kind, &msg, NULL);
	if (json == NULL ||
	    wire_decode(kind, json, strlen(json), &again, NULL) != IMT_OK)
		abort(); /* what we accept we must be able to send */
	wire_free(kind, &again);
	wire_free(kind, &msg);
	free(json);
	return 0;
}
