// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_util.c - helpers shared by the imatrust CLI commands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "file.h"
#include "json_text.h"
#include "wire.h"

int cli_machine_id_ok(const char *id)
{
	return wire_id_ok(id);
}

int cli_name_ok(const char *name, const char *what)
{
	if (wire_id_ok(name))
		return 1;
	cli_warnx("'%s' is not a %s name ([A-Za-z0-9._-], 1-64)", name, what);
	return 0;
}

const char *cli_str_or_dash(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL && s[0] != '\0' ? s : "-";
}

void cli_warnx(const char *fmt, ...)
{
	va_list ap;

	fputs("imatrust: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

char *cli_read_file(const char *path, size_t max, size_t *len)
{
	char err[512];
	char *buf = file_read(path, max, len, err, sizeof(err));

	if (buf == NULL)
		cli_warnx("%s", err);
	return buf;
}

void cli_print_escaped(const char *s, size_t n)
{
	char out[4];
	size_t i;

	for (i = 0; i < n; i++)
		fwrite(out, 1, text_byte_printable((unsigned char)s[i], out),
		       stdout);
}

void cli_print_json(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
}

void cli_print_rejudged(json_t *ans)
{
	printf("machines re-judged %lld, now trusted %lld, now untrusted "
	       "%lld\n",
	       (long long)json_integer_value(
		       json_object_get(ans, "machines_rejudged")),
	       (long long)json_integer_value(
		       json_object_get(ans, "machines_now_trusted")),
	       (long long)json_integer_value(
		       json_object_get(ans, "machines_now_untrusted")));
}
