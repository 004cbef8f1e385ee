/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fz_fixture.h - the real TPM fixtures (tests/fixtures/tpm/), loaded once.
 */
#ifndef IMATRUST_FZ_FIXTURE_H
#define IMATRUST_FZ_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

struct fz_blob {
	const uint8_t *data; /* owned by the loader; lives forever */
	size_t len;
};

/**
 * fz_fixture() - the bytes of tests/fixtures/@name.
 * @name: e.g. "tpm/ak-rsa.pub"
 *
 * The directory is FIXTURE_DIR (set by the Makefile), or the environment's
 * IMATRUST_FIXTURES when set. Aborts when the file cannot be read: a
 * harness without its fixtures fuzzes nothing.
 */
struct fz_blob fz_fixture(const char *name);

#endif /* IMATRUST_FZ_FIXTURE_H */
