// SPDX-License-Identifier: GPL-2.0-only
/*
 * reader.c - the read side (issue #33, "Reads never hold the writer"):
 * a view of the verifier with its own lock, its own read-only database
 * connection (db_open_reader()) and its own policies and keyring, so the
 * read routes and one-shot verification never take v->lock, which the
 * evidence path holds while it judges and writes. proto/DESIGN.md,
 * "Reads beside the writer", says what the view shares and what not.
 */
#include <stdlib.h>
#include <string.h>

#include "keyring.h"
#include "log.h"
#include "policies.h"
#include "verifier.h"

int verifier_reader_open(struct verifier *v, struct imt_error *err)
{
	struct verifier *r;

	if (v->reader != NULL)
		return 0;
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "reader: out of memory");
		return -1;
	}
	if (db_open_reader(v->cfg.database, &r->db, err) < 0) {
		free(r);
		return -1;
	}
	/* read-only once serving: the configuration, the EK issuers
	 * (X509_STORE locks itself), the result keys (lock themselves) */
	r->cfg = v->cfg;
	r->ek_ca = v->ek_ca;
	r->result_keys = v->result_keys;
	r->started = v->started;
	r->main = v;
	pthread_mutex_init(&r->lock, NULL);
	v->reader = r;
	return 0;
}

void verifier_reader_close(struct verifier *v)
{
	struct verifier *r = v->reader;

	if (r == NULL)
		return;
	v->reader = NULL;
	db_close(r->db);
	policies_free(r);
	keyring_free(r);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

struct verifier *verifier_main(struct verifier *v)
{
	return v->main != NULL ? v->main : v;
}

struct verifier *read_begin(struct verifier *v)
{
	struct verifier *r = v->main != NULL ? v : v->reader;
	struct imt_error err;

	if (r == NULL) { /* no reader: the writer's lock, as before */
		pthread_mutex_lock(&v->lock);
		return v;
	}
	pthread_mutex_lock(&r->lock);
	/*
	 * The writer's changes of policies and keys are read again at each
	 * hold, from this snapshot: no flag to miss between the writer's
	 * invalidation and its commit.
	 */
	policies_invalidate(r);
	keyring_invalidate(r);
	if (db_read_begin(r->db, &err) < 0)
		log_warnx("reader: no snapshot, each read alone: %s", err.msg);
	return r;
}

void read_end(struct verifier *r)
{
	if (r->main != NULL)
		db_read_end(r->db);
	pthread_mutex_unlock(&r->lock);
}
