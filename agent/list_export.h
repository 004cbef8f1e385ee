/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list_export.h - delete measurement records the verifier has stored from
 * kernel memory, through the kernel's staging interface (CONFIG_IMA_STAGING,
 * kernel/README.md "Exporting and deleting records").
 *
 * One export is two writes to the list's _staged file, with the verifier
 * in between:
 *
 *   stage:  "A\n" moves every record of the list to the staged list (the
 *           list starts again empty); the staged records stay readable, so
 *           those the agent had not sent yet are sent from there;
 *   delete: "D\n" frees them, once a verdict says the verifier has stored
 *           every one of them durably.
 *
 * The kernel does not say how many records it deleted before; the agent
 * keeps that count, with PCR 10's value after them, in
 * <state_dir>/export.state (file_replace(): synced). A crash cannot make
 * the count wrong: the count is written before "D\n" together with the
 * number of staged records ("deleting"), and at the next start an empty
 * staged list means the delete happened, a non-empty one that it did not.
 * Staging changes no index, so it needs no record.
 *
 * The agent must be the only process that stages or deletes.
 */
#ifndef IMATRUST_AGENT_LIST_EXPORT_H
#define IMATRUST_AGENT_LIST_EXPORT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"

#define LIST_EXPORT_BOOT_ID_MAX 64
#define LIST_EXPORT_STATE_MAX 1024 /* bytes of export.state */

struct list_export {
	char list_path[PATH_MAX];   /* the binary list file */
	char staged_path[PATH_MAX]; /* its _staged file */
	char state_path[PATH_MAX];  /* <state_dir>/export.state */
	char boot_id[LIST_EXPORT_BOOT_ID_MAX + 1];
	const struct hash_algo *bank; /* of the PCR values kept */
	uint64_t deleted; /* records of this boot the kernel deleted:
				 * the index of the first one it holds */
	uint8_t pcr[HASH_ALGO_MAX_SIZE]; /* PCR 10 after them */
	uint64_t staged; /* records in the staged list, 0: none */
	uint8_t staged_pcr[HASH_ALGO_MAX_SIZE]; /* PCR 10 after those */
};

/**
 * list_export_init() - find the staging interface and the state this boot.
 * @x: filled
 * @list: the binary measurement list file the agent follows
 * @state_dir: the agent's state directory
 * @boot_id: this boot's id (the agent's is the TPM's resetCount, which a
 *	     kexec keeps, as it keeps the list): a state file of another
 *	     boot is forgotten
 * @bank: the bank the agent quotes
 * @why: receives the reason on a return other than 0
 * @whylen: size of @why
 *
 * Reads export.state, finishes a delete that a crash interrupted (see
 * above) and counts the staged records.
 *
 * Return: 0; 1 when records cannot be exported (@why says why: no _staged
 * file, as on a stock kernel or with CONFIG_IMA_STAGING off, or no right
 * to write it); -1 on an error (unreadable or malformed state, staged
 * list unreadable).
 */
int list_export_init(struct list_export *x, const char *list,
		     const char *state_dir, const char *boot_id,
		     const struct hash_algo *bank, char *why, size_t whylen);

/**
 * list_export_stage() - move every record of the list to the staged list.
 * @x: the exporter; @x->staged must be 0
 * @why: receives the reason on -1
 * @whylen: size of @why
 *
 * The caller must have closed its own read-only opens of the list files
 * (the kernel lets a writer in only when no reader is open).
 *
 * Return: 1 when records are staged (@x->staged set), 0 when the list was
 * empty, -1 on an error (EBUSY: another process has a list file open).
 */
int list_export_stage(struct list_export *x, char *why, size_t whylen);

/**
 * list_export_delete() - free the staged records.
 * @x: the exporter; @x->staged > 0
 * @why: receives the reason on -1
 * @whylen: size of @why
 *
 * Call only when the verifier has stored records up to
 * @x->deleted + @x->staged durably. The caller's reads must be closed, as
 * for list_export_stage().
 *
 * Return: 0 (@x->deleted advanced, @x->staged 0), or -1 (nothing deleted,
 * or the state file could not be written after the delete: then the next
 * list_export_init() finds it out).
 */
int list_export_delete(struct list_export *x, char *why, size_t whylen);

/**
 * list_export_state_parse() - read export.state's text.
 * @x: receives boot_id, deleted, pcr, staged (the records being deleted
 *     when it was written, 0: none) and staged_pcr; @x->bank must be set
 * @text: the file's contents (need not be NUL-terminated)
 * @len: its length
 *
 * Return: 0, or -1 when a line is unknown or malformed or a digest is not
 * of @x->bank's size.
 */
int list_export_state_parse(struct list_export *x, const char *text,
			    size_t len);

/**
 * list_export_state_format() - export.state's text for @x.
 * @x: the exporter
 * @deleting: records being deleted now (the "staged" line), 0: none
 * @buf: receives the NUL-terminated text
 * @size: size of @buf (LIST_EXPORT_STATE_MAX is enough)
 *
 * Return: the text's length, or -1 when it does not fit.
 */
int list_export_state_format(const struct list_export *x, uint64_t deleting,
			     char *buf, size_t size);

#endif /* IMATRUST_AGENT_LIST_EXPORT_H */
