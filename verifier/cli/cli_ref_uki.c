// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_ref_uki.c - "imatrust ref uki": the boot policy's "uki" entry of a
 * unified kernel image, offline.
 *
 *	imatrust ref uki [--name NAME] FILE.efi
 *
 * Prints {"name": NAME, ".linux": SHA256, ...}: each section systemd-stub
 * (252, Debian 12) measures into PCR 11, in its order, hashed as loaded
 * (pe_section_digest()); .pcrsig is never measured. NAME defaults to the
 * file's name without ".efi".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_util.h"
#include "hex.h"
#include "pe_authenticode.h"

#define UKI_FILE_MAX (512u << 20) /* bytes of an image read */

/* What systemd-stub 252 measures, in its order (uki.h, UnifiedSection). */
static const char *const stub_sections[] = {
	".linux",  ".osrel", ".cmdline", ".initrd",
	".splash", ".dtb",   ".pcrpkey", NULL,
};

/* The entry's default name: FILE's base name without ".efi". */
static void default_name(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/');
	size_t k;

	snprintf(out, n, "%s", base != NULL ? base + 1 : path);
	k = strlen(out);
	if (k > 4 && strcasecmp(out + k - 4, ".efi") == 0)
		out[k - 4] = '\0';
}

/* The "uki" entry of the image @buf, or NULL after saying why. */
static json_t *uki_entry(const char *path, const uint8_t *buf, size_t len,
			 const char *name)
{
	uint8_t md[32];
	char hex[65];
	struct imt_error err;
	json_t *o = json_pack("{s:s}", "name", name);
	size_t i, n = 0;
	int found;

	for (i = 0; o != NULL && stub_sections[i] != NULL; i++) {
		if (pe_section_digest(buf, len, stub_sections[i],
				      hash_algo_bank("sha256"), md, &found,
				      &err) != IMT_OK) {
			cli_warnx("%s: not an EFI image: %s", path, err.msg);
			json_decref(o);
			return NULL;
		}
		if (!found)
			continue;
		hex_encode(md, 32, hex);
		json_object_set_new(o, stub_sections[i], json_string(hex));
		n++;
	}
	if (o != NULL && n == 0) {
		cli_warnx("%s: no section systemd-stub measures (.linux, "
			  ".osrel, .cmdline, ...): not a UKI",
			  path);
		json_decref(o);
		return NULL;
	}
	return o;
}

int cli_ref_uki(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = NULL;
	char def[65];
	json_t *entry;
	char *buf;
	size_t len;
	int ch;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch != 'n')
			goto usage;
		name = optarg;
	}
	if (optind != argc - 1)
		goto usage;
	buf = cli_read_file(argv[optind], UKI_FILE_MAX, &len);
	if (buf == NULL)
		return CLI_EXIT_USAGE;
	if (name == NULL) {
		default_name(argv[optind], def, sizeof(def));
		name = def;
	}
	entry = uki_entry(argv[optind], (const uint8_t *)buf, len, name);
	free(buf);
	if (entry == NULL)
		return CLI_EXIT_USAGE;
	cli_print_json(entry);
	json_decref(entry);
	return CLI_EXIT_OK;
usage:
	fprintf(stderr, "usage: imatrust ref uki [--name NAME] FILE.efi\n");
	return CLI_EXIT_USAGE;
}
