// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcg_log.c - cursor over the TCG crypto-agile event log, and its replay.
 *
 * Layout: see tcg_log.h and the TCG PC Client Platform Firmware Profile
 * (PFP) 1.05, sections 10.2 (structures) and 10.4 (event types). The
 * whole log is in memory (the agent reads a sysfs file of some 100 KB),
 * so there is no "need more": an event past the end is truncated.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "hash_md.h"
#include "hex.h"
#include "le_cursor.h"
#include "tcg_log.h"

#define SPEC_ID_SIGNATURE "Spec ID Event03" /* 16 bytes with the NUL */
#define STARTUP_LOCALITY "StartupLocality"  /* 16 bytes with the NUL */
#define TCG_PCR_COUNT 24
#define TCG_HCRTM_LOCALITY 4 /* PCR 0 after TPM2_HashStart */

static const struct {
	uint32_t type;
	const char *name;
} event_types[] = {
	{ 0x00000000, "EV_PREBOOT_CERT" },
	{ 0x00000001, "EV_POST_CODE" },
	{ 0x00000002, "EV_UNUSED" },
	{ 0x00000003, "EV_NO_ACTION" },
	{ 0x00000004, "EV_SEPARATOR" },
	{ 0x00000005, "EV_ACTION" },
	{ 0x00000006, "EV_EVENT_TAG" },
	{ 0x00000007, "EV_S_CRTM_CONTENTS" },
	{ 0x00000008, "EV_S_CRTM_VERSION" },
	{ 0x00000009, "EV_CPU_MICROCODE" },
	{ 0x0000000a, "EV_PLATFORM_CONFIG_FLAGS" },
	{ 0x0000000b, "EV_TABLE_OF_DEVICES" },
	{ 0x0000000c, "EV_COMPACT_HASH" },
	{ 0x0000000d, "EV_IPL" },
	{ 0x0000000e, "EV_IPL_PARTITION_DATA" },
	{ 0x0000000f, "EV_NONHOST_CODE" },
	{ 0x00000010, "EV_NONHOST_CONFIG" },
	{ 0x00000011, "EV_NONHOST_INFO" },
	{ 0x00000012, "EV_OMIT_BOOT_DEVICE_EVENTS" },
	{ 0x80000000, "EV_EFI_EVENT_BASE" },
	{ 0x80000001, "EV_EFI_VARIABLE_DRIVER_CONFIG" },
	{ 0x80000002, "EV_EFI_VARIABLE_BOOT" },
	{ 0x80000003, "EV_EFI_BOOT_SERVICES_APPLICATION" },
	{ 0x80000004, "EV_EFI_BOOT_SERVICES_DRIVER" },
	{ 0x80000005, "EV_EFI_RUNTIME_SERVICES_DRIVER" },
	{ 0x80000006, "EV_EFI_GPT_EVENT" },
	{ 0x80000007, "EV_EFI_ACTION" },
	{ 0x80000008, "EV_EFI_PLATFORM_FIRMWARE_BLOB" },
	{ 0x80000009, "EV_EFI_HANDOFF_TABLES" },
	{ 0x8000000a, "EV_EFI_PLATFORM_FIRMWARE_BLOB2" },
	{ 0x8000000b, "EV_EFI_HANDOFF_TABLES2" },
	{ 0x8000000c, "EV_EFI_VARIABLE_BOOT2" },
	{ 0x80000010, "EV_EFI_HCRTM_EVENT" },
	{ 0x800000e0, "EV_EFI_VARIABLE_AUTHORITY" },
	{ 0x800000e1, "EV_EFI_SPDM_FIRMWARE_BLOB" },
	{ 0x800000e2, "EV_EFI_SPDM_FIRMWARE_CONFIG" },
	{ 0x800000e3, "EV_EFI_SPDM_DEVICE_POLICY" },
	{ 0x800000e4, "EV_EFI_SPDM_DEVICE_AUTHORITY" },
};

const char *tcg_event_type_name(uint32_t type)
{
	size_t i;

	for (i = 0; i < sizeof(event_types) / sizeof(event_types[0]); i++) {
		if (event_types[i].type == type)
			return event_types[i].name;
	}
	return NULL;
}

/* A field of event @index ran out of bytes at @off. */
static enum imt_result truncated(struct imt_error *err, size_t index,
				 size_t off, const char *field)
{
	return imt_error_set(err, IMT_ERR_MALFORMED, index, off,
			     "event %zu truncated at offset %zu: %s", index,
			     off, field);
}

static enum imt_result spec_bank(struct tcg_log *log, struct le_cursor *c,
				 size_t base, uint32_t i, struct imt_error *err)
{
	struct tcg_bank *b = &log->spec.banks[i];
	size_t at = base + c->pos;
	uint32_t j;

	if (le_u16(c, &b->alg_id) || le_u16(c, &b->size))
		return truncated(err, 0, at, "Spec ID algorithm entry");
	for (j = 0; j < i; j++) {
		if (log->spec.banks[j].alg_id == b->alg_id)
			return imt_error_set(err, IMT_ERR_MALFORMED, 0, at,
					     "event 0: Spec ID lists algorithm 0x%04x twice",
					     b->alg_id);
	}
	if (b->size == 0 || b->size > HASH_ALGO_MAX_SIZE)
		return imt_error_set(err, IMT_ERR_MALFORMED, 0, at,
				     "event 0: Spec ID algorithm 0x%04x has digest size %u (1..%d)",
				     b->alg_id, b->size, HASH_ALGO_MAX_SIZE);
	b->algo = hash_algo_by_tpm(b->alg_id);
	if (b->algo && b->algo->size != b->size)
		return imt_error_set(err, IMT_ERR_MALFORMED, 0, at,
				     "event 0: Spec ID gives %s digest size %u, not %zu",
				     b->algo->name, b->size, b->algo->size);
	if (b->algo && !b->algo->bank)
		b->algo = NULL;
	return IMT_OK;
}

/* TCG_EfiSpecIDEventStruct of the header; @base is its offset. */
static enum imt_result spec_id(struct tcg_log *log, const uint8_t *data,
			       uint32_t len, size_t base, struct imt_error *err)
{
	struct tcg_spec_id *s = &log->spec;
	struct le_cursor c;
	const uint8_t *sig;
	enum imt_result r;
	uint32_t i;

	le_cursor_init(&c, data, len);
	sig = le_take(&c, sizeof(SPEC_ID_SIGNATURE));
	if (!sig || memcmp(sig, SPEC_ID_SIGNATURE, sizeof(SPEC_ID_SIGNATURE)))
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, 0, base,
				     "event 0 is not \"Spec ID Event03\": a SHA1-only legacy log, which is not supported (a crypto-agile TPM 2.0 log is)");
	if (le_u32(&c, &s->platform_class) || le_u8(&c, &s->version_minor) ||
	    le_u8(&c, &s->version_major) || le_u8(&c, &s->errata) ||
	    le_u8(&c, &s->uintn_size) || le_u32(&c, &s->nbanks))
		return truncated(err, 0, base + c.pos, "Spec ID fields");
	if (s->version_major != 2 || s->version_minor != 0)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, 0, base + 20,
				     "event 0: Spec ID version %u.%u, not 2.0",
				     s->version_major, s->version_minor);
	if (s->uintn_size != 1 && s->uintn_size != 2)
		return imt_error_set(err, IMT_ERR_MALFORMED, 0, base + 23,
				     "event 0: Spec ID uintnSize %u (1 or 2)",
				     s->uintn_size);
	if (s->nbanks == 0)
		return imt_error_set(err, IMT_ERR_MALFORMED, 0, base + 24,
				     "event 0: Spec ID numberOfAlgorithms is 0");
	if (s->nbanks > TCG_LOG_BANKS_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, 0, base + 24,
				     "event 0: Spec ID numberOfAlgorithms %u above %d",
				     s->nbanks, TCG_LOG_BANKS_MAX);
	if (le_left(&c) / 4 < s->nbanks)
		return truncated(err, 0, base + c.pos,
				 "Spec ID numberOfAlgorithms exceeds eventSize");
	for (i = 0; i < s->nbanks; i++) {
		r = spec_bank(log, &c, base, i, err);
		if (r != IMT_OK)
			return r;
	}
	if (le_u8(&c, &s->vendor_info_len))
		return truncated(err, 0, base + c.pos,
				 "Spec ID vendorInfoSize");
	s->vendor_info = le_take(&c, s->vendor_info_len);
	if (!s->vendor_info)
		return truncated(err, 0, base + c.pos,
				 "Spec ID vendorInfoSize exceeds eventSize");
	if (le_left(&c))
		return imt_error_set(err, IMT_ERR_MALFORMED, 0, base + c.pos,
				     "event 0: %zu bytes after the Spec ID vendorInfo",
				     le_left(&c));
	return IMT_OK;
}

/* Why a first event that is not the Spec ID header is refused; @data
 * is its data, NULL when eventSize exceeds the log. */
static enum imt_result not_spec_id(const uint8_t *buf, size_t len, uint32_t pcr,
				   uint32_t type, const uint8_t *data,
				   uint32_t size, struct imt_error *err)
{
	if (pcr != 0 && type == EV_NO_ACTION && data &&
	    size >= sizeof(SPEC_ID_SIGNATURE) &&
	    !memcmp(data, SPEC_ID_SIGNATURE, sizeof(SPEC_ID_SIGNATURE)))
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, 0, 0,
				     "event 0 is a Spec ID header for index %u, not PCR 0: a confidential-computing event log (CCEL: TDX measurement registers), not a TPM's",
				     pcr);
	if (tcg_log_legacy(buf, len))
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, 0, 0,
				     "event 0 is not the Spec ID header (PCR %u, type 0x%08x): a SHA1-only legacy log, which is not supported",
				     pcr, type);
	return imt_error_set(err, IMT_ERR_UNSUPPORTED, 0, 0,
			     "event 0 is not the Spec ID header (PCR %u, type 0x%08x): not a TPM event log",
			     pcr, type);
}

enum imt_result tcg_log_open(struct tcg_log *log, const uint8_t *buf,
			     size_t len, struct imt_error *err)
{
	static const uint8_t zero[20];
	struct le_cursor c;
	const uint8_t *digest, *data;
	uint32_t pcr, type, size;

	memset(log, 0, sizeof(*log));
	if (len > TCG_LOG_SIZE_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "event log of %zu bytes above %u", len,
				     TCG_LOG_SIZE_MAX);
	le_cursor_init(&c, buf, len);
	if (le_u32(&c, &pcr))
		return truncated(err, 0, c.pos, "pcrIndex");
	if (le_u32(&c, &type))
		return truncated(err, 0, c.pos, "eventType");
	digest = le_take(&c, sizeof(zero));
	if (!digest)
		return truncated(err, 0, c.pos, "SHA-1 digest");
	if (le_u32(&c, &size))
		return truncated(err, 0, c.pos, "eventSize");
	data = le_take(&c, size);
	if (pcr != 0 || type != EV_NO_ACTION || memcmp(digest, zero, 20))
		return not_spec_id(buf, len, pcr, type, data, size, err);
	if (!data)
		return truncated(err, 0, c.pos, "eventSize exceeds the log");
	log->buf = buf;
	log->len = len;
	log->header_bank.alg_id = 0x0004;
	log->header_bank.size = 20;
	log->header_bank.algo = hash_algo_by_tpm(0x0004);
	return spec_id(log, data, size, 32, err);
}

int tcg_log_legacy(const uint8_t *buf, size_t len)
{
	struct le_cursor c;
	const uint8_t *data;
	uint32_t pcr, type, size;
	size_t n;

	if (len > TCG_LOG_SIZE_MAX)
		return 0;
	le_cursor_init(&c, buf, len);
	for (n = 0; le_left(&c) > 0; n++) {
		if (n == TCG_LOG_EVENTS_MAX || le_u32(&c, &pcr) ||
		    le_u32(&c, &type) || !le_take(&c, 20) ||
		    le_u32(&c, &size) || size > TCG_LOG_EVENT_SIZE_MAX)
			return 0;
		/* Windows ends some with an EV_NO_ACTION of PCR 0xffffffff */
		if (pcr >= TCG_PCR_COUNT && type != EV_NO_ACTION)
			return 0;
		data = le_take(&c, size);
		if (!data)
			return 0;
		/* a crypto-agile log's header is such an event too */
		if (n == 0 && type == EV_NO_ACTION &&
		    size >= sizeof(SPEC_ID_SIGNATURE) &&
		    memcmp(data, SPEC_ID_SIGNATURE,
			   sizeof(SPEC_ID_SIGNATURE)) == 0)
			return 0;
	}
	return n > 0;
}

int tcg_log_done(const struct tcg_log *log)
{
	return log->pos >= log->len;
}

static void header_event(struct tcg_log *log, struct tcg_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = EV_NO_ACTION;
	ev->ndigests = 1;
	ev->digests[0].bank = &log->header_bank;
	ev->digests[0].value = log->buf + 8;
	ev->data = log->buf + 32;
	ev->len = (uint32_t)log->buf[28] | (uint32_t)log->buf[29] << 8 |
		  (uint32_t)log->buf[30] << 16 | (uint32_t)log->buf[31] << 24;
	ev->size = 32 + ev->len;
}

static const struct tcg_bank *spec_bank_of(const struct tcg_log *log,
					   uint16_t alg_id)
{
	uint32_t i;

	for (i = 0; i < log->spec.nbanks; i++) {
		if (log->spec.banks[i].alg_id == alg_id)
			return &log->spec.banks[i];
	}
	return NULL;
}

/* TPML_DIGEST_VALUES of event @ev->index at cursor @c. */
static enum imt_result digests(const struct tcg_log *log, struct le_cursor *c,
			       struct tcg_event *ev, struct imt_error *err)
{
	const struct tcg_bank *b;
	uint32_t count, i, j;
	uint16_t alg;
	size_t at;

	if (le_u32(c, &count))
		return truncated(err, ev->index, ev->offset + c->pos,
				 "digest count");
	if (count != log->spec.nbanks)
		return imt_error_set(err, IMT_ERR_MALFORMED, ev->index,
				     ev->offset + 8,
				     "event %zu at offset %zu: digest count %u, the Spec ID lists %u banks",
				     ev->index, ev->offset, count,
				     log->spec.nbanks);
	for (i = 0; i < count; i++) {
		at = ev->offset + c->pos;
		if (le_u16(c, &alg))
			return truncated(err, ev->index, at,
					 "digest algorithm");
		b = spec_bank_of(log, alg);
		if (!b)
			return imt_error_set(err, IMT_ERR_MALFORMED, ev->index,
					     at,
					     "event %zu at offset %zu: digest algorithm 0x%04x is not in the Spec ID",
					     ev->index, at, alg);
		for (j = 0; j < i; j++) {
			if (ev->digests[j].bank == b)
				return imt_error_set(err, IMT_ERR_MALFORMED,
						     ev->index, at,
						     "event %zu at offset %zu: digest algorithm 0x%04x given twice",
						     ev->index, at, alg);
		}
		ev->digests[i].bank = b;
		ev->digests[i].value = le_take(c, b->size);
		if (!ev->digests[i].value)
			return truncated(err, ev->index, ev->offset + c->pos,
					 "digest");
	}
	ev->ndigests = count;
	return IMT_OK;
}

enum imt_result tcg_log_next(struct tcg_log *log, struct tcg_event *ev,
			     struct imt_error *err)
{
	struct le_cursor c;
	enum imt_result r;
	uint32_t size;

	if (log->next_index == 0) {
		header_event(log, ev);
		log->pos = ev->size;
		log->next_index = 1;
		return IMT_OK;
	}
	memset(ev, 0, sizeof(*ev));
	ev->index = log->next_index;
	ev->offset = log->pos;
	if (ev->index >= TCG_LOG_EVENTS_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, ev->index, ev->offset,
				     "event log has more than %d events",
				     TCG_LOG_EVENTS_MAX);
	le_cursor_init(&c, log->buf + log->pos, log->len - log->pos);
	if (le_u32(&c, &ev->pcr))
		return truncated(err, ev->index, ev->offset, "pcrIndex");
	if (le_u32(&c, &ev->type))
		return truncated(err, ev->index, ev->offset + 4, "eventType");
	if (ev->pcr >= TCG_PCR_COUNT)
		return imt_error_set(err, IMT_ERR_MALFORMED, ev->index,
				     ev->offset,
				     "event %zu at offset %zu: pcrIndex %u above 23",
				     ev->index, ev->offset, ev->pcr);
	r = digests(log, &c, ev, err);
	if (r != IMT_OK)
		return r;
	if (le_u32(&c, &size))
		return truncated(err, ev->index, ev->offset + c.pos,
				 "eventSize");
	if (size > TCG_LOG_EVENT_SIZE_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, ev->index,
				     ev->offset + c.pos - 4,
				     "event %zu at offset %zu: eventSize %u above %u",
				     ev->index, ev->offset, size,
				     TCG_LOG_EVENT_SIZE_MAX);
	ev->data = le_take(&c, size);
	if (!ev->data)
		return truncated(err, ev->index, ev->offset + c.pos,
				 "eventSize exceeds the log");
	ev->len = size;
	ev->size = c.pos;
	log->pos += c.pos;
	log->next_index++;
	return IMT_OK;
}

const uint8_t *tcg_event_digest(const struct tcg_event *ev, uint16_t alg_id)
{
	uint32_t i;

	for (i = 0; i < ev->ndigests; i++) {
		if (ev->digests[i].bank->alg_id == alg_id)
			return ev->digests[i].value;
	}
	return NULL;
}

int tcg_event_digests_of(const struct tcg_event *ev, const uint8_t *buf,
			 size_t len, uint16_t *bad_alg)
{
	uint8_t md[EVP_MAX_MD_SIZE];
	const struct tcg_bank *bank;
	unsigned int mdlen;
	uint32_t i;
	int checked = 0;

	if (bad_alg)
		*bad_alg = 0;
	for (i = 0; i < ev->ndigests; i++) {
		bank = ev->digests[i].bank;
		if (!bank->algo)
			continue; /* sm3 and the like: stepped over */
		mdlen = 0;
		if (!EVP_Digest(buf, len, md, &mdlen, hash_md(bank->algo),
				NULL) ||
		    mdlen != bank->size ||
		    memcmp(md, ev->digests[i].value, mdlen) != 0) {
			if (bad_alg)
				*bad_alg = bank->alg_id;
			return 0;
		}
		checked = 1;
	}
	return checked;
}

static void replay_init(struct pcr_set *set)
{
	int i;

	memset(set->value, 0, sizeof(set->value));
	set->present = 0;
	for (i = 0; i < TCG_PCR_COUNT; i++) {
		if (i < 17 || i == 23)
			set->present |= 1u << i;
	}
}

/* A StartupLocality event: PCR 0 starts at 00..00<locality>. */
static int startup_locality(const struct tcg_event *ev, uint8_t *locality)
{
	if (ev->type != EV_NO_ACTION || ev->pcr != 0 ||
	    ev->len != sizeof(STARTUP_LOCALITY) + 1 ||
	    memcmp(ev->data, STARTUP_LOCALITY, sizeof(STARTUP_LOCALITY)))
		return 0;
	*locality = ev->data[sizeof(STARTUP_LOCALITY)];
	return 1;
}

static int extend(EVP_MD_CTX *ctx, struct pcr_set *set, uint32_t pcr,
		  const uint8_t *digest)
{
	size_t n = set->algo->size;

	if (!EVP_DigestInit_ex(ctx, hash_md(set->algo), NULL) ||
	    !EVP_DigestUpdate(ctx, set->value[pcr], n) ||
	    !EVP_DigestUpdate(ctx, digest, n) ||
	    !EVP_DigestFinal_ex(ctx, set->value[pcr], NULL))
		return -1;
	set->present |= 1u << pcr;
	return 0;
}

/* Check every set's bank is in @log; clear them. */
static enum imt_result replay_banks(const struct tcg_log *log,
				    struct pcr_set *sets, size_t nsets,
				    struct imt_error *err)
{
	size_t i;

	for (i = 0; i < nsets; i++) {
		if (!sets[i].algo || !spec_bank_of(log, sets[i].algo->tpm_alg))
			return imt_error_set(err, IMT_ERR_UNSUPPORTED,
					     IMT_NO_POS, IMT_NO_POS,
					     "event log has no %s bank",
					     sets[i].algo ? sets[i].algo->name :
							    "(null)");
		replay_init(&sets[i]);
	}
	return IMT_OK;
}

/* PCR 0 of every set starts at 00..00<locality>, unless already extended. */
static void pcr0_start(struct pcr_set *sets, size_t nsets, uint32_t extended,
		       uint8_t locality)
{
	size_t i;

	if (extended & 1u)
		return;
	for (i = 0; i < nsets; i++) {
		memset(sets[i].value[0], 0, sets[i].algo->size);
		sets[i].value[0][sets[i].algo->size - 1] = locality;
	}
}

static enum imt_result replay_event(EVP_MD_CTX *ctx, const struct tcg_event *ev,
				    struct pcr_set *sets, size_t nsets,
				    uint32_t *extended, struct imt_error *err)
{
	uint8_t locality;
	size_t i;

	if (ev->type == EV_NO_ACTION) {
		if (startup_locality(ev, &locality))
			pcr0_start(sets, nsets, *extended, locality);
		return IMT_OK;
	}
	/*
	 * H-CRTM: TPM2_HashStart at locality 4 resets PCR 0 to 00..04 and
	 * HashEnd extends the hash, which the log gives as this event.
	 */
	if (ev->type == EV_EFI_HCRTM_EVENT && ev->pcr == 0)
		pcr0_start(sets, nsets, *extended, TCG_HCRTM_LOCALITY);
	for (i = 0; i < nsets; i++) {
		if (extend(ctx, &sets[i], ev->pcr,
			   tcg_event_digest(ev, sets[i].algo->tpm_alg)))
			return imt_error_set(err, IMT_ERR_INTERNAL, ev->index,
					     ev->offset,
					     "event %zu: %s extend failed",
					     ev->index, sets[i].algo->name);
	}
	*extended |= 1u << ev->pcr;
	return IMT_OK;
}

enum imt_result tcg_log_replay(const uint8_t *buf, size_t len,
			       struct pcr_set *sets, size_t nsets,
			       struct imt_error *err)
{
	struct tcg_log log;
	struct tcg_event ev;
	EVP_MD_CTX *ctx = NULL;
	uint32_t extended = 0;
	enum imt_result r;

	r = tcg_log_open(&log, buf, len, err);
	if (r == IMT_OK)
		r = replay_banks(&log, sets, nsets, err);
	if (r == IMT_OK) {
		ctx = EVP_MD_CTX_new();
		if (!ctx)
			r = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
					  IMT_NO_POS, "EVP_MD_CTX_new failed");
	}
	/* Event 0, the header, is EV_NO_ACTION: skip it. */
	if (r == IMT_OK)
		r = tcg_log_next(&log, &ev, err);
	while (r == IMT_OK && !tcg_log_done(&log)) {
		r = tcg_log_next(&log, &ev, err);
		if (r == IMT_OK)
			r = replay_event(ctx, &ev, sets, nsets, &extended, err);
	}
	EVP_MD_CTX_free(ctx);
	return r;
}

enum imt_result tcg_log_extended(const uint8_t *buf, size_t len, uint32_t *mask,
				 struct imt_error *err)
{
	struct tcg_log log;
	struct tcg_event ev;
	uint32_t m = 0;
	enum imt_result r;

	*mask = 0;
	r = tcg_log_open(&log, buf, len, err);
	/* event 0, the header, is EV_NO_ACTION */
	if (r == IMT_OK)
		r = tcg_log_next(&log, &ev, err);
	while (r == IMT_OK && !tcg_log_done(&log)) {
		r = tcg_log_next(&log, &ev, err);
		if (r == IMT_OK && ev.type != EV_NO_ACTION)
			m |= 1u << ev.pcr;
	}
	if (r == IMT_OK)
		*mask = m;
	return r;
}

/* Hex of @v, cut to 48 bytes so two values fit an error message. */
static const char *short_hex(const uint8_t *v, size_t n, char *out)
{
	size_t show = n > 48 ? 48 : n;

	hex_encode(v, show, out);
	if (show < n)
		strcpy(out + 2 * show, "..");
	return out;
}

enum imt_result tcg_pcrs_compare(const struct pcr_set *replayed,
				 const struct pcr_set *quoted, uint32_t mask,
				 int *first_bad_pcr, struct imt_error *err)
{
	char a[2 * 48 + 3], b[2 * 48 + 3];
	size_t n;
	int i;

	if (first_bad_pcr)
		*first_bad_pcr = -1;
	if (!replayed->algo || replayed->algo != quoted->algo)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "replayed and quoted PCRs are of different banks");
	n = replayed->algo->size;
	for (i = 0; i < TCG_PCR_COUNT; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (!(quoted->present & replayed->present & (1u << i))) {
			if (first_bad_pcr)
				*first_bad_pcr = i;
			return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
					     IMT_NO_POS,
					     "PCR %d (%s): not in the %s", i,
					     replayed->algo->name,
					     (quoted->present & (1u << i)) ?
						     "log replay" :
						     "quote");
		}
		if (memcmp(replayed->value[i], quoted->value[i], n) == 0)
			continue;
		if (first_bad_pcr)
			*first_bad_pcr = i;
		return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				     IMT_NO_POS,
				     "PCR %d (%s): log replays to %s, quote says %s",
				     i, replayed->algo->name,
				     short_hex(replayed->value[i], n, a),
				     short_hex(quoted->value[i], n, b));
	}
	return IMT_OK;
}
