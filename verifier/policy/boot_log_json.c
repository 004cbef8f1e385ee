// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_log_json.c - the firmware event log as decoded JSON or TCG CEL
 * JSON. The structures come from proto/ (tcg_log, efi_event, boot_facts);
 * this file only chooses the names. Numbers that may pass 2^53 (memory
 * addresses, LBAs) are hex strings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "b64.h"
#include "boot_facts.h"
#include "boot_log_json.h"
#include "efi_event.h"
#include "hex.h"
#include "tcg_log.h"

/* What a decoder has to work with and writes. */
struct decode {
	const struct tcg_event *ev;
	json_t *data;
	char desc[BOOT_LOG_DESC_MAX];
	struct imt_error err;
};

/* Cut @s at its size without splitting a UTF-8 sequence. */
static void utf8_trim(char *s)
{
	size_t n = strlen(s), i = n, need;

	while (i > 0 && n - i < 4 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0 || ((unsigned char)s[i - 1] & 0x80) == 0)
		return;
	need = ((unsigned char)s[i - 1] & 0xe0) == 0xc0 ? 2 :
	       ((unsigned char)s[i - 1] & 0xf0) == 0xe0 ? 3 :
							  4;
	if (n - (i - 1) < need)
		s[i - 1] = '\0';
}

static void desc_set(struct decode *d, const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof(d->desc))
		n = sizeof(d->desc) - 1;
	memcpy(d->desc, s, n);
	d->desc[n] = '\0';
	utf8_trim(d->desc);
}

static void put_str(json_t *o, const char *key, const char *s)
{
	json_object_set_new(o, key, json_string(s));
}

static void put_hex(json_t *o, const char *key, const uint8_t *p, size_t n)
{
	char *s = malloc(2 * n + 1);

	if (!s)
		return;
	hex_encode(p, n, s);
	put_str(o, key, s);
	free(s);
}

static void put_x64(json_t *o, const char *key, uint64_t v)
{
	char s[20];

	snprintf(s, sizeof(s), "0x%llx", (unsigned long long)v);
	put_str(o, key, s);
}

static void put_guid(json_t *o, const char *key, const uint8_t *g)
{
	char s[EFI_GUID_TEXT];

	efi_guid_text(g, s);
	put_str(o, key, s);
}

static const char *bank_name(const struct tcg_bank *b, char *buf, size_t n)
{
	if (b->algo)
		return b->algo->name;
	snprintf(buf, n, "0x%04x", b->alg_id);
	return buf;
}

static enum imt_result dec_text(struct decode *d)
{
	efi_ascii_text(d->ev->data, d->ev->len, d->desc, sizeof(d->desc));
	put_str(d->data, "text", d->desc);
	return IMT_OK;
}

static enum imt_result dec_utf16(struct decode *d)
{
	char s[EFI_TEXT_MAX];

	if (efi_utf16_text(d->ev->data, d->ev->len, s, sizeof(s), &d->err))
		return d->err.status;
	put_str(d->data, "text", s);
	desc_set(d, s);
	return IMT_OK;
}

/* EV_IPL: UTF-16 from systemd-boot (PCR 12), ASCII from others. */
static enum imt_result dec_utf16_or_text(struct decode *d)
{
	if (d->ev->len < 2 || d->ev->len % 2 || d->ev->data[1] != 0)
		return dec_text(d);
	return dec_utf16(d);
}

static enum imt_result dec_separator(struct decode *d)
{
	uint32_t v;

	if (efi_separator_parse(d->ev->data, d->ev->len, &v, &d->err))
		return d->err.status;
	json_object_set_new(d->data, "value", json_integer(v));
	snprintf(d->desc, sizeof(d->desc), "%s",
		 v ? "separator: firmware error" : "separator");
	return IMT_OK;
}

static enum imt_result dec_no_action(struct decode *d)
{
	const struct tcg_event *ev = d->ev;

	if (ev->index == 0) {
		snprintf(d->desc, sizeof(d->desc), "Spec ID Event03");
		return IMT_OK;
	}
	if (ev->len == 17 && !memcmp(ev->data, "StartupLocality", 16)) {
		json_object_set_new(d->data, "startup_locality",
				    json_integer(ev->data[16]));
		snprintf(d->desc, sizeof(d->desc), "StartupLocality %u",
			 ev->data[16]);
		return IMT_OK;
	}
	efi_ascii_text(ev->data, ev->len < 16 ? ev->len : 16, d->desc,
		       sizeof(d->desc));
	put_str(d->data, "signature", d->desc);
	put_hex(d->data, "data_hex", ev->data,
		ev->len < BOOT_LOG_DATA_HEX_MAX ? ev->len :
						  BOOT_LOG_DATA_HEX_MAX);
	return IMT_OK;
}

static void sig_entries(json_t *data, const struct efi_variable *v, char *desc,
			size_t descsz)
{
	struct efi_siglist it;
	struct efi_sig sig;
	struct boot_cert c;
	json_t *arr = json_array(), *e;
	size_t n = 0;
	char cn[BOOT_FACTS_CN_MAX];

	efi_siglist_init(&it, v->data, v->len);
	while (efi_siglist_next(&it, &sig, NULL) == IMT_OK) {
		if (n++ >= BOOT_FACTS_CERTS_MAX)
			continue;
		memset(&c, 0, sizeof(c));
		e = json_object();
		put_guid(e, "type", sig.type);
		put_guid(e, "owner", sig.owner);
		if (sig.kind == EFI_SIG_X509) {
			efi_sig_cert(&sig, c.sha256, cn, sizeof(cn));
			put_hex(e, "sha256", c.sha256, 32);
			put_str(e, "cn", cn);
		} else if (sig.kind == EFI_SIG_SHA256) {
			put_hex(e, "sha256", sig.data, 32);
		} else {
			json_object_set_new(e, "length",
					    json_integer((json_int_t)sig.len));
		}
		json_array_append_new(arr, e);
	}
	json_object_set_new(data, "entries", arr);
	json_object_set_new(data, "entry_count", json_integer((json_int_t)n));
	snprintf(desc, descsz, "%s: %zu entr%s", v->name, n,
		 n == 1 ? "y" : "ies");
}

/* The EFI_SIGNATURE_DATA that verified an image: owner, certificate. */
static void authority(struct decode *d, const struct efi_variable *v)
{
	struct efi_sig sig;
	uint8_t digest[32];
	char cn[BOOT_FACTS_CN_MAX];

	if (v->len <= EFI_GUID_SIZE)
		return;
	memset(&sig, 0, sizeof(sig));
	sig.data = v->data + EFI_GUID_SIZE;
	sig.len = v->len - EFI_GUID_SIZE;
	put_guid(d->data, "owner", v->data);
	if (efi_sig_cert(&sig, digest, cn, sizeof(cn)) != IMT_OK)
		return;
	put_hex(d->data, "sha256", digest, 32);
	put_str(d->data, "cn", cn);
	snprintf(d->desc, sizeof(d->desc), "%s authority: %s", v->name, cn);
}

static void load_option(json_t *data, const struct efi_variable *v, char *desc,
			size_t descsz)
{
	struct efi_load_option o;
	char path[EFI_DEVPATH_TEXT_MAX];

	if (efi_load_option_parse(v->data, v->len, &o, NULL) != IMT_OK)
		return;
	json_object_set_new(data, "attributes", json_integer(o.attributes));
	put_str(data, "boot_description", o.description);
	if (efi_devpath_text(o.devpath, o.devpath_len, path, sizeof(path),
			     NULL) == IMT_OK)
		put_str(data, "device_path", path);
	/* a long description is cut: the text is only shown */
	if (snprintf(desc, descsz, "%s: %s", v->name, o.description) < 0)
		desc[0] = '\0';
}

/* "BootOrder = 0001,0000" (efibootmgr's spelling), cut as a whole
 * entry with ",..". */
static void boot_order_desc(struct decode *d, const struct efi_variable *v)
{
	size_t i, at;
	int k;

	at = (size_t)snprintf(d->desc, sizeof(d->desc), "%s =", v->name);
	for (i = 0; i + 1 < v->len && at < sizeof(d->desc); i += 2) {
		if (at + 8 >= sizeof(d->desc)) {
			snprintf(d->desc + at, sizeof(d->desc) - at, ",..");
			return;
		}
		k = snprintf(d->desc + at, sizeof(d->desc) - at, "%s%04X",
			     i == 0 ? " " : ",",
			     v->data[i] | v->data[i + 1] << 8);
		at += (size_t)k;
	}
}

static enum imt_result dec_variable(struct decode *d)
{
	struct efi_variable v;
	json_t *arr;
	size_t i;

	if (efi_variable_parse(d->ev->data, d->ev->len, &v, &d->err))
		return d->err.status;
	put_guid(d->data, "guid", v.guid);
	put_str(d->data, "name", v.name);
	json_object_set_new(d->data, "length", json_integer((json_int_t)v.len));
	snprintf(d->desc, sizeof(d->desc), "%s (%zu bytes)", v.name, v.len);
	if (efi_variable_is(&v, "SecureBoot") && v.len == 1) {
		json_object_set_new(d->data, "value", json_integer(v.data[0]));
		snprintf(d->desc, sizeof(d->desc), "SecureBoot = %u",
			 v.data[0]);
	} else if (efi_variable_is(&v, "PK") || efi_variable_is(&v, "KEK") ||
		   efi_variable_is(&v, "db") || efi_variable_is(&v, "dbx")) {
		if (d->ev->type == EV_EFI_VARIABLE_DRIVER_CONFIG)
			sig_entries(d->data, &v, d->desc, sizeof(d->desc));
		else if (d->ev->type == EV_EFI_VARIABLE_AUTHORITY)
			authority(d, &v);
	} else if (efi_variable_is(&v, "BootOrder") && v.len % 2 == 0) {
		arr = json_array();
		for (i = 0; i + 1 < v.len && i < 2 * 64; i += 2)
			json_array_append_new(arr,
					      json_integer(v.data[i] |
							   v.data[i + 1] << 8));
		json_object_set_new(d->data, "boot_order", arr);
		boot_order_desc(d, &v);
	} else if (!strncmp(v.name, "Boot", 4) && strlen(v.name) == 8) {
		load_option(d->data, &v, d->desc, sizeof(d->desc));
	}
	return IMT_OK;
}

static enum imt_result dec_image(struct decode *d)
{
	struct efi_image_load im;
	char path[EFI_DEVPATH_TEXT_MAX];

	if (efi_image_load_parse(d->ev->data, d->ev->len, &im, &d->err) ||
	    efi_devpath_text(im.devpath, im.devpath_len, path, sizeof(path),
			     &d->err))
		return d->err.status;
	put_x64(d->data, "location", im.location);
	put_x64(d->data, "length", im.length);
	put_x64(d->data, "link_address", im.link_address);
	put_str(d->data, "device_path", path);
	if (im.slack)
		json_object_set_new(d->data, "slack_bytes",
				    json_integer((json_int_t)im.slack));
	desc_set(d, path);
	return IMT_OK;
}

static enum imt_result dec_gpt(struct decode *d)
{
	struct efi_gpt_part p;
	struct efi_gpt g;
	json_t *arr, *e;
	uint64_t i;

	if (efi_gpt_parse(d->ev->data, d->ev->len, &g, &d->err))
		return d->err.status;
	put_guid(d->data, "disk_guid", g.disk_guid);
	arr = json_array();
	for (i = 0; i < g.nparts; i++) {
		efi_gpt_part(&g, i, &p);
		e = json_object();
		put_guid(e, "type_guid", p.type_guid);
		put_guid(e, "unique_guid", p.unique_guid);
		put_x64(e, "first_lba", p.first_lba);
		put_x64(e, "last_lba", p.last_lba);
		put_x64(e, "attributes", p.attributes);
		put_str(e, "name", p.name);
		json_array_append_new(arr, e);
	}
	json_object_set_new(d->data, "partitions", arr);
	snprintf(d->desc, sizeof(d->desc), "GPT: %llu partitions",
		 (unsigned long long)g.nparts);
	return IMT_OK;
}

static enum imt_result dec_tag(struct decode *d)
{
	struct efi_tagged_event t;
	char s[128];

	if (efi_tagged_event_parse(d->ev->data, d->ev->len, &t, &d->err))
		return d->err.status;
	json_object_set_new(d->data, "tag", json_integer(t.id));
	efi_ascii_text(t.data, t.len, s, sizeof(s));
	put_str(d->data, "text", s);
	snprintf(d->desc, sizeof(d->desc), "tag 0x%08x%s: %s", t.id,
		 t.id == EFI_TAG_LINUX_INITRD	    ? " (Linux initrd)" :
		 t.id == EFI_TAG_LINUX_LOAD_OPTIONS ? " (Linux load options)" :
						      "",
		 s);
	return IMT_OK;
}

static void blob_description(struct decode *d, const struct efi_blob *b)
{
	char s[256];

	if (!b->desc)
		return;
	efi_ascii_text(b->desc, b->desc_len, s, sizeof(s));
	put_str(d->data, "blob_description", s);
}

static enum imt_result dec_blob(struct decode *d)
{
	struct efi_blob b;
	int v2 = d->ev->type == EV_EFI_PLATFORM_FIRMWARE_BLOB2;

	if (efi_blob_parse(d->ev->data, d->ev->len, v2, &b, &d->err))
		return d->err.status;
	blob_description(d, &b);
	put_x64(d->data, "base", b.base);
	put_x64(d->data, "length", b.length);
	snprintf(d->desc, sizeof(d->desc), "firmware blob 0x%llx+0x%llx",
		 (unsigned long long)b.base, (unsigned long long)b.length);
	return IMT_OK;
}

static enum imt_result dec_handoff(struct decode *d)
{
	struct efi_blob b;
	json_t *arr, *e;
	uint64_t i, addr;
	int v2 = d->ev->type == EV_EFI_HANDOFF_TABLES2;
	int k;

	if (efi_handoff_parse(d->ev->data, d->ev->len, v2, &b, &d->err))
		return d->err.status;
	blob_description(d, &b);
	arr = json_array();
	for (i = 0; i < b.base; i++) {
		e = json_object();
		put_guid(e, "guid", b.tables + 24 * i);
		addr = 0;
		for (k = 7; k >= 0; k--)
			addr = addr << 8 | b.tables[24 * i + 16 + k];
		put_x64(e, "address", addr);
		json_array_append_new(arr, e);
	}
	json_object_set_new(d->data, "tables", arr);
	snprintf(d->desc, sizeof(d->desc), "%llu handoff tables",
		 (unsigned long long)b.base);
	return IMT_OK;
}

static const struct {
	uint32_t type;
	enum imt_result (*decode)(struct decode *d);
} decoders[] = {
	{ EV_POST_CODE, dec_text },
	{ EV_NO_ACTION, dec_no_action },
	{ EV_SEPARATOR, dec_separator },
	{ EV_ACTION, dec_text },
	{ EV_EVENT_TAG, dec_tag },
	{ EV_S_CRTM_VERSION, dec_utf16 },
	{ EV_IPL, dec_utf16_or_text },
	{ EV_EFI_VARIABLE_DRIVER_CONFIG, dec_variable },
	{ EV_EFI_VARIABLE_BOOT, dec_variable },
	{ EV_EFI_VARIABLE_BOOT2, dec_variable },
	{ EV_EFI_VARIABLE_AUTHORITY, dec_variable },
	{ EV_EFI_BOOT_SERVICES_APPLICATION, dec_image },
	{ EV_EFI_BOOT_SERVICES_DRIVER, dec_image },
	{ EV_EFI_RUNTIME_SERVICES_DRIVER, dec_image },
	{ EV_EFI_GPT_EVENT, dec_gpt },
	{ EV_EFI_ACTION, dec_text },
	{ EV_EFI_PLATFORM_FIRMWARE_BLOB, dec_blob },
	{ EV_EFI_PLATFORM_FIRMWARE_BLOB2, dec_blob },
	{ EV_EFI_HANDOFF_TABLES, dec_handoff },
	{ EV_EFI_HANDOFF_TABLES2, dec_handoff },
	{ EV_EFI_HCRTM_EVENT, dec_text },
};

/* "data" or "data_hex" and "description" of @ev into @o. */
static void event_data(json_t *o, const struct tcg_event *ev)
{
	struct decode d;
	enum imt_result r = IMT_ERR_UNSUPPORTED;
	size_t i, n;

	memset(&d, 0, sizeof(d));
	d.ev = ev;
	d.data = json_object();
	snprintf(d.desc, sizeof(d.desc), "no decoder for this event type");
	for (i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++) {
		if (decoders[i].type == ev->type) {
			r = decoders[i].decode(&d);
			break;
		}
	}
	if (r == IMT_OK) {
		json_object_set_new(o, "data", d.data);
	} else {
		json_decref(d.data);
		if (d.err.msg[0])
			snprintf(d.desc, sizeof(d.desc), "undecodable: %s",
				 d.err.msg);
		n = ev->len < BOOT_LOG_DATA_HEX_MAX ? ev->len :
						      BOOT_LOG_DATA_HEX_MAX;
		put_hex(o, "data_hex", ev->data, n);
	}
	utf8_trim(d.desc);
	put_str(o, "description", d.desc);
}

void boot_log_event_description(const struct tcg_event *ev, char *out,
				size_t max)
{
	json_t *o;

	if (max == 0)
		return;
	o = json_object();
	event_data(o, ev);
	snprintf(out, max, "%s",
		 json_string_value(json_object_get(o, "description")) ?: "");
	json_decref(o);
	utf8_trim(out);
}

static json_t *event_json(const struct tcg_event *ev)
{
	json_t *o = json_object(), *dg = json_object();
	char name[12];
	const char *tn = tcg_event_type_name(ev->type);
	uint32_t i;

	json_object_set_new(o, "index", json_integer((json_int_t)ev->index));
	json_object_set_new(o, "pcr", json_integer(ev->pcr));
	json_object_set_new(o, "type", json_integer(ev->type));
	if (!tn) {
		snprintf(name, sizeof(name), "0x%08x", ev->type);
		tn = name;
	}
	put_str(o, "type_name", tn);
	for (i = 0; i < ev->ndigests; i++) {
		char b[8];

		put_hex(dg, bank_name(ev->digests[i].bank, b, sizeof(b)),
			ev->digests[i].value, ev->digests[i].bank->size);
	}
	json_object_set_new(o, "digests", dg);
	json_object_set_new(o, "size", json_integer(ev->len));
	event_data(o, ev);
	return o;
}

static json_t *spec_json(const struct tcg_spec_id *s)
{
	json_t *o = json_object(), *banks = json_array();
	char v[16], b[8];
	uint32_t i;

	snprintf(v, sizeof(v), "%u.%u", s->version_major, s->version_minor);
	put_str(o, "version", v);
	json_object_set_new(o, "uintn_size", json_integer(s->uintn_size));
	for (i = 0; i < s->nbanks; i++)
		json_array_append_new(banks,
				      json_string(bank_name(&s->banks[i], b,
							    sizeof(b))));
	json_object_set_new(o, "banks", banks);
	json_object_set_new(o, "platform_class",
			    json_integer(s->platform_class));
	return o;
}

/*
 * PCRs 0-9 and every other PCR the log extends (systemd-stub's 11-13,
 * shim's 14, ...), replayed in each bank of the log. PCR 10 is IMA's: the
 * firmware log never replays it. The same PCRs as boot_check.c compares.
 */
static uint32_t shown_pcrs(const uint8_t *buf, size_t len)
{
	uint32_t extended;

	if (tcg_log_extended(buf, len, &extended, NULL) != IMT_OK)
		extended = 0;
	return (0x3ffu | extended) & ~(1u << 10);
}

static json_t *pcrs_json(const uint8_t *buf, size_t len,
			 const struct tcg_spec_id *s)
{
	json_t *o = json_object(), *bank;
	uint32_t i, shown = shown_pcrs(buf, len);
	char key[4], hex[2 * HASH_ALGO_MAX_SIZE + 1];
	struct pcr_set set;
	int p;

	for (i = 0; i < s->nbanks; i++) {
		if (!s->banks[i].algo)
			continue;
		pcr_set_init(&set, s->banks[i].algo);
		if (tcg_log_replay(buf, len, &set, 1, NULL) != IMT_OK)
			continue;
		bank = json_object();
		for (p = 0; p < PCR_SET_COUNT; p++) {
			if (!(set.present & shown & (1u << p)))
				continue;
			snprintf(key, sizeof(key), "%d", p);
			hex_encode(set.value[p], set.algo->size, hex);
			put_str(bank, key, hex);
		}
		json_object_set_new(o, s->banks[i].algo->name, bank);
	}
	return o;
}

/* The PCRs the log's events extend, ascending: what the quote covers. */
static json_t *extended_json(const uint8_t *buf, size_t len)
{
	json_t *arr = json_array();
	uint32_t extended;
	int p;

	if (tcg_log_extended(buf, len, &extended, NULL) != IMT_OK)
		return arr;
	for (p = 0; p < PCR_SET_COUNT; p++) {
		if (extended & (1u << p))
			json_array_append_new(arr, json_integer(p));
	}
	return arr;
}

static json_t *certs_json(const struct boot_cert *c, size_t n)
{
	json_t *arr = json_array(), *e;
	size_t i;

	for (i = 0; i < n; i++) {
		e = json_object();
		if (c[i].unknown) {
			/* an authority whose data is not what was measured */
			json_object_set_new(e, "unknown", json_true());
			json_object_set_new(e, "event",
					    json_integer(
						    (json_int_t)c[i].event));
			json_array_append_new(arr, e);
			continue;
		}
		put_hex(e, "sha256", c[i].sha256, 32);
		put_str(e, "type",
			c[i].kind == EFI_SIG_X509   ? "x509" :
			c[i].kind == EFI_SIG_SHA256 ? "sha256" :
						      "other");
		if (c[i].kind == EFI_SIG_X509)
			put_str(e, "cn", c[i].cn);
		json_array_append_new(arr, e);
	}
	return arr;
}

static json_t *apps_json(const struct boot_facts *f)
{
	json_t *arr = json_array(), *e, *dg;
	const struct hash_algo *a;
	char b[8];
	size_t i;
	uint32_t j;

	for (i = 0; i < f->napps; i++) {
		e = json_object();
		json_object_set_new(e, "index",
				    json_integer((json_int_t)f->apps[i].index));
		json_object_set_new(e, "pcr", json_integer(f->apps[i].pcr));
		dg = json_object();
		for (j = 0; j < f->apps[i].ndigests; j++) {
			a = hash_algo_by_tpm(f->apps[i].digests[j].alg_id);
			snprintf(b, sizeof(b), "0x%04x",
				 f->apps[i].digests[j].alg_id);
			put_hex(dg, a ? a->name : b,
				f->apps[i].digests[j].value,
				f->apps[i].digests[j].size);
		}
		json_object_set_new(e, "digests", dg);
		put_str(e, "path", f->apps[i].path);
		json_array_append_new(arr, e);
	}
	return arr;
}

/* {"fact", "event", "pcr", "type", "name", "why"} of an unknown fact. */
static json_t *unknown_json(const char *fact, const struct boot_event_ref *r)
{
	json_t *e = json_object();
	const char *tn = tcg_event_type_name(r->type);

	put_str(e, "fact", fact);
	json_object_set_new(e, "event", json_integer((json_int_t)r->index));
	json_object_set_new(e, "pcr", json_integer(r->pcr));
	put_str(e, "type", tn ? tn : "?");
	put_str(e, "name", r->name);
	put_str(e, "why",
		r->why == BOOT_UNDECODABLE ? "undecodable" : "unbound");
	return e;
}

/* The facts an event made unknown, and every event read that is not
 * bound to its digest ("unbound_events": their count). */
static void unknowns_json(json_t *o, const struct boot_facts *f,
			  const char *const *keys)
{
	json_t *arr = json_array();
	size_t i;

	if (f->secure_boot == BOOT_SB_UNKNOWN)
		json_array_append_new(arr, unknown_json("secure_boot",
							&f->secure_boot_event));
	for (i = 0; i < BOOT_VAR_COUNT; i++) {
		if (f->vars[i].unknown != BOOT_KNOWN)
			json_array_append_new(arr,
					      unknown_json(keys[i],
							   &f->vars[i].event));
	}
	if (f->sbat_unknown != BOOT_KNOWN)
		json_array_append_new(arr, unknown_json("sbat_level",
							&f->sbat_event));
	for (i = 0; i < f->nuki; i++) {
		if (f->uki[i].event.why != BOOT_KNOWN)
			json_array_append_new(arr,
					      unknown_json("uki_section",
							   &f->uki[i].event));
	}
	json_object_set_new(o, "unknown", arr);
	json_object_set_new(o, "unbound_events",
			    json_integer((json_int_t)f->nunbound));
	if (f->nunbound)
		json_object_set_new(o, "first_unbound",
				    unknown_json("event", &f->unbound));
}

/*
 * "uki": the sections systemd-stub measured into PCR 11, each
 * {"section", "event", "contents_event", "sha256"} (the section null
 * when unknown, listed in "unknown"); "sbat_level": shim's SbatLevel
 * text, or null (not measured, or unknown).
 */
static void shim_uki_json(json_t *o, const struct boot_facts *f)
{
	const struct boot_uki_section *s;
	json_t *arr = json_array(), *e;
	size_t i;
	uint32_t j;

	for (i = 0; i < f->nuki; i++) {
		s = &f->uki[i];
		e = json_object();
		json_object_set_new(e, "section",
				    s->event.why == BOOT_KNOWN ?
					    json_string(s->name) :
					    json_null());
		json_object_set_new(e, "event",
				    json_integer((json_int_t)s->event.index));
		json_object_set_new(e, "contents_event",
				    json_integer(
					    (json_int_t)s->contents_event));
		for (j = 0; j < s->ndigests; j++) {
			if (s->digests[j].alg_id == 0x000b)
				put_hex(e, "sha256", s->digests[j].value, 32);
		}
		json_array_append_new(arr, e);
	}
	json_object_set_new(o, "uki", arr);
	json_object_set_new(o, "sbat_level",
			    f->sbat_measured && f->sbat_unknown == BOOT_KNOWN ?
				    json_string(f->sbat) :
				    json_null());
}

static const struct {
	uint32_t bit;
	const char *name;
} fact_flags[] = {
	{ BOOT_FACT_AFTER_SEPARATOR, "after_separator" },
	{ BOOT_FACT_SEPARATOR_ERROR, "separator_error" },
	{ BOOT_FACT_OVERFLOW, "overflow" },
	{ BOOT_FACT_UNDECODABLE, "undecodable" },
	{ BOOT_FACT_REPEATED, "repeated" },
	{ BOOT_FACT_SEPARATOR_UNKNOWN, "separator_unknown" },
};

static json_t *facts_json(const struct boot_facts *f)
{
	static const char *const keys[BOOT_VAR_COUNT] = {
		"pk",
		"kek",
		"db",
		"dbx",
	};
	const struct boot_flag_event *e;
	json_t *o = json_object(), *arr, *fe;
	size_t i;

	/* null: not measured, or unknown (then listed in "unknown") */
	json_object_set_new(o, "secure_boot",
			    f->secure_boot < 0 ? json_null() :
						 json_boolean(f->secure_boot));
	for (i = 0; i < BOOT_VAR_COUNT; i++)
		json_object_set_new(o, keys[i],
				    f->vars[i].measured && f->vars[i].unknown ==
								   BOOT_KNOWN ?
					    certs_json(f->vars[i].certs,
						       f->vars[i].count) :
					    json_null());
	unknowns_json(o, f, keys);
	json_object_set_new(o, "authorities", certs_json(f->auth, f->nauth));
	json_object_set_new(o, "applications", apps_json(f));
	shim_uki_json(o, f);
	json_object_set_new(o, "cmdline",
			    f->has_cmdline ? json_string(f->cmdline) :
					     json_null());
	json_object_set_new(o, "cmdline_bound", json_boolean(f->cmdline_bound));
	if (f->has_load_options_tag)
		put_hex(o, "load_options_sha256", f->load_options_sha256, 32);
	else
		json_object_set_new(o, "load_options_sha256", json_null());
	arr = json_array();
	for (i = 0; i < 8; i++) {
		if (f->separated & (1u << i))
			json_array_append_new(arr, json_integer((json_int_t)i));
	}
	json_object_set_new(o, "separators", arr);
	json_object_set_new(o, "uefi", json_boolean(f->uefi));
	arr = json_array();
	fe = json_object();
	for (i = 0; i < sizeof(fact_flags) / sizeof(fact_flags[0]); i++) {
		e = boot_facts_flag_event(f, fact_flags[i].bit);
		if (e == NULL)
			continue;
		json_array_append_new(arr, json_string(fact_flags[i].name));
		/* each flag's own first event: what a "log" rule names */
		json_object_set_new(fe, fact_flags[i].name,
				    json_integer((json_int_t)e->index));
	}
	json_object_set_new(o, "flags", arr);
	json_object_set_new(o, "flag_events", fe);
	if (f->flags)
		json_object_set_new(o, "flag_event",
				    json_integer((json_int_t)f->flag_event));
	return o;
}

static json_t *cel_record(const struct tcg_event *ev)
{
	json_t *o = json_object(), *dg = json_array(), *d, *content;
	char b[8], *b64;
	uint32_t i;

	json_object_set_new(o, "recnum", json_integer((json_int_t)ev->index));
	json_object_set_new(o, "pcr", json_integer(ev->pcr));
	for (i = 0; i < ev->ndigests; i++) {
		d = json_object();
		put_str(d, "hashAlg",
			bank_name(ev->digests[i].bank, b, sizeof(b)));
		put_hex(d, "digest", ev->digests[i].value,
			ev->digests[i].bank->size);
		json_array_append_new(dg, d);
	}
	json_object_set_new(o, "digests", dg);
	put_str(o, "content_type", "pcclient_std");
	content = json_object();
	json_object_set_new(content, "event_type", json_integer(ev->type));
	b64 = malloc(B64_ENCODED_LEN((size_t)ev->len) + 1);
	if (b64) {
		b64_encode(ev->data, ev->len, b64);
		put_str(content, "event_data", b64);
		free(b64);
	}
	json_object_set_new(o, "content", content);
	return o;
}

static json_t *decoded(const uint8_t *buf, size_t len, json_t *events,
		       const struct tcg_spec_id *spec, struct imt_error *err)
{
	struct boot_facts *f = malloc(sizeof(*f));
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	json_t *o;

	if (!f || boot_facts_extract(buf, len, f, err) != IMT_OK) {
		if (!f)
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "out of memory");
		free(f);
		json_decref(events);
		return NULL;
	}
	o = json_object();
	/* the bytes as stored: the machine detail's boot_log names them so */
	json_object_set_new(o, "size", json_integer((json_int_t)len));
	put_str(o, "format", "crypto-agile");
	if (EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) == 1)
		put_hex(o, "sha256", md, mdlen);
	json_object_set_new(o, "spec", spec_json(spec));
	json_object_set_new(o, "events", events);
	json_object_set_new(o, "extended", extended_json(buf, len));
	json_object_set_new(o, "pcrs", pcrs_json(buf, len, spec));
	json_object_set_new(o, "facts", facts_json(f));
	free(f);
	return o;
}

/* A SHA-1-only TCG 1.2 log: what it is and why nothing in it counts. */
static json_t *legacy(const uint8_t *buf, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	json_t *o = json_object();

	json_object_set_new(o, "size", json_integer((json_int_t)len));
	if (EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) == 1)
		put_hex(o, "sha256", md, mdlen);
	put_str(o, "format", "legacy");
	put_str(o, "reason", BOOT_LOG_LEGACY_REASON);
	json_object_set_new(o, "events", json_array());
	json_object_set_new(o, "extended", json_array());
	json_object_set_new(o, "pcrs", json_object());
	json_object_set_new(o, "facts", json_null());
	return o;
}

json_t *boot_log_json(const uint8_t *buf, size_t len, unsigned flags,
		      struct imt_error *err)
{
	struct tcg_log log;
	struct tcg_event ev;
	json_t *events;
	enum imt_result r;

	if (!(flags & BOOT_LOG_CEL) && tcg_log_legacy(buf, len))
		return legacy(buf, len);
	r = tcg_log_open(&log, buf, len, err);
	if (r != IMT_OK)
		return NULL;
	events = json_array();
	while (r == IMT_OK && !tcg_log_done(&log)) {
		r = tcg_log_next(&log, &ev, err);
		if (r == IMT_OK)
			json_array_append_new(events, (flags & BOOT_LOG_CEL) ?
							      cel_record(&ev) :
							      event_json(&ev));
	}
	if (r != IMT_OK) {
		json_decref(events);
		return NULL;
	}
	if (flags & BOOT_LOG_CEL)
		return events;
	return decoded(buf, len, events, &log.spec, err);
}
