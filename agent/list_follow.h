/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list_follow.h - follow a growing IMA measurement list.
 *
 * The agent keeps the list file open, hands out the raw bytes of the
 * records it has not sent yet, and sleeps in poll() until the kernel adds
 * more (EPOLLPRI with imatrust's kernel patch; with a stock kernel poll
 * never reports it and the timeout acts as the fallback timer). A record
 * cut by a read stays buffered until it is complete.
 */
#ifndef IMATRUST_LIST_FOLLOW_H
#define IMATRUST_LIST_FOLLOW_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include "ima_list.h"
#include "result.h"

#define LIST_FOLLOW_BATCH_MAX (4u << 20) /* bytes of records per batch */

/* Records [first, first + count) of the list, as the kernel wrote them. */
struct list_batch {
	size_t first;
	size_t count;
	const uint8_t *bytes; /* borrowed from the follower */
	size_t len;
};

struct list_follow;

typedef void (*list_follow_observer)(void *arg, const struct ima_record *rec);

/**
 * list_follow_open() - open the list at @path for following.
 * @path: binary_runtime_measurements (or a per-bank list, or a file)
 * @custom: extra templates, or NULL (borrowed)
 * @err: filled on failure
 *
 * Return: the follower (close with list_follow_close()), or NULL.
 */
struct list_follow *list_follow_open(const char *path,
				     const struct ima_template_set *custom,
				     struct imt_error *err);

/**
 * list_follow_open_at() - follow a list whose head was deleted or staged.
 * @path: the list file
 * @staged: its _staged file, read before @path, or NULL (borrowed)
 * @base: the index of the first record @staged (or @path without it)
 *	  shows: how many records this boot's kernel has deleted
 * @custom: extra templates, or NULL (borrowed)
 * @err: filled on failure
 *
 * Records are numbered from @base; list_follow_open() is this with no
 * staged file and @base 0.
 *
 * Return: the follower, or NULL.
 */
struct list_follow *list_follow_open_at(const char *path, const char *staged,
					size_t base,
					const struct ima_template_set *custom,
					struct imt_error *err);

/**
 * list_follow_close() - close @f; NULL is allowed.
 * @f: the follower
 */
void list_follow_close(struct list_follow *f);

/**
 * list_follow_next() - the next complete records not yet handed out.
 * @f: the follower
 * @batch: receives up to LIST_FOLLOW_BATCH_MAX bytes of whole records,
 *	   starting at the follower's position; count 0 when none are new
 * @err: filled on failure
 *
 * Reads whatever the kernel has added. The batch stays valid until the
 * next call; the records in it count as handed out.
 *
 * Return: IMT_OK, IMT_ERR_MALFORMED (the list itself is corrupt: the
 * error names record and offset), or IMT_ERR_INTERNAL on a read error.
 */
enum imt_result list_follow_next(struct list_follow *f,
				 struct list_batch *batch,
				 struct imt_error *err);

/**
 * list_follow_rewind() - make the next batch start at record @index.
 * @f: the follower
 * @index: a record index, below or above the current position (the
 *	   verifier asks for the index it needs after a restart); below
 *	   list_follow_base() the next batch starts at the base
 * @err: filled on failure
 *
 * Return: IMT_OK, or the error of re-reading the list.
 */
enum imt_result list_follow_rewind(struct list_follow *f, size_t index,
				   struct imt_error *err);

/**
 * list_follow_wait() - sleep until the list may have grown.
 * @f: the follower
 * @timeout_ms: the longest sleep; the fallback timer on stock kernels
 *
 * Return: 1 when the kernel signalled new records, 0 on timeout, -1 on
 * error (errno set).
 */
int list_follow_wait(struct list_follow *f, int timeout_ms);

/**
 * list_follow_wait_signals() - list_follow_wait() that signals can end.
 * @f: the follower
 * @timeout_ms: the longest sleep
 * @sigmask: the signal mask while sleeping (ppoll()), so a daemon that
 *	     keeps SIGTERM blocked elsewhere gets it only here; NULL keeps
 *	     the current mask
 *
 * Return: 1 when the kernel signalled new records, 0 on timeout, -1 with
 * errno EINTR when a signal arrived, -1 on other errors.
 */
int list_follow_wait_signals(struct list_follow *f, int timeout_ms,
			     const sigset_t *sigmask);

/**
 * list_follow_pollable() - does the list report new records to poll()?
 * @f: the follower
 *
 * imatrust's kernel patch gives the list files a ->poll() that never sets
 * POLLOUT; a file without ->poll() (a stock kernel's list, a regular file)
 * reports the default mask, POLLOUT included, at once.
 *
 * Return: 1 when list_follow_wait() wakes up for new records, 0 when only
 * its timeout does.
 */
int list_follow_pollable(const struct list_follow *f);

/**
 * list_follow_position() - index of the next record to hand out.
 * @f: the follower
 */
size_t list_follow_position(const struct list_follow *f);

/**
 * list_follow_observe() - call @fn for every record @f parses.
 * @f: the follower
 * @fn: called in list order with each record parsed, those skipped on
 *	the way to a rewind's index included, and again with the same
 *	indexes after a rewind back; NULL: none
 * @arg: passed to @fn
 */
void list_follow_observe(struct list_follow *f, list_follow_observer fn,
			 void *arg);

/**
 * list_follow_base() - index of the first record the follower can read.
 * @f: the follower
 */
size_t list_follow_base(const struct list_follow *f);

#endif /* IMATRUST_LIST_FOLLOW_H */
