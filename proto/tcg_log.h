/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tcg_log.h - cursor over the TCG PC Client crypto-agile event log, the
 * firmware's record of what it measured into PCRs 0-9 (Linux shows it as
 * /sys/kernel/security/tpm0/binary_bios_measurements), and its replay.
 * Format (TCG PC Client Platform Firmware Profile, 10.2), little-endian:
 *	TCG_PCR_EVENT (SHA-1 format), once, first:
 *	  u32 pcrIndex (0), u32 eventType (EV_NO_ACTION), u8 digest[20] (0),
 *	  u32 eventSize, TCG_EfiSpecIDEventStruct:
 *	    "Spec ID Event03\0", u32 platformClass, u8 specVersionMinor (0),
 *	    u8 specVersionMajor (2), u8 specErrata, u8 uintnSize (1 or 2),
 *	    u32 numberOfAlgorithms, {u16 algorithmId, u16 digestSize}[],
 *	    u8 vendorInfoSize, u8 vendorInfo[]
 *	TCG_PCR_EVENT2, one per event after it:
 *	  u32 pcrIndex, u32 eventType, u32 count,
 *	  {u16 algorithmId, u8 digest[size from the Spec ID]}[count],
 *	  u32 eventSize, u8 event[eventSize]
 * The parser never copies: a struct tcg_event borrows the caller's buffer
 * and is valid only while that buffer is.
 */
#ifndef IMATRUST_TCG_LOG_H
#define IMATRUST_TCG_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "pcr_set.h"
#include "result.h"

#define TCG_LOG_SIZE_MAX (16u << 20) /* firmware logs are some 100 KB */
#define TCG_LOG_EVENTS_MAX 16384     /* events in one log, header included */
#define TCG_LOG_EVENT_SIZE_MAX (1u << 20) /* eventSize; a dbx is ~30 KB */
#define TCG_LOG_BANKS_MAX 8		  /* algorithms in the Spec ID event */

/* Event types of the PC Client PFP spec that the code below acts on. */
#define EV_POST_CODE 0x00000001u
#define EV_NO_ACTION 0x00000003u
#define EV_SEPARATOR 0x00000004u
#define EV_ACTION 0x00000005u
#define EV_EVENT_TAG 0x00000006u
#define EV_S_CRTM_CONTENTS 0x00000007u
#define EV_S_CRTM_VERSION 0x00000008u
#define EV_CPU_MICROCODE 0x00000009u
#define EV_PLATFORM_CONFIG_FLAGS 0x0000000au
#define EV_TABLE_OF_DEVICES 0x0000000bu
#define EV_IPL 0x0000000du
#define EV_IPL_PARTITION_DATA 0x0000000eu
#define EV_NONHOST_CONFIG 0x00000010u
#define EV_NONHOST_INFO 0x00000011u
#define EV_EFI_EVENT_BASE 0x80000000u
#define EV_EFI_VARIABLE_DRIVER_CONFIG 0x80000001u
#define EV_EFI_VARIABLE_BOOT 0x80000002u
#define EV_EFI_BOOT_SERVICES_APPLICATION 0x80000003u
#define EV_EFI_BOOT_SERVICES_DRIVER 0x80000004u
#define EV_EFI_RUNTIME_SERVICES_DRIVER 0x80000005u
#define EV_EFI_GPT_EVENT 0x80000006u
#define EV_EFI_ACTION 0x80000007u
#define EV_EFI_PLATFORM_FIRMWARE_BLOB 0x80000008u
#define EV_EFI_HANDOFF_TABLES 0x80000009u
#define EV_EFI_PLATFORM_FIRMWARE_BLOB2 0x8000000au
#define EV_EFI_HANDOFF_TABLES2 0x8000000bu
#define EV_EFI_VARIABLE_BOOT2 0x8000000cu
#define EV_EFI_HCRTM_EVENT 0x80000010u
#define EV_EFI_VARIABLE_AUTHORITY 0x800000e0u

/* One algorithm of the Spec ID event. */
struct tcg_bank {
	uint16_t alg_id;	      /* TPM2_ALG_ID */
	uint16_t size;		      /* digest size the log uses */
	const struct hash_algo *algo; /* NULL when we cannot compute it */
};

struct tcg_spec_id {
	uint32_t platform_class;
	uint8_t version_major;
	uint8_t version_minor;
	uint8_t errata;
	uint8_t uintn_size; /* 1: UINT32, 2: UINT64 */
	uint32_t nbanks;
	struct tcg_bank banks[TCG_LOG_BANKS_MAX];
	const uint8_t *vendor_info; /* borrowed */
	uint8_t vendor_info_len;
};

struct tcg_digest {
	const struct tcg_bank *bank; /* points into the log's spec */
	const uint8_t *value;	     /* borrowed, bank->size bytes */
};

struct tcg_event {
	size_t index;  /* 0 is the Spec ID header */
	size_t offset; /* byte offset of the event */
	size_t size;   /* bytes the event occupies */
	uint32_t pcr;
	uint32_t type;
	uint32_t ndigests; /* as many as spec banks (1 for 0) */
	struct tcg_digest digests[TCG_LOG_BANKS_MAX]; /* log order */
	const uint8_t *data;			      /* borrowed */
	uint32_t len;
};

struct tcg_log {
	const uint8_t *buf; /* borrowed */
	size_t len;
	size_t pos; /* offset of the next event */
	size_t next_index;
	struct tcg_spec_id spec;
	struct tcg_bank header_bank; /* the header's SHA-1 digest */
};

/**
 * tcg_log_open() - check the log's Spec ID header and start a cursor.
 * @log: the cursor to fill; tcg_log_next() returns the header first
 * @buf: the whole log (borrowed for the life of @log)
 * @len: bytes in @buf
 * @err: filled on failure
 * The header is parsed strictly: signature, version 2.0, uintnSize 1 or
 * 2, 1 to TCG_LOG_BANKS_MAX algorithms, none twice, a known algorithm
 * with its own size, no size 0 or above HASH_ALGO_MAX_SIZE, vendor info
 * and the whole structure exactly filling eventSize.
 * Return: IMT_OK; IMT_ERR_UNSUPPORTED for a SHA1-only legacy log (no
 * "Spec ID Event03"); IMT_ERR_MALFORMED naming the field and offset;
 * IMT_ERR_LIMIT when @len or numberOfAlgorithms is above its maximum.
 */
enum imt_result tcg_log_open(struct tcg_log *log, const uint8_t *buf,
			     size_t len, struct imt_error *err);

/**
 * tcg_log_legacy() - whether @buf is a SHA-1-only log of the TCG 1.2 format.
 * @buf: a firmware event log
 * @len: bytes in @buf
 * Such a log (TCG EFI Protocol 1.2 or TPM 1.2 BIOS, no "Spec ID Event03"
 * header) is a chain of TCG_PCR_EVENT: u32 pcrIndex, u32 eventType,
 * u8 digest[20], u32 eventSize, u8 event[eventSize]. It has only SHA-1
 * digests, which a TPM 2.0 quote of another bank cannot prove, so
 * tcg_log_open() refuses it (IMT_ERR_UNSUPPORTED); this tells it apart
 * from a log that is merely broken.
 * Return: 1 when every byte of @buf is such an event (at least one, PCRs
 * 0-23 or an EV_NO_ACTION of any, within the maxima) and the first is
 * not a crypto-agile header;
 * 0 otherwise.
 */
int tcg_log_legacy(const uint8_t *buf, size_t len);

/**
 * tcg_log_done() - whether every event of @log has been returned.
 * @log: an opened log
 * Return: non-zero at the end of the buffer.
 */
int tcg_log_done(const struct tcg_log *log);

/**
 * tcg_log_next() - parse the next event.
 * @log: an opened log that is not done; advanced on success
 * @ev: receives the event on IMT_OK; it borrows the log's buffer
 * @err: filled on failure, with the event index and the field's offset
 * Digests must be as many as the Spec ID banks, each bank once; their
 * sizes come from the Spec ID, so a bank we cannot compute is still
 * stepped over exactly.
 * Return: IMT_OK; IMT_ERR_MALFORMED (truncated, PCR above 23, digest
 * count or algorithm wrong); IMT_ERR_LIMIT (eventSize or the number of
 * events above its maximum). After an error the log stays where it was.
 */
enum imt_result tcg_log_next(struct tcg_log *log, struct tcg_event *ev,
			     struct imt_error *err);

/**
 * tcg_event_digest() - the digest of @ev in bank @alg_id.
 * @ev: an event
 * @alg_id: a TPM2_ALG_ID
 * Return: the digest (borrowed, the bank's size), or NULL when absent.
 */
const uint8_t *tcg_event_digest(const struct tcg_event *ev, uint16_t alg_id);

/**
 * tcg_event_digests_of() - whether the digests of @ev are those of @buf.
 * @ev: an event
 * @buf: the bytes its digests should cover (its data, or the part of it
 *	 the PFP rule of its type names)
 * @len: bytes in @buf
 * @bad_alg: receives the TPM2_ALG_ID of the first bank that disagrees
 *	     (0 when every bank agrees, or none could be computed); may be
 *	     NULL
 * Every bank of the log we can compute is checked, not only the one a
 * quote covers: a genuine firmware extends the same bytes into every
 * bank, and checking them all needs no knowledge of the quote here.
 * Return: 1 when at least one bank was computed and every computed bank
 * equals its hash of @buf; 0 otherwise (a bank disagrees, no bank we
 * can compute, or the crypto library failed).
 */
int tcg_event_digests_of(const struct tcg_event *ev, const uint8_t *buf,
			 size_t len, uint16_t *bad_alg);

/**
 * tcg_event_type_name() - the PFP spec's name of an event type.
 * @type: eventType
 * Return: a static string such as "EV_SEPARATOR", or NULL for a type the
 * spec does not name (callers show it as "0x%08x", never drop it).
 */
const char *tcg_event_type_name(uint32_t type);

/**
 * tcg_log_replay() - replay the log into PCRs 0-23 of the given banks.
 * @buf: the whole log
 * @len: bytes in @buf
 * @sets: one set per bank wanted, each pcr_set_init() with its algorithm;
 *	  values are overwritten
 * @nsets: number of sets
 * @err: filled on failure
 * Per the PFP rules: every PCR starts at zero, PCR 0 at 00..00<locality>
 * when a StartupLocality EV_NO_ACTION event precedes its first extend,
 * and at 00..04 when its first extend is an EV_EFI_HCRTM_EVENT (the
 * H-CRTM's TPM2_HashStart/HashEnd, which the event's digest records);
 * EV_NO_ACTION events are not extended; every other event extends its
 * digest of that bank. PCRs 0-16 and 23 are marked present, 17-22 (reset
 * to all-ones for the D-RTM) only when extended.
 * Return: IMT_OK; IMT_ERR_UNSUPPORTED when the log has no such bank;
 * what tcg_log_open() or tcg_log_next() return on a bad log;
 * IMT_ERR_INTERNAL when the crypto library fails.
 */
enum imt_result tcg_log_replay(const uint8_t *buf, size_t len,
			       struct pcr_set *sets, size_t nsets,
			       struct imt_error *err);

/**
 * tcg_log_extended() - the PCRs the log's events extend.
 * @buf: the whole log
 * @len: bytes in @buf
 * @mask: receives bit i set for every PCR i some event (not EV_NO_ACTION)
 *	  extends; 0 on failure
 * @err: filled on failure
 * What the agent quotes beyond PCRs 0-10, and what the verifier requires
 * quoted (proto/DESIGN.md §4): a PCR the log extends but the quote leaves
 * out would hide its events from the replay.
 * Return: IMT_OK; what tcg_log_open() or tcg_log_next() return on a bad
 * log (IMT_ERR_UNSUPPORTED for a legacy one).
 */
enum imt_result tcg_log_extended(const uint8_t *buf, size_t len, uint32_t *mask,
				 struct imt_error *err);

/**
 * tcg_pcrs_compare() - compare replayed PCRs with quoted ones.
 * @replayed: from tcg_log_replay()
 * @quoted: the quote's values, same bank
 * @mask: bit i set to compare PCR i
 * @first_bad_pcr: receives the first PCR of @mask that differs, or -1;
 *		   may be NULL
 * @err: filled on failure
 * Return: IMT_OK; IMT_ERR_MISMATCH naming the PCR and both values
 * ("PCR 4 (sha256): log replays to ab12.., quote says cd34..") or a PCR
 * of @mask missing from one side; IMT_ERR_MALFORMED when the banks
 * differ.
 */
enum imt_result tcg_pcrs_compare(const struct pcr_set *replayed,
				 const struct pcr_set *quoted, uint32_t mask,
				 int *first_bad_pcr, struct imt_error *err);

#endif /* IMATRUST_TCG_LOG_H */
