# imatrust - one entry point for building, testing, benchmarks and the lab.
#
#   make            build the user-space programs into build/
#   make lint       shellcheck on every shell script, the length gate of
#                   the C functions, checkpatch.pl on the C and
#                   checkpatch.pl --strict on each kernel patch, the top
#                   level's floor plan, the paths the documents name, the
#                   anchors of the mutants (no
#                   build; first in CI)
#   make check-kernel-lint  the kernel lint tier (kernel/lint.sh):
#                   checkpatch.pl --strict on each patch of the series,
#                   sparse (C=2) and a W=1 build of security/integrity/ima/
#                   in the stock and patched trees of the kernel cache;
#                   a warning only the patched tree has fails (compared
#                   by file and message, not line)
#   make check-fast unit tests + host integration tests (the inner loop:
#                   a missing tool skips its script, listed by name; under
#                   CI=true and in make check every skip fails)
#   make check-sanitize  the unit and integration suites under ASan+UBSan
#   make check-unit-pg  the db unit tests again, on a private PostgreSQL
#   make check-integration-pg  the integration tests that use the
#                   verifier's database again, on a private PostgreSQL
#   make check-scale-out  3 verifiers on PostgreSQL behind HAProxy, 1,000
#                   simulated agents, one verifier killed (a few minutes)
#   make check-mutants  the verdict-critical conditions mutated one at a
#                   time (tests/mutants/mutants.list): each mutant must be
#                   killed by the tests it names; a scratch copy of the
#                   tree, only the mutated file rebuilt (a few minutes)
#   make check      everything, stage by stage (tests/stages.sh): check-fast,
#                   check-sanitize, both -pg targets, the console in
#                   Chromium (check-browser), check-fuzz, check-mutants,
#                   the kernel build, guest tests, check-kernel-lint,
#                   check-scale-out
#   make SANITIZE=1 check-fast   the same tests under ASan + UBSan
#   make bench      benchmarks that print ratios against named peers

# "make" alone builds everything (the fuzz rules come before "all:")
.DEFAULT_GOAL := all

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD ?= build/san
else
BUILD ?= build
endif

CC ?= cc
PKGS := libcrypto jansson tss2-mu sqlite3 libpq libmicrohttpd gnutls libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || \
	echo -lcrypto -ljansson -ltss2-mu -lsqlite3 -lpq -lmicrohttpd -lgnutls -lcurl)
# The .deb and apt importers (verifier/importers/import_deb.c, import_apt.c): the
# verifier side only, so the agent does not need libarchive.
ARCHIVE_CFLAGS := $(shell pkg-config --cflags libarchive zlib 2>/dev/null)
ARCHIVE_LIBS := $(shell pkg-config --libs libarchive zlib 2>/dev/null || \
	echo -larchive -lz)
# The verifier's audit entries to the systemd journal (engine_journal.c).
JOURNAL_LIBS := $(shell pkg-config --libs libsystemd 2>/dev/null || \
	echo -lsystemd)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
# agent/tpm*.c, the agent's only ESAPI users, and what links them.
TPM_PKGS := tss2-esys tss2-tctildr tss2-mu tss2-rc
TPM_CFLAGS := $(shell pkg-config --cflags $(TPM_PKGS) 2>/dev/null)
TPM_LIBS := $(shell pkg-config --libs $(TPM_PKGS) 2>/dev/null || \
	echo -ltss2-esys -ltss2-tctildr -ltss2-mu -ltss2-rc)

WARN := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wvla -Wundef
HARDEN := -fstack-protector-strong -fstack-clash-protection -fcf-protection \
	-fPIE
HARDEN_LD := -pie -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack

ifeq ($(SANITIZE),1)
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
OPT_LD := -fsanitize=address,undefined
else
OPT := -O2 -g -D_FORTIFY_SOURCE=2
OPT_LD :=
endif

CFLAGS += -std=gnu11 $(OPT) $(WARN) $(HARDEN) $(PKG_CFLAGS) $(TPM_CFLAGS) \
	$(ARCHIVE_CFLAGS) -MMD -MP
LDFLAGS += $(OPT_LD) $(HARDEN_LD)

# Each folder's include path: a source sees only the headers of the folders
# it may use, so an include across the agent/verifier boundary (or from
# proto/ into a daemon) does not compile. The path of a source is that of
# the folder it lives in (INC_<folder>); a folder without an entry does not
# build. `make check-includes` proves the boundaries.
INC_proto := -Iproto
INC_proto/io := -Iproto -Iproto/io
INC_db := -Iproto -Idb
INC_agent := -Iproto -Iproto/io -Iagent
# The verifier's rooms (verifier/README.md), each seeing the rooms below
# it: importers (pure parsers) < policy (pure checks) < engine (the state
# and its transactions, with the daemon's state and configuration of
# verifier/ itself) < results (signed results, webhooks) < api (HTTPS,
# the routes) < verifier/ (the daemon's main). The CLI sees importers and
# policy only, without db/: it is a client of the API, never of the engine
# or the storage (import_efi_rows.h, the one importer header that names
# db rows, stays out of its reach).
VROOM_importers := -Iproto -Iproto/io -Idb -Iverifier/importers
VROOM_policy := $(VROOM_importers) -Iverifier/policy
VROOM_engine := $(VROOM_policy) -Iverifier -Iverifier/engine
VROOM_results := $(VROOM_engine) -Iverifier/results
VROOM_api := $(VROOM_results) -Iverifier/api
INC_verifier/importers := $(VROOM_importers)
INC_verifier/policy := $(VROOM_policy)
INC_verifier/engine := $(VROOM_engine)
INC_verifier/results := $(VROOM_results)
INC_verifier/api := $(VROOM_api)
INC_verifier := $(VROOM_api)
INC_verifier/cli := -Iproto -Iproto/io -Iverifier/importers \
	-Iverifier/policy -Iverifier/cli
# every room, for the tests and benches that drive any of them
VROOM_ALL := $(VROOM_api) -Iverifier/cli
# Tests see what the folder they test sees.
INC_tests/unit/proto := $(INC_proto)
INC_tests/unit/proto/io := $(INC_proto/io)
INC_tests/unit/db := $(INC_db)
INC_tests/unit/agent := $(INC_agent)
INC_tests/unit/verifier := $(VROOM_ALL)
# a room's tests see what the room sees, and the fixtures beside them
INC_tests/unit/verifier/importers := $(VROOM_importers) -Itests/unit/verifier
INC_tests/unit/verifier/policy := $(VROOM_policy) -Itests/unit/verifier
# the engine's and the results' tests set up their verifier with the API's
# fixture (verifier_test.h: a route called, a server started), so they see
# the API too; their sources do not include it themselves
INC_tests/unit/verifier/engine := $(VROOM_api) -Itests/unit/verifier
INC_tests/unit/verifier/results := $(VROOM_api) -Itests/unit/verifier
INC_tests/unit/verifier/api := $(VROOM_api) -Itests/unit/verifier
INC_tests/unit/verifier/cli := $(INC_verifier/cli) -Itests/unit/verifier
# tests/tools drive the agent's modules (tpm.h, client.h); tests/bench the
# verifier's (list_reader.h, digest_set.h, db.h); tests/fuzz only proto/.
INC_tests/tools := $(INC_agent)
INC_tests/bench := $(VROOM_ALL)
INC_tests/fuzz := $(INC_proto)
# inc_of(FILE): the include path of a source file's folder.
inc_of = $(INC_$(patsubst %/,%,$(dir $(1))))

# What make check-includes proves, as FOLDER:HEADER: a file of FOLDER that
# includes HEADER must not compile (deny) or must (allow: the probe works).
INC_DENY := agent:verifier.h agent:cli_util.h agent:db.h \
	verifier:agent.h verifier:tpm.h verifier:agent_config.h \
	verifier/engine:agent.h verifier/engine:tpm.h \
	db:log.h db:verifier.h db:agent.h \
	proto:log.h proto:file.h proto:client.h proto:db.h proto:agent.h \
	proto:verifier.h proto/io:db.h proto/io:agent.h \
	proto/io:verifier.h tests/unit/agent:verifier.h \
	tests/unit/verifier:agent.h tests/unit/proto:log.h \
	tests/unit/db:log.h tests/tools:verifier.h tests/fuzz:log.h \
	verifier/importers:policy.h verifier/importers:verifier.h \
	verifier/policy:verifier.h verifier/policy:engine.h \
	verifier/policy:cli.h verifier/engine:http.h verifier/engine:rest.h \
	verifier/engine:routes.h verifier/engine:webhook.h \
	verifier/engine:ear.h verifier/engine:cli.h verifier/results:http.h \
	verifier/results:routes.h verifier/results:cli.h verifier/api:cli.h \
	verifier/api:agent.h verifier/cli:verifier.h verifier/cli:engine.h \
	verifier/cli:http.h verifier/cli:routes.h verifier/cli:webhook.h \
	verifier/cli:db.h verifier/cli:db_efi.h \
	verifier:cli.h tests/unit/verifier/policy:verifier.h \
	tests/unit/verifier/cli:engine.h tests/unit/verifier/importers:engine.h
INC_ALLOW := agent:agent.h agent:log.h agent:client.h agent:wire.h \
	verifier:verifier.h verifier:routes.h verifier:db.h \
	verifier:log.h verifier:client.h verifier/engine:verifier.h \
	verifier/engine:engine.h verifier/engine:policy.h \
	verifier/engine:import.h verifier/results:engine.h \
	verifier/api:engine.h verifier/api:webhook.h verifier/api:routes.h \
	verifier/cli:cli.h verifier/cli:boot_check.h verifier/cli:import_apt.h \
	verifier/cli:hex.h verifier/policy:policy.h verifier/importers:db.h \
	db:db.h db:wire.h proto:wire.h proto/io:log.h proto/io:conf.h
INC_LIST := $(BUILD)/tests/check-includes.list

# libimatrust: everything both daemons agree on (proto/), pure: no I/O.
PROTO_SRC := $(wildcard proto/*.c)
PROTO_OBJ := $(PROTO_SRC:%.c=$(BUILD)/%.o)
LIBIMATRUST := $(BUILD)/lib/libimatrust.a

# libimaio: what both daemons and the CLI share that does I/O (log,
# sd_notify, bounded file reads, the HTTPS client, start-up options).
DAEMON_SRC := $(wildcard proto/io/*.c)
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(BUILD)/%.o)
LIBDAEMON := $(BUILD)/lib/libimaio.a

# The storage layer the verifier links (db/).
DB_SRC := $(wildcard db/*.c)
DB_OBJ := $(DB_SRC:%.c=$(BUILD)/%.o)
LIBDB := $(BUILD)/lib/libimadb.a

# The agent's modules that need no TPM (agent/), linked into tests too.
AGENT_MAINS := agent/imatrust-agent.c
AGENT_SRC := $(filter-out $(AGENT_MAINS),$(wildcard agent/*.c))
AGENT_OBJ := $(AGENT_SRC:%.c=$(BUILD)/%.o)
LIBAGENT := $(BUILD)/lib/libagent.a

# The verifier side: the CLI's modules, linked into tests too.
VERIFIER_MAINS := verifier/cli/imatrust.c verifier/imatrust-verifier.c
VERIFIER_SRC := $(filter-out $(VERIFIER_MAINS),$(wildcard verifier/*.c \
	verifier/*/*.c))
VERIFIER_OBJ := $(VERIFIER_SRC:%.c=$(BUILD)/%.o)
LIBVERIFIER := $(BUILD)/lib/libverifier.a
# The CLI links its own room and the two it sees (importers/, policy/):
# no engine, no API, no storage layer.
CLI_SRC := $(filter-out $(VERIFIER_MAINS),$(wildcard verifier/cli/*.c \
	verifier/importers/*.c verifier/policy/*.c))
LIBCLI := $(BUILD)/lib/libimacli.a

# The fleet console's files, embedded into the verifier as C generated
# into $(BUILD)/gen by verifier/api/www/embed.sh (never committed).
WWW_FILES := $(wildcard verifier/api/www/*.html verifier/api/www/*.js \
	verifier/api/www/*.css)
WWW_GEN := $(BUILD)/gen/www_assets.c
WWW_OBJ := $(BUILD)/gen/www_assets.o

BINS := $(BUILD)/bin/imatrust $(BUILD)/bin/imatrust-verifier \
	$(BUILD)/bin/imatrust-agent
BENCH_BINS := $(BUILD)/bin/bench-replay $(BUILD)/bin/gen-ima-list \
	$(BUILD)/bin/bench-verifier $(BUILD)/bin/bench-deb-import \
	$(BUILD)/bin/soak-agents $(BUILD)/bin/bench-route \
	$(BUILD)/bin/bench-read-latency

# Drivers that put library functions on the command line for the shell
# tests of tests/integration/: tests/tools/<name>.c -> build/tests/tools/
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/tools/%)
INTEGRATION_TESTS := $(wildcard tests/integration/test_*.sh)

# Unit tests mirror the source folders: tests/unit/<folder>/test_<module>.c
UNIT_SRC := $(wildcard tests/unit/*/test_*.c tests/unit/proto/io/test_*.c \
	tests/unit/verifier/*/test_*.c)
UNIT_BINS := $(UNIT_SRC:%.c=$(BUILD)/%)

# libFuzzer targets (clang): tests/fuzz/fuzz_<target>.c, seeded from
# tests/fuzz/corpus/<target>/ (see tests/fuzz/README.md). Self-contained:
# the libraries they link (proto/, db/, verifier/, the agent's log and
# file modules, tests/fuzz/support/) are built again with the fuzzer's
# instrumentation under build/fuzz/obj, apart from the normal build.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_SECONDS ?= 20
FUZZ_LONG_SECONDS ?= 3600
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
FUZZ_MERGE ?= 0
FUZZ_OBJ := build/fuzz/obj
FUZZ_PKGS := libcrypto jansson tss2-mu sqlite3 libpq libmicrohttpd gnutls libcurl libarchive zlib
FUZZ_PKG_CFLAGS := $(shell pkg-config --cflags $(FUZZ_PKGS) 2>/dev/null)
FUZZ_PKG_LIBS := $(shell pkg-config --libs $(FUZZ_PKGS) 2>/dev/null || \
	echo -lcrypto -ljansson -ltss2-mu -lsqlite3 -lpq -lmicrohttpd -lgnutls -lcurl -larchive -lz)
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -Wall -Wextra \
	-Wno-missing-field-initializers -Iproto -Iproto/io -Idb $(VROOM_ALL) -Itests/fuzz/support \
	-DFIXTURE_DIR=\"$(CURDIR)/tests/fixtures\" $(FUZZ_PKG_CFLAGS) -MMD -MP
FUZZ_LIB_SRC := $(wildcard proto/*.c db/*.c tests/fuzz/support/*.c) \
	$(filter-out $(VERIFIER_MAINS), \
		$(wildcard verifier/*.c verifier/*/*.c)) $(wildcard proto/io/*.c)
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_OBJ)/%.o)
FUZZ_LIB := $(FUZZ_OBJ)/libfuzz.a

$(FUZZ_OBJ)/%.o: %.c
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# clang warns where gcc, the project's compiler, does not: -Werror only
# on the harnesses' own code.
$(FUZZ_OBJ)/tests/fuzz/%.o: FUZZ_CFLAGS += -Werror

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

build/fuzz/%: $(FUZZ_OBJ)/tests/fuzz/%.o $(FUZZ_LIB)
	clang -fsanitize=fuzzer,address,undefined -o $@ $^ $(FUZZ_PKG_LIBS) \
		-lpthread

-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)

# Keep the objects of chained rules (tests, tools): no "rm" after a run.
.SECONDARY:

.PHONY: all check check-fast check-sanitize check-mutants check-unit check-unit-pg check-scale-out check-cli check-guest kernel \
	check-mutants \
	check-integration-pg \
	check-includes check-browser \
	kernel-stock kernel-check check-kernel-lint images bench deps clean \
	format fuzz \
	check-fuzz check-integration check-guest-streaming bench-kernel-resume \
	bench-kernel-export \
	demo check-guest-fleet fuzz-long

all: $(BINS) $(BENCH_BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(if $(call inc_of,$<),,$(error $<: no include path for $(<D) (INC_$(<D))))
	$(CC) $(CFLAGS) $(call inc_of,$<) -c $< -o $@

$(LIBIMATRUST): $(PROTO_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(WWW_GEN): verifier/api/www/embed.sh $(WWW_FILES) Makefile
	@mkdir -p $(@D)
	verifier/api/www/embed.sh $(WWW_FILES) >$@.tmp && mv $@.tmp $@

$(WWW_OBJ): $(WWW_GEN)
	$(CC) $(CFLAGS) $(INC_verifier/api) -c $< -o $@

$(LIBVERIFIER): $(VERIFIER_OBJ) $(WWW_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(LIBCLI): $(CLI_SRC:%.c=$(BUILD)/%.o)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(LIBAGENT): $(AGENT_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(LIBDB): $(DB_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(LIBDAEMON): $(DAEMON_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

# Link order: a folder's library, then libimaio, then libimatrust.
$(BUILD)/bin/imatrust: $(BUILD)/verifier/cli/imatrust.o $(LIBCLI) \
		$(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(ARCHIVE_LIBS) $(JOURNAL_LIBS) -lpthread

$(BUILD)/bin/imatrust-verifier: $(BUILD)/verifier/imatrust-verifier.o \
		$(LIBVERIFIER) $(LIBDB) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(ARCHIVE_LIBS) $(JOURNAL_LIBS) -lpthread

$(BUILD)/bin/imatrust-agent: $(BUILD)/agent/imatrust-agent.o $(LIBAGENT) \
		$(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(TPM_LIBS) $(PKG_LIBS)

$(BUILD)/bin/bench-replay: $(BUILD)/tests/bench/bench_replay.o $(LIBVERIFIER) \
		$(LIBDB) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(ARCHIVE_LIBS) $(JOURNAL_LIBS) -lpthread

$(BUILD)/bin/gen-ima-list: $(BUILD)/tests/bench/gen_ima_list.o $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/bin/soak-agents: $(BUILD)/tests/bench/soak_agents.o \
		$(BUILD)/tests/bench/bench_fleet.o $(BUILD)/tests/bench/soft_ak.o \
		$(BUILD)/tests/bench/bench_http.o \
		$(LIBDB) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

$(BUILD)/bin/bench-verifier: $(BUILD)/tests/bench/bench_verifier.o \
		$(BUILD)/tests/bench/bench_fleet.o $(BUILD)/tests/bench/soft_ak.o \
		$(BUILD)/tests/bench/bench_http.o \
		$(LIBVERIFIER) $(LIBDB) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

$(BUILD)/bin/bench-route: $(BUILD)/tests/bench/bench_route.o \
		$(BUILD)/tests/bench/bench_fleet.o $(BUILD)/tests/bench/soft_ak.o \
		$(LIBVERIFIER) $(LIBDB) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(ARCHIVE_LIBS) $(JOURNAL_LIBS) -lpthread

$(BUILD)/tests/unit/%.o: CFLAGS += -DFIXTURE_DIR=\"$(CURDIR)/tests/fixtures\" \
	-Wno-missing-prototypes

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIBVERIFIER) $(LIBDB) $(LIBAGENT) \
		$(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(ARCHIVE_LIBS) $(JOURNAL_LIBS) $(CMOCKA_LIBS) \
		-lpthread

# The db tests need only the storage layer (and proto/'s hash table).
$(BUILD)/tests/unit/db/%: $(BUILD)/tests/unit/db/%.o $(LIBDB) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS) -lpthread

# The engine's tests make quotes with software AKs, as the benchmark does.
SOFT_AK_TESTS := $(BUILD)/tests/unit/verifier/engine/test_engine \
	$(BUILD)/tests/unit/verifier/engine/test_attest \
	$(BUILD)/tests/unit/verifier/engine/test_history \
	$(BUILD)/tests/unit/verifier/api/test_route_verify \
	$(BUILD)/tests/unit/verifier/engine/test_engine_nonce
$(SOFT_AK_TESTS:%=%.o): CFLAGS += -Itests/bench
$(SOFT_AK_TESTS): $(BUILD)/tests/bench/soft_ak.o
# ... and stand in for the measured-boot check to see what it is given.
$(BUILD)/tests/unit/verifier/engine/test_engine: LDFLAGS += \
	-Wl,--wrap=boot_check_evidence

# test_engine_nonce fails the RNG on demand and sees each nonce stored.
$(BUILD)/tests/unit/verifier/engine/test_engine_nonce: LDFLAGS += \
	-Wl,--wrap=RAND_bytes -Wl,--wrap=db_nonce_issue

# test_tpm_quote_faults fails each OpenSSL and TSS call of the quote path.
QUOTE_FAULT_WRAPS := EVP_MD_CTX_new EVP_DigestVerifyInit \
	EVP_PKEY_CTX_set_rsa_padding EVP_PKEY_CTX_set_rsa_pss_saltlen \
	EVP_DigestVerify ECDSA_SIG_new ECDSA_SIG_set0 BN_bin2bn i2d_ECDSA_SIG \
	EVP_DigestInit_ex EVP_DigestUpdate EVP_DigestFinal_ex \
	Tss2_MU_TPMS_ATTEST_Unmarshal Tss2_MU_TPMT_SIGNATURE_Unmarshal
$(BUILD)/tests/unit/proto/test_tpm_quote_faults: LDFLAGS += \
	$(QUOTE_FAULT_WRAPS:%=-Wl,--wrap=%)

# agent_tpm_check wraps Esys_Quote to extend a PCR just before the quote.
$(BUILD)/tests/tools/agent_tpm_check: LDFLAGS += -Wl,--wrap=Esys_Quote
$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIBAGENT) $(LIBDAEMON) \
		$(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(TPM_LIBS) $(PKG_LIBS)

# Host integration tests: real swtpm on free loopback ports, tpm2-tools.
check-integration: all $(TOOL_BINS)
	@IMATRUST_TOOLS=$(CURDIR)/$(BUILD)/tests/tools \
		IMATRUST_BIN=$(CURDIR)/$(BUILD)/bin tests/run-suite.sh \
		check-integration $(INTEGRATION_TESTS)

# The integration tests whose verifier stores anything, again with the
# verifier on a private PostgreSQL cluster (one database per script). Those
# not here start no verifier (test_agent_tpm, test_credential,
# test_quote_peer, test_haproxy_lib, test_pg_schema: its own cluster) or
# test the HTTP layer only (test_http_limits).
INTEGRATION_PG_TESTS := $(addprefix tests/integration/test_,$(addsuffix .sh, \
	attest history enroll verify results webhooks boot_log agent_daemon \
	bank_sha384 ref_crash read_latency))
check-integration-pg: all $(TOOL_BINS)
	@IMATRUST_TOOLS=$(CURDIR)/$(BUILD)/tests/tools \
		tests/integration/run-pg.sh $(INTEGRATION_PG_TESTS)

# One probe per line for tests/check-includes.sh, with inc_of's flags.
inc_probe = $(1) $(word 1,$(subst :, ,$(2))) $(word 2,$(subst :, ,$(2))) \
	$(call inc_of,$(word 1,$(subst :, ,$(2)))/probe.c)
$(INC_LIST): Makefile
	@mkdir -p $(@D)
	@echo "$(CC) $(filter-out -MMD -MP,$(CFLAGS))" >$@
	@$(foreach p,$(INC_DENY),echo "$(call inc_probe,deny,$(p))" >>$@;)
	@$(foreach p,$(INC_ALLOW),echo "$(call inc_probe,allow,$(p))" >>$@;)

# Static checks, no build needed (issue #32; tests/lint/): each fails
# naming its findings. .ci/run runs it before make check.
.PHONY: lint
lint:
	@tests/run-suite.sh lint tests/lint/shellcheck.sh \
		tests/lint/clang-format.sh tests/lint/function-length.sh \
		tests/lint/checkpatch.sh tests/lint/layout.sh tests/lint/doc-paths.sh \
		"tests/mutants/run.sh --anchors" "kernel/lint.sh --patches"
	@tests/lint/function-length.sh --longest

# Rewrite the C in the style of .clang-format ("make lint" checks it).
.PHONY: format
format:
	@tests/lint/clang-format.sh --fix

check-includes: $(INC_LIST)
	@tests/run-suite.sh check-includes "tests/check-includes.sh $(INC_LIST)"

check-unit: $(UNIT_BINS)
	@tests/run-suite.sh unit $(UNIT_BINS)

# The db unit tests again, against a private PostgreSQL cluster.
DB_UNIT_BINS := $(filter $(BUILD)/tests/unit/db/%,$(UNIT_BINS))
check-unit-pg: $(DB_UNIT_BINS)
	@tests/unit/db/run-pg.sh $(DB_UNIT_BINS)

check-cli: $(BINS)
	@IMATRUST_BIN=$(CURDIR)/$(BUILD)/bin tests/run-suite.sh cli tests/cli/test_*.sh

check-fast: all $(UNIT_BINS) $(TOOL_BINS) $(INC_LIST)
	@IMATRUST_BIN=$(CURDIR)/$(BUILD)/bin \
		IMATRUST_TOOLS=$(CURDIR)/$(BUILD)/tests/tools \
		tests/run-suite.sh check-fast \
		"tests/check-includes.sh $(INC_LIST)" $(UNIT_BINS) \
		tests/self/test_*.sh tests/cli/test_*.sh $(INTEGRATION_TESTS)

# In "make check" (and under CI=true) a skipped test fails its suite: a
# missing tool or service names its Debian package (tests/run-suite.sh).
# tests/stages.sh runs every stage even after one failed, times each and
# ends with them slowest first and one "check: N passed, N failed" line.
CHECK_STAGES := check-fast check-sanitize check-unit-pg \
	check-integration-pg check-browser check-fuzz check-mutants \
	check-guest check-guest-streaming check-kernel-lint check-guest-fleet \
	check-scale-out
check: export IMATRUST_STRICT := 1
check:
	@MAKE="$(MAKE)" tests/stages.sh $(CHECK_STAGES)

# The unit and integration suites again, built with ASan and UBSan into
# build/san (their daemons included). A small quarantine keeps freed
# memory from counting against test_http_limits' memory bounds.
check-sanitize:
	@ASAN_OPTIONS=quarantine_size_mb=4 $(MAKE) --no-print-directory \
		SANITIZE=1 check-unit check-integration

# Mutation testing (issue 32): every mutant of tests/mutants/mutants.list
# applied to a scratch copy of the tree with this build warm, its tests
# built and run; a survivor, a stale anchor or a mutant that does not
# compile fails. MUTANTS_ONLY=REGEX runs some (tests/mutants/run.sh).
# The copy builds with the default flags in its build/ (warm when that is
# this build: SANITIZE=0).
check-mutants: $(UNIT_BINS)
	@tests/run-suite.sh check-mutants tests/mutants/run.sh

# Three verifiers on one PostgreSQL behind HAProxy, 1,000 simulated
# agents for a minute; one verifier killed, the database restarted
# (tests/scale/scale-out.sh; SOAK_AGENTS, SOAK_SECONDS). Then one
# verifier under 1,000 agents and every network attack at once
# (tests/scale/attack-load.sh, about 100 s).
check-scale-out: all
	@tests/run-suite.sh check-scale-out tests/scale/scale-out.sh \
		tests/scale/attack-load.sh

# The fleet console in headless Chromium against a real verifier and
# agents on swtpm (slow to start: not in check-fast). Screenshots in
# $(BUILD)/test-logs/console/.
check-browser: all $(TOOL_BINS)
	@IMATRUST_BIN=$(CURDIR)/$(BUILD)/bin \
		IMATRUST_TOOLS=$(CURDIR)/$(BUILD)/tests/tools \
		CONSOLE_SHOTS=$(CURDIR)/$(BUILD)/test-logs/console \
		tests/run-suite.sh check-browser tests/browser/test_console.sh

fuzz: $(FUZZ_BINS)

# Every target for FUZZ_SECONDS from its corpus (the corpus is not
# changed), two at a time on a 2-core machine (FUZZ_JOBS).
check-fuzz: $(FUZZ_BINS)
	@tests/run-suite.sh check-fuzz "tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BINS)"

# Every target for FUZZ_LONG_SECONDS, FUZZ_JOBS at a time; FUZZ_MERGE=1
# merges what they found into tests/fuzz/corpus/.
fuzz-long: $(FUZZ_BINS)
	@tests/fuzz/long.sh $(FUZZ_LONG_SECONDS) $(FUZZ_JOBS) $(FUZZ_MERGE) \
		$(FUZZ_BINS)

# Kernel and lab (issue: kernel build pipeline and QEMU lab).
kernel:
	@kernel/build.sh

kernel-stock:
	@kernel/build.sh --stock

kernel-check:
	@kernel/build.sh --checkpatch

# The lint tier of the series (issue #32; kernel/lint.sh, kernel/README.md
# "Lint"): checkpatch.pl --strict per patch (also in "make lint"), then
# sparse and W=1 on security/integrity/ima/ of the stock and the patched
# tree; builds the kernels first if their cache is cold (make check runs
# it after the guest stages built them: 32-95 s warm on 2 loaded cores).
check-kernel-lint:
	@tests/run-suite.sh check-kernel-lint "kernel/lint.sh --patches" \
		"kernel/lint.sh --trees"

images:
	@deploy/image/build-minimal.sh

check-guest: all
	@tests/guest/run.sh

# The streaming patch series in booted guests (poll, resume, per-bank).
check-guest-streaming: all
	@tests/guest/streaming/run.sh

bench-kernel-resume:
	@tests/bench/kernel-resume

bench-kernel-export:
	@tests/bench/kernel-export

# The fleet: three guests with the agent, one verifier (issue: fleet e2e).
# No prerequisites: demo.sh installs the packages first, then builds.
demo:
	@deploy/demo.sh

# run.sh: the fleet of issue 6; sig.sh, apt.sh: signatures and a real
# apt upgrade (issue 11); uefi.sh: guests through OVMF, Secure Boot and
# the boot policy (issue 12); uki.sh: shim, MOK, systemd-boot and a UKI
# (issue 34). all.sh ends with the failures of every suite.
check-guest-fleet: all
	@tests/guest/fleet/all.sh

bench: all
	@tests/bench/replay

# Instructions per heartbeat and per record against one AK signature
# check (callgrind; steady on a loaded host where CPU time is not)
.PHONY: bench-instructions
bench-instructions: all
	@tests/bench/instructions

# N simulated agents against a real verifier (issue #5): BENCH_AGENTS=10000
.PHONY: bench-verifier
bench-verifier: all
	@tests/bench/verifier

# A new machine's first attestation (780 IMA records, a 30 KB UEFI log) on
# SQLite and PostgreSQL, cold and warm reference cache, against Keylime's
# push-mode figure (issue #37): BENCH_COLD=1000 BENCH_WARM=2000
.PHONY: bench-first-contact
bench-first-contact: all
	@tests/bench/first-contact

# Verifier CPU per attestation on SQLite, PostgreSQL, and 3 verifiers on
# PostgreSQL behind HAProxy (issue 13), against openssl speed.
.PHONY: bench-scale-out
bench-scale-out: all
	@tests/bench/scale-out

# 100,000 machines at a 60 s heartbeat for 10 minutes on one verifier.
.PHONY: bench-soak
bench-soak: all
	@tests/bench/soak

# Evidence latency during a 100,000-reference import, against none.
$(BUILD)/bin/bench-import-latency: \
		$(BUILD)/tests/bench/bench_import_latency.o \
		$(BUILD)/tests/bench/bench_beat.o \
		$(BUILD)/tests/bench/bench_fleet.o $(BUILD)/tests/bench/soft_ak.o \
		$(BUILD)/tests/bench/bench_http.o \
		$(LIBDB) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

# Evidence latency while a console reads records, against none (#33).
$(BUILD)/bin/bench-read-latency: \
		$(BUILD)/tests/bench/bench_read_latency.o \
		$(BUILD)/tests/bench/bench_beat.o $(BUILD)/tests/bench/bench_refs.o \
		$(BUILD)/tests/bench/bench_fleet.o $(BUILD)/tests/bench/soft_ak.o \
		$(BUILD)/tests/bench/bench_http.o \
		$(LIBDB) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

# A machine's records explained among ~250,000 references (issue #33).
$(BUILD)/bin/bench-explain: $(BUILD)/tests/bench/bench_explain.o \
		$(BUILD)/tests/bench/bench_refs.o $(LIBVERIFIER) $(LIBDB) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(ARCHIVE_LIBS) $(JOURNAL_LIBS) -lpthread

.PHONY: bench-explain
bench-explain: $(BUILD)/bin/bench-explain
	@tests/bench/explain

# import_deb_files() over the apt cache against sha256sum (issue #11).
$(BUILD)/bin/bench-deb-import: $(BUILD)/tests/bench/bench_deb_import.o \
		$(LIBVERIFIER) $(LIBDAEMON) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(ARCHIVE_LIBS) $(JOURNAL_LIBS) -lpthread

.PHONY: bench-deb-import
bench-deb-import: $(BUILD)/bin/bench-deb-import
	@tests/bench/deb-import

.PHONY: bench-import-latency
bench-import-latency: all $(BUILD)/bin/bench-import-latency
	@tests/bench/import-latency

.PHONY: bench-read-latency
bench-read-latency: all
	@tests/bench/read-latency

# A steady, idle agent's memory, descriptors and wakeups against a real
# verifier and swtpm (issue #37: under 8 MB), and what OpenSSL and
# libcurl alone hold once loaded (rss-floor: libssl only, libcurl by
# dlopen()).
$(BUILD)/bin/rss-floor: $(BUILD)/tests/bench/rss_floor.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -lssl -lcrypto

.PHONY: bench-agent-rss
bench-agent-rss: all $(BUILD)/bin/rss-floor
	@tests/bench/agent-rss

deps:
	@deploy/install-deps.sh

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the programs, their
# manual pages and the systemd units (which run /usr/sbin/...: with
# another PREFIX, edit ExecStart= or link the programs there), and the
# agent's drop-in for export = on, as an example to copy.
PREFIX ?= /usr/local
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
MAN1 := verifier/imatrust.1
MAN5 := verifier/imatrust-verifier.conf.5 agent/imatrust-agent.conf.5
MAN8 := verifier/imatrust-verifier.8 agent/imatrust-agent.8
.PHONY: install
install: $(BINS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin \
		$(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 0755 $(BUILD)/bin/imatrust $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(BUILD)/bin/imatrust-verifier \
		$(BUILD)/bin/imatrust-agent $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(MAN5) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 0644 $(MAN8) $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 0644 deploy/systemd/imatrust-verifier.service \
		deploy/systemd/imatrust-agent.service $(DESTDIR)$(SYSTEMDUNITDIR)/
	# not active until an operator copies it (export = on needs it)
	install -D -m 0644 deploy/systemd/imatrust-agent-export.conf \
		$(DESTDIR)$(PREFIX)/share/imatrust/imatrust-agent-export.conf

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
