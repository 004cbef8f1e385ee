/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * result.h - the result codes and error report shared by libimatrust.
 *
 * The library never logs: a failing function fills a struct imt_error
 * with a status, the record index and byte offset where it stopped, and a
 * human-readable message. The caller decides whether that becomes a log
 * line, an HTTP 400 or a verdict.
 */
#ifndef IMATRUST_RESULT_H
#define IMATRUST_RESULT_H

#include <stddef.h>

enum imt_result {
	IMT_OK = 0,
	IMT_NEED_MORE,	     /* input ends inside a record: feed more bytes */
	IMT_ERR_MALFORMED,   /* input violates the format */
	IMT_ERR_UNSUPPORTED, /* well-formed, but names something unknown */
	IMT_ERR_MISMATCH,    /* well-formed, but a check failed */
	IMT_ERR_LIMIT,	     /* a stated maximum was reached */
	IMT_ERR_INTERNAL,    /* allocation or crypto library failure */
};

/* Marks a record index or offset that does not apply to an error. */
#define IMT_NO_POS ((size_t)-1)

#define IMT_ERROR_MSG_MAX 256

struct imt_error {
	enum imt_result status;
	size_t record;	   /* record index, or IMT_NO_POS */
	size_t offset;	   /* byte offset in the input, or IMT_NO_POS */
	const char *check; /* the check that failed (a static name, as a
			    * verdict's reason names it), or NULL */
	char msg[IMT_ERROR_MSG_MAX];
};

/**
 * imt_error_set() - fill @err (if not NULL) and return @status.
 * @err: error report to fill; may be NULL when the caller wants no detail
 * @status: the result to record and return
 * @record: record index the error refers to, or IMT_NO_POS
 * @offset: byte offset the error refers to, or IMT_NO_POS
 * @fmt: printf-style message
 *
 * Return: @status, so a caller can write "return imt_error_set(...)".
 */
enum imt_result imt_error_set(struct imt_error *err, enum imt_result status,
			      size_t record, size_t offset, const char *fmt,
			      ...) __attribute__((format(printf, 5, 6)));

/**
 * imt_error_check() - imt_error_set() for a failure of a named check.
 * @check: the check's name, a static string ("nonce", "pcr digest"), as
 *	   a verdict's reason names it: callers read it from @err->check,
 *	   never from the message's text
 *
 * Return: @status.
 */
enum imt_result imt_error_check(struct imt_error *err, const char *check,
				enum imt_result status, size_t record,
				size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/**
 * imt_error_clear() - reset @err to IMT_OK with no position and no message.
 * @err: error report; may be NULL
 */
void imt_error_clear(struct imt_error *err);

/**
 * imt_result_name() - short lower-case name of @status ("malformed", ...).
 * @status: a result code
 *
 * Return: a static string, never NULL.
 */
const char *imt_result_name(enum imt_result status);

#endif /* IMATRUST_RESULT_H */
