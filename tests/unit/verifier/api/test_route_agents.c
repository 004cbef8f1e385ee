// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_route_agents.c - enrollment and activation through their route
 * handlers, with the fixture EKs and AKs (the secret a TPM would recover
 * is read from the database): no machine before the proof, a bounded
 * flood, one id per EK, strangers with only a public EK, wrong proofs,
 * AK attributes, ECC, EK certificates (other key, unknown CA, chains
 * with an intermediate), ek_ca as a directory of hashed roots, the enroll
 * policy.
 */
#include <unistd.h>

#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <sqlite3.h>

#include "db_identity.h"
#include "db_machine.h"
#include "verifier_test.h"
#include "enroll.h"
#include "../../fixture.h"
#include "hex.h"
#include "tpm_public.h"
#include "wire.h"
#include "routes.h"

#define MAX_OPEN 40

struct fx {
	struct tv *t;
	uint8_t *ek, *ek_ecc, *ak, *ak_ecc;
	size_t ek_len, ek_ecc_len, ak_len, ak_ecc_len;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->t = tv_new();
	f->t->v.cfg.max_open_enrollments = MAX_OPEN;
	f->ek = fixture_read("tpm/ek-rsa.pub", &f->ek_len);
	f->ek_ecc = fixture_read("tpm/ek-ecc.pub", &f->ek_ecc_len);
	f->ak = fixture_read("tpm/ak-rsa.pub", &f->ak_len);
	f->ak_ecc = fixture_read("tpm/ak-ecc.pub", &f->ak_ecc_len);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	X509_STORE_free(f->t->v.ek_ca);
	tv_free(f->t);
	free(f->ek);
	free(f->ek_ecc);
	free(f->ak);
	free(f->ak_ecc);
	free(f);
	return 0;
}

/* POST /v1/agents for @id; the status, the answer in *@a (may be NULL). */
static unsigned int enroll(struct fx *f, const char *id, const uint8_t *ek,
			   size_t ek_len, const uint8_t *cert, size_t cert_len,
			   const uint8_t *ak, size_t ak_len, json_t **a)
{
	struct wire_enroll e = { 0 };
	struct imt_error err;
	unsigned int status;
	char *json;
	json_t *ans;

	snprintf(e.agent, sizeof(e.agent), "%s", id);
	e.ek_pub = (struct wire_blob){ (uint8_t *)ek, ek_len };
	e.ek_cert = (struct wire_blob){ (uint8_t *)cert, cert_len };
	e.ak_pub = (struct wire_blob){ (uint8_t *)ak, ak_len };
	json = wire_encode(WIRE_ENROLL, &e, &err);
	assert_non_null(json);
	ans = tv_call(f->t, route_agents_enroll, NULL, json, NULL, &status);
	free(json);
	if (a != NULL)
		*a = ans;
	else
		json_decref(ans);
	return status;
}

static unsigned int enroll_rsa(struct fx *f, const char *id, json_t **a)
{
	return enroll(f, id, f->ek, f->ek_len, NULL, 0, f->ak, f->ak_len, a);
}

static unsigned int activate(struct fx *f, const char *id,
			     const uint8_t proof[32], json_t **a)
{
	struct wire_activate m = { .proof_len = 32 };
	struct imt_error err;
	unsigned int status;
	char *json;
	json_t *ans;

	snprintf(m.agent, sizeof(m.agent), "%s", id);
	memcpy(m.proof, proof, 32);
	json = wire_encode(WIRE_ACTIVATE, &m, &err);
	assert_non_null(json);
	ans = tv_call(f->t, route_agents_activate, id, json, NULL, &status);
	free(json);
	if (a != NULL)
		*a = ans;
	else
		json_decref(ans);
	return status;
}

static void test_flood_creates_nothing(void **state)
{
	struct fx *f = *state;
	uint8_t ek[4096], proof[32];
	unsigned int i, ok = 0, refused = 0, status;
	json_t *a;

	/* 5 * MAX_OPEN enrollments, none of them with a TPM behind */
	for (i = 0; i < 5 * MAX_OPEN; i++) {
		char id[32];

		tv_fake_ek(f->ek, f->ek_len, i, ek);
		snprintf(id, sizeof(id), "squat-%u", i % 7);
		status = enroll(f, id, ek, f->ek_len, NULL, 0, f->ak, f->ak_len,
				NULL);
		ok += status == 201;
		refused += status == 503;
	}
	assert_int_equal(ok, MAX_OPEN);
	assert_int_equal(refused, 4 * MAX_OPEN);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM machines",
				    NULL),
			 0);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 MAX_OPEN);
	/* made-up EKs hold their slots for ENROLL_UNVOUCHED_TTL only */
	assert_int_equal(count_rows(f->t,
				    "SELECT count(*) FROM enrollments "
				    "WHERE expires_at - created_at = 60",
				    NULL),
			 MAX_OPEN);
	assert_int_equal(atomic_load(&f->t->v.metrics.enroll_cap),
			 4 * MAX_OPEN);
	/* the metrics say so */
	{
		struct http_request req = { 0 };
		struct http_response res = { 0 };

		route_metrics(&f->t->v, &req, &res);
		assert_non_null(
			strstr(res.body, "imatrust_open_enrollments 40\n"));
		assert_non_null(
			strstr(res.body,
			       "imatrust_enroll_refused_cap_total 160\n"));
		free(res.body);
	}
	/* a squatted id is not taken: the real TPM (here unvouched too)
	 * enrolls once a slot is free, and activates */
	f->t->v.cfg.max_open_enrollments = MAX_OPEN + 1;
	assert_int_equal(enroll_rsa(f, "squat-1", NULL), 201);
	tv_proof_of(f->t, "squat-1", proof);
	assert_int_equal(activate(f, "squat-1", proof, &a), 200);
	assert_string_equal(json_string_value(json_object_get(a, "state")),
			    "pending");
	json_decref(a);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM machines",
				    NULL),
			 1);
}

static void test_vouched_evicts_at_cap(void **state)
{
	struct fx *f = *state;
	uint8_t ek[4096];
	unsigned int i;

	for (i = 0; i < MAX_OPEN; i++) {
		tv_fake_ek(f->ek, f->ek_len, i, ek);
		assert_int_equal(enroll(f, "squat", ek, f->ek_len, NULL, 0,
					f->ak, f->ak_len, NULL),
				 201);
	}
	assert_int_equal(enroll_rsa(f, "real", NULL), 503);
	/* pre-registered: vouched, so it takes an unvouched one's place */
	{
		uint8_t fpr[DB_FPR_SIZE];
		enum db_register_result r;
		struct imt_error err;

		assert_int_equal(enroll_fingerprint(f->ek, f->ek_len, fpr,
						    &err),
				 IMT_OK);
		assert_int_equal(db_registration_add(f->t->v.db, "real", fpr,
						     "alice", TV_NOW, &r, &err),
				 0);
	}
	assert_int_equal(enroll_rsa(f, "real", NULL), 201);
	assert_int_equal(atomic_load(&f->t->v.metrics.enroll_evicted), 1);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 MAX_OPEN);
	/* a vouched challenge keeps the whole ENROLL_CHALLENGE_TTL */
	assert_int_equal(count_rows(f->t,
				    "SELECT count(*) FROM enrollments "
				    "WHERE expires_at - created_at = 300",
				    NULL),
			 1);
}

static void test_per_ek_cap(void **state)
{
	struct fx *f = *state;
	unsigned int i;
	json_t *a;

	for (i = 0; i < 4; i++)
		assert_int_equal(enroll_rsa(f, "m1", NULL), 201);
	assert_int_equal(enroll_rsa(f, "m1", &a), 429);
	assert_non_null(strstr(tv_msg(a), "max_enrollments_per_ek"));
	json_decref(a);
	assert_int_equal(atomic_load(&f->t->v.metrics.enroll_ek_cap), 1);
}

static void test_stranger_cannot_cancel(void **state)
{
	struct fx *f = *state;
	uint8_t proof[32], bad[32], ek[4096];
	json_t *a;

	assert_int_equal(enroll_rsa(f, "real", NULL), 201);
	tv_proof_of(f->t, "real", proof);
	/* a stranger enrolls the same id with the real, public EK and
	 * their own AK, and with a made-up EK: nothing is replaced */
	assert_int_equal(enroll(f, "real", f->ek, f->ek_len, NULL, 0, f->ak_ecc,
				f->ak_ecc_len, NULL),
			 201);
	tv_fake_ek(f->ek, f->ek_len, 77, ek);
	assert_int_equal(enroll(f, "real", ek, f->ek_len, NULL, 0, f->ak,
				f->ak_len, NULL),
			 201);
	/* ... and sends a well-formed wrong proof: 403, nothing changes */
	memcpy(bad, proof, 32);
	bad[0] ^= 1;
	assert_int_equal(activate(f, "real", bad, &a), 403);
	assert_non_null(strstr(tv_msg(a), "challenge"));
	json_decref(a);
	assert_int_equal(atomic_load(&f->t->v.metrics.activations_refused), 1);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 3);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM machines",
				    NULL),
			 0);
	/* the real agent's activation still works */
	assert_int_equal(activate(f, "real", proof, NULL), 200);
	assert_int_equal(count_rows(f->t,
				    "SELECT count(*) FROM machines WHERE "
				    "id = 'real' AND activated = 1 AND "
				    "length(ek_fpr) = 32",
				    NULL),
			 1);
	/* its EK's other challenge (the stranger's AK) is void now */
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 1);
	/* and the made-up EK cannot take the id any more */
	assert_int_equal(enroll(f, "real", ek, f->ek_len, NULL, 0, f->ak,
				f->ak_len, &a),
			 409);
	assert_non_null(strstr(tv_msg(a), "another EK"));
	json_decref(a);
}

static void test_one_id_per_ek(void **state)
{
	struct fx *f = *state;
	char fpr[ENROLL_FPR_HEX + 1];
	uint8_t proof[32], raw[DB_FPR_SIZE];
	struct imt_error err;
	json_t *a;

	assert_int_equal(enroll_rsa(f, "one", NULL), 201);
	tv_proof_of(f->t, "one", proof);
	assert_int_equal(activate(f, "one", proof, NULL), 200);
	assert_int_equal(enroll_rsa(f, "two", &a), 409);
	/* named by its fingerprint, not by the id it belongs to */
	assert_int_equal(enroll_fingerprint(f->ek, f->ek_len, raw, &err),
			 IMT_OK);
	enroll_fpr_hex(raw, fpr);
	assert_non_null(strstr(tv_msg(a), fpr));
	assert_null(strstr(tv_msg(a), "one"));
	json_decref(a);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM machines",
				    NULL),
			 1);
	/* the same EK for the same id is a re-enrollment: new AK */
	assert_int_equal(enroll(f, "one", f->ek, f->ek_len, NULL, 0, f->ak_ecc,
				f->ak_ecc_len, NULL),
			 201);
	tv_proof_of(f->t, "one", proof);
	assert_int_equal(activate(f, "one", proof, NULL), 200);
	assert_int_equal(count_rows(f->t,
				    "SELECT count(*) FROM events WHERE "
				    "machine_id = 'one' AND kind = "
				    "'activated'",
				    NULL),
			 2);
}

static void test_ak_attributes(void **state)
{
	static const struct {
		size_t byte;
		uint8_t bit;
		const char *name;
	} bits[] = {
		{ 7, 0x01, "restricted" }, /* TPMA_OBJECT bit 16 */
		{ 9, 0x02, "fixedTPM" },   /* bit 1 */
	};
	struct fx *f = *state;
	uint8_t ak[4096];
	size_t i;
	json_t *a;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		memcpy(ak, f->ak, f->ak_len);
		ak[bits[i].byte] &= (uint8_t)~bits[i].bit;
		assert_int_equal(enroll(f, "m", f->ek, f->ek_len, NULL, 0, ak,
					f->ak_len, &a),
				 400);
		assert_non_null(strstr(tv_msg(a), bits[i].name));
		json_decref(a);
	}
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 0);
}

static void test_ecc_ek(void **state)
{
	struct fx *f = *state;
	uint8_t proof[32];

	assert_int_equal(enroll(f, "ecc", f->ek_ecc, f->ek_ecc_len, NULL, 0,
				f->ak_ecc, f->ak_ecc_len, NULL),
			 201);
	tv_proof_of(f->t, "ecc", proof);
	assert_int_equal(activate(f, "ecc", proof, NULL), 200);
}

/* ---- EK certificates -------------------------------------------------- */

static X509 *cert_make(EVP_PKEY *subject, const char *cn, X509 *issuer,
		       EVP_PKEY *issuer_key, int ca)
{
	X509 *x = X509_new();
	X509_EXTENSION *ext;
	X509V3_CTX v3;

	X509_set_version(x, X509_VERSION_3);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 7);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, subject);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(issuer ? issuer : x));
	X509V3_set_ctx(&v3, issuer ? issuer : x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints,
				  ca ? "critical,CA:TRUE" : "CA:FALSE");
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	if (ca) {
		ext = X509V3_EXT_conf_nid(NULL, &v3, NID_key_usage,
					  "critical,keyCertSign,cRLSign");
		X509_add_ext(x, ext, -1);
		X509_EXTENSION_free(ext);
	}
	X509_sign(x, issuer_key, EVP_sha256());
	return x;
}

/* Append the DER of @x to @buf at *@len. */
static void der_append(X509 *x, uint8_t *buf, size_t *len)
{
	unsigned char *p = buf + *len;
	int n = i2d_X509(x, &p);

	assert_true(n > 0);
	*len += (size_t)n;
}

static void test_ek_certificates(void **state)
{
	struct fx *f = *state;
	struct imt_error err;
	EVP_PKEY *root_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *mid_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *other = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *ek_key = NULL;
	X509 *root, *mid, *leaf, *stranger, *wrong;
	uint8_t der[8192], proof[32];
	size_t len = 0, leaf_len;
	TPMT_PUBLIC pub;
	char why[256];
	int chained;
	json_t *a, *m;

	assert_int_equal(tpm_public_parse(f->ek, f->ek_len, &pub, &err),
			 IMT_OK);
	assert_int_equal(tpm_public_to_pkey(&pub, &ek_key, &err), IMT_OK);
	root = cert_make(root_key, "imatrust test root", NULL, root_key, 1);
	mid = cert_make(mid_key, "imatrust test intermediate", root, root_key,
			1);
	leaf = cert_make(ek_key, "", mid, mid_key, 0);
	stranger = cert_make(ek_key, "", NULL, other, 0); /* unknown CA */
	wrong = cert_make(other, "", mid, mid_key, 0);	  /* another key */
	f->t->v.ek_ca = X509_STORE_new();
	X509_STORE_add_cert(f->t->v.ek_ca, root);

	/* the EK certificate alone: its intermediate is not known */
	der_append(leaf, der, &len);
	leaf_len = len;
	assert_int_equal(enroll_check_ek_cert(f->t->v.ek_ca, f->ek, f->ek_len,
					      der, len, &chained, why,
					      sizeof(why), &err),
			 IMT_OK);
	assert_int_equal(chained, 0);
	/* sent with its intermediate (concatenated DER): chains */
	der_append(mid, der, &len);
	assert_int_equal(enroll_check_ek_cert(f->t->v.ek_ca, f->ek, f->ek_len,
					      der, len, &chained, why,
					      sizeof(why), &err),
			 IMT_OK);
	assert_int_equal(chained, 1);
	/* the intermediate alone is no anchor: only the root is */
	{
		X509_STORE *mid_only = X509_STORE_new();

		X509_STORE_add_cert(mid_only, mid);
		assert_int_equal(enroll_check_ek_cert(mid_only, f->ek,
						      f->ek_len, der, leaf_len,
						      &chained, why,
						      sizeof(why), &err),
				 IMT_OK);
		assert_int_equal(chained, 0);
		X509_STORE_free(mid_only);
	}
	/* ... an intermediate configured with the root serves too */
	X509_STORE_add_cert(f->t->v.ek_ca, mid);
	assert_int_equal(enroll_check_ek_cert(f->t->v.ek_ca, f->ek, f->ek_len,
					      der, leaf_len, &chained, why,
					      sizeof(why), &err),
			 IMT_OK);
	assert_int_equal(chained, 1);

	/* through the route: enrolling, with the certificate's names */
	assert_int_equal(enroll(f, "vouched", f->ek, f->ek_len, der, len, f->ak,
				f->ak_len, NULL),
			 201);
	tv_proof_of(f->t, "vouched", proof);
	assert_int_equal(activate(f, "vouched", proof, &a), 200);
	assert_string_equal(json_string_value(json_object_get(a, "state")),
			    "enrolling");
	json_decref(a);
	a = tv_call(f->t, route_machines_get, "vouched", NULL, TV_AUTH,
		    (unsigned int[]){ 0 });
	m = json_object_get(a, "machine");
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(m,
								    "ek_cert"),
						    "issuer")),
			    "CN=imatrust test intermediate");
	assert_int_equal(strlen(json_string_value(json_object_get(m, "ek_fpr"))),
			 64);
	json_decref(a);

	/* a certificate for another key: the agent lies, 400 */
	len = 0;
	der_append(wrong, der, &len);
	assert_int_equal(enroll(f, "liar", f->ek_ecc, f->ek_ecc_len, der, len,
				f->ak_ecc, f->ak_ecc_len, &a),
			 400);
	assert_non_null(strstr(tv_msg(a), "another key"));
	json_decref(a);

	/* a certificate from an unknown CA: pending, not enrolling */
	len = 0;
	der_append(stranger, der, &len);
	assert_int_equal(db_machine_remove(f->t->v.db, "vouched", "alice",
					   TV_NOW, &(struct db_removal){ 0 },
					   &err),
			 0);
	assert_int_equal(enroll(f, "unknown-ca", f->ek, f->ek_len, der, len,
				f->ak, f->ak_len, NULL),
			 201);
	tv_proof_of(f->t, "unknown-ca", proof);
	assert_int_equal(activate(f, "unknown-ca", proof, &a), 200);
	assert_string_equal(json_string_value(json_object_get(a, "state")),
			    "pending");
	json_decref(a);
	assert_int_equal(tv_state(f->t, "unknown-ca"), DB_STATE_PENDING);
	/* and the operator who must approve it is told why */
	{
		struct db_machine dm;
		int found;

		assert_int_equal(db_machine_get(f->t->v.db, "unknown-ca", &dm,
						&found, &err),
				 0);
		assert_true(found);
		assert_non_null(dm.state_reason);
		assert_non_null(strstr(dm.state_reason, "does not chain"));
		db_machine_release(&dm);
	}

	X509_free(root);
	X509_free(mid);
	X509_free(leaf);
	X509_free(stranger);
	X509_free(wrong);
	EVP_PKEY_free(root_key);
	EVP_PKEY_free(mid_key);
	EVP_PKEY_free(other);
	EVP_PKEY_free(ek_key);
}

/* Write @x as PEM to @dir/@name. */
static void pem_put(const char *dir, const char *name, X509 *x)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(PEM_write_X509(fp, x), 1);
	fclose(fp);
}

/* enroll_check_ek_cert() of @der through the store of ek_ca = @path. */
static int chains_through(const char *path, struct fx *f, const uint8_t *der,
			  size_t len)
{
	struct imt_error err;
	X509_STORE *store;
	char why[256];
	int chained = -1;

	store = enroll_ca_load(path, why, sizeof(why));
	assert_non_null(store);
	assert_int_equal(enroll_check_ek_cert(store, f->ek, f->ek_len, der, len,
					      &chained, why, sizeof(why), &err),
			 IMT_OK);
	X509_STORE_free(store);
	return chained;
}

/* ek_ca as a directory of roots named by subject hash (openssl rehash). */
static void test_ek_ca_directory(void **state)
{
	struct fx *f = *state;
	struct imt_error err;
	EVP_PKEY *root_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *mid_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *ek_key = NULL;
	X509 *root, *mid, *leaf, *other;
	char dir[] = "/tmp/imatrust-ekca-XXXXXX", name[32], path[64], why[256];
	uint8_t der[8192];
	size_t len = 0;
	TPMT_PUBLIC pub;

	assert_int_equal(tpm_public_parse(f->ek, f->ek_len, &pub, &err),
			 IMT_OK);
	assert_int_equal(tpm_public_to_pkey(&pub, &ek_key, &err), IMT_OK);
	root = cert_make(root_key, "imatrust dir root", NULL, root_key, 1);
	other = cert_make(mid_key, "imatrust other root", NULL, mid_key, 1);
	mid = cert_make(mid_key, "imatrust dir intermediate", root, root_key,
			1);
	leaf = cert_make(ek_key, "", mid, mid_key, 0);
	der_append(leaf, der, &len);
	der_append(mid, der, &len);
	assert_non_null(mkdtemp(dir));

	/* a directory holding another root only: no chain */
	snprintf(name, sizeof(name), "%08lx.0", X509_subject_name_hash(other));
	pem_put(dir, name, other);
	assert_int_equal(chains_through(dir, f, der, len), 0);
	/* the root added under its hashed name: chains */
	snprintf(name, sizeof(name), "%08lx.0", X509_subject_name_hash(root));
	pem_put(dir, name, root);
	assert_int_equal(chains_through(dir, f, der, len), 1);
	/* a file is still a PEM bundle */
	pem_put(dir, "bundle.pem", root);
	snprintf(path, sizeof(path), "%s/bundle.pem", dir);
	assert_int_equal(chains_through(path, f, der, len), 1);
	/* a path that is not there says so */
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_null(enroll_ca_load(path, why, sizeof(why)));
	assert_non_null(strstr(why, "No such file"));

	unlink(path);
	snprintf(path, sizeof(path), "%s/bundle.pem", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%08lx.0", dir,
		 X509_subject_name_hash(root));
	unlink(path);
	snprintf(path, sizeof(path), "%s/%08lx.0", dir,
		 X509_subject_name_hash(other));
	unlink(path);
	rmdir(dir);
	X509_free(root);
	X509_free(other);
	X509_free(mid);
	X509_free(leaf);
	EVP_PKEY_free(root_key);
	EVP_PKEY_free(mid_key);
	EVP_PKEY_free(ek_key);
}

static void test_registered_only(void **state)
{
	struct fx *f = *state;
	char body[256], fpr[ENROLL_FPR_HEX + 1];
	uint8_t raw[DB_FPR_SIZE], proof[32], ek[4096];
	struct imt_error err;
	unsigned int status;
	json_t *a;

	snprintf(f->t->v.cfg.enroll, sizeof(f->t->v.cfg.enroll), "registered");
	assert_int_equal(enroll_rsa(f, "host", &a), 403);
	assert_non_null(strstr(tv_msg(a), "not registered"));
	json_decref(a);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 0);
	assert_int_equal(enroll_fingerprint(f->ek, f->ek_len, raw, &err),
			 IMT_OK);
	enroll_fpr_hex(raw, fpr);
	snprintf(body, sizeof(body),
		 "{\"v\":1,\"id\":\"host\",\"ek\":"
		 "\"sha256:%s\"}",
		 fpr);
	a = tv_call(f->t, route_machines_add, NULL, body, TV_AUTH, &status);
	assert_int_equal(status, 201);
	json_decref(a);
	/* a stranger's EK cannot take the pre-registered id */
	tv_fake_ek(f->ek, f->ek_len, 5, ek);
	assert_int_equal(enroll(f, "host", ek, f->ek_len, NULL, 0, f->ak,
				f->ak_len, &a),
			 409);
	assert_non_null(strstr(tv_msg(a), "pre-registered"));
	json_decref(a);
	/* the registered EK enrolls without any CA: enrolling */
	assert_int_equal(enroll_rsa(f, "host", NULL), 201);
	tv_proof_of(f->t, "host", proof);
	assert_int_equal(activate(f, "host", proof, &a), 200);
	assert_string_equal(json_string_value(json_object_get(a, "state")),
			    "enrolling");
	json_decref(a);
}

static void test_pending_cap(void **state)
{
	struct fx *f = *state;
	uint8_t proof[32];
	json_t *a;

	f->t->v.cfg.max_pending = 0;
	assert_int_equal(enroll_rsa(f, "p", NULL), 201);
	tv_proof_of(f->t, "p", proof);
	assert_int_equal(activate(f, "p", proof, &a), 503);
	assert_non_null(strstr(tv_msg(a), "max_pending"));
	json_decref(a);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM machines",
				    NULL),
			 0);
	/* nothing was consumed: once allowed, the same proof activates */
	f->t->v.cfg.max_pending = 1;
	assert_int_equal(activate(f, "p", proof, NULL), 200);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_flood_creates_nothing),
		T(test_vouched_evicts_at_cap),
		T(test_per_ek_cap),
		T(test_stranger_cannot_cancel),
		T(test_one_id_per_ek),
		T(test_ak_attributes),
		T(test_ecc_ek),
		T(test_ek_certificates),
		T(test_ek_ca_directory),
		T(test_registered_only),
		T(test_pending_cap),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
