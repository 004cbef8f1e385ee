// SPDX-License-Identifier: GPL-2.0-only
/*
 * result_keys.c - the result signing key and the one before it: the
 * rotation of the files, and their reading again by a running verifier.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "result_keys.h"

#define WHY_MAX (PATH_MAX + 256)
#define RETRY_AFTER 60 /* seconds after a failed scheduled rotation */

/* What tells one version of a file from another. */
struct file_id {
	int present;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtim;
};

struct result_keys {
	pthread_mutex_t lock;
	char path[PATH_MAX];
	char prev_path[PATH_MAX];
	int64_t rotate_every;
	int64_t retry_at;	 /* no scheduled rotation before */
	struct result_key *cur;	 /* signs */
	struct result_key *prev; /* public half only, or NULL */
	struct file_id cur_id, prev_id;
};

/* @path with @suffix into @out; -1 with @why when it does not fit. */
static int side_path(const char *path, const char *suffix, char *out, size_t n,
		     char *why, size_t whylen)
{
	int len = snprintf(out, n, "%s%s", path, suffix);

	if (len < 0 || (size_t)len >= n) {
		snprintf(why, whylen, "%s: path too long", path);
		return -1;
	}
	return 0;
}

static void file_id_of(const char *path, struct file_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (stat(path, &st) < 0)
		return;
	id->present = 1;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->mtim = st.st_mtim;
}

static int same_id(const struct file_id *a, const struct file_id *b)
{
	return a->present == b->present && a->dev == b->dev &&
	       a->ino == b->ino && a->size == b->size &&
	       a->mtim.tv_sec == b->mtim.tv_sec &&
	       a->mtim.tv_nsec == b->mtim.tv_nsec;
}

/* The old key's public half to @prev, then a new key at @path. */
static int rotate_locked(const char *path, const char *prev, int64_t min_age,
			 int64_t now, char kid[RESULT_KID_MAX], char *why,
			 size_t whylen)
{
	struct result_key *old, *k = NULL;
	struct stat st;
	int created, rc = -1;

	if (stat(path, &st) < 0) {
		snprintf(why, whylen, "%s: %s (no key to rotate)", path,
			 strerror(errno));
		return -1;
	}
	old = result_key_load(path, &created, why, whylen);
	if (old == NULL)
		return -1;
	snprintf(kid, RESULT_KID_MAX, "%s", old->kid);
	if (min_age > 0 && now - (int64_t)st.st_mtime < min_age) {
		rc = 0; /* another verifier rotated it first */
	} else if (result_key_save_public(old, prev, &st, why, whylen) == 0) {
		/* the key file's owner keeps both: root rotating the key of
		 * a verifier that runs as its own user */
		k = result_key_create(path, &st, why, whylen);
		rc = k != NULL ? 1 : -1;
	}
	if (k != NULL)
		snprintf(kid, RESULT_KID_MAX, "%s", k->kid);
	result_key_free(k);
	result_key_free(old);
	return rc;
}

int result_key_rotate(const char *path, int64_t min_age, int64_t now,
		      char kid[RESULT_KID_MAX], char *why, size_t whylen)
{
	char lock[PATH_MAX], prev[PATH_MAX];
	int fd, rc;

	if (side_path(path, RESULT_KEY_LOCK_SUFFIX, lock, sizeof(lock), why,
		      whylen) < 0 ||
	    side_path(path, RESULT_KEY_PREV_SUFFIX, prev, sizeof(prev), why,
		      whylen) < 0)
		return -1;
	/* read-only, 0644: whoever rotates first, the other may lock too */
	fd = open(lock, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		snprintf(why, whylen, "%s: %s", lock, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rc = rotate_locked(path, prev, min_age, now, kid, why, whylen);
	close(fd); /* and the lock with it */
	return rc;
}

/* Read the current key again when its file changed; keep it on failure. */
static void reload_current(struct result_keys *ks)
{
	char why[WHY_MAX];
	struct result_key *k;
	struct file_id id;
	int created;

	file_id_of(ks->path, &id);
	if (!id.present || same_id(&id, &ks->cur_id))
		return;
	ks->cur_id = id; /* one warning for a bad file, not one a request */
	k = result_key_load(ks->path, &created, why, sizeof(why));
	if (k == NULL) {
		log_warnx("result key: %s (signing with kid %s still)", why,
			  ks->cur->kid);
		return;
	}
	if (strcmp(k->kid, ks->cur->kid) != 0)
		log_info("result key %s: now signing with kid %s", ks->path,
			 k->kid);
	result_key_free(ks->cur);
	ks->cur = k;
}

/* Read the previous key again when its file changed, came or went. */
static void reload_previous(struct result_keys *ks)
{
	char why[WHY_MAX];
	struct result_key *k;
	struct file_id id;
	int absent;

	file_id_of(ks->prev_path, &id);
	if (same_id(&id, &ks->prev_id))
		return;
	ks->prev_id = id;
	k = result_key_load_public(ks->prev_path, &absent, why, sizeof(why));
	if (k == NULL && !absent) {
		log_warnx("result key: %s", why);
		return;
	}
	result_key_free(ks->prev);
	ks->prev = k;
}

/* Both files read again when they changed. */
static void reload(struct result_keys *ks)
{
	if (ks->path[0] == '\0')
		return; /* result_keys_of(): no file */
	/* the previous first: a rotation writes it before the current */
	reload_previous(ks);
	reload_current(ks);
}

/* A scheduled rotation when the current key file is old enough. */
static void rotate_due(struct result_keys *ks, int64_t now)
{
	char why[WHY_MAX], kid[RESULT_KID_MAX];
	int rc;

	if (ks->rotate_every <= 0 || now < ks->retry_at ||
	    now - (int64_t)ks->cur_id.mtim.tv_sec < ks->rotate_every)
		return;
	rc = result_key_rotate(ks->path, ks->rotate_every, now, kid, why,
			       sizeof(why));
	if (rc < 0) {
		log_warnx("result key rotation: %s", why);
		ks->retry_at = now + RETRY_AFTER;
	} else if (rc > 0) {
		log_info("result key %s: rotated (result_key_rotate)",
			 ks->path);
	}
	reload(ks);
}

struct result_keys *result_keys_open(const char *path, int64_t rotate_every,
				     int *created, char *why, size_t whylen)
{
	struct result_keys *ks = calloc(1, sizeof(*ks));

	if (ks == NULL) {
		snprintf(why, whylen, "%s: out of memory", path);
		return NULL;
	}
	if (side_path(path, "", ks->path, sizeof(ks->path), why, whylen) < 0 ||
	    side_path(path, RESULT_KEY_PREV_SUFFIX, ks->prev_path,
		      sizeof(ks->prev_path), why, whylen) < 0)
		goto fail;
	ks->cur = result_key_load(path, created, why, whylen);
	if (ks->cur == NULL)
		goto fail;
	file_id_of(ks->path, &ks->cur_id);
	ks->rotate_every = rotate_every;
	reload_previous(ks);
	pthread_mutex_init(&ks->lock, NULL);
	return ks;
fail:
	free(ks);
	return NULL;
}

struct result_keys *result_keys_of(struct result_key *k)
{
	struct result_keys *ks = k != NULL ? calloc(1, sizeof(*ks)) : NULL;

	if (ks == NULL) {
		result_key_free(k);
		return NULL;
	}
	ks->cur = k;
	pthread_mutex_init(&ks->lock, NULL);
	return ks;
}

void result_keys_close(struct result_keys *ks)
{
	if (ks == NULL)
		return;
	result_key_free(ks->cur);
	result_key_free(ks->prev);
	pthread_mutex_destroy(&ks->lock);
	free(ks);
}

const struct result_key *result_keys_hold(struct result_keys *ks, int64_t now)
{
	pthread_mutex_lock(&ks->lock);
	reload(ks);
	rotate_due(ks, now);
	return ks->cur;
}

void result_keys_release(struct result_keys *ks)
{
	pthread_mutex_unlock(&ks->lock);
}

json_t *result_keys_jwks(struct result_keys *ks, int64_t now)
{
	const struct result_key *cur = result_keys_hold(ks, now);
	json_t *keys = json_array();

	if (keys != NULL) {
		json_array_append_new(keys, result_key_jwk(cur));
		/* mid-rotation both files may hold the same key */
		if (ks->prev != NULL && strcmp(ks->prev->kid, cur->kid) != 0)
			json_array_append_new(keys, result_key_jwk(ks->prev));
	}
	result_keys_release(ks);
	return keys == NULL ? NULL : json_pack("{s:o}", "keys", keys);
}
