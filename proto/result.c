// SPDX-License-Identifier: GPL-2.0-only
/*
 * result.c - error reports for libimatrust.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "result.h"

static const char *const result_names[] = {
	[IMT_OK] = "ok",
	[IMT_NEED_MORE] = "need more input",
	[IMT_ERR_MALFORMED] = "malformed",
	[IMT_ERR_UNSUPPORTED] = "unsupported",
	[IMT_ERR_MISMATCH] = "mismatch",
	[IMT_ERR_LIMIT] = "limit reached",
	[IMT_ERR_INTERNAL] = "internal error",
};

__attribute__((format(printf, 6, 0))) static enum imt_result
error_vset(struct imt_error *err, const char *check, enum imt_result status,
	   size_t record, size_t offset, const char *fmt, va_list ap)
{
	if (err == NULL)
		return status;
	err->status = status;
	err->record = record;
	err->offset = offset;
	err->check = check;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return status;
}

enum imt_result imt_error_set(struct imt_error *err, enum imt_result status,
			      size_t record, size_t offset, const char *fmt,
			      ...)
{
	va_list ap;

	va_start(ap, fmt);
	status = error_vset(err, NULL, status, record, offset, fmt, ap);
	va_end(ap);
	return status;
}

enum imt_result imt_error_check(struct imt_error *err, const char *check,
				enum imt_result status, size_t record,
				size_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	status = error_vset(err, check, status, record, offset, fmt, ap);
	va_end(ap);
	return status;
}

void imt_error_clear(struct imt_error *err)
{
	if (err == NULL)
		return;
	err->status = IMT_OK;
	err->record = IMT_NO_POS;
	err->offset = IMT_NO_POS;
	err->check = NULL;
	err->msg[0] = '\0';
}

const char *imt_result_name(enum imt_result status)
{
	if ((size_t)status >= sizeof(result_names) / sizeof(result_names[0]) ||
	    result_names[status] == NULL)
		return "unknown";
	return result_names[status];
}
