/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fz_list.h - measurement lists shaped by the fuzzer, written with
 * ima_build (as the kernel writes them): which templates, paths, file
 * digests and their algorithms, violations, PCRs; boot_aggregate first
 * when asked.
 */
#ifndef IMATRUST_FZ_LIST_H
#define IMATRUST_FZ_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "fz_input.h"
#include "hash_algo.h"

#define FZ_LIST_RECORDS 24 /* records in one fuzzed list, at most */
#define FZ_LIST_BYTES 16384

struct fz_list {
	uint8_t bytes[FZ_LIST_BYTES];
	size_t len;
	size_t count;
	size_t end[FZ_LIST_RECORDS]; /* byte offset after record i */
};

/* Paths the harness may use; fz_list_known() says which digest is "right". */
extern const char *const fz_list_paths[];
extern const size_t fz_list_path_count;

/** fz_list_known() - the sha256 digest imported as reference for path @i. */
void fz_list_known(size_t i, uint8_t digest[32]);

/**
 * fz_list_record() - append one record the input describes to @l.
 * @in: the input
 * @l: the list
 *
 * Return: 0, or -1 when the list is full.
 */
int fz_list_record(struct fz_in *in, struct fz_list *l);

/**
 * fz_list_boot_aggregate() - append a boot_aggregate record (ima-ng,
 * PCR 10) with @digest of @bank.
 */
int fz_list_boot_aggregate(struct fz_list *l, const struct hash_algo *bank,
			   const uint8_t *digest);

#endif /* IMATRUST_FZ_LIST_H */
