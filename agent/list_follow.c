// SPDX-License-Identifier: GPL-2.0-only
/*
 * list_follow.c - follow a growing IMA measurement list.
 *
 * Buffer layout: buf[0, sent) holds records already handed out in the
 * last batch, buf[sent, parsed) whole records not yet handed out,
 * buf[parsed, len) bytes of a record still incomplete.
 *
 * With a staged file the list is that file's records followed by the
 * main file's: one byte stream for the parser, read from the staged file
 * until it returns 0 (it does not grow), then from the main file.
 */
#define _GNU_SOURCE /* ppoll() */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "list_follow.h"
#include "pages.h"

#define READ_CHUNK (64 * 1024)
/* Room for a full batch plus the largest record the parser accepts. */
#define BUF_MAX (LIST_FOLLOW_BATCH_MAX + IMA_TEMPLATE_DATA_MAX + 4096)

struct list_follow {
	int fd;
	int staged_fd; /* -1: none */
	int in_staged; /* reads come from staged_fd */
	size_t base;   /* index of the first record of the stream */
	list_follow_observer observe; /* sees every record parsed */
	void *observe_arg;
	struct ima_list_parser parser; /* positioned at buf[parsed] */
	size_t skip_to;		       /* drop records below this index */
	size_t position;	       /* index of buf[sent]'s first record */
	size_t pending;		       /* whole records in buf[sent, parsed) */
	uint8_t *buf;
	size_t sent, parsed, len;
	size_t dirty; /* buf[0, dirty) may have been written since the
		       * last pages_release() */
};

static int open_list(const char *path, struct imt_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "%s: %s", path, strerror(errno));
	return fd;
}

/* Start the stream over at its first record, @base. */
static void restart(struct list_follow *f)
{
	ima_list_parser_init(&f->parser, f->parser.custom);
	f->parser.next_index = f->base;
	f->in_staged = f->staged_fd >= 0;
	f->sent = f->parsed = f->len = 0;
	f->pending = 0;
	f->position = f->base;
	f->skip_to = f->base;
}

struct list_follow *list_follow_open_at(const char *path, const char *staged,
					size_t base,
					const struct ima_template_set *custom,
					struct imt_error *err)
{
	struct list_follow *f = calloc(1, sizeof(*f));

	if (f == NULL || (f->buf = malloc(BUF_MAX)) == NULL) {
		free(f);
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return NULL;
	}
	f->staged_fd = -1;
	f->fd = open_list(path, err);
	if (f->fd >= 0 && staged != NULL) {
		f->staged_fd = open_list(staged, err);
		if (f->staged_fd < 0) {
			close(f->fd);
			f->fd = -1;
		}
	}
	if (f->fd < 0) {
		free(f->buf);
		free(f);
		return NULL;
	}
	f->base = base;
	f->parser.custom = custom;
	restart(f);
	return f;
}

struct list_follow *list_follow_open(const char *path,
				     const struct ima_template_set *custom,
				     struct imt_error *err)
{
	return list_follow_open_at(path, NULL, 0, custom, err);
}

void list_follow_close(struct list_follow *f)
{
	if (f == NULL)
		return;
	if (f->staged_fd >= 0)
		close(f->staged_fd);
	close(f->fd);
	free(f->buf);
	free(f);
}

/* Drop the handed-out bytes so reads can append. */
static void compact(struct list_follow *f)
{
	memmove(f->buf, f->buf + f->sent, f->len - f->sent);
	f->len -= f->sent;
	f->parsed -= f->sent;
	f->sent = 0;
}

/* Parse whole records in buf[parsed, len); skipped ones are cut out. */
static enum imt_result parse_available(struct list_follow *f,
				       struct imt_error *err)
{
	struct ima_record rec;
	enum imt_result rc;

	while (f->parsed < f->len &&
	       f->parsed - f->sent < LIST_FOLLOW_BATCH_MAX) {
		rc = ima_list_next(&f->parser, f->buf + f->parsed,
				   f->len - f->parsed, 0, &rec, err);
		if (rc == IMT_NEED_MORE)
			return IMT_OK;
		if (rc != IMT_OK)
			return rc;
		if (f->observe != NULL)
			f->observe(f->observe_arg, &rec);
		if (rec.index < f->skip_to) {
			memmove(f->buf + f->parsed,
				f->buf + f->parsed + rec.size,
				f->len - f->parsed - rec.size);
			f->len -= rec.size;
			f->position = rec.index + 1;
			continue;
		}
		f->parsed += rec.size;
		f->pending++;
	}
	return IMT_OK;
}

enum imt_result list_follow_next(struct list_follow *f,
				 struct list_batch *batch,
				 struct imt_error *err)
{
	enum imt_result rc;
	ssize_t n = 1; /* > 0: not at the list's end */

	compact(f);
	for (;;) {
		rc = parse_available(f, err);
		if (rc != IMT_OK)
			return rc;
		if (f->parsed >= LIST_FOLLOW_BATCH_MAX ||
		    BUF_MAX - f->len < READ_CHUNK)
			break;
		n = read(f->in_staged ? f->staged_fd : f->fd, f->buf + f->len,
			 READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
					     IMT_NO_POS, "read: %s",
					     strerror(errno));
		if (n == 0 && f->in_staged) {
			/* the staged records end on a record boundary */
			if (f->parsed != f->len)
				return imt_error_set(err, IMT_ERR_MALFORMED,
						     f->parser.next_index,
						     IMT_NO_POS,
						     "staged records end inside record %zu",
						     f->parser.next_index);
			f->in_staged = 0;
			continue;
		}
		if (n == 0)
			break;
		f->len += (size_t)n;
		if (f->len > f->dirty)
			f->dirty = f->len;
	}
	if (n <= 0) {
		/* at the list's end: what a catch-up filled goes back */
		pages_trim(f->buf, f->len, &f->dirty);
	}
	batch->first = f->position;
	batch->count = f->pending;
	batch->bytes = f->buf;
	batch->len = f->parsed;
	f->position += f->pending;
	f->pending = 0;
	f->sent = f->parsed;
	return IMT_OK;
}

enum imt_result list_follow_rewind(struct list_follow *f, size_t index,
				   struct imt_error *err)
{
	/*
	 * Reread from the head: the list is append-only, so this is the
	 * only way back, and with the kernel's resume cache cheap going
	 * forward again. After records were deleted, offset 0 of a list
	 * file lands on the first record left, @base.
	 */
	if (lseek(f->fd, 0, SEEK_SET) < 0 ||
	    (f->staged_fd >= 0 && lseek(f->staged_fd, 0, SEEK_SET) < 0))
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "lseek: %s", strerror(errno));
	restart(f);
	if (index > f->base)
		f->skip_to = index;
	return IMT_OK;
}

int list_follow_wait(struct list_follow *f, int timeout_ms)
{
	int n;

	do {
		n = list_follow_wait_signals(f, timeout_ms, NULL);
	} while (n < 0 && errno == EINTR);
	return n;
}

int list_follow_wait_signals(struct list_follow *f, int timeout_ms,
			     const sigset_t *sigmask)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLPRI };
	struct timespec ts, *tsp = NULL;
	int n;

	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	n = ppoll(&pfd, 1, tsp, sigmask);
	if (n <= 0)
		return n;
	return (pfd.revents & POLLPRI) ? 1 : 0;
}

int list_follow_pollable(const struct list_follow *f)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN | POLLOUT };

	if (poll(&pfd, 1, 0) < 0)
		return 0;
	return !(pfd.revents & POLLOUT);
}

size_t list_follow_position(const struct list_follow *f)
{
	return f->position;
}

size_t list_follow_base(const struct list_follow *f)
{
	return f->base;
}

void list_follow_observe(struct list_follow *f, list_follow_observer fn,
			 void *arg)
{
	f->observe = fn;
	f->observe_arg = arg;
}
