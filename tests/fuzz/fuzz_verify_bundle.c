// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_verify_bundle.c - libFuzzer target: POST /v1/verify from its body,
 * as route_verify() handles it: wire_decode(WIRE_BUNDLE), then
 * engine_verify() of a verifier running in this process.
 *
 * The verifier is made once: a database with one enrolled, activated
 * machine "m" whose AK is the real swtpm AK of tests/fixtures/tpm/
 * (ak-ecc.pub), so seeds made of that fixture's quote reach the checks
 * past the signature, with a given "ak_pub" or with "machine": "m".
 * Oracles: no answer is a storage or internal error (5xx), a verdict is
 * trusted, untrusted or failed, and the database is never written: its
 * write-ahead log, emptied after the setup, stays empty.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ak_cache.h"
#include "engine.h"
#include "db.h"
#include "db_machine.h"
#include "fz_db.h"
#include "fz_fixture.h"
#include "keyring.h"
#include "log.h"
#include "policies.h"
#include "tpm_public.h"
#include "verifier.h"
#include "wire.h"
#include "routes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NOW 1700000000

static struct verifier v;
static char db_path[128];

static void remove_database(void)
{
	fz_db_remove(db_path);
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "fuzz_verify_bundle: %s (%s)\n", what, why);
	remove_database();
	abort();
}

/* The enrolled machine "m" under the fixture's AK. */
static void enroll(void)
{
	struct fz_blob ak = fz_fixture("tpm/ak-ecc.pub");
	uint8_t name[TPM_NAME_MAX], fpr[DB_FPR_SIZE] = { 1 };
	struct db_machine_new m = { 0 };
	struct imt_error err;
	size_t name_len = 0;
	TPMT_PUBLIC t;

	if (tpm_public_parse(ak.data, ak.len, &t, &err) != IMT_OK ||
	    tpm_public_name(&t, name, &name_len, &err) != IMT_OK)
		die("the fixture AK", err.msg);
	m = (struct db_machine_new){
		.id = "m",
		.ek_fpr = fpr,
		.activated = 1,
		.ek_pub = ak.data,
		.ek_pub_len = ak.len,
		.ak_pub = ak.data,
		.ak_pub_len = ak.len,
		.ak_name = name,
		.ak_name_len = name_len,
		.state = DB_STATE_ENROLLING,
	};
	if (db_machine_create(v.db, &m, NOW, &err) < 0)
		die("db_machine_create", err.msg);
}

/* Empty the write-ahead log: from here on it must stay empty. */
static void checkpoint(void)
{
	sqlite3 *db;

	if (sqlite3_open(db_path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL,
			 NULL) != SQLITE_OK)
		die("checkpoint", sqlite3_errmsg(db));
	sqlite3_close(db);
}

static off_t wal_size(void)
{
	char side[160];
	struct stat st;

	snprintf(side, sizeof(side), "%s-wal", db_path);
	return stat(side, &st) == 0 ? st.st_size : 0;
}

static void setup(void)
{
	struct imt_error err;

	fz_db_path(db_path, sizeof(db_path), "verify");
	remove_database();
	config_defaults(&v.cfg);
	pthread_mutex_init(&v.lock, NULL);
	if (db_open(db_path, &v.db, &err) < 0)
		die("db_open", err.msg);
	v.ak_cache = ak_cache_new();
	enroll();
	checkpoint();
	atexit(remove_database);
	log_setlevel(LOG_LEVEL_WARNING);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct engine_answer ans;
	struct engine_verify r;
	struct wire_bundle b;
	unsigned int status;

	if (v.db == NULL)
		setup();
	if (wire_decode(WIRE_BUNDLE, (const char *)data, size, &b, NULL) !=
	    IMT_OK)
		return 0;
	engine_verify(&v, &b, &r, &ans);
	wire_free(WIRE_BUNDLE, &b);
	status = engine_http_status(ans.status);
	if (getenv("FZ_VERBOSE") != NULL) /* what an input does */
		fprintf(stderr, "%u %s %s %s\n", status, ans.message,
			db_machine_state_name(r.state),
			r.nreasons > 0 ? r.reasons[0] : "");
	if (status >= 500)
		die("a 5xx answer", ans.message);
	if (ans.status == ENGINE_OK && r.state != DB_STATE_TRUSTED &&
	    r.state != DB_STATE_UNTRUSTED && r.state != DB_STATE_FAILED)
		die("a verdict that is none", db_machine_state_name(r.state));
	if (wal_size() != 0)
		die("the database was written",
		    "POST /v1/verify stores nothing");
	return 0;
}
