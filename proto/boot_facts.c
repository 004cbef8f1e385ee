// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_facts.c - the facts a boot policy rules on, from one pass over a
 * firmware event log. What the PFP spec says goes where: SecureBoot, PK,
 * KEK, db, dbx as EV_EFI_VARIABLE_DRIVER_CONFIG and the verifying db
 * entries as EV_EFI_VARIABLE_AUTHORITY in PCR 7; EFI applications in
 * PCR 4; systemd-boot's EV_IPL of the command line in PCR 12; the Linux
 * EFI stub's tagged load options in PCR 9.
 *
 * The replay proves digests, not data: an agent may send any data beside
 * the measured digests. So a fact is read from an event's data only when
 * that data hashes to the event's digests (boot_event_bound()); else the
 * fact is unknown and keeps the event that made it so.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "boot_facts.h"

static const char *const var_names[BOOT_VAR_COUNT] = {
	"PK",
	"KEK",
	"db",
	"dbx",
};

/* shim's vendor GUID (SbatLevel, MokList): 605dab50-e046-4300-abb6-... */
static const uint8_t guid_shim[EFI_GUID_SIZE] = {
	0x50, 0xab, 0x5d, 0x60, 0x46, 0xe0, 0x00, 0x43,
	0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23,
};

const char *boot_var_name(enum boot_var v)
{
	return var_names[v];
}

static void flag(struct boot_facts *f, uint32_t what,
		 const struct tcg_event *ev)
{
	unsigned int bit;

	if (!f->flags)
		f->flag_event = ev->index;
	for (bit = 0; bit < BOOT_FACT_BITS; bit++) {
		if (!(what & (1u << bit)) || (f->flags & (1u << bit)))
			continue;
		f->flag_first[bit].index = ev->index;
		f->flag_first[bit].pcr = ev->pcr;
		f->flag_first[bit].type = ev->type;
	}
	f->flags |= what;
}

const struct boot_flag_event *boot_facts_flag_event(const struct boot_facts *f,
						    uint32_t bit)
{
	unsigned int i;

	for (i = 0; i < BOOT_FACT_BITS; i++) {
		if (bit == (1u << i))
			return (f->flags & bit) ? &f->flag_first[i] : NULL;
	}
	return NULL;
}

int boot_event_bound(const struct tcg_event *ev, uint16_t *bad_alg)
{
	struct efi_variable v;

	if (tcg_event_digests_of(ev, ev->data, ev->len, bad_alg))
		return 1;
	/*
	 * The PFP (1.05) has EV_EFI_VARIABLE_BOOT digest the whole
	 * UEFI_VARIABLE_DATA; EDK2 (OVMF 2022.11 in the fixtures) digests
	 * VariableData alone. Either is accepted; @bad_alg stays the first
	 * rule's.
	 */
	if (ev->type != EV_EFI_VARIABLE_BOOT ||
	    efi_variable_parse(ev->data, ev->len, &v, NULL) != IMT_OK)
		return 0;
	return tcg_event_digests_of(ev, v.data, v.len, NULL);
}

/* @r names @ev (and, for a variable, @name as logged). */
static void ref_of(struct boot_event_ref *r, const struct tcg_event *ev,
		   const char *name, enum boot_unknown why, uint16_t bad_alg)
{
	memset(r, 0, sizeof(*r));
	r->index = ev->index;
	r->pcr = ev->pcr;
	r->type = ev->type;
	r->why = why;
	r->bad_alg = bad_alg;
	snprintf(r->name, sizeof(r->name), "%s", name);
}

/* An event read whose data does not hash to its digests. */
static void note_unbound(struct boot_facts *f, const struct boot_event_ref *r)
{
	if (f->nunbound++ == 0)
		f->unbound = *r;
}

/*
 * Events a PCR 0-7 may take after its separator (PFP 3.3.4, 10.4.4).
 * PCR 1 holds the platform's configuration, which firmware measures
 * again when it tries another boot option or hands off: the boot
 * variables (BootOrder, Boot####), the handoff tables (SMBIOS), the
 * configuration flags, tables of devices and non-host configuration
 * real servers and laptops log there after the separator. Conventional
 * BIOS (TCG PC Client Implementation Specification for Conventional
 * BIOS 1.21, 3.2.3 and 8.2) measures its separators before it calls INT
 * 19h, then the boot attempt (EV_ACTION "Booting BCV device 80h" into
 * PCR 4), the IPL code it loads (the MBR, EV_IPL) and the partition
 * table (EV_IPL_PARTITION_DATA into PCR 5): SeaBIOS booting from a disk.
 */
static const struct {
	uint32_t pcr;
	uint32_t type;
} after_separator[] = {
	{ 1, EV_CPU_MICROCODE },
	{ 1, EV_PLATFORM_CONFIG_FLAGS },
	{ 1, EV_TABLE_OF_DEVICES },
	{ 1, EV_NONHOST_CONFIG },
	{ 1, EV_NONHOST_INFO },
	{ 1, EV_EFI_VARIABLE_DRIVER_CONFIG },
	{ 1, EV_EFI_VARIABLE_BOOT },
	{ 1, EV_EFI_VARIABLE_BOOT2 },
	{ 1, EV_EFI_HANDOFF_TABLES },
	{ 1, EV_EFI_HANDOFF_TABLES2 },
	{ 1, EV_EFI_PLATFORM_FIRMWARE_BLOB },
	{ 1, EV_EFI_PLATFORM_FIRMWARE_BLOB2 },
	{ 2, EV_EFI_BOOT_SERVICES_DRIVER },
	{ 2, EV_EFI_RUNTIME_SERVICES_DRIVER },
	{ 4, EV_ACTION },
	{ 4, EV_IPL },
	{ 5, EV_IPL_PARTITION_DATA },
	{ 4, EV_EFI_BOOT_SERVICES_APPLICATION },
	{ 4, EV_EFI_ACTION },
	{ 5, EV_EFI_ACTION },
	{ 5, EV_EFI_GPT_EVENT },
	{ 7, EV_EFI_VARIABLE_AUTHORITY },
};

static int allowed_after_separator(const struct tcg_event *ev)
{
	size_t i;

	if (ev->type == EV_NO_ACTION)
		return 1;
	for (i = 0; i < sizeof(after_separator) / sizeof(after_separator[0]);
	     i++) {
		if (after_separator[i].pcr == ev->pcr &&
		    after_separator[i].type == ev->type)
			return 1;
	}
	return 0;
}

static void cert_of(const struct efi_sig *sig, struct boot_cert *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = sig->kind;
	memcpy(c->type, sig->type, EFI_GUID_SIZE);
	if (sig->kind == EFI_SIG_X509)
		efi_sig_cert(sig, c->sha256, c->cn, sizeof(c->cn));
	else if (sig->kind == EFI_SIG_SHA256)
		memcpy(c->sha256, sig->data, 32);
	else
		EVP_Digest(sig->data, sig->len, c->sha256, NULL, EVP_sha256(),
			   NULL);
}

static void var_contents(struct boot_facts *f, struct boot_var_facts *vf,
			 const struct tcg_event *ev,
			 const struct efi_variable *v,
			 const struct boot_event_ref *ref)
{
	struct efi_siglist it;
	struct efi_sig sig;
	enum imt_result r;

	if (vf->measured)
		flag(f, BOOT_FACT_REPEATED, ev);
	vf->measured = 1;
	if (vf->unknown != BOOT_KNOWN)
		return; /* a later event does not make it known */
	vf->event = *ref;
	vf->total = vf->count = 0;
	vf->unknown = ref->why;
	if (vf->unknown != BOOT_KNOWN)
		return;
	efi_siglist_init(&it, v->data, v->len);
	while ((r = efi_siglist_next(&it, &sig, NULL)) == IMT_OK) {
		vf->total++;
		if (vf->count == BOOT_FACTS_CERTS_MAX) {
			flag(f, BOOT_FACT_OVERFLOW, ev);
			continue;
		}
		cert_of(&sig, &vf->certs[vf->count++]);
	}
	if (r != IMT_NEED_MORE) {
		flag(f, BOOT_FACT_UNDECODABLE, ev);
		vf->unknown = vf->event.why = BOOT_UNDECODABLE;
		vf->total = vf->count = 0;
	}
}

/* SecureBoot: no data is the variable absent (the PFP measures an absent
 * PCR 7 variable with VariableDataLength 0), i.e. off. */
static void secure_boot(struct boot_facts *f, const struct tcg_event *ev,
			const struct efi_variable *v,
			struct boot_event_ref *ref)
{
	if (f->secure_boot != BOOT_SB_NOT_MEASURED)
		flag(f, BOOT_FACT_REPEATED, ev);
	if (f->secure_boot == BOOT_SB_UNKNOWN)
		return; /* a later event does not make it known */
	if (ref->why != BOOT_KNOWN) {
		f->secure_boot = BOOT_SB_UNKNOWN;
	} else if (v->len == 0) {
		f->secure_boot = 0;
	} else if (v->len == 1 && v->data[0] <= 1) {
		f->secure_boot = v->data[0];
	} else {
		flag(f, BOOT_FACT_UNDECODABLE, ev);
		ref->why = BOOT_UNDECODABLE;
		f->secure_boot = BOOT_SB_UNKNOWN;
	}
	f->secure_boot_event = *ref;
}

static int is_sbat_level(const struct efi_variable *v)
{
	return strcmp(v->name, "SbatLevel") == 0 &&
	       memcmp(v->guid, guid_shim, EFI_GUID_SIZE) == 0;
}

/*
 * shim's SbatLevel (PCR 7; shim 15.x logs it as an authority, whole
 * UEFI_VARIABLE_DATA digested): its text, when bound; the first counts.
 */
static void sbat_level(struct boot_facts *f, const struct efi_variable *v,
		       const struct boot_event_ref *ref)
{
	size_t i, n;

	if (f->sbat_measured)
		return;
	f->sbat_measured = 1;
	f->sbat_event = *ref;
	f->sbat_unknown = ref->why;
	if (ref->why != BOOT_KNOWN)
		return;
	n = v->len < sizeof(f->sbat) - 1 ? v->len : sizeof(f->sbat) - 1;
	for (i = 0; i < n; i++) {
		uint8_t c = v->data[i];

		f->sbat[i] = (c == '\n' || (c >= 0x20 && c < 0x7f)) ? (char)c :
								      '?';
	}
	f->sbat[n] = '\0';
}

static void driver_config(struct boot_facts *f, const struct tcg_event *ev)
{
	struct boot_event_ref ref;
	struct efi_variable v;
	uint16_t alg = 0;
	int bound, parsed, i;

	if (ev->pcr != 7)
		return;
	bound = boot_event_bound(ev, &alg);
	parsed = efi_variable_parse(ev->data, ev->len, &v, NULL) == IMT_OK;
	ref_of(&ref, ev, parsed ? v.name : "",
	       bound ? BOOT_KNOWN : BOOT_UNBOUND, alg);
	if (!bound) {
		note_unbound(f, &ref);
		if (f->unbound_var.index == 0)
			f->unbound_var = ref;
	}
	if (!parsed) {
		flag(f, BOOT_FACT_UNDECODABLE, ev);
		return;
	}
	if (efi_variable_is(&v, "SecureBoot")) {
		secure_boot(f, ev, &v, &ref);
		return;
	}
	if (is_sbat_level(&v)) {
		sbat_level(f, &v, &ref);
		return;
	}
	for (i = 0; i < BOOT_VAR_COUNT; i++) {
		if (efi_variable_is(&v, var_names[i]))
			var_contents(f, &f->vars[i], ev, &v, &ref);
	}
}

/*
 * The entry of a bound authority event: an EFI_SIGNATURE_DATA (owner
 * GUID, then the certificate or hash), or, for shim's own "Shim" (its
 * vendor certificate, shim.c), the DER certificate alone. The entry
 * carries no type: a DER certificate starts 0x30.
 */
static void authority_entry(const struct efi_variable *v, struct boot_cert *c)
{
	struct efi_sig sig;
	size_t skip = EFI_GUID_SIZE;

	if (strcmp(v->name, "Shim") == 0 &&
	    memcmp(v->guid, guid_shim, EFI_GUID_SIZE) == 0 && v->len > 1 &&
	    v->data[0] == 0x30 && v->data[1] == 0x82)
		skip = 0;
	memset(&sig, 0, sizeof(sig));
	sig.kind = (v->len > skip + 1 && v->data[skip] == 0x30) ? EFI_SIG_X509 :
								  EFI_SIG_OTHER;
	sig.type = v->guid;
	sig.owner = v->data;
	sig.data = v->data + skip;
	sig.len = v->len - skip;
	cert_of(&sig, c);
}

/* EV_EFI_VARIABLE_AUTHORITY: the EFI_SIGNATURE_DATA that verified. */
static void authority(struct boot_facts *f, const struct tcg_event *ev)
{
	struct boot_event_ref ref;
	struct efi_variable v;
	struct boot_cert *c;
	uint16_t alg = 0;
	int parsed, bound;

	if (ev->pcr != 7)
		return; /* the PFP logs them in PCR 7 only */
	parsed = efi_variable_parse(ev->data, ev->len, &v, NULL) == IMT_OK;
	bound = boot_event_bound(ev, &alg);
	if (!bound) {
		ref_of(&ref, ev, parsed ? v.name : "", BOOT_UNBOUND, alg);
		note_unbound(f, &ref);
		if (f->unbound_auth.index == 0)
			f->unbound_auth = ref;
		/* its name is not bound: it may be SbatLevel, or any */
		if (parsed && is_sbat_level(&v))
			sbat_level(f, &v, &ref);
	} else if (!parsed) {
		flag(f, BOOT_FACT_UNDECODABLE, ev);
		return;
	} else if (is_sbat_level(&v)) {
		ref_of(&ref, ev, v.name, BOOT_KNOWN, 0);
		sbat_level(f, &v, &ref);
		return;
	} else if (v.len < EFI_GUID_SIZE) {
		/* no EFI_SIGNATURE_DATA: shim's MokListTrusted, a 1-byte
		 * switch, is logged as an authority; it verified nothing */
		return;
	}
	if (f->nauth == BOOT_FACTS_AUTH_MAX) {
		flag(f, BOOT_FACT_OVERFLOW, ev);
		return;
	}
	c = &f->auth[f->nauth++];
	memset(c, 0, sizeof(*c));
	c->event = ev->index;
	c->unknown = !bound;
	if (!bound)
		return;
	authority_entry(&v, c);
	c->event = ev->index;
}

/* Every bank's digest of @ev into @out (the log's bank order). */
static uint32_t digests_of(const struct tcg_event *ev,
			   struct boot_app_digest *out)
{
	uint32_t i;

	for (i = 0; i < ev->ndigests; i++) {
		out[i].alg_id = ev->digests[i].bank->alg_id;
		out[i].size = ev->digests[i].bank->size;
		memcpy(out[i].value, ev->digests[i].value, out[i].size);
	}
	return ev->ndigests;
}

/*
 * The digests are the Authenticode hash of the PE image (PFP),
 * not of the UEFI_IMAGE_LOAD_EVENT: nothing binds the device path, so a
 * policy rules on the digests only and shows the path as logged.
 */
static void application(struct boot_facts *f, const struct tcg_event *ev)
{
	struct efi_image_load im;
	struct boot_app *a;

	f->apps_total++;
	if (f->napps == BOOT_FACTS_APPS_MAX) {
		flag(f, BOOT_FACT_OVERFLOW, ev);
		return;
	}
	a = &f->apps[f->napps++];
	a->index = ev->index;
	a->pcr = ev->pcr;
	a->ndigests = digests_of(ev, a->digests);
	if (efi_image_load_parse(ev->data, ev->len, &im, NULL) != IMT_OK ||
	    efi_devpath_text(im.devpath, im.devpath_len, a->path,
			     sizeof(a->path), NULL) != IMT_OK) {
		a->path[0] = '\0';
		flag(f, BOOT_FACT_UNDECODABLE, ev);
	}
}

static void ipl(struct boot_facts *f, const struct tcg_event *ev)
{
	struct boot_event_ref ref;
	const uint8_t *d;
	uint16_t alg = 0;

	/* systemd-boot: the command line as UTF-16; the first one counts. */
	if (ev->pcr != 12 || f->has_cmdline)
		return;
	if (efi_utf16_text(ev->data, ev->len, f->cmdline, sizeof(f->cmdline),
			   NULL) != IMT_OK) {
		f->cmdline[0] = '\0';
		flag(f, BOOT_FACT_UNDECODABLE, ev);
		return;
	}
	f->has_cmdline = 1;
	/* PCR 9's load-options tag binds the text only through its digests */
	if (!boot_event_bound(ev, &alg)) {
		ref_of(&ref, ev, "", BOOT_UNBOUND, alg);
		note_unbound(f, &ref);
		return;
	}
	f->cmdline_digest_ok = 1;
	f->ndigests = digests_of(ev, f->cmdline_digests);
	d = tcg_event_digest(ev, 0x000b); /* TPM2_ALG_SHA256 */
	if (d != NULL)
		memcpy(f->cmdline_sha256, d, 32);
}

/*
 * A UKI section's name from the name event's data: UTF-16LE printable
 * ASCII of 1 to 8 characters, then exactly one U+0000.
 * Return: its length, or -1.
 */
static int section_name(const uint8_t *d, size_t len,
			char out[BOOT_FACTS_SECTION_MAX])
{
	size_t i, n;

	if (len < 4 || len % 2 != 0 || len > 2 * BOOT_FACTS_SECTION_MAX)
		return -1;
	n = len / 2 - 1;
	for (i = 0; i < n; i++) {
		if (d[2 * i + 1] != 0 || d[2 * i] < 0x21 || d[2 * i] > 0x7e)
			return -1;
		out[i] = (char)d[2 * i];
	}
	if (d[2 * n] != 0 || d[2 * n + 1] != 0)
		return -1;
	out[n] = '\0';
	return (int)n;
}

/*
 * PCR 11, systemd-stub (252): each section is a name event, then a
 * contents event. The pairs are taken by position among every event of
 * PCR 11 the replay extends (all but EV_NO_ACTION), whatever its type:
 * the type is bound to nothing, so a relabelled event cannot shift them.
 * The name counts only when the ASCII of the data, with its NUL, hashes
 * to the name event's digests in every bank.
 */
static void uki_event(struct boot_facts *f, const struct tcg_event *ev)
{
	char name[BOOT_FACTS_SECTION_MAX] = "";
	struct boot_uki_section *s;
	enum boot_unknown why = BOOT_UNBOUND;
	uint16_t alg = 0;
	int n;

	if (f->uki_events++ % 2 == 1) {
		if (f->uki_total > BOOT_FACTS_UKI_MAX)
			return; /* its section was not kept */
		s = &f->uki[f->uki_total - 1];
		s->contents_event = ev->index;
		s->ndigests = digests_of(ev, s->digests);
		return;
	}
	if (f->uki_total++ >= BOOT_FACTS_UKI_MAX) {
		flag(f, BOOT_FACT_OVERFLOW, ev);
		return;
	}
	s = &f->uki[f->nuki++];
	memset(s, 0, sizeof(*s));
	n = section_name(ev->data, ev->len, name);
	if (n < 0)
		why = BOOT_UNDECODABLE;
	else if (tcg_event_digests_of(ev, (const uint8_t *)name, (size_t)n + 1,
				      &alg))
		why = BOOT_KNOWN;
	ref_of(&s->event, ev, "", why, alg);
	if (why == BOOT_KNOWN)
		memcpy(s->name, name, sizeof(s->name));
	else
		note_unbound(f, &s->event);
}

/*
 * The tag's digest is of the load options, which its data only names
 * (the taggedEventID is not bound to anything): only the digests count.
 */
static void tag(struct boot_facts *f, const struct tcg_event *ev)
{
	struct efi_tagged_event t;
	const uint8_t *d;

	if (ev->pcr != 9 ||
	    efi_tagged_event_parse(ev->data, ev->len, &t, NULL) != IMT_OK ||
	    t.id != EFI_TAG_LINUX_LOAD_OPTIONS)
		return;
	d = tcg_event_digest(ev, 0x000b);
	if (!d)
		return;
	f->has_load_options_tag = 1;
	f->ndigests = digests_of(ev, f->load_options_digests);
	memcpy(f->load_options_sha256, d, 32);
}

/*
 * 0 ends a PCR's pre-OS measurements; 0xffffffff does too in logs after
 * the conventional BIOS specification (SeaBIOS writes it for PCRs 0-7,
 * tests/fixtures/eventlog/seabios); 1, the PC Client PFP's error value,
 * or anything else is the firmware reporting an error. The value counts
 * only when the digests are its hash.
 */
static void separator(struct boot_facts *f, const struct tcg_event *ev)
{
	struct boot_event_ref ref;
	uint16_t alg = 0;
	uint32_t value;

	if (!boot_event_bound(ev, &alg)) {
		ref_of(&ref, ev, "", BOOT_UNBOUND, alg);
		note_unbound(f, &ref);
		flag(f, BOOT_FACT_SEPARATOR_UNKNOWN, ev);
		return;
	}
	if (efi_separator_parse(ev->data, ev->len, &value, NULL) != IMT_OK ||
	    (value != 0 && value != 0xffffffffu))
		flag(f, BOOT_FACT_SEPARATOR_ERROR, ev);
}

static void one_event(struct boot_facts *f, const struct tcg_event *ev)
{
	/* EV_NO_ACTION and the like are no sign of UEFI: SeaBIOS logs them */
	if (ev->type > EV_EFI_EVENT_BASE)
		f->uefi = 1;
	if (ev->pcr < 8 && (f->separated & (1u << ev->pcr)) &&
	    !allowed_after_separator(ev))
		flag(f, BOOT_FACT_AFTER_SEPARATOR, ev);
	if (ev->pcr == BOOT_UKI_PCR && ev->type != EV_NO_ACTION)
		uki_event(f, ev); /* and read by its type as before */
	switch (ev->type) {
	case EV_SEPARATOR:
		separator(f, ev);
		if (ev->pcr < 8)
			f->separated |= (uint8_t)(1u << ev->pcr);
		break;
	case EV_EFI_VARIABLE_DRIVER_CONFIG:
		driver_config(f, ev);
		break;
	case EV_EFI_VARIABLE_AUTHORITY:
		authority(f, ev);
		break;
	case EV_EFI_BOOT_SERVICES_APPLICATION:
		application(f, ev);
		break;
	case EV_IPL:
		ipl(f, ev);
		break;
	case EV_EVENT_TAG:
		tag(f, ev);
		break;
	default:
		break;
	}
}

/* Whether the command line's digests equal the tag's in every bank. */
static int cmdline_tagged(const struct boot_facts *f)
{
	uint32_t i;

	if (!f->cmdline_digest_ok || !f->has_load_options_tag ||
	    f->ndigests == 0)
		return 0;
	for (i = 0; i < f->ndigests; i++) {
		if (f->cmdline_digests[i].alg_id !=
			    f->load_options_digests[i].alg_id ||
		    memcmp(f->cmdline_digests[i].value,
			   f->load_options_digests[i].value,
			   f->cmdline_digests[i].size) != 0)
			return 0;
	}
	return 1;
}

/*
 * What the whole log decides: an unbound PCR 7 variable event may be any
 * variable (its name is not bound), so one left unmeasured is unknown.
 */
static void finish(struct boot_facts *f)
{
	int i;

	f->cmdline_bound = cmdline_tagged(f);
	/* shim logs SbatLevel as an authority; a test log as a variable */
	if (!f->sbat_measured && f->unbound_auth.index != 0) {
		f->sbat_unknown = BOOT_UNBOUND;
		f->sbat_event = f->unbound_auth;
	} else if (!f->sbat_measured && f->unbound_var.index != 0) {
		f->sbat_unknown = BOOT_UNBOUND;
		f->sbat_event = f->unbound_var;
	}
	if (f->unbound_var.index == 0)
		return;
	if (f->secure_boot == BOOT_SB_NOT_MEASURED) {
		f->secure_boot = BOOT_SB_UNKNOWN;
		f->secure_boot_event = f->unbound_var;
	}
	for (i = 0; i < BOOT_VAR_COUNT; i++) {
		if (f->vars[i].measured)
			continue;
		f->vars[i].unknown = BOOT_UNBOUND;
		f->vars[i].event = f->unbound_var;
	}
}

enum imt_result boot_facts_extract(const uint8_t *buf, size_t len,
				   struct boot_facts *f, struct imt_error *err)
{
	struct tcg_log log;
	struct tcg_event ev;
	enum imt_result r;

	memset(f, 0, sizeof(*f));
	f->secure_boot = BOOT_SB_NOT_MEASURED;
	r = tcg_log_open(&log, buf, len, err);
	while (r == IMT_OK && !tcg_log_done(&log)) {
		r = tcg_log_next(&log, &ev, err);
		if (r == IMT_OK && ev.index > 0)
			one_event(f, &ev);
	}
	if (r == IMT_OK)
		finish(f);
	return r;
}
