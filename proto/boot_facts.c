// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_facts.c - the facts a boot policy rules on, from one pass over a
 * firmware event log. What the PFP spec says goes where: SecureBoot, PK,
 * KEK, db, dbx as EV_EFI_VARIABLE_DRIVER_CONFIG and the verifying db
 * entries as EV_EFI_VARIABLE_AUTHORITY in PCR 7; EFI applications in
 * PCR 4; systemd-boot's EV_IPL of the command line in PCR 12; the Linux
 * EFI stub's tagged load options in PCR 9.
 */
#include <string.h>

#include <openssl/evp.h>

#include "boot_facts.h"

static const char *const var_names[BOOT_VAR_COUNT] = {
	"PK", "KEK", "db", "dbx",
};

const char *boot_var_name(enum boot_var v)
{
	return var_names[v];
}

static void flag(struct boot_facts *f, uint32_t what, size_t index)
{
	if (!f->flags)
		f->flag_event = index;
	f->flags |= what;
}

/* Events a PCR 0-7 may take after its separator (PFP 3.3.4, 10.4.4). */
static const struct {
	uint32_t pcr;
	uint32_t type;
} after_separator[] = {
	{ 2, EV_EFI_BOOT_SERVICES_DRIVER },
	{ 2, EV_EFI_RUNTIME_SERVICES_DRIVER },
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
			 const struct efi_variable *v, size_t index)
{
	struct efi_siglist it;
	struct efi_sig sig;
	enum imt_result r;

	if (vf->measured)
		flag(f, BOOT_FACT_REPEATED, index);
	vf->measured = 1;
	vf->total = vf->count = 0;
	efi_siglist_init(&it, v->data, v->len);
	while ((r = efi_siglist_next(&it, &sig, NULL)) == IMT_OK) {
		vf->total++;
		if (vf->count == BOOT_FACTS_CERTS_MAX) {
			flag(f, BOOT_FACT_OVERFLOW, index);
			continue;
		}
		cert_of(&sig, &vf->certs[vf->count++]);
	}
	if (r != IMT_NEED_MORE)
		flag(f, BOOT_FACT_UNDECODABLE, index);
}

static void driver_config(struct boot_facts *f, const struct tcg_event *ev)
{
	struct efi_variable v;
	int i;

	if (ev->pcr != 7)
		return;
	if (efi_variable_parse(ev->data, ev->len, &v, NULL) != IMT_OK) {
		flag(f, BOOT_FACT_UNDECODABLE, ev->index);
		return;
	}
	if (efi_variable_is(&v, "SecureBoot")) {
		if (f->secure_boot != -1)
			flag(f, BOOT_FACT_REPEATED, ev->index);
		if (v.len == 1 && v.data[0] <= 1)
			f->secure_boot = v.data[0];
		else
			flag(f, BOOT_FACT_UNDECODABLE, ev->index);
		return;
	}
	for (i = 0; i < BOOT_VAR_COUNT; i++) {
		if (efi_variable_is(&v, var_names[i]))
			var_contents(f, &f->vars[i], &v, ev->index);
	}
}

/* EV_EFI_VARIABLE_AUTHORITY: the EFI_SIGNATURE_DATA that verified. */
static void authority(struct boot_facts *f, const struct tcg_event *ev)
{
	struct efi_variable v;
	struct efi_sig sig;

	if (efi_variable_parse(ev->data, ev->len, &v, NULL) != IMT_OK ||
	    v.len < EFI_GUID_SIZE) {
		flag(f, BOOT_FACT_UNDECODABLE, ev->index);
		return;
	}
	if (f->nauth == BOOT_FACTS_AUTH_MAX) {
		flag(f, BOOT_FACT_OVERFLOW, ev->index);
		return;
	}
	memset(&sig, 0, sizeof(sig));
	/* The entry carries no type: a DER certificate starts 0x30 0x82. */
	sig.kind = (v.len > EFI_GUID_SIZE + 1 && v.data[16] == 0x30) ?
			   EFI_SIG_X509 : EFI_SIG_OTHER;
	sig.type = v.guid;
	sig.owner = v.data;
	sig.data = v.data + EFI_GUID_SIZE;
	sig.len = v.len - EFI_GUID_SIZE;
	cert_of(&sig, &f->auth[f->nauth++]);
}

static void application(struct boot_facts *f, const struct tcg_event *ev)
{
	struct efi_image_load im;
	struct boot_app *a;
	uint32_t i;

	f->apps_total++;
	if (f->napps == BOOT_FACTS_APPS_MAX) {
		flag(f, BOOT_FACT_OVERFLOW, ev->index);
		return;
	}
	a = &f->apps[f->napps++];
	a->index = ev->index;
	a->pcr = ev->pcr;
	a->ndigests = ev->ndigests;
	for (i = 0; i < ev->ndigests; i++) {
		a->digests[i].alg_id = ev->digests[i].bank->alg_id;
		a->digests[i].size = ev->digests[i].bank->size;
		memcpy(a->digests[i].value, ev->digests[i].value,
		       ev->digests[i].bank->size);
	}
	if (efi_image_load_parse(ev->data, ev->len, &im, NULL) != IMT_OK ||
	    efi_devpath_text(im.devpath, im.devpath_len, a->path,
			     sizeof(a->path), NULL) != IMT_OK) {
		a->path[0] = '\0';
		flag(f, BOOT_FACT_UNDECODABLE, ev->index);
	}
}

static void ipl(struct boot_facts *f, const struct tcg_event *ev)
{
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	const uint8_t *d;

	/* systemd-boot: the command line as UTF-16; the first one counts. */
	if (ev->pcr != 12 || f->has_cmdline)
		return;
	if (efi_utf16_text(ev->data, ev->len, f->cmdline, sizeof(f->cmdline),
			   NULL) != IMT_OK) {
		f->cmdline[0] = '\0';
		flag(f, BOOT_FACT_UNDECODABLE, ev->index);
		return;
	}
	f->has_cmdline = 1;
	/* PCR 9's load-options tag binds the text only through this digest */
	d = tcg_event_digest(ev, 0x000b);	/* TPM2_ALG_SHA256 */
	if (d != NULL &&
	    EVP_Digest(ev->data, ev->len, md, &mdlen, EVP_sha256(), NULL) == 1 &&
	    mdlen == 32 && memcmp(md, d, 32) == 0) {
		f->cmdline_digest_ok = 1;
		memcpy(f->cmdline_sha256, d, 32);
	}
}

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
	memcpy(f->load_options_sha256, d, 32);
}

/*
 * 0 ends a PCR's pre-OS measurements; 0xffffffff does too in logs after
 * the conventional BIOS specification (SeaBIOS writes it for PCRs 0-7,
 * tests/fixtures/eventlog/seabios); 1, the PC Client PFP's error value,
 * or anything else is the firmware reporting an error.
 */
static void separator(struct boot_facts *f, const struct tcg_event *ev)
{
	uint32_t value;

	if (efi_separator_parse(ev->data, ev->len, &value, NULL) != IMT_OK ||
	    (value != 0 && value != 0xffffffffu))
		flag(f, BOOT_FACT_SEPARATOR_ERROR, ev->index);
}

static void one_event(struct boot_facts *f, const struct tcg_event *ev)
{
	if (ev->pcr < 8 && (f->separated & (1u << ev->pcr)) &&
	    !allowed_after_separator(ev))
		flag(f, BOOT_FACT_AFTER_SEPARATOR, ev->index);
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

enum imt_result boot_facts_extract(const uint8_t *buf, size_t len,
				   struct boot_facts *f,
				   struct imt_error *err)
{
	struct tcg_log log;
	struct tcg_event ev;
	enum imt_result r;

	memset(f, 0, sizeof(*f));
	f->secure_boot = -1;
	r = tcg_log_open(&log, buf, len, err);
	while (r == IMT_OK && !tcg_log_done(&log)) {
		r = tcg_log_next(&log, &ev, err);
		if (r == IMT_OK && ev.index > 0)
			one_event(f, &ev);
	}
	return r;
}
