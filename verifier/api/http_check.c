// SPDX-License-Identifier: GPL-2.0-only
/*
 * http_check.c - one request, one reading (http_check.h).
 */
#include <string.h>
#include <strings.h>

#include "http_check.h"

int http_check_target(const char *uri)
{
	const char *p;
	int in_path = 1;

	for (p = uri; *p != '\0'; p++) {
		if (*p == '?')
			in_path = 0;
		if (*p != '%' || p[1] == '\0')
			continue;
		if (p[1] == '0' && p[2] == '0')
			return -1;
		/* in the query, "%2F" is data: a value with a '/' */
		if (in_path && p[1] == '2' && (p[2] == 'f' || p[2] == 'F'))
			return -1;
	}
	return 0;
}

/* What header_one() found of the headers. */
struct header_scan {
	const char *length; /* the first Content-Length */
	size_t length_len;
	int lengths_differ;
	int bad_byte; /* a CR in a name or value, or a NUL
				 * libmicrohttpd counted in its length */
};

static enum MHD_Result header_one(void *cls, enum MHD_ValueKind kind,
				  const char *key, size_t key_size,
				  const char *value, size_t value_size)
{
	struct header_scan *hs = cls;

	(void)kind;
	if (memchr(key, '\r', key_size) != NULL || strlen(key) != key_size ||
	    (value != NULL && (memchr(value, '\r', value_size) != NULL ||
			       strlen(value) != value_size)))
		hs->bad_byte = 1;
	if (value == NULL ||
	    strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0)
		return MHD_YES;
	if (hs->length == NULL) {
		hs->length = value;
		hs->length_len = value_size;
	} else if (hs->length_len != value_size ||
		   memcmp(hs->length, value, value_size) != 0) {
		hs->lengths_differ = 1;
	}
	return MHD_YES;
}

const char *http_check_headers(struct MHD_Connection *conn)
{
	struct header_scan hs = { 0 };

	MHD_get_connection_values_n(conn, MHD_HEADER_KIND, header_one, &hs);
	if (hs.lengths_differ)
		return "Content-Length headers that differ";
	if (hs.bad_byte)
		return "a CR or NUL byte inside a header";
	return NULL;
}
