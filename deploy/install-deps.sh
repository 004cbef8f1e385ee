#!/usr/bin/env bash
# install-deps.sh - install every Debian 12 package imatrust needs to
# build, test, run the lab and the benchmarks. Idempotent: packages that
# are already there are left alone, and apt is only asked when one is not.
set -euo pipefail

packages=(
	# build
	build-essential pkg-config clang
	libssl-dev libjansson-dev libsqlite3-dev libcurl4-openssl-dev
	libmicrohttpd-dev libgnutls28-dev libtss2-dev libarchive-dev zlib1g-dev
	libsystemd-dev	# audit entries to the journal (engine_journal.c)
	# tests and benchmarks
	libcmocka-dev jq ima-evm-utils openssl tpm2-tools swtpm swtpm-tools
	dpkg-dev apt-utils	# .deb and apt archive fixtures (tests/fixtures/deb)
	attr			# security.ima of the signed guest image
	# signed attestation results checked by an independent JWT library
	# (tests/integration/test_results.sh)
	python3-jwt python3-cryptography
	# the fleet console in headless Chromium (tests/browser), with a font
	# for its screenshots (--no-install-recommends leaves it out)
	chromium chromium-driver python3-selenium fonts-dejavu-core
	# kernel build (kernel/build.sh)
	linux-source-6.1 ccache flex bison bc libelf-dev libssl-dev cpio
	xz-utils rsync kmod python3 patch
	sparse		# kernel/lint.sh: make C=2 on the series' directory
	# QEMU lab and guest images (deploy/lab, deploy/image)
	qemu-system-x86 qemu-utils busybox-static mmdebstrap e2fsprogs iproute2
	procps util-linux
	socat			# make demo: the console forwarded to the host
	# UEFI lab (issue 12): firmware, systemd-boot, Secure Boot keys and
	# signing, the EFI system partition, Authenticode digests to compare
	ovmf systemd-boot-efi efitools sbsigntool mtools dosfstools gdisk
	pesign
	# the chain Debian boots (issue 34): shim (signed with the lab's db
	# key), systemd-boot, a UKI of systemd-stub made with objcopy, its
	# PCR 11 predicted by systemd-measure (package systemd)
	shim-unsigned binutils systemd
	# PostgreSQL storage (issue 13): the server, whose initdb and pg_ctl
	# (/usr/lib/postgresql/15/bin) tests/lib/pg.sh runs for a private
	# cluster per test, and psql; libpq for the verifier's backend
	postgresql libpq-dev
	# several verifiers behind one TLS-passthrough load balancer
	# (deploy/haproxy, tests/lib/haproxy.sh)
	haproxy
	sqlite3		# the SQLite schema test_pg_schema.sh compares with
	valgrind	# tests/bench/instructions counts with callgrind
	shellcheck	# the test scripts are checked with it
	clang-format	# the C is checked against .clang-format (make lint)
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing ${missing[*]}; run as root" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# The tests start their own PostgreSQL and HAProxy (tests/lib); the system
# services these packages would start on installation are not wanted:
# Debian's policy-rc.d says "not now" (101) for the duration, unless the
# administrator has a policy of their own.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
