// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_result_keys.c - the rotation of the result signing key: the old
 * key's public half kept as the previous key (a key that cannot sign),
 * a new key made 0600; a running verifier's keys following rotations of
 * their file (signing with the new key, the JWK Set the current and the
 * previous key, the oldest gone after a second rotation, one key while
 * both files hold the same); files root rotates stay their owner's; the scheduled rotation only once the key
 * file is old enough, also when a second verifier is due at once.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "file.h"
#include "result_keys.h"

#define WHY 512
#define NOBODY 65534 /* a user the files are given to when we are root */

struct dir {
	char path[256];
	char key[300];
	char prev[310];
	char lock[310];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));
	const char *tmp = getenv("TMPDIR");

	snprintf(d->path, sizeof(d->path), "%s/imatrust-rkeys-XXXXXX",
		 tmp != NULL && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(d->path));
	snprintf(d->key, sizeof(d->key), "%s/result-key.pem", d->path);
	snprintf(d->prev, sizeof(d->prev), "%s" RESULT_KEY_PREV_SUFFIX, d->key);
	snprintf(d->lock, sizeof(d->lock), "%s" RESULT_KEY_LOCK_SUFFIX, d->key);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	unlink(d->key);
	unlink(d->prev);
	unlink(d->lock);
	rmdir(d->path);
	free(d);
	return 0;
}

/* The kid of the key in @path, made when absent. */
static void kid_of(const char *path, char kid[RESULT_KID_MAX])
{
	char why[WHY];
	struct result_key *k;
	int created;

	k = result_key_load(path, &created, why, sizeof(why));
	assert_non_null(k);
	snprintf(kid, RESULT_KID_MAX, "%s", k->kid);
	result_key_free(k);
}

/* The file's modification time @age seconds before @now. */
static void age(const char *path, int64_t now, int64_t secs)
{
	struct timespec ts[2] = { { .tv_sec = (time_t)(now - secs) },
				  { .tv_sec = (time_t)(now - secs) } };

	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* The kids of the JWK Set of @ks, joined by ' '. */
static void jwks_kids(struct result_keys *ks, int64_t now, char *out, size_t n)
{
	json_t *jwks = result_keys_jwks(ks, now), *k;
	size_t i;

	assert_non_null(jwks);
	out[0] = '\0';
	json_array_foreach(json_object_get(jwks, "keys"), i, k) {
		if (i > 0)
			strncat(out, " ", n - strlen(out) - 1);
		strncat(out, json_string_value(json_object_get(k, "kid")),
			n - strlen(out) - 1);
	}
	json_decref(jwks);
}

static void test_rotate_files(void **state)
{
	struct dir *d = *state;
	char why[WHY], k0[RESULT_KID_MAX], k1[RESULT_KID_MAX];
	uid_t owner = geteuid() == 0 ? NOBODY : geteuid();
	uint8_t sig[RESULT_SIG_LEN];
	struct result_key *prev;
	struct stat st;
	char *text;
	size_t len;
	int absent;

	assert_int_equal(result_key_rotate(d->key, 0, 1000, k1, why,
					   sizeof(why)),
			 -1); /* no key yet: nothing to rotate */
	assert_non_null(strstr(why, d->key));
	kid_of(d->key, k0);
	/* root rotates the key of a verifier that runs as another user */
	if (owner != geteuid())
		assert_int_equal(chown(d->key, owner, owner), 0);
	assert_int_equal(result_key_rotate(d->key, 0, 1000, k1, why,
					   sizeof(why)),
			 1);
	assert_string_not_equal(k0, k1);
	kid_of(d->key, why);
	assert_string_equal(why, k1);
	assert_int_equal(stat(d->key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_uid, owner);
	assert_int_equal(stat(d->prev, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_uid, owner);
	/* the lock: one the verifier's user may take as well */
	assert_int_equal(stat(d->lock, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* the previous key: the old one's public half, and nothing else */
	text = file_read(d->prev, 16384, &len, why, sizeof(why));
	assert_non_null(text);
	assert_non_null(strstr(text, "BEGIN PUBLIC KEY"));
	assert_null(strstr(text, "PRIVATE"));
	free(text);
	prev = result_key_load_public(d->prev, &absent, why, sizeof(why));
	assert_non_null(prev);
	assert_string_equal(prev->kid, k0);
	assert_int_equal(result_key_sign(prev, "x", 1, sig), -1);
	result_key_free(prev);
	unlink(d->prev);
	assert_null(result_key_load_public(d->prev, &absent, why, sizeof(why)));
	assert_int_equal(absent, 1);
}

static void test_running_follows(void **state)
{
	struct dir *d = *state;
	char why[WHY], kids[3 * RESULT_KID_MAX], want[3 * RESULT_KID_MAX];
	char k0[RESULT_KID_MAX], k1[RESULT_KID_MAX], k2[RESULT_KID_MAX];
	struct result_keys *ks;
	int created;

	ks = result_keys_open(d->key, 0, &created, why, sizeof(why));
	assert_non_null(ks);
	assert_int_equal(created, 1);
	snprintf(k0, sizeof(k0), "%s", result_keys_hold(ks, 1000)->kid);
	result_keys_release(ks);
	jwks_kids(ks, 1000, kids, sizeof(kids));
	assert_string_equal(kids, k0);

	assert_int_equal(result_key_rotate(d->key, 0, 1000, k1, why,
					   sizeof(why)),
			 1);
	assert_string_equal(result_keys_hold(ks, 1000)->kid, k1);
	result_keys_release(ks);
	jwks_kids(ks, 1000, kids, sizeof(kids));
	snprintf(want, sizeof(want), "%s %s", k1, k0);
	assert_string_equal(kids, want);

	assert_int_equal(result_key_rotate(d->key, 0, 1000, k2, why,
					   sizeof(why)),
			 1);
	jwks_kids(ks, 1000, kids, sizeof(kids));
	snprintf(want, sizeof(want), "%s %s", k2, k1);
	assert_string_equal(kids, want);
	assert_string_equal(result_keys_hold(ks, 1000)->kid, k2);
	result_keys_release(ks);
	result_keys_close(ks);
}

static void test_mid_rotation_one_key(void **state)
{
	struct dir *d = *state;
	char why[WHY], kids[3 * RESULT_KID_MAX], k0[RESULT_KID_MAX];
	struct result_keys *ks;
	struct result_key *k;
	int created;

	ks = result_keys_open(d->key, 0, &created, why, sizeof(why));
	assert_non_null(ks);
	kid_of(d->key, k0);
	/* a rotation stopped after its first step: both files hold k0 */
	k = result_key_load(d->key, &created, why, sizeof(why));
	assert_non_null(k);
	assert_int_equal(result_key_save_public(k, d->prev, NULL, why,
						sizeof(why)),
			 0);
	result_key_free(k);
	jwks_kids(ks, 1000, kids, sizeof(kids));
	assert_string_equal(kids, k0);
	result_keys_close(ks);
}

static void test_scheduled(void **state)
{
	struct dir *d = *state;
	char why[WHY], kids[3 * RESULT_KID_MAX], want[3 * RESULT_KID_MAX];
	char k0[RESULT_KID_MAX], k1[RESULT_KID_MAX];
	int64_t now = (int64_t)time(NULL);
	struct result_keys *ks, *other;
	int created;

	ks = result_keys_open(d->key, 100, &created, why, sizeof(why));
	assert_non_null(ks);
	kid_of(d->key, k0);
	age(d->key, now, 50);
	assert_string_equal(result_keys_hold(ks, now)->kid, k0);
	result_keys_release(ks);
	assert_int_equal(access(d->prev, F_OK), -1);
	/* not yet old enough for the rotation of a second verifier either */
	assert_int_equal(result_key_rotate(d->key, 100, now, k1, why,
					   sizeof(why)),
			 0);
	assert_string_equal(k1, k0);

	age(d->key, now, 100);
	other = result_keys_open(d->key, 100, &created, why, sizeof(why));
	assert_non_null(other);
	snprintf(k1, sizeof(k1), "%s", result_keys_hold(ks, now)->kid);
	result_keys_release(ks);
	assert_string_not_equal(k1, k0);
	/* the second verifier due at once follows, and rotates no more */
	assert_string_equal(result_keys_hold(other, now)->kid, k1);
	result_keys_release(other);
	jwks_kids(other, now, kids, sizeof(kids));
	snprintf(want, sizeof(want), "%s %s", k1, k0);
	assert_string_equal(kids, want);
	result_keys_close(other);
	result_keys_close(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rotate_files, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_running_follows, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mid_rotation_one_key,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_scheduled, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
