# shellcheck shell=bash
# need.sh - (sourced) a test script's tools, each named with the Debian
# package that installs it (deploy/install-deps.sh installs them all).
#
#   need TOOL...    prints "1..0 # SKIP TOOL not installed (Debian package
#                   PKG: deploy/install-deps.sh)" and exits 0 when a TOOL
#                   is not on PATH (an absolute path is tested as a file)
#   tool_package TOOL   the Debian package of TOOL
#
# A whole-script skip passes only in the inner loop: tests/run-suite.sh
# fails it under CI=true and in "make check" (IMATRUST_STRICT=1).

tool_package() {
	case $1 in
	tpm2_*) echo tpm2-tools ;;
	swtpm) echo swtpm ;;
	swtpm_*) echo swtpm-tools ;;
	sbsign | sbverify) echo sbsigntool ;;
	dpkg-deb) echo dpkg ;;
	dpkg-scanpackages) echo dpkg-dev ;;
	xz) echo xz-utils ;;
	groff) echo groff-base ;;
	psql) echo postgresql-client ;;
	pg_ctl | initdb | postgres) echo postgresql ;;
	chromedriver) echo chromium-driver ;;
	evmctl) echo ima-evm-utils ;;
	*/systemd/boot/efi/*) echo systemd-boot-efi ;;
	*/shim/*) echo shim-unsigned ;;
	*/systemd-measure) echo systemd ;;
	objcopy | objdump) echo binutils ;;
	*/linux-source-6.1.tar.xz) echo linux-source-6.1 ;;
	awk) echo mawk ;;
	gcc) echo build-essential ;;
	flock | unshare) echo util-linux ;;
	clang-format | shellcheck | sqlite3 | jq | curl | openssl | pesign | \
		chromium | haproxy | valgrind | make | python3 | qemu-img | \
		perl | sparse | ccache) echo "$1" ;;
	*) echo "the one providing $1 (apt-file search bin/$1)" ;;
	esac
}

need() {
	local tool

	for tool in "$@"; do
		if [ "${tool#/}" != "$tool" ]; then
			[ -e "$tool" ] && continue
		elif command -v "$tool" >/dev/null; then
			continue
		fi
		echo "1..0 # SKIP $tool not installed (Debian package" \
			"$(tool_package "$tool"): deploy/install-deps.sh)"
		exit 0
	done
}
