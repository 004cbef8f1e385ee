/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * efi_event.h - decoders of the UEFI structures the firmware logs as event
 * data (TCG PC Client PFP 1.05 section 10.2.6 and 10.4, UEFI 2.10 chapters
 * 3.1.3, 10.3 and 32.4), each over (buffer, length), little-endian.
 * Results borrow the caller's buffer; text is copied out as UTF-8 that is
 * always valid (UTF-16 that is not becomes U+FFFD, ASCII that is not
 * printable becomes '?'), so it can go into JSON as it is.
 */
#ifndef IMATRUST_EFI_EVENT_H
#define IMATRUST_EFI_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define EFI_GUID_SIZE 16
#define EFI_GUID_TEXT 37	   /* 36 characters and the NUL */
#define EFI_NAME_MAX 256	   /* UTF-8 bytes of a variable name */
#define EFI_TEXT_MAX 4096	   /* UTF-8 bytes of a decoded string */
#define EFI_DEVPATH_TEXT_MAX 2048  /* bytes of a device path as text */
#define EFI_GPT_PARTS_MAX 256	   /* NumberOfPartitions */
#define EFI_HANDOFF_TABLES_MAX 256 /* NumberOfTables */

/* EFI_SIGNATURE_LIST entry types (UEFI 32.4.1) we decode. */
enum efi_sig_kind {
	EFI_SIG_OTHER,
	EFI_SIG_X509,	/* EFI_CERT_X509_GUID: a DER cert */
	EFI_SIG_SHA256, /* EFI_CERT_SHA256_GUID: a hash */
};

/**
 * efi_guid_text() - a GUID as the UEFI shell prints it (lower case).
 * @guid: 16 bytes, the first three fields little-endian
 * @out: receives EFI_GUID_TEXT bytes, NUL-terminated
 */
void efi_guid_text(const uint8_t *guid, char *out);

/**
 * efi_utf16_text() - UTF-16LE to UTF-8, up to the first U+0000.
 * @buf: the UTF-16LE code units
 * @len: bytes in @buf; an odd length is malformed
 * @out: receives NUL-terminated UTF-8; unpaired surrogates become U+FFFD
 * @outsz: size of @out
 * @err: filled on failure
 * Return: IMT_OK, IMT_ERR_MALFORMED (odd length) or IMT_ERR_LIMIT (the
 * text does not fit @outsz).
 */
enum imt_result efi_utf16_text(const uint8_t *buf, size_t len, char *out,
			       size_t outsz, struct imt_error *err);

/**
 * efi_ascii_text() - bytes shown as text (EV_EFI_ACTION, EV_POST_CODE,
 * EV_ACTION): trailing NULs dropped, anything not printable ASCII '?'.
 * @buf: the bytes
 * @len: how many
 * @out: receives NUL-terminated text, cut to @outsz - 1 bytes
 * @outsz: size of @out (at least 1)
 */
void efi_ascii_text(const uint8_t *buf, size_t len, char *out, size_t outsz);

struct efi_variable {
	const uint8_t *guid;	 /* VariableName's vendor GUID */
	char name[EFI_NAME_MAX]; /* UTF-8 */
	const uint8_t *data;	 /* borrowed */
	size_t len;
};

/**
 * efi_variable_parse() - UEFI_VARIABLE_DATA (EV_EFI_VARIABLE_*).
 * @buf: event data: GUID, u64 UnicodeNameLength (characters), u64
 *	 VariableDataLength, CHAR16 name[], u8 data[]
 * @len: bytes in @buf; the structure must fill them exactly
 * @v: receives the variable
 * @err: filled on failure, naming the field
 * Return: IMT_OK, IMT_ERR_MALFORMED or IMT_ERR_LIMIT (name too long).
 */
enum imt_result efi_variable_parse(const uint8_t *buf, size_t len,
				   struct efi_variable *v,
				   struct imt_error *err);

/**
 * efi_variable_is() - whether @v is @name of the global or the image
 * security database vendor GUID (SecureBoot, PK, KEK: global; db, dbx).
 * @v: a parsed variable
 * @name: "SecureBoot", "PK", "KEK", "db", "dbx", "BootOrder", ...
 * Return: non-zero on a match.
 */
int efi_variable_is(const struct efi_variable *v, const char *name);

struct efi_sig {
	size_t list;  /* 0-based list in the chain */
	size_t index; /* 0-based entry in the list */
	enum efi_sig_kind kind;
	const uint8_t *type;  /* SignatureType GUID */
	const uint8_t *owner; /* SignatureOwner GUID */
	const uint8_t *data;  /* the certificate or hash */
	size_t len;
};

struct efi_siglist {
	const uint8_t *buf; /* borrowed */
	size_t len;
	size_t pos;	     /* next list header */
	size_t list;	     /* lists started */
	const uint8_t *type; /* current list's type */
	size_t sig_pos;	     /* next entry of the current list */
	size_t sig_end;	     /* end of the current list */
	uint32_t sig_size;
	size_t index;
};

/**
 * efi_siglist_init() - cursor over an EFI_SIGNATURE_LIST chain (the
 * contents of PK, KEK, db, dbx).
 * @it: the cursor
 * @buf: the variable data (borrowed)
 * @len: bytes in @buf; 0 is an empty chain
 */
void efi_siglist_init(struct efi_siglist *it, const uint8_t *buf, size_t len);

/**
 * efi_siglist_next() - the next entry of the chain.
 * @it: the cursor
 * @sig: receives the entry on IMT_OK
 * @err: filled on failure
 * Each list is checked whole before its first entry: SignatureListSize
 * within the chain and at least its header, entries of SignatureSize
 * (at least the owner GUID) filling the rest exactly, SHA-256 entries of
 * 48 bytes.
 * Return: IMT_OK; IMT_NEED_MORE at the end of the chain (no entry);
 * IMT_ERR_MALFORMED naming the list and field.
 */
enum imt_result efi_siglist_next(struct efi_siglist *it, struct efi_sig *sig,
				 struct imt_error *err);

/**
 * efi_sig_cert() - SHA-256 and subject CN of an X.509 entry.
 * @sig: an EFI_SIG_X509 entry
 * @digest: receives the SHA-256 of the DER certificate (32 bytes)
 * @cn: receives the subject CN ('?' for bytes not printable ASCII), or
 *	"" when OpenSSL cannot parse the certificate or it has none
 * @cnsz: size of @cn (at least 1)
 * Return: IMT_OK, or IMT_ERR_INTERNAL when hashing fails.
 */
enum imt_result efi_sig_cert(const struct efi_sig *sig, uint8_t *digest,
			     char *cn, size_t cnsz);

/**
 * efi_devpath_text() - an EFI_DEVICE_PATH_PROTOCOL as the UEFI shell
 * prints it: PciRoot(0x0)/Pci(0x1,0x1)/HD(1,GPT,<guid>,0x800,0x1000)/
 * \EFI\BOOT\BOOTX64.EFI; nodes without a rendering as Path(T,S,hex).
 * @dp: the nodes
 * @len: bytes in @dp; the nodes must fill them (End node last, if any)
 * @out: receives the text
 * @outsz: size of @out
 * @err: filled on failure
 * Return: IMT_OK, IMT_ERR_MALFORMED (node length below 4 or past @len,
 * a node shorter than its type needs, bytes after End) or IMT_ERR_LIMIT.
 */
enum imt_result efi_devpath_text(const uint8_t *dp, size_t len, char *out,
				 size_t outsz, struct imt_error *err);

#define EFI_IMAGE_LOAD_SLACK_MAX 16 /* bytes after the device path */

struct efi_image_load {
	uint64_t location;	/* ImageLocationInMemory */
	uint64_t length;	/* ImageLengthInMemory */
	uint64_t link_address;	/* ImageLinkTimeAddress */
	const uint8_t *devpath; /* borrowed */
	size_t devpath_len;
	size_t slack; /* bytes after the device path */
};

/**
 * efi_image_load_parse() - UEFI_IMAGE_LOAD_EVENT (EV_EFI_BOOT_SERVICES_*,
 * EV_EFI_RUNTIME_SERVICES_DRIVER).
 * @buf: event data
 * @len: bytes; four u64 and LengthOfDevicePath bytes, then at most
 *	 EFI_IMAGE_LOAD_SLACK_MAX more (real firmware pads: EDK2 by the
 *	 8 bytes of sizeof()'s DevicePath[1], shim by 9), in ->slack
 * @im: receives the fields
 * @err: filled on failure
 * Return: IMT_OK or IMT_ERR_MALFORMED.
 */
enum imt_result efi_image_load_parse(const uint8_t *buf, size_t len,
				     struct efi_image_load *im,
				     struct imt_error *err);

struct efi_gpt {
	const uint8_t *disk_guid;
	uint64_t nparts;	/* NumberOfPartitions */
	uint32_t entry_size;	/* SizeOfPartitionEntry */
	const uint8_t *entries; /* borrowed */
};

struct efi_gpt_part {
	const uint8_t *type_guid;
	const uint8_t *unique_guid;
	uint64_t first_lba;
	uint64_t last_lba;
	uint64_t attributes;
	char name[3 * 36 + 1]; /* UTF-8 of the 36 CHAR16 */
};

/**
 * efi_gpt_parse() - UEFI_GPT_DATA (EV_EFI_GPT_EVENT).
 * @buf: event data: the 92-byte partition table header, u64
 *	 NumberOfPartitions, the entries
 * @len: bytes in @buf; filled exactly
 * @g: receives the table
 * @err: filled on failure
 * Return: IMT_OK; IMT_ERR_MALFORMED (signature, entry size below 128,
 * length); IMT_ERR_LIMIT (more than EFI_GPT_PARTS_MAX partitions).
 */
enum imt_result efi_gpt_parse(const uint8_t *buf, size_t len, struct efi_gpt *g,
			      struct imt_error *err);

/**
 * efi_gpt_part() - partition @i of a parsed table.
 * @g: from efi_gpt_parse()
 * @i: below @g->nparts
 * @p: receives the entry
 */
void efi_gpt_part(const struct efi_gpt *g, uint64_t i, struct efi_gpt_part *p);

struct efi_load_option {
	uint32_t attributes;
	char description[EFI_NAME_MAX]; /* UTF-8 */
	const uint8_t *devpath;		/* borrowed */
	size_t devpath_len;
	const uint8_t *optional; /* OptionalData, borrowed */
	size_t optional_len;
};

/**
 * efi_load_option_parse() - EFI_LOAD_OPTION, the data of Boot####.
 * @buf: u32 Attributes, u16 FilePathListLength, CHAR16 Description[]
 *	 (NUL-terminated), FilePathList, OptionalData
 * @len: bytes in @buf
 * @o: receives the option
 * @err: filled on failure
 * Return: IMT_OK, IMT_ERR_MALFORMED or IMT_ERR_LIMIT.
 */
enum imt_result efi_load_option_parse(const uint8_t *buf, size_t len,
				      struct efi_load_option *o,
				      struct imt_error *err);

struct efi_tagged_event {
	uint32_t id;	     /* taggedEventID */
	const uint8_t *data; /* borrowed */
	uint32_t len;
};

/* Tags of the Linux EFI stub (drivers/firmware/efi/libstub), PCR 9. */
#define EFI_TAG_LINUX_INITRD 0x8f3b22ecu
#define EFI_TAG_LINUX_LOAD_OPTIONS 0x8f3b22edu

/**
 * efi_tagged_event_parse() - TCG_PCClientTaggedEvent (EV_EVENT_TAG).
 * @buf: u32 taggedEventID, u32 taggedEventDataSize, data
 * @len: bytes; filled exactly
 * @t: receives the event
 * @err: filled on failure
 * Return: IMT_OK or IMT_ERR_MALFORMED.
 */
enum imt_result efi_tagged_event_parse(const uint8_t *buf, size_t len,
				       struct efi_tagged_event *t,
				       struct imt_error *err);

struct efi_blob {
	const uint8_t *desc; /* BLOB2/TABLES2 description, else NULL */
	uint8_t desc_len;
	uint64_t base;	       /* BlobBase; NumberOfTables for tables */
	uint64_t length;       /* BlobLength */
	const uint8_t *tables; /* {GUID, u64 address}[] for tables */
};

/**
 * efi_blob_parse() - UEFI_PLATFORM_FIRMWARE_BLOB (u64 base, u64 length)
 * or, with @v2, BLOB2 (u8 size, description, base, length).
 * @buf: event data
 * @len: bytes; filled exactly
 * @v2: non-zero for the BLOB2 form
 * @b: receives base, length and the description
 * @err: filled on failure
 * Return: IMT_OK or IMT_ERR_MALFORMED.
 */
enum imt_result efi_blob_parse(const uint8_t *buf, size_t len, int v2,
			       struct efi_blob *b, struct imt_error *err);

/**
 * efi_handoff_parse() - UEFI_HANDOFF_TABLE_POINTERS (u64 NumberOfTables,
 * {GUID, u64}[]) or, with @v2, the 2 form with a description first.
 * @buf: event data
 * @len: bytes; filled exactly
 * @v2: non-zero for HANDOFF_TABLES2
 * @b: receives the count in ->base and the entries in ->tables
 * @err: filled on failure
 * Return: IMT_OK, IMT_ERR_MALFORMED or IMT_ERR_LIMIT (more than
 * EFI_HANDOFF_TABLES_MAX tables).
 */
enum imt_result efi_handoff_parse(const uint8_t *buf, size_t len, int v2,
				  struct efi_blob *b, struct imt_error *err);

/**
 * efi_separator_parse() - the 4-byte EV_SEPARATOR value.
 * @buf: event data
 * @len: bytes (4)
 * @value: receives 0 (normal), 0xffffffff (the conventional BIOS's normal
 *	   separator, as SeaBIOS writes) or 1 (the firmware's error separator)
 * @err: filled on failure
 * Return: IMT_OK, or IMT_ERR_MALFORMED for another size or value.
 */
enum imt_result efi_separator_parse(const uint8_t *buf, size_t len,
				    uint32_t *value, struct imt_error *err);

#endif /* IMATRUST_EFI_EVENT_H */
