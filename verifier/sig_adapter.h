/* TEMPORARY: replaced by proto/ima_sig.h when it is merged. */
#ifndef IMATRUST_SIG_ADAPTER_H
#define IMATRUST_SIG_ADAPTER_H
#include <openssl/evp.h>
#include "hash_algo.h"
#include "result.h"
#define SIG_NOT_A_SIGNATURE 1
struct sig_blob { uint32_t keyid; };
static inline int sig_parse(const uint8_t *b, size_t l, struct sig_blob *s,
			    struct imt_error *e)
{ (void)b; (void)l; (void)e; s->keyid = 0; return SIG_NOT_A_SIGNATURE; }
static inline int sig_verify(const struct sig_blob *s, EVP_PKEY *k,
			     const struct hash_algo *h, const uint8_t *d,
			     size_t l, struct imt_error *e)
{ (void)s; (void)k; (void)h; (void)d; (void)l; (void)e; return -1; }
#endif
