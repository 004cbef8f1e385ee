/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hash_md.h - the OpenSSL digest of a PCR bank algorithm, fetched once.
 */
#ifndef IMATRUST_HASH_MD_H
#define IMATRUST_HASH_MD_H

#include <openssl/evp.h>

#include "hash_algo.h"

/**
 * hash_md() - the digest that computes @bank, for EVP_Digest*() and
 * EVP_DigestVerifyInit().
 * @bank: a bank algorithm (hash_algo_bank()); anything else gives NULL
 *
 * The digests are fetched at the first call and kept for the process's
 * lifetime; callers never free them. Thread-safe.
 *
 * Return: the digest, or NULL when @bank is no bank or OpenSSL has none.
 */
const EVP_MD *hash_md(const struct hash_algo *bank);

#endif
