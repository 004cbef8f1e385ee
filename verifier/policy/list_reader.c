// SPDX-License-Identifier: GPL-2.0-only
/*
 * list_reader.c - chunked reading of a measurement list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "list_reader.h"

/* Largest record: header, name and the largest template data allowed. */
#define RECORD_MAX \
	(4 + HASH_ALGO_MAX_SIZE + 4 + IMA_TEMPLATE_NAME_MAX + 4 + \
	 IMA_TEMPLATE_DATA_MAX)
#define BUFFER_SIZE (LIST_READER_CHUNK + RECORD_MAX)

/* Fill @buf from @fd until it holds @want bytes or the file ends. */
static ssize_t fill(int fd, uint8_t *buf, size_t have, size_t want, int *eof)
{
	while (have < want) {
		ssize_t n = read(fd, buf + have, want - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			*eof = 1;
			break;
		}
		have += (size_t)n;
	}
	return (ssize_t)have;
}

int list_reader_run(int fd, const struct ima_template_set *custom,
		    const struct hash_algo *list_bank, list_record_fn fn,
		    void *arg, struct imt_error *err)
{
	struct ima_list_parser parser;
	struct ima_record rec;
	size_t have = 0, pos;
	uint8_t *buf;
	int eof = 0, ret = 0;
	ssize_t n;

	buf = malloc(BUFFER_SIZE);
	if (buf == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return -1;
	}
	ima_list_parser_init(&parser, custom);
	ima_list_parser_set_bank(&parser, list_bank);
	while (!eof) {
		n = fill(fd, buf, have, BUFFER_SIZE, &eof);
		if (n < 0) {
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      parser.offset + have, "read: %s",
				      strerror(errno));
			ret = -1;
			goto out;
		}
		have = (size_t)n;
		pos = 0;
		while (pos < have) {
			enum imt_result rc = ima_list_next(&parser, buf + pos,
							   have - pos, eof,
							   &rec, err);

			if (rc == IMT_NEED_MORE)
				break;
			if (rc != IMT_OK) {
				ret = -1;
				goto out;
			}
			pos += rec.size;
			ret = fn(&rec, arg);
			if (ret != 0)
				goto out;
		}
		/* Keep the incomplete record; the buffer always fits one. */
		memmove(buf, buf + pos, have - pos);
		have -= pos;
	}
out:
	free(buf);
	return ret;
}
