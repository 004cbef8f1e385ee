/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list_reader.h - feed a measurement list file through the parser.
 *
 * Reads in chunks (the securityfs files report size 0 and may be huge),
 * keeps a record that straddles two reads, and hands every record to a
 * callback. The parser itself (proto/ima_list.h) does no I/O.
 */
#ifndef IMATRUST_LIST_READER_H
#define IMATRUST_LIST_READER_H

#include "ima_list.h"
#include "result.h"

#define LIST_READER_CHUNK (256 * 1024) /* bytes asked of each read() */

/* Return 0 to go on; non-zero stops the reader, which returns that value. */
typedef int (*list_record_fn)(const struct ima_record *rec, void *arg);

/**
 * list_reader_run() - parse every record of the list in @fd.
 * @fd: open file, read to its end (not closed)
 * @custom: extra templates, or NULL
 * @list_bank: bank of a per-bank list, or NULL for the legacy lists
 * @fn: called for each record; the record is valid during the call only
 * @arg: passed to @fn
 * @err: filled when the list is malformed or reading fails
 *
 * Return: 0 when every record was read; -1 on a parse or read error (see
 * @err); otherwise the non-zero value @fn returned.
 */
int list_reader_run(int fd, const struct ima_template_set *custom,
		    const struct hash_algo *list_bank, list_record_fn fn,
		    void *arg, struct imt_error *err);

#endif /* IMATRUST_LIST_READER_H */
