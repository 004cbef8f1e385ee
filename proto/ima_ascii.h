/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_ascii.h - a record in the kernel's ascii_runtime_measurements form.
 */
#ifndef IMATRUST_IMA_ASCII_H
#define IMATRUST_IMA_ASCII_H

#include <stddef.h>

#include "ima_list.h"

/**
 * ima_ascii_format() - write @rec as the kernel's ascii list shows it.
 * @rec: a parsed record
 * @out: destination; may be NULL when @outsz is 0
 * @outsz: size of @out
 *
 * The line is "%2d <sha1 hex> <template> <field> <field>...\n", each field
 * as ima_ascii_measurements_show() in Linux 6.1 prints it, so the output
 * of a whole binary list equals the kernel's ascii list byte for byte.
 * Like snprintf(), the output is NUL-terminated and cut to fit.
 *
 * Return: the length of the full line, excluding the NUL.
 */
size_t ima_ascii_format(const struct ima_record *rec, char *out, size_t outsz);

#endif /* IMATRUST_IMA_ASCII_H */
