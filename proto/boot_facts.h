/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_facts.h - what a boot policy rules on, taken from a firmware event
 * log in one pass: Secure Boot, the contents of PK, KEK, db and dbx, the
 * db certificates that verified images, every boot application, the
 * kernel command line, the separators of PCRs 0-7 and whatever must make
 * a policy suspicious.
 * The facts are only as true as the log: a caller first proves the log by
 * replay against quoted PCRs (tcg_log_replay(), tcg_pcrs_compare()).
 */
#ifndef IMATRUST_BOOT_FACTS_H
#define IMATRUST_BOOT_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "efi_event.h"
#include "result.h"
#include "tcg_log.h"

#define BOOT_FACTS_CERTS_MAX 64		/* entries kept per variable */
#define BOOT_FACTS_AUTH_MAX 16		/* EV_EFI_VARIABLE_AUTHORITY kept */
#define BOOT_FACTS_APPS_MAX 32		/* boot applications kept */
#define BOOT_FACTS_PATH_MAX 512		/* device path text of one */
#define BOOT_FACTS_CMDLINE_MAX 4096	/* UTF-8 bytes of the command line */
#define BOOT_FACTS_CN_MAX 64		/* subject CN of a certificate */

/* Suspicious things, in ->flags; any of them should fail a boot policy. */
#define BOOT_FACT_AFTER_SEPARATOR 0x01u	/* an event a PCR 0-7 should not
					 * take after its separator */
#define BOOT_FACT_SEPARATOR_ERROR 0x02u	/* separator value not 0 (nor
					 * BIOS-style 0xffffffff) */
#define BOOT_FACT_OVERFLOW 0x04u	/* more entries than the maxima: the
					 * first ones are kept, ->total
					 * counts all */
#define BOOT_FACT_UNDECODABLE 0x08u	/* an event the facts come from did
					 * not decode */
#define BOOT_FACT_REPEATED 0x10u	/* SecureBoot, PK, KEK, db or dbx
					 * measured twice */

enum boot_var {
	BOOT_VAR_PK,
	BOOT_VAR_KEK,
	BOOT_VAR_DB,
	BOOT_VAR_DBX,
	BOOT_VAR_COUNT,
};

struct boot_cert {
	enum efi_sig_kind kind;		/* X509: digest of the DER cert;
					 * SHA256: the listed hash; OTHER:
					 * SHA-256 of the entry data */
	uint8_t sha256[32];
	uint8_t type[EFI_GUID_SIZE];	/* SignatureType */
	char cn[BOOT_FACTS_CN_MAX];	/* X509 only; "" when unknown */
};

struct boot_var_facts {
	int measured;			/* seen in PCR 7 */
	size_t total;			/* entries in the variable */
	size_t count;			/* kept, at most BOOT_FACTS_CERTS_MAX */
	struct boot_cert certs[BOOT_FACTS_CERTS_MAX];
};

struct boot_app_digest {
	uint16_t alg_id;
	uint16_t size;
	uint8_t value[HASH_ALGO_MAX_SIZE];
};

struct boot_app {
	size_t index;			/* event index in the log */
	uint32_t pcr;
	uint32_t ndigests;
	struct boot_app_digest digests[TCG_LOG_BANKS_MAX];
	char path[BOOT_FACTS_PATH_MAX];	/* "" when it did not decode */
};

struct boot_facts {
	int secure_boot;		/* -1 not measured, 0 off, 1 on */
	struct boot_var_facts vars[BOOT_VAR_COUNT];
	size_t nauth;			/* EV_EFI_VARIABLE_AUTHORITY kept */
	struct boot_cert auth[BOOT_FACTS_AUTH_MAX];
	size_t apps_total;
	size_t napps;
	struct boot_app apps[BOOT_FACTS_APPS_MAX];
	int has_cmdline;		/* EV_IPL in PCR 12 (systemd-boot) */
	char cmdline[BOOT_FACTS_CMDLINE_MAX];
	int cmdline_digest_ok;		/* its SHA-256 digest is of its text */
	uint8_t cmdline_sha256[32];	/* that digest, when it is */
	int has_load_options_tag;	/* the EFI stub's tag in PCR 9 */
	uint8_t load_options_sha256[32];/* its SHA-256 digest */
	uint8_t separated;		/* bit i: PCR i saw EV_SEPARATOR */
	uint32_t flags;			/* BOOT_FACT_* */
	size_t flag_event;		/* index of the first flagged event */
};

/**
 * boot_var_name() - "PK", "KEK", "db" or "dbx".
 * @v: a variable
 * Return: a static string.
 */
const char *boot_var_name(enum boot_var v);

/**
 * boot_facts_extract() - read the facts of a whole log.
 * @buf: the event log
 * @len: bytes in @buf
 * @f: receives the facts (large: allocate it, do not put it on a stack)
 * @err: filled on failure
 * Events whose data does not decode do not stop the pass: they set
 * BOOT_FACT_UNDECODABLE (and ->flag_event when first). Events allowed
 * after a separator of PCRs 0-7: boot applications, EV_EFI_ACTION and
 * the GPT in PCRs 4 and 5, EV_EFI_VARIABLE_AUTHORITY in PCR 7, drivers
 * (option ROMs) in PCR 2; anything else there is BOOT_FACT_AFTER_SEPARATOR.
 * Return: IMT_OK, or what tcg_log_open()/tcg_log_next() return for a bad
 * log (@f is then incomplete and must not be used).
 */
enum imt_result boot_facts_extract(const uint8_t *buf, size_t len,
				   struct boot_facts *f,
				   struct imt_error *err);

#endif /* IMATRUST_BOOT_FACTS_H */
