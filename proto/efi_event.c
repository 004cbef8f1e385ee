// SPDX-License-Identifier: GPL-2.0-only
/*
 * efi_event.c - decoders of UEFI event data: variables, signature lists,
 * image load events and their device paths, GPT, load options, tagged
 * events, firmware blobs, handoff tables, separators.
 *
 * Every structure must fill the bytes the event gives exactly, so a
 * decoder never guesses where data ends. The device path renderings
 * follow the UEFI 2.10 text forms (section 10.6.1.6) for the nodes a PC
 * firmware boots through.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

#include "efi_event.h"
#include "hex.h"
#include "le_cursor.h"

static const uint8_t guid_global[EFI_GUID_SIZE] = {
	0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11,
	0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c,
};
static const uint8_t guid_image_security_db[EFI_GUID_SIZE] = {
	0xcb, 0xb2, 0x19, 0xd7, 0x3a, 0x3d, 0x96, 0x45,
	0xa3, 0xbc, 0xda, 0xd0, 0x0e, 0x67, 0x65, 0x6f,
};
static const uint8_t guid_cert_x509[EFI_GUID_SIZE] = {
	0xa1, 0x59, 0xc0, 0xa5, 0xe4, 0x94, 0xa7, 0x4a,
	0x87, 0xb5, 0xab, 0x15, 0x5c, 0x2b, 0xf0, 0x72,
};
static const uint8_t guid_cert_sha256[EFI_GUID_SIZE] = {
	0x26, 0x16, 0xc4, 0xc1, 0x4c, 0x50, 0x92, 0x40,
	0xac, 0xa9, 0x41, 0xf9, 0x36, 0x93, 0x43, 0x28,
};

void efi_guid_text(const uint8_t *g, char *out)
{
	snprintf(out, EFI_GUID_TEXT,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15]);
}

/* Append code point @cp as UTF-8; -1 when it does not fit. */
static int put_utf8(char *out, size_t outsz, size_t *n, uint32_t cp)
{
	uint8_t u[4];
	size_t k;

	if (cp < 0x80) {
		u[0] = (uint8_t)cp;
		k = 1;
	} else if (cp < 0x800) {
		u[0] = (uint8_t)(0xc0 | cp >> 6);
		u[1] = (uint8_t)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		u[0] = (uint8_t)(0xe0 | cp >> 12);
		u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (uint8_t)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		u[0] = (uint8_t)(0xf0 | cp >> 18);
		u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (uint8_t)(0x80 | (cp & 0x3f));
		k = 4;
	}
	if (*n + k + 1 > outsz)
		return -1;
	memcpy(out + *n, u, k);
	*n += k;
	return 0;
}

enum imt_result efi_utf16_text(const uint8_t *buf, size_t len, char *out,
			       size_t outsz, struct imt_error *err)
{
	size_t i, n = 0;
	uint32_t cu, lo;

	if (outsz)
		out[0] = '\0';
	if (len % 2)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "UTF-16 string of odd length %zu", len);
	for (i = 0; i + 1 < len; i += 2) {
		cu = (uint32_t)buf[i] | (uint32_t)buf[i + 1] << 8;
		if (cu == 0)
			break;
		if (cu >= 0xd800 && cu < 0xdc00 && i + 3 < len) {
			lo = (uint32_t)buf[i + 2] | (uint32_t)buf[i + 3] << 8;
			if (lo >= 0xdc00 && lo < 0xe000) {
				cu = 0x10000 + ((cu - 0xd800) << 10) +
				     (lo - 0xdc00);
				i += 2;
			}
		}
		if (cu >= 0xd800 && cu < 0xe000)
			cu = 0xfffd;
		if (put_utf8(out, outsz, &n, cu))
			return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, i,
					     "UTF-16 string longer than %zu bytes as UTF-8",
					     outsz ? outsz - 1 : 0);
	}
	out[n] = '\0';
	return IMT_OK;
}

void efi_ascii_text(const uint8_t *buf, size_t len, char *out, size_t outsz)
{
	size_t i;

	while (len && buf[len - 1] == 0)
		len--;
	for (i = 0; i < len && i + 1 < outsz; i++)
		out[i] = (buf[i] >= 0x20 && buf[i] < 0x7f) ? (char)buf[i] : '?';
	out[i] = '\0';
}

static enum imt_result short_of(struct imt_error *err, const char *what,
				const char *field, size_t at)
{
	return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, at,
			     "%s: %s runs past the data (offset %zu)", what,
			     field, at);
}

static enum imt_result trailing(struct imt_error *err, const char *what,
				const struct le_cursor *c)
{
	return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, c->pos,
			     "%s: %zu bytes after the structure", what,
			     le_left(c));
}

enum imt_result efi_variable_parse(const uint8_t *buf, size_t len,
				   struct efi_variable *v,
				   struct imt_error *err)
{
	static const char what[] = "UEFI_VARIABLE_DATA";
	struct le_cursor c;
	uint64_t nchars, dlen;
	const uint8_t *name;
	enum imt_result r;

	memset(v, 0, sizeof(*v));
	le_cursor_init(&c, buf, len);
	v->guid = le_take(&c, EFI_GUID_SIZE);
	if (!v->guid || le_u64(&c, &nchars) || le_u64(&c, &dlen))
		return short_of(err, what, "header", c.pos);
	if (nchars > le_left(&c) / 2)
		return short_of(err, what, "UnicodeNameLength", 16);
	name = le_take(&c, 2 * nchars);
	if (dlen != le_left(&c))
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 24,
				     "%s: VariableDataLength %llu, %zu bytes follow the name",
				     what, (unsigned long long)dlen,
				     le_left(&c));
	r = efi_utf16_text(name, 2 * nchars, v->name, sizeof(v->name), err);
	if (r != IMT_OK)
		return r;
	v->data = le_take(&c, dlen);
	v->len = dlen;
	return IMT_OK;
}

int efi_variable_is(const struct efi_variable *v, const char *name)
{
	const uint8_t *guid = (!strcmp(name, "db") || !strcmp(name, "dbx")) ?
				      guid_image_security_db :
				      guid_global;

	return !strcmp(v->name, name) && !memcmp(v->guid, guid, EFI_GUID_SIZE);
}

void efi_siglist_init(struct efi_siglist *it, const uint8_t *buf, size_t len)
{
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->len = len;
}

/* Check the list header at it->pos and make it current. */
static enum imt_result siglist_start(struct efi_siglist *it,
				     struct imt_error *err)
{
	struct le_cursor c;
	uint32_t size, hsize;
	size_t at = it->pos, body;

	le_cursor_init(&c, it->buf + at, it->len - at);
	it->type = le_take(&c, EFI_GUID_SIZE);
	if (!it->type || le_u32(&c, &size) || le_u32(&c, &hsize) ||
	    le_u32(&c, &it->sig_size))
		return imt_error_set(err, IMT_ERR_MALFORMED, it->list, at,
				     "EFI_SIGNATURE_LIST %zu at offset %zu: header truncated",
				     it->list, at);
	if (size > c.len || size < c.pos || size - c.pos < hsize)
		return imt_error_set(err, IMT_ERR_MALFORMED, it->list, at + 16,
				     "EFI_SIGNATURE_LIST %zu at offset %zu: SignatureListSize %u (header %u) outside the %zu bytes left",
				     it->list, at, size, hsize, c.len);
	body = size - c.pos - hsize;
	if (it->sig_size < EFI_GUID_SIZE || body % it->sig_size)
		return imt_error_set(err, IMT_ERR_MALFORMED, it->list, at + 24,
				     "EFI_SIGNATURE_LIST %zu at offset %zu: SignatureSize %u does not divide %zu bytes of entries",
				     it->list, at, it->sig_size, body);
	if (!memcmp(it->type, guid_cert_sha256, EFI_GUID_SIZE) &&
	    it->sig_size != EFI_GUID_SIZE + 32)
		return imt_error_set(err, IMT_ERR_MALFORMED, it->list, at + 24,
				     "EFI_SIGNATURE_LIST %zu at offset %zu: SHA-256 entries of %u bytes, not 48",
				     it->list, at, it->sig_size);
	it->sig_pos = at + c.pos + hsize;
	it->sig_end = at + size;
	it->index = 0;
	it->pos = at + size;
	it->list++;
	return IMT_OK;
}

enum imt_result efi_siglist_next(struct efi_siglist *it, struct efi_sig *sig,
				 struct imt_error *err)
{
	enum imt_result r;

	while (it->sig_pos >= it->sig_end) {
		if (it->pos >= it->len)
			return IMT_NEED_MORE;
		r = siglist_start(it, err);
		if (r != IMT_OK)
			return r;
	}
	sig->list = it->list - 1;
	sig->index = it->index++;
	sig->type = it->type;
	sig->owner = it->buf + it->sig_pos;
	sig->data = sig->owner + EFI_GUID_SIZE;
	sig->len = it->sig_size - EFI_GUID_SIZE;
	if (!memcmp(it->type, guid_cert_x509, EFI_GUID_SIZE))
		sig->kind = EFI_SIG_X509;
	else if (!memcmp(it->type, guid_cert_sha256, EFI_GUID_SIZE))
		sig->kind = EFI_SIG_SHA256;
	else
		sig->kind = EFI_SIG_OTHER;
	it->sig_pos += it->sig_size;
	return IMT_OK;
}

enum imt_result efi_sig_cert(const struct efi_sig *sig, uint8_t *digest,
			     char *cn, size_t cnsz)
{
	const unsigned char *p = sig->data;
	unsigned char *utf8 = NULL;
	X509_NAME *subject;
	X509 *x509;
	int i, n;

	cn[0] = '\0';
	if (!EVP_Digest(sig->data, sig->len, digest, NULL, EVP_sha256(), NULL))
		return IMT_ERR_INTERNAL;
	if (sig->len > 0x7fffffff)
		return IMT_OK;
	x509 = d2i_X509(NULL, &p, (long)sig->len);
	if (!x509)
		return IMT_OK;
	subject = X509_get_subject_name(x509);
	i = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
	if (i >= 0) {
		n = ASN1_STRING_to_UTF8(&utf8,
					X509_NAME_ENTRY_get_data(
						X509_NAME_get_entry(subject,
								    i)));
		if (n >= 0)
			efi_ascii_text(utf8, (size_t)n, cn, cnsz);
		OPENSSL_free(utf8);
	}
	X509_free(x509);
	return IMT_OK;
}

/* The text being written by efi_devpath_text(). */
struct text {
	char *out;
	size_t size;
	size_t n;
	int over;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t,
						      const char *fmt, ...)
{
	va_list ap;
	int k;

	if (t->over)
		return;
	va_start(ap, fmt);
	k = vsnprintf(t->out + t->n, t->size - t->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= t->size - t->n) {
		t->over = 1;
		t->out[t->n] = '\0';
		return;
	}
	t->n += (size_t)k;
}

static void put_hex(struct text *t, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put(t, "%02x", p[i]);
}

static void put_guid(struct text *t, const uint8_t *g)
{
	char s[EFI_GUID_TEXT];

	efi_guid_text(g, s);
	put(t, "%s", s);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Node renderers: @p is the node's data after its 4-byte header. */
static void dp_pci(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "Pci(0x%x,0x%x)", p[1], p[0]);
}

static void dp_vendor(struct text *t, const char *kind, const uint8_t *p,
		      size_t n)
{
	put(t, "Ven%s(", kind);
	put_guid(t, p);
	if (n > EFI_GUID_SIZE) {
		put(t, ",");
		put_hex(t, p + EFI_GUID_SIZE, n - EFI_GUID_SIZE);
	}
	put(t, ")");
}

static void dp_venhw(struct text *t, const uint8_t *p, size_t n)
{
	dp_vendor(t, "Hw", p, n);
}

static void dp_venmsg(struct text *t, const uint8_t *p, size_t n)
{
	dp_vendor(t, "Msg", p, n);
}

static void dp_venmedia(struct text *t, const uint8_t *p, size_t n)
{
	dp_vendor(t, "Media", p, n);
}

static void dp_acpi(struct text *t, const uint8_t *p, size_t n)
{
	uint32_t hid = rd32(p), uid = rd32(p + 4);

	(void)n;
	if (hid == 0x0a0341d0)
		put(t, "PciRoot(0x%x)", uid);
	else if (hid == 0x0a0841d0)
		put(t, "PcieRoot(0x%x)", uid);
	else if ((hid & 0xffff) == 0x41d0)
		put(t, "Acpi(PNP%04x,0x%x)", hid >> 16, uid);
	else
		put(t, "Acpi(0x%08x,0x%x)", hid, uid);
}

static void dp_scsi(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "Scsi(0x%x,0x%x)", p[0] | p[1] << 8, p[2] | p[3] << 8);
}

static void dp_usb(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "USB(0x%x,0x%x)", p[0], p[1]);
}

static void dp_mac(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "MAC(");
	put_hex(t, p, p[32] <= 1 ? 6 : 32);
	put(t, ",0x%x)", p[32]);
}

static void dp_sata(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "Sata(0x%x,0x%x,0x%x)", p[0] | p[1] << 8, p[2] | p[3] << 8,
	    p[4] | p[5] << 8);
}

static void dp_nvme(struct text *t, const uint8_t *p, size_t n)
{
	int i;

	(void)n;
	put(t, "NVMe(0x%x,", rd32(p));
	for (i = 0; i < 8; i++)
		put(t, i ? "-%02x" : "%02x", p[4 + i]);
	put(t, ")");
}

static void dp_uri(struct text *t, const uint8_t *p, size_t n)
{
	char s[512];

	efi_ascii_text(p, n, s, sizeof(s));
	put(t, "Uri(%s)", s);
}

static void dp_hd(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "HD(%u,", rd32(p));
	if (p[37] == 2) {
		put(t, "GPT,");
		put_guid(t, p + 20);
	} else if (p[37] == 1) {
		put(t, "MBR,0x%08x", rd32(p + 20));
	} else {
		put(t, "0x%x,", p[37]);
		put_hex(t, p + 20, 16);
	}
	put(t, ",0x%llx,0x%llx)", (unsigned long long)rd64(p + 4),
	    (unsigned long long)rd64(p + 12));
}

static void dp_file(struct text *t, const uint8_t *p, size_t n)
{
	char s[EFI_DEVPATH_TEXT_MAX];

	if (efi_utf16_text(p, n & ~(size_t)1, s, sizeof(s), NULL) != IMT_OK)
		t->over = 1;
	else
		put(t, "%s", s);
}

static void dp_fvfile(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "FvFile(");
	put_guid(t, p);
	put(t, ")");
}

static void dp_fv(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "Fv(");
	put_guid(t, p);
	put(t, ")");
}

static void dp_offset(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "Offset(0x%llx,0x%llx)", (unsigned long long)rd64(p + 4),
	    (unsigned long long)rd64(p + 12));
}

static void dp_memmap(struct text *t, const uint8_t *p, size_t n)
{
	(void)n;
	put(t, "MemoryMapped(0x%x,0x%llx,0x%llx)", rd32(p),
	    (unsigned long long)rd64(p + 4), (unsigned long long)rd64(p + 12));
}

static const struct {
	uint8_t type;
	uint8_t subtype;
	size_t min; /* data bytes the node needs */
	void (*render)(struct text *t, const uint8_t *p, size_t n);
} dp_nodes[] = {
	{ 1, 1, 2, dp_pci },	   { 1, 3, 20, dp_memmap },
	{ 1, 4, 16, dp_venhw },	   { 2, 1, 8, dp_acpi },
	{ 3, 2, 4, dp_scsi },	   { 3, 5, 2, dp_usb },
	{ 3, 10, 16, dp_venmsg },  { 3, 11, 33, dp_mac },
	{ 3, 18, 6, dp_sata },	   { 3, 23, 12, dp_nvme },
	{ 3, 24, 0, dp_uri },	   { 4, 1, 38, dp_hd },
	{ 4, 3, 16, dp_venmedia }, { 4, 4, 0, dp_file },
	{ 4, 6, 16, dp_fvfile },   { 4, 7, 16, dp_fv },
	{ 4, 8, 20, dp_offset },
};

static enum imt_result dp_node(struct text *t, uint8_t type, uint8_t sub,
			       const uint8_t *p, size_t n, size_t at,
			       struct imt_error *err)
{
	size_t i;

	for (i = 0; i < sizeof(dp_nodes) / sizeof(dp_nodes[0]); i++) {
		if (dp_nodes[i].type != type || dp_nodes[i].subtype != sub)
			continue;
		if (n < dp_nodes[i].min)
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     at,
					     "device path node (%u,%u) at offset %zu: %zu bytes, needs %zu",
					     type, sub, at, n + 4,
					     dp_nodes[i].min + 4);
		dp_nodes[i].render(t, p, n);
		return IMT_OK;
	}
	put(t, "Path(%u,%u,", type, sub);
	put_hex(t, p, n);
	put(t, ")");
	return IMT_OK;
}

enum imt_result efi_devpath_text(const uint8_t *dp, size_t len, char *out,
				 size_t outsz, struct imt_error *err)
{
	struct text t = { out, outsz, 0, 0 };
	struct le_cursor c;
	uint8_t type, sub;
	uint16_t nlen;
	const uint8_t *data;
	enum imt_result r;
	size_t at;
	int sep = 0;

	out[0] = '\0';
	le_cursor_init(&c, dp, len);
	while (le_left(&c)) {
		at = c.pos;
		if (le_u8(&c, &type) || le_u8(&c, &sub) || le_u16(&c, &nlen))
			return short_of(err, "device path", "node header", at);
		if (nlen < 4 || !(data = le_take(&c, nlen - 4u)))
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     at,
					     "device path node at offset %zu: length %u outside 4..%zu",
					     at, nlen, len - at);
		if (type == 0x7f && sub == 0xff)
			break;
		if (type == 0x7f) {
			put(&t, ",");
			sep = 0;
			continue;
		}
		if (sep)
			put(&t, "/");
		r = dp_node(&t, type, sub, data, nlen - 4u, at, err);
		if (r != IMT_OK)
			return r;
		sep = 1;
	}
	if (le_left(&c))
		return trailing(err, "device path", &c);
	if (t.over)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "device path text longer than %zu bytes",
				     outsz - 1);
	return IMT_OK;
}

enum imt_result efi_image_load_parse(const uint8_t *buf, size_t len,
				     struct efi_image_load *im,
				     struct imt_error *err)
{
	static const char what[] = "UEFI_IMAGE_LOAD_EVENT";
	struct le_cursor c;
	uint64_t dplen;

	memset(im, 0, sizeof(*im));
	le_cursor_init(&c, buf, len);
	if (le_u64(&c, &im->location) || le_u64(&c, &im->length) ||
	    le_u64(&c, &im->link_address) || le_u64(&c, &dplen))
		return short_of(err, what, "header", c.pos);
	/*
	 * Real firmware leaves bytes after the device path: EDK2 sizes the
	 * event with sizeof(EFI_IMAGE_LOAD_EVENT), whose DevicePath[1] pads
	 * to 8, and shim's images loaded from a buffer carry 9 after an
	 * empty one. The digest is the image's, so they are shown, not
	 * refused; beyond EFI_IMAGE_LOAD_SLACK_MAX the event is malformed.
	 */
	if (dplen > le_left(&c) ||
	    le_left(&c) - dplen > EFI_IMAGE_LOAD_SLACK_MAX)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 24,
				     "%s: LengthOfDevicePath %llu, %zu bytes follow",
				     what, (unsigned long long)dplen,
				     le_left(&c));
	im->devpath = le_take(&c, dplen);
	im->devpath_len = dplen;
	im->slack = le_left(&c);
	return IMT_OK;
}

#define GPT_HEADER_SIZE 92
#define GPT_ENTRY_MIN 128

enum imt_result efi_gpt_parse(const uint8_t *buf, size_t len, struct efi_gpt *g,
			      struct imt_error *err)
{
	static const char what[] = "UEFI_GPT_DATA";
	struct le_cursor c;
	const uint8_t *h;

	memset(g, 0, sizeof(*g));
	le_cursor_init(&c, buf, len);
	h = le_take(&c, GPT_HEADER_SIZE);
	if (!h || le_u64(&c, &g->nparts))
		return short_of(err, what, "header", c.pos);
	if (memcmp(h, "EFI PART", 8))
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "%s: no \"EFI PART\" signature", what);
	g->disk_guid = h + 56;
	g->entry_size = rd32(h + 84);
	if (g->entry_size < GPT_ENTRY_MIN || g->entry_size > 4096)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 84,
				     "%s: SizeOfPartitionEntry %u outside 128..4096",
				     what, g->entry_size);
	if (g->nparts > EFI_GPT_PARTS_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, 92,
				     "%s: %llu partitions, above %d", what,
				     (unsigned long long)g->nparts,
				     EFI_GPT_PARTS_MAX);
	if (le_left(&c) != g->nparts * g->entry_size)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 92,
				     "%s: %llu entries of %u bytes, %zu bytes follow",
				     what, (unsigned long long)g->nparts,
				     g->entry_size, le_left(&c));
	g->entries = buf + c.pos;
	return IMT_OK;
}

void efi_gpt_part(const struct efi_gpt *g, uint64_t i, struct efi_gpt_part *p)
{
	const uint8_t *e = g->entries + i * g->entry_size;

	p->type_guid = e;
	p->unique_guid = e + 16;
	p->first_lba = rd64(e + 32);
	p->last_lba = rd64(e + 40);
	p->attributes = rd64(e + 48);
	/* 72 bytes always fit 109 bytes of UTF-8: 36 units, 3 bytes each. */
	efi_utf16_text(e + 56, 72, p->name, sizeof(p->name), NULL);
}

enum imt_result efi_load_option_parse(const uint8_t *buf, size_t len,
				      struct efi_load_option *o,
				      struct imt_error *err)
{
	static const char what[] = "EFI_LOAD_OPTION";
	struct le_cursor c;
	const uint8_t *desc;
	uint16_t fplen, cu = 1;
	enum imt_result r;

	memset(o, 0, sizeof(*o));
	le_cursor_init(&c, buf, len);
	if (le_u32(&c, &o->attributes) || le_u16(&c, &fplen))
		return short_of(err, what, "header", c.pos);
	desc = buf + c.pos;
	while (cu != 0) {
		if (le_u16(&c, &cu))
			return short_of(err, what, "Description", c.pos);
	}
	r = efi_utf16_text(desc, (size_t)(buf + c.pos - desc), o->description,
			   sizeof(o->description), err);
	if (r != IMT_OK)
		return r;
	o->devpath = le_take(&c, fplen);
	if (!o->devpath)
		return short_of(err, what, "FilePathListLength", 4);
	o->devpath_len = fplen;
	o->optional_len = le_left(&c);
	o->optional = le_take(&c, o->optional_len);
	return IMT_OK;
}

enum imt_result efi_tagged_event_parse(const uint8_t *buf, size_t len,
				       struct efi_tagged_event *t,
				       struct imt_error *err)
{
	static const char what[] = "TCG_PCClientTaggedEvent";
	struct le_cursor c;

	memset(t, 0, sizeof(*t));
	le_cursor_init(&c, buf, len);
	if (le_u32(&c, &t->id) || le_u32(&c, &t->len))
		return short_of(err, what, "header", c.pos);
	if (t->len != le_left(&c))
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 4,
				     "%s: taggedEventDataSize %u, %zu bytes follow",
				     what, t->len, le_left(&c));
	t->data = le_take(&c, t->len);
	return IMT_OK;
}

/* The u8 size + description that BLOB2 and TABLES2 start with. */
static int description(struct le_cursor *c, struct efi_blob *b)
{
	if (le_u8(c, &b->desc_len))
		return -1;
	b->desc = le_take(c, b->desc_len);
	return b->desc ? 0 : -1;
}

enum imt_result efi_blob_parse(const uint8_t *buf, size_t len, int v2,
			       struct efi_blob *b, struct imt_error *err)
{
	const char *what = v2 ? "UEFI_PLATFORM_FIRMWARE_BLOB2" :
				"UEFI_PLATFORM_FIRMWARE_BLOB";
	struct le_cursor c;

	memset(b, 0, sizeof(*b));
	le_cursor_init(&c, buf, len);
	if (v2 && description(&c, b))
		return short_of(err, what, "BlobDescription", c.pos);
	if (le_u64(&c, &b->base) || le_u64(&c, &b->length))
		return short_of(err, what, "BlobBase/BlobLength", c.pos);
	if (le_left(&c))
		return trailing(err, what, &c);
	return IMT_OK;
}

enum imt_result efi_handoff_parse(const uint8_t *buf, size_t len, int v2,
				  struct efi_blob *b, struct imt_error *err)
{
	const char *what = v2 ? "UEFI_HANDOFF_TABLE_POINTERS2" :
				"UEFI_HANDOFF_TABLE_POINTERS";
	struct le_cursor c;

	memset(b, 0, sizeof(*b));
	le_cursor_init(&c, buf, len);
	if (v2 && description(&c, b))
		return short_of(err, what, "TableDescription", c.pos);
	if (le_u64(&c, &b->base))
		return short_of(err, what, "NumberOfTables", c.pos);
	if (b->base > EFI_HANDOFF_TABLES_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, c.pos - 8,
				     "%s: %llu tables, above %d", what,
				     (unsigned long long)b->base,
				     EFI_HANDOFF_TABLES_MAX);
	if (le_left(&c) != b->base * 24)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     c.pos - 8,
				     "%s: %llu tables need %llu bytes, %zu follow",
				     what, (unsigned long long)b->base,
				     (unsigned long long)b->base * 24,
				     le_left(&c));
	b->tables = le_take(&c, le_left(&c));
	return IMT_OK;
}

enum imt_result efi_separator_parse(const uint8_t *buf, size_t len,
				    uint32_t *value, struct imt_error *err)
{
	*value = 0;
	if (len != 4)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "EV_SEPARATOR of %zu bytes, not 4", len);
	*value = rd32(buf);
	/* 0xffffffff: the conventional BIOS's separator (SeaBIOS) */
	if (*value > 1 && *value != 0xffffffffu)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "EV_SEPARATOR value 0x%08x, not 0, 1 "
				     "(error) or 0xffffffff",
				     *value);
	return IMT_OK;
}
