// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_verdict.c - a record's verdict by name (the API, the operator's
 * filters) and by letter (a chunk's verdicts, 0017_record_chunks.sql).
 */
#include <string.h>

#include "db_boot.h"
#include "db_record_chunk.h"

static const struct {
	const char *name;
	char letter;
} verdicts[] = {
	[DB_VERDICT_KNOWN] = { "known", 'k' },
	[DB_VERDICT_UNKNOWN] = { "unknown", 'u' },
	[DB_VERDICT_MISMATCH] = { "mismatch", 'm' },
	[DB_VERDICT_VIOLATION] = { "violation", 'v' },
	[DB_VERDICT_EXCLUDED] = { "excluded", 'x' },
	[DB_VERDICT_SIGNED] = { "signed", 's' },
	[DB_VERDICT_BAD_SIGNATURE] = { "bad-signature", 'b' },
};

#define VERDICT_COUNT (sizeof(verdicts) / sizeof(verdicts[0]))

const char *db_verdict_name(enum db_verdict verdict)
{
	if ((size_t)verdict >= VERDICT_COUNT)
		return "invalid";
	return verdicts[verdict].name;
}

int db_verdict_parse(const char *name, enum db_verdict *verdict)
{
	size_t i;

	for (i = 0; name != NULL && i < VERDICT_COUNT; i++) {
		if (strcmp(verdicts[i].name, name) == 0) {
			*verdict = (enum db_verdict)i;
			return 0;
		}
	}
	return -1;
}

char db_verdict_letter(enum db_verdict v)
{
	return (size_t)v < VERDICT_COUNT ? verdicts[v].letter : 0;
}

int db_verdict_from_letter(char c, enum db_verdict *v)
{
	size_t i;

	for (i = 0; c != 0 && i < VERDICT_COUNT; i++) {
		if (verdicts[i].letter == c) {
			*v = (enum db_verdict)i;
			return 0;
		}
	}
	return -1;
}
