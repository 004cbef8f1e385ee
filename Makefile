# imatrust - one entry point for building, testing, benchmarks and the lab.
#
#   make            build the user-space programs into build/
#   make check-fast unit tests + host integration tests (the inner loop)
#   make check      everything: check-fast, the kernel build, guest tests
#   make SANITIZE=1 check-fast   the same tests under ASan + UBSan
#   make bench      benchmarks that print ratios against named peers

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD ?= build/san
else
BUILD ?= build
endif

CC ?= cc
PKGS := libcrypto jansson tss2-mu sqlite3 libmicrohttpd libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || \
	echo -lcrypto -ljansson -ltss2-mu -lsqlite3 -lmicrohttpd -lcurl)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
# agent/tpm.c, the agent's only ESAPI user, and what links it.
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
	-Iproto -Idb -Iagent -Iverifier -MMD -MP
LDFLAGS += $(OPT_LD) $(HARDEN_LD)

# libimatrust: everything both daemons agree on (proto/).
PROTO_SRC := $(wildcard proto/*.c)
PROTO_OBJ := $(PROTO_SRC:%.c=$(BUILD)/%.o)
LIBIMATRUST := $(BUILD)/lib/libimatrust.a

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
VERIFIER_MAINS := verifier/imatrust.c verifier/imatrust-verifier.c
VERIFIER_SRC := $(filter-out $(VERIFIER_MAINS),$(wildcard verifier/*.c))
VERIFIER_OBJ := $(VERIFIER_SRC:%.c=$(BUILD)/%.o)
LIBVERIFIER := $(BUILD)/lib/libverifier.a

BINS := $(BUILD)/bin/imatrust $(BUILD)/bin/imatrust-verifier \
	$(BUILD)/bin/imatrust-agent
BENCH_BINS := $(BUILD)/bin/bench-replay $(BUILD)/bin/gen-ima-list \
	$(BUILD)/bin/bench-verifier

# Drivers that put library functions on the command line for the shell
# tests of tests/integration/: tests/tools/<name>.c -> build/tests/tools/
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/tools/%)
INTEGRATION_TESTS := $(wildcard tests/integration/test_*.sh)

# Unit tests mirror the source folders: tests/unit/<folder>/test_<module>.c
UNIT_SRC := $(wildcard tests/unit/*/test_*.c)
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
FUZZ_PKGS := libcrypto jansson tss2-mu sqlite3 libmicrohttpd libcurl
FUZZ_PKG_CFLAGS := $(shell pkg-config --cflags $(FUZZ_PKGS) 2>/dev/null)
FUZZ_PKG_LIBS := $(shell pkg-config --libs $(FUZZ_PKGS) 2>/dev/null || \
	echo -lcrypto -ljansson -ltss2-mu -lsqlite3 -lmicrohttpd -lcurl)
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -Wall -Wextra \
	-Wno-missing-field-initializers -Iproto -Idb -Iverifier -Iagent -Itests/fuzz/support \
	-DFIXTURE_DIR=\"$(CURDIR)/tests/fixtures\" $(FUZZ_PKG_CFLAGS) -MMD -MP
FUZZ_LIB_SRC := $(wildcard proto/*.c db/*.c tests/fuzz/support/*.c) \
	$(filter-out verifier/imatrust.c verifier/imatrust-verifier.c, \
		$(wildcard verifier/*.c)) agent/log.c agent/file.c
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

.PHONY: all check check-fast check-unit check-cli check-guest kernel \
	kernel-stock kernel-check images bench deps clean format fuzz \
	check-fuzz check-integration check-guest-streaming bench-kernel-resume \
	demo check-guest-fleet fuzz-long

all: $(BINS) $(BENCH_BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBIMATRUST): $(PROTO_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(LIBVERIFIER): $(VERIFIER_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(LIBAGENT): $(AGENT_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(LIBDB): $(DB_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

# The CLI shares the agent's bounded file reader (agent/file.c).
$(BUILD)/bin/imatrust: $(BUILD)/verifier/imatrust.o $(LIBVERIFIER) \
		$(BUILD)/agent/file.o $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# The verifier daemon shares the agent's log and sd_notify modules.
$(BUILD)/bin/imatrust-verifier: $(BUILD)/verifier/imatrust-verifier.o \
		$(LIBVERIFIER) $(LIBDB) $(BUILD)/agent/log.o \
		$(BUILD)/agent/notify.o $(BUILD)/agent/file.o $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

$(BUILD)/bin/imatrust-agent: $(BUILD)/agent/imatrust-agent.o $(LIBAGENT) \
		$(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(TPM_LIBS) $(PKG_LIBS)

$(BUILD)/bin/bench-replay: $(BUILD)/tests/bench/bench_replay.o $(LIBVERIFIER) \
		$(BUILD)/agent/file.o $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/bin/gen-ima-list: $(BUILD)/tests/bench/gen_ima_list.o $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/bin/bench-verifier: $(BUILD)/tests/bench/bench_verifier.o \
		$(BUILD)/tests/bench/bench_fleet.o $(BUILD)/tests/bench/soft_ak.o \
		$(LIBDB) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

$(BUILD)/tests/unit/%.o: CFLAGS += -DFIXTURE_DIR=\"$(CURDIR)/tests/fixtures\" \
	-Wno-missing-prototypes

# libverifier before libagent: the verifier's modules use the agent's log.
$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIBVERIFIER) $(LIBDB) $(LIBAGENT) \
		$(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS)

# agent_tpm_check wraps Esys_Quote to extend a PCR just before the quote.
$(BUILD)/tests/tools/agent_tpm_check: LDFLAGS += -Wl,--wrap=Esys_Quote
$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIBAGENT) $(LIBIMATRUST)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(TPM_LIBS) $(PKG_LIBS)

# Host integration tests: real swtpm on free loopback ports, tpm2-tools.
check-integration: all $(TOOL_BINS)
	@IMATRUST_TOOLS=$(CURDIR)/$(BUILD)/tests/tools tests/run-suite.sh \
		check-integration $(INTEGRATION_TESTS)

check-unit: $(UNIT_BINS)
	@tests/run-suite.sh unit $(UNIT_BINS)

check-cli: $(BINS)
	@IMATRUST_BIN=$(CURDIR)/$(BUILD)/bin tests/run-suite.sh cli tests/cli/test_*.sh

check-fast: all $(UNIT_BINS) $(TOOL_BINS)
	@IMATRUST_BIN=$(CURDIR)/$(BUILD)/bin \
		IMATRUST_TOOLS=$(CURDIR)/$(BUILD)/tests/tools \
		tests/run-suite.sh check-fast $(UNIT_BINS) tests/cli/test_*.sh \
		$(INTEGRATION_TESTS)

check: check-fast check-fuzz check-guest check-guest-streaming \
	check-guest-fleet

fuzz: $(FUZZ_BINS)

# Every target for FUZZ_SECONDS from its corpus (the corpus is not changed).
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

images:
	@deploy/image/build-minimal.sh

check-guest: all
	@tests/guest/run.sh

# The streaming patch series in booted guests (poll, resume, per-bank).
check-guest-streaming: all
	@tests/guest/streaming/run.sh

bench-kernel-resume:
	@tests/bench/kernel-resume

# The fleet: three guests with the agent, one verifier (issue: fleet e2e).
# No prerequisites: demo.sh installs the packages first, then builds.
demo:
	@deploy/demo.sh

check-guest-fleet: all
	@tests/guest/fleet/run.sh

bench: all
	@tests/bench/replay

# N simulated agents against a real verifier (issue #5): BENCH_AGENTS=10000
.PHONY: bench-verifier
bench-verifier: all
	@tests/bench/verifier

deps:
	@deploy/install-deps.sh

format:
	clang-format -i $(PROTO_SRC) proto/*.h verifier/*.[ch]

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
