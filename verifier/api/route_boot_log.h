/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * route_boot_log.h - what the machine detail shows of a boot's firmware
 * event log (route_boot_log.c; the route itself is in verifier.h).
 */
#ifndef IMATRUST_ROUTE_BOOT_LOG_H
#define IMATRUST_ROUTE_BOOT_LOG_H

#include <jansson.h>

#include "db_boot.h"
#include "verifier.h"

/**
 * route_boot_log_summary() - the "boot_log" of GET /v1/machines/{id}.
 * @v: the verifier; v->lock held
 * @boot: the machine's current boot, or NULL when it has none
 * @err: filled on a storage failure
 *
 * Return: {"present": true, "size", "sha256", "received"}, JSON null when
 * the boot has no log (or there is no boot), or NULL with @err.
 */
json_t *route_boot_log_summary(struct verifier *v, const struct db_boot *boot,
			       struct imt_error *err);

#endif /* IMATRUST_ROUTE_BOOT_LOG_H */
