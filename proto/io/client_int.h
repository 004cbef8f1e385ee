/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client_int.h - what client.c and client_post.c share: libcurl's codes
 * as the kinds of error callers tell apart. Not for anyone else:
 * client.h is the interface.
 */
#ifndef IMATRUST_DAEMON_CLIENT_INT_H
#define IMATRUST_DAEMON_CLIENT_INT_H

#include <curl/curl.h>

#include "client.h"

/* The kind of transport error @rc is; CLIENT_ERR_OTHER when unnamed. */
enum client_err client_err_of(CURLcode rc);

#endif /* IMATRUST_DAEMON_CLIENT_INT_H */
