/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_facts.h - what a boot policy rules on, taken from a firmware event
 * log in one pass: Secure Boot, the contents of PK, KEK, db and dbx, the
 * db certificates that verified images, every boot application, the
 * kernel command line, the separators of PCRs 0-7 and whatever must make
 * a policy suspicious.
 * The facts are only as true as the log: a caller first proves the log by
 * replay against quoted PCRs (tcg_log_replay(), tcg_pcrs_compare()). The
 * replay proves the digests only: a fact read from an event's data is
 * believed only when that data hashes to the event's digests by the PFP
 * rule of its type (boot_event_bound()); otherwise the fact is unknown,
 * and names the event.
 */
#ifndef IMATRUST_BOOT_FACTS_H
#define IMATRUST_BOOT_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "efi_event.h"
#include "result.h"
#include "tcg_log.h"

/* entries kept per variable: real dbx hold 77 to 460 (2024) */
#define BOOT_FACTS_CERTS_MAX 1024
#define BOOT_FACTS_AUTH_MAX 16	    /* EV_EFI_VARIABLE_AUTHORITY kept */
#define BOOT_FACTS_APPS_MAX 32	    /* boot applications kept */
#define BOOT_FACTS_PATH_MAX 512	    /* device path text of one */
#define BOOT_FACTS_CMDLINE_MAX 4096 /* UTF-8 bytes of the command line */
#define BOOT_FACTS_CN_MAX 64	    /* subject CN of a certificate */
#define BOOT_FACTS_UKI_MAX 16	    /* UKI sections kept (PCR 11) */
#define BOOT_FACTS_SECTION_MAX 9    /* a PE section name: 8 bytes + NUL */
#define BOOT_FACTS_SBAT_MAX 4096    /* bytes of shim's SbatLevel */
#define BOOT_UKI_PCR 11		    /* systemd-stub's sections */

/* Suspicious things, in ->flags; any of them should fail a boot policy. */
#define BOOT_FACT_AFTER_SEPARATOR \
	0x01u /* an event a PCR 0-7 should not
					 * take after its separator */
#define BOOT_FACT_SEPARATOR_ERROR \
	0x02u /* separator value not 0 (nor
					 * BIOS-style 0xffffffff) */
#define BOOT_FACT_OVERFLOW \
	0x04u /* more entries than the maxima: the
					 * first ones are kept, ->total
					 * counts all */
#define BOOT_FACT_UNDECODABLE \
	0x08u /* an event the facts come from did
					 * not decode */
#define BOOT_FACT_REPEATED \
	0x10u /* SecureBoot, PK, KEK, db or dbx
					 * measured twice */
#define BOOT_FACT_SEPARATOR_UNKNOWN \
	0x20u		 /* a separator whose data does
					 * not hash to its digest: its value
					 * is not known */
#define BOOT_FACT_BITS 6 /* the flags above, bit 0 to 5 */

/* secure_boot, besides 0 (off, or the variable absent) and 1 (on). */
#define BOOT_SB_NOT_MEASURED (-1) /* no SecureBoot event in PCR 7 */
#define BOOT_SB_UNKNOWN \
	(-2) /* its event does not hash to its
					 * digest, or holds no 0/1 byte */

/* Why a fact read from an event is unknown. */
enum boot_unknown {
	BOOT_KNOWN,
	BOOT_UNBOUND,	  /* the data is not what the digest
					 * covers: not what was measured */
	BOOT_UNDECODABLE, /* bound, but does not decode */
};

/* The event a fact was read from, for a reason that names it. */
struct boot_event_ref {
	size_t index; /* event index; 0 when none */
	uint32_t pcr;
	uint32_t type;
	uint16_t bad_alg; /* BOOT_UNBOUND: the bank that
					 * disagreed (0: none computable) */
	enum boot_unknown why;
	char name[EFI_NAME_MAX]; /* variable name as logged, or "" */
};

enum boot_var {
	BOOT_VAR_PK,
	BOOT_VAR_KEK,
	BOOT_VAR_DB,
	BOOT_VAR_DBX,
	BOOT_VAR_COUNT,
};

struct boot_cert {
	int unknown;		/* an authority whose event does not
					 * hash to its digest: no contents */
	size_t event;		/* authorities: the event index */
	enum efi_sig_kind kind; /* X509: digest of the DER cert;
					 * SHA256: the listed hash; OTHER:
					 * SHA-256 of the entry data */
	uint8_t sha256[32];
	uint8_t type[EFI_GUID_SIZE]; /* SignatureType */
	char cn[BOOT_FACTS_CN_MAX];  /* X509 only; "" when unknown */
};

struct boot_var_facts {
	int measured;		     /* seen in PCR 7 */
	enum boot_unknown unknown;   /* not BOOT_KNOWN: the contents are
					 * not known (count is 0) */
	struct boot_event_ref event; /* the event read, or the one that
					 * made the contents unknown */
	size_t total;		     /* entries in the variable */
	size_t count;		     /* kept, at most BOOT_FACTS_CERTS_MAX */
	struct boot_cert certs[BOOT_FACTS_CERTS_MAX];
};

struct boot_app_digest {
	uint16_t alg_id;
	uint16_t size;
	uint8_t value[HASH_ALGO_MAX_SIZE];
};

struct boot_app {
	size_t index; /* event index in the log */
	uint32_t pcr;
	uint32_t ndigests;
	struct boot_app_digest digests[TCG_LOG_BANKS_MAX];
	char path[BOOT_FACTS_PATH_MAX]; /* "" when it did not decode */
};

/*
 * A section of the unified kernel image, as systemd-stub (252) measures
 * it into PCR 11: an EV_IPL whose digests are of the section name with its
 * NUL (the data: that name, UTF-16LE with U+0000), then one whose digests
 * are of the section's contents (the data: the name again, bound to
 * nothing). The name counts only when the first event's data hashes to
 * its digests; the contents are the second event's digests themselves.
 */
struct boot_uki_section {
	char name[BOOT_FACTS_SECTION_MAX]; /* "" when unknown */
	struct boot_event_ref event;	   /* the name event; ->why says
					 * whether the name is known */
	size_t contents_event;		   /* 0: the log ends before it */
	uint32_t ndigests;
	struct boot_app_digest digests[TCG_LOG_BANKS_MAX]; /* contents */
};

struct boot_facts {
	int secure_boot; /* 1 on, 0 off or absent (measured
					 * with no data), BOOT_SB_* */
	struct boot_event_ref secure_boot_event; /* read, or unknown by */
	struct boot_var_facts vars[BOOT_VAR_COUNT];
	size_t nauth; /* EV_EFI_VARIABLE_AUTHORITY kept */
	struct boot_cert auth[BOOT_FACTS_AUTH_MAX];
	size_t apps_total;
	size_t napps;
	struct boot_app apps[BOOT_FACTS_APPS_MAX];
	int has_cmdline; /* EV_IPL in PCR 12 (systemd-boot) */
	char cmdline[BOOT_FACTS_CMDLINE_MAX];
	int cmdline_digest_ok;	    /* its digests (every bank) are of
					 * its text */
	uint8_t cmdline_sha256[32]; /* its SHA-256 digest, when ok */
	struct boot_app_digest cmdline_digests[TCG_LOG_BANKS_MAX];
	int has_load_options_tag;	 /* the EFI stub's tag in PCR 9 */
	uint8_t load_options_sha256[32]; /* its SHA-256 digest */
	struct boot_app_digest load_options_digests[TCG_LOG_BANKS_MAX];
	uint32_t ndigests; /* banks of the log (both arrays) */
	int cmdline_bound; /* digest ok, and equal to the tag's
					 * in every bank: PCR 9 binds it */
	int uefi;	   /* an EV_EFI_* event: UEFI firmware,
					 * with or without Secure Boot */
	uint8_t separated; /* bit i: PCR i saw EV_SEPARATOR */
	size_t uki_events; /* PCR 11 events (but EV_NO_ACTION) */
	size_t uki_total;  /* sections in PCR 11 */
	size_t nuki;	   /* kept, at most BOOT_FACTS_UKI_MAX */
	struct boot_uki_section uki[BOOT_FACTS_UKI_MAX];
	int sbat_measured;		  /* shim's SbatLevel, PCR 7 */
	enum boot_unknown sbat_unknown;	  /* not BOOT_KNOWN: ->sbat is "" */
	struct boot_event_ref sbat_event; /* read, or unknown by */
	char sbat[BOOT_FACTS_SBAT_MAX];	  /* its text ('?' for bytes not
					 * printable ASCII nor newline) */
	uint32_t flags;			  /* BOOT_FACT_* */
	size_t flag_event;		  /* index of the first flagged event */
	struct boot_flag_event {
		size_t index;
		uint32_t pcr;
		uint32_t type;
	} flag_first[BOOT_FACT_BITS];	    /* per flag bit: its first event */
	size_t nunbound;		    /* events read whose data does not
					 * hash to their digest */
	struct boot_event_ref unbound;	    /* the first of them */
	struct boot_event_ref unbound_var;  /* the first unbound variable
					 * event of PCR 7 (any name) */
	struct boot_event_ref unbound_auth; /* the first unbound authority
					 * event (it may be SbatLevel) */
};

/**
 * boot_var_name() - "PK", "KEK", "db" or "dbx".
 * @v: a variable
 * Return: a static string.
 */
const char *boot_var_name(enum boot_var v);

/**
 * boot_event_bound() - whether the data of @ev is what its digests cover,
 * by the PC Client PFP rule of its type.
 * @ev: an event
 * @bad_alg: receives the bank that disagreed (tcg_event_digests_of());
 *	     may be NULL
 * The digest is the hash of the whole event data for EV_SEPARATOR,
 * EV_ACTION, EV_EFI_ACTION, EV_IPL, EV_EFI_VARIABLE_DRIVER_CONFIG,
 * EV_EFI_VARIABLE_AUTHORITY and EV_EFI_VARIABLE_BOOT2; for
 * EV_EFI_VARIABLE_BOOT either that or (EDK2, OVMF) the hash of
 * VariableData alone, so that event's name and GUID are not bound.
 * Callers use it only for those types: for images (Authenticode of the
 * PE file), firmware blobs and tagged events the digest is of something
 * the data only describes, and nothing can bind that description.
 * Return: 1 bound, 0 not (or no bank of the log could be computed).
 */
int boot_event_bound(const struct tcg_event *ev, uint16_t *bad_alg);

/**
 * boot_facts_flag_event() - the first event that set flag @bit.
 * @f: extracted facts
 * @bit: one BOOT_FACT_* flag
 * Return: that event (index, PCR, type), or NULL when @bit is not set.
 */
const struct boot_flag_event *boot_facts_flag_event(const struct boot_facts *f,
						    uint32_t bit);

/**
 * boot_facts_extract() - read the facts of a whole log.
 * @buf: the event log
 * @len: bytes in @buf
 * @f: receives the facts (large: allocate it, do not put it on a stack)
 * @err: filled on failure
 * Events whose data does not decode do not stop the pass: they set
 * BOOT_FACT_UNDECODABLE (and ->flag_event when first). An event read
 * whose data is not bound to its digest (boot_event_bound()) makes what
 * it would tell unknown: SecureBoot BOOT_SB_UNKNOWN, a variable's
 * ->unknown, an authority's ->unknown, a separator
 * BOOT_FACT_SEPARATOR_UNKNOWN, the command line not ->cmdline_bound;
 * and as its variable name is not bound either, SecureBoot, PK, KEK, db
 * or dbx that a log with an unbound PCR 7 variable event does not
 * measure is unknown by the first such event. Events allowed
 * after a separator of PCRs 0-7: PCR 1's configuration (boot variables,
 * handoff tables, configuration flags, tables of devices, non-host
 * configuration and information, microcode, firmware blobs,
 * configuration variables), drivers (option ROMs) in PCR 2, boot
 * applications, EV_EFI_ACTION and the GPT in PCRs 4 and 5,
 * EV_EFI_VARIABLE_AUTHORITY in PCR 7; anything else there is
 * BOOT_FACT_AFTER_SEPARATOR, and boot_facts_flag_event() names the first.
 * Return: IMT_OK, or what tcg_log_open()/tcg_log_next() return for a bad
 * log (@f is then incomplete and must not be used).
 */
enum imt_result boot_facts_extract(const uint8_t *buf, size_t len,
				   struct boot_facts *f, struct imt_error *err);

#endif /* IMATRUST_BOOT_FACTS_H */
