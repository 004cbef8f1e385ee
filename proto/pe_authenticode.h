/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pe_authenticode.h - the Authenticode image hash of a PE/COFF file.
 *
 * UEFI firmware measures every EFI application it starts (boot loader,
 * EFI-stub kernel, UKI) as an EV_EFI_BOOT_SERVICES_APPLICATION event
 * whose digest is the file's Authenticode hash, not a hash of its bytes:
 * the headers without the CheckSum field and the Certificate Table
 * directory entry, the sections' raw data in file order, the data after
 * the last section, and never the certificate table (the signatures) at
 * the end. A signed copy therefore hashes like the unsigned file.
 */
#ifndef IMATRUST_PE_AUTHENTICODE_H
#define IMATRUST_PE_AUTHENTICODE_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "result.h"

/* A PE with more sections is refused (the PE/COFF spec's loader limit). */
#define PE_MAX_SECTIONS 96

#define PE_MACHINE_I386 0x014c
#define PE_MACHINE_ARM 0x01c2
#define PE_MACHINE_X86_64 0x8664
#define PE_MACHINE_AARCH64 0xaa64
#define PE_MACHINE_RISCV64 0x5064

#define PE_SUBSYSTEM_EFI_APPLICATION 10
#define PE_SUBSYSTEM_EFI_BOOT_DRIVER 11
#define PE_SUBSYSTEM_EFI_RUNTIME_DRIVER 12
#define PE_SUBSYSTEM_EFI_ROM 13

/* What pe_describe() found in a well-formed image. */
struct pe_info {
	uint16_t machine;	 /* COFF Machine (PE_MACHINE_*) */
	uint16_t subsystem;	 /* optional header Subsystem */
	int pe32plus;		 /* 1 for PE32+ (64-bit), 0 for PE32 */
	unsigned int sections;	 /* NumberOfSections */
	uint32_t cert_offset;	 /* certificate table file offset, 0 if none */
	uint32_t cert_size;	 /* certificate table bytes, 0 if unsigned */
	unsigned int signatures; /* WIN_CERTIFICATE entries in the table */
};

/**
 * pe_describe() - check the layout of a PE/COFF image and describe it.
 * @buf: the whole file
 * @len: bytes in @buf
 * @info: filled on success
 * @err: filled on failure, the message naming the field and the offset
 *	in ->offset where it applies
 *
 * Checks what pe_authenticode_digest() relies on: the MZ header and
 * e_lfanew, the PE signature, the COFF header, a PE32 or PE32+ optional
 * header holding CheckSum and, when it has five or more data directories,
 * the Certificate Table entry, SizeOfHeaders, every section's raw data
 * within the file and before the certificate table, and a certificate
 * table (when its size is not 0) that is 8-byte aligned, made of whole
 * WIN_CERTIFICATE entries and ends exactly at the end of the file.
 *
 * Return: IMT_OK, IMT_ERR_MALFORMED (a field out of range: the message
 * names it), IMT_ERR_UNSUPPORTED (an optional header that is neither PE32
 * nor PE32+), IMT_ERR_LIMIT (more than PE_MAX_SECTIONS sections).
 */
enum imt_result pe_describe(const uint8_t *buf, size_t len,
			    struct pe_info *info, struct imt_error *err);

/**
 * pe_authenticode_digest() - the Authenticode image hash of @buf.
 * @buf: the whole file
 * @len: bytes in @buf
 * @algo: the hash (any entry of the hash_algo table OpenSSL knows)
 * @out: receives @algo->size bytes
 * @err: filled on failure (see pe_describe())
 *
 * The digest is the one UEFI firmware extends for the image (EDK2's
 * DxeTpm2MeasureBootLib, the Authenticode PE hash): pesign -h and
 * sbverify print the same value.
 *
 * Return: IMT_OK, the errors of pe_describe(), or IMT_ERR_INTERNAL when
 * the hash cannot be computed.
 */
enum imt_result pe_authenticode_digest(const uint8_t *buf, size_t len,
				       const struct hash_algo *algo,
				       uint8_t *out, struct imt_error *err);

/* Zeros a section's VirtualSize may add past its raw data. */
#define PE_SECTION_PAD_MAX (16u << 20)

/**
 * pe_section_digest() - the hash of section @name as a loader maps it:
 * VirtualSize bytes, the raw data and then zeros past SizeOfRawData.
 * systemd-stub measures a UKI's sections so into PCR 11.
 * @buf: the whole file
 * @len: bytes in @buf
 * @name: the section name, 1 to 8 bytes (".linux")
 * @algo: the hash
 * @out: receives @algo->size bytes when *@found
 * @found: receives 1 when the image has the section (the first of that
 *	   name in the table), else 0
 * @err: filled on failure
 *
 * Return: IMT_OK (whether found or not), the errors of pe_describe(),
 * IMT_ERR_LIMIT (VirtualSize more than PE_SECTION_PAD_MAX beyond the raw
 * data), IMT_ERR_INTERNAL when the hash cannot be computed.
 */
enum imt_result pe_section_digest(const uint8_t *buf, size_t len,
				  const char *name,
				  const struct hash_algo *algo, uint8_t *out,
				  int *found, struct imt_error *err);

/**
 * pe_machine_name() - short name of a COFF Machine value.
 * @machine: the value
 *
 * Return: "x86_64", "i386", "aarch64", "arm", "riscv64" or "unknown";
 * a static string.
 */
const char *pe_machine_name(uint16_t machine);

#endif /* IMATRUST_PE_AUTHENTICODE_H */
