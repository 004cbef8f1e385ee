// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_conf.c - libFuzzer target: the "key = value" config parser, with a
 * table of every key type (string, string with choices, bounded number).
 */
#include <stddef.h>
#include <stdint.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_conf {
	char name[16];
	char mode[8];
	uint64_t count;
};

static const struct conf_key keys[] = {
	CONF_STR(fuzz_conf, "name", name, "x", 1, NULL, "a name"),
	CONF_STR(fuzz_conf, "mode", mode, "a", 0, "a|bb|ccc", "a mode"),
	CONF_NUM(fuzz_conf, "count", count, 1, 1000, "5", "a number"),
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_conf c;
	struct imt_error err;

	conf_defaults(keys, 3, &c, sizeof(c), &err);
	if (conf_parse(keys, 3, &c, "fuzz.conf", (const char *)data, size,
		       &err) == IMT_OK)
		conf_check(keys, 3, &c, &err);
	return 0;
}
