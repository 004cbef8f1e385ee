// SPDX-License-Identifier: GPL-2.0-only
/*
 * list_export.c - delete stored measurement records from kernel memory
 * (see list_export.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "file.h"
#include "hex.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "ima_verify.h"
#include "list_export.h"

#define READ_CHUNK (256 * 1024)

/* ---- export.state ------------------------------------------------------ */

static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0 || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' ||
		    v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static int parse_pcr(const struct hash_algo *bank, const char *s, size_t len,
		     uint8_t *out)
{
	return len == 2 * bank->size &&
			       hex_decode(s, len, out, HASH_ALGO_MAX_SIZE) ==
				       (long)bank->size ?
		       0 :
		       -1;
}

int list_export_state_parse(struct list_export *x, const char *text, size_t len)
{
	const char *line = text, *end = text + len, *nl, *val;
	size_t klen, vlen;
	int rc;

	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		val = memchr(line, ' ', (size_t)(nl - line));
		if (val == NULL)
			return -1;
		klen = (size_t)(val - line);
		val++;
		vlen = (size_t)(nl - val);
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(line, k, klen) == 0)
		if (KEY("boot_id")) {
			rc = vlen >= 1 && vlen <= LIST_EXPORT_BOOT_ID_MAX ? 0 :
									    -1;
			if (rc == 0)
				snprintf(x->boot_id, sizeof(x->boot_id), "%.*s",
					 (int)vlen, val);
		} else if (KEY("deleted")) {
			rc = parse_u64(val, vlen, &x->deleted);
		} else if (KEY("pcr")) {
			rc = parse_pcr(x->bank, val, vlen, x->pcr);
		} else if (KEY("staged")) {
			rc = parse_u64(val, vlen, &x->staged);
		} else if (KEY("staged_pcr")) {
			rc = parse_pcr(x->bank, val, vlen, x->staged_pcr);
		} else {
			rc = -1;
		}
#undef KEY
		if (rc < 0)
			return -1;
		line = nl + 1;
	}
	return 0;
}

int list_export_state_format(const struct list_export *x, uint64_t deleting,
			     char *buf, size_t size)
{
	char pcr[2 * HASH_ALGO_MAX_SIZE + 1], spcr[2 * HASH_ALGO_MAX_SIZE + 1];
	int n;

	hex_encode(x->pcr, x->bank->size, pcr);
	hex_encode(x->staged_pcr, x->bank->size, spcr);
	n = snprintf(buf, size,
		     "boot_id %s\ndeleted %" PRIu64 "\npcr %s\nstaged %" PRIu64
		     "\nstaged_pcr %s\n",
		     x->boot_id, x->deleted, pcr, deleting, spcr);
	return n < 0 || (size_t)n >= size ? -1 : n;
}

static int state_save(const struct list_export *x, uint64_t deleting, char *why,
		      size_t whylen)
{
	char text[LIST_EXPORT_STATE_MAX];
	int n = list_export_state_format(x, deleting, text, sizeof(text));

	if (n < 0) {
		snprintf(why, whylen, "%s: state too long", x->state_path);
		return -1;
	}
	return file_replace(x->state_path, text, (size_t)n, why, whylen);
}

/* Read export.state; a missing file or another boot's is a fresh start. */
static int state_load(struct list_export *x, const char *boot_id, char *why,
		      size_t whylen)
{
	char err[PATH_MAX + 64], *text;
	size_t len;

	text = file_read(x->state_path, LIST_EXPORT_STATE_MAX, &len, err,
			 sizeof(err));
	if (text == NULL && access(x->state_path, F_OK) < 0 && errno == ENOENT)
		return 0;
	if (text == NULL) {
		snprintf(why, whylen, "%s", err);
		return -1;
	}
	if (list_export_state_parse(x, text, len) < 0) {
		free(text);
		snprintf(why, whylen, "%s: malformed", x->state_path);
		return -1;
	}
	free(text);
	if (strcmp(x->boot_id, boot_id) != 0) {
		/* records of another boot: this boot deleted none yet */
		x->deleted = 0;
		x->staged = 0;
		memset(x->pcr, 0, sizeof(x->pcr));
		memset(x->staged_pcr, 0, sizeof(x->staged_pcr));
	}
	return 0;
}

/* ---- the staged list --------------------------------------------------- */

/*
 * Count the staged records and replay them into PCR 10 from x->pcr.
 * Return: 0 (@count, @pcr set), -1 (@why set).
 */
static int staged_count(const struct list_export *x, uint64_t *count,
			uint8_t *pcr, char *why, size_t whylen)
{
	struct ima_list_parser p;
	struct ima_replay *r = NULL;
	struct ima_record rec;
	struct imt_error err;
	size_t cap = READ_CHUNK + IMA_TEMPLATE_DATA_MAX, have = 0, off;
	uint8_t *buf = malloc(cap);
	enum imt_result rc;
	ssize_t n;
	int fd = -1, ret = -1, eof = 0;

	*count = 0;
	r = ima_replay_new(x->bank, &err);
	if (buf == NULL || r == NULL) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	ima_replay_set_pcr(r, IMA_MEASURE_PCR, x->pcr);
	ima_list_parser_init(&p, NULL);
	fd = open(x->staged_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", x->staged_path,
			 strerror(errno));
		goto out;
	}
	while (!eof || have > 0) {
		if (!eof && cap - have >= READ_CHUNK) {
			n = read(fd, buf + have, READ_CHUNK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				snprintf(why, whylen, "%s: %s", x->staged_path,
					 strerror(errno));
				goto out;
			}
			eof = n == 0;
			have += (size_t)n;
			continue;
		}
		for (off = 0; off < have; off += rec.size) {
			rc = ima_list_next(&p, buf + off, have - off, eof, &rec,
					   &err);
			if (rc == IMT_NEED_MORE)
				break;
			if (rc == IMT_OK)
				rc = ima_replay_extend(r, &rec, &err);
			if (rc != IMT_OK) {
				snprintf(why, whylen, "%s: %s", x->staged_path,
					 err.msg);
				goto out;
			}
			(*count)++;
		}
		memmove(buf, buf + off, have - off);
		have -= off;
		if (eof && have > 0) {
			snprintf(why, whylen, "%s: ends inside a record",
				 x->staged_path);
			goto out;
		}
	}
	memcpy(pcr, ima_replay_pcr(r, IMA_MEASURE_PCR), x->bank->size);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	ima_replay_free(r);
	free(buf);
	return ret;
}

/*
 * Write the one-line request @req (NULL: none, only open for writing) to
 * the staged file. Return: 0 or errno.
 */
static int staged_request(const struct list_export *x, const char *req)
{
	int fd, e = 0;

	fd = open(x->staged_path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno;
	if (req != NULL && write(fd, req, strlen(req)) < 0)
		e = errno;
	close(fd);
	return e;
}

/* ---- the exporter ------------------------------------------------------ */

int list_export_init(struct list_export *x, const char *list,
		     const char *state_dir, const char *boot_id,
		     const struct hash_algo *bank, char *why, size_t whylen)
{
	uint8_t pcr[HASH_ALGO_MAX_SIZE];
	uint64_t count, deleting;
	struct stat st;
	int e;

	memset(x, 0, sizeof(*x));
	x->bank = bank;
	if ((size_t)snprintf(x->list_path, sizeof(x->list_path), "%s", list) >=
		    sizeof(x->list_path) ||
	    (size_t)snprintf(x->staged_path, sizeof(x->staged_path),
			     "%s_staged", list) >= sizeof(x->staged_path) ||
	    (size_t)snprintf(x->state_path, sizeof(x->state_path),
			     "%s/export.state",
			     state_dir) >= sizeof(x->state_path) ||
	    strlen(boot_id) > LIST_EXPORT_BOOT_ID_MAX) {
		snprintf(why, whylen, "path or boot id too long");
		return -1;
	}
	if (stat(x->staged_path, &st) < 0) {
		e = errno;
		snprintf(why, whylen, "%s: %s%s", x->staged_path, strerror(e),
			 e == ENOENT ?
				 " (the kernel needs CONFIG_IMA_STAGING)" :
				 "");
		return e == ENOENT ? 1 : -1;
	}
	/* a writer gets in only while no reader is open: EBUSY says nothing */
	e = staged_request(x, NULL);
	if (e == EPERM || e == EACCES || e == EROFS) {
		snprintf(why, whylen,
			 "%s: %s (the agent needs CAP_SYS_ADMIN and /sys/kernel/security/ima writable: deploy/systemd/imatrust-agent-export.conf)",
			 x->staged_path, strerror(e));
		return 1;
	}
	if (state_load(x, boot_id, why, whylen) < 0)
		return -1;
	snprintf(x->boot_id, sizeof(x->boot_id), "%s", boot_id);
	deleting = x->staged;
	x->staged = 0;
	if (staged_count(x, &count, pcr, why, whylen) < 0)
		return -1;
	if (deleting > 0 && count == 0) {
		/* "D\n" went through before the agent stopped */
		x->deleted += deleting;
		memcpy(x->pcr, x->staged_pcr, bank->size);
		memcpy(pcr, x->pcr, bank->size);
	}
	x->staged = count;
	memcpy(x->staged_pcr, pcr, bank->size);
	return state_save(x, 0, why, whylen);
}

int list_export_stage(struct list_export *x, char *why, size_t whylen)
{
	int e = staged_request(x, "A\n");

	if (e == ENOENT)
		return 0; /* the list is empty */
	/* EEXIST: staged before (by us: only the agent stages) */
	if (e != 0 && e != EEXIST) {
		snprintf(why, whylen, "%s: staging: %s", x->staged_path,
			 strerror(e));
		return -1;
	}
	if (staged_count(x, &x->staged, x->staged_pcr, why, whylen) < 0) {
		x->staged = 0;
		return -1;
	}
	return x->staged > 0;
}

int list_export_delete(struct list_export *x, char *why, size_t whylen)
{
	int e;

	/* the count first: a crash after "D\n" must not lose it */
	if (state_save(x, x->staged, why, whylen) < 0)
		return -1;
	e = staged_request(x, "D\n");
	if (e != 0) {
		snprintf(why, whylen, "%s: deleting: %s", x->staged_path,
			 strerror(e));
		return -1;
	}
	x->deleted += x->staged;
	x->staged = 0;
	memcpy(x->pcr, x->staged_pcr, x->bank->size);
	return state_save(x, 0, why, whylen);
}
