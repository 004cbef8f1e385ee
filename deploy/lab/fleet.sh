#!/bin/bash
# The fleet on the QEMU lab: one imatrust-verifier on 10.77.0.1:8443 and
# Debian guests running imatrust-agent under systemd. Used by deploy/demo.sh
# and tests/guest/fleet/run.sh (which source it), or by hand:
#
#   fleet.sh prepare [--allow-stub]   PKI, kernel (kernel/build.sh), golden
#                                     image (deploy/image/build-debian.sh)
#   fleet.sh up [--guests N] [--sha1 K] [--stale-after S] [--allow-stub]
#                                     prepare, namespace, verifier (fresh
#                                     database, operator token), references
#                                     of the golden image and of each
#                                     guest's agent.conf, guests 1..N (guest
#                                     K with ima_hash=sha1 ima_template=ima
#                                     and agent bank sha1)
#   fleet.sh guest N [--sha1]         (re)start guest N
#   fleet.sh verifier start|stop|kill
#   fleet.sh cli ARGS...              the imatrust CLI against the lab verifier
#   fleet.sh exec N CMD...            deploy/lab/guest-exec
#   fleet.sh down                     everything off (lab.sh down)
#
# Files: $IMATRUST_LAB_RUN (lab.sh's run directory)/fleet/: verifier.conf,
# verifier.db, token (operator, 0600), env (kernel and image of `up`),
# bin/ (the imatrust-verifier and imatrust of this run), refs-*.log; the verifier's log is lab.sh's run directory/verifier.log.
# Environment as lab.sh, plus IMATRUST_KERNEL (use this bzImage instead of
# kernel/build.sh), IMATRUST_IMAGE (a built golden image directory),
# IMATRUST_FIRMWARE (bios, uefi or uefi-nosb: how guests boot, lab.sh
# start --firmware; default bios; a comma list gives guest N the Nth, the
# last one for the rest: uefi,uefi,bios).
set -euo pipefail

FLEET_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly FLEET_ROOT
readonly FLEET_LAB="$FLEET_ROOT/deploy/lab/lab.sh"
FLEET_BIN="${IMATRUST_BIN_DIR:-$FLEET_ROOT/build/bin}"
readonly FLEET_CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly FLEET_NS="${IMATRUST_LAB_NS:-imatrust-lab}"
readonly FLEET_RUN="${IMATRUST_LAB_RUN:-$FLEET_CACHE/lab/run/$FLEET_NS}"
readonly FLEET_DIR="$FLEET_RUN/fleet"
readonly FLEET_URL=https://10.77.0.1:8443
FLEET_PKI="${IMATRUST_PKI:-$FLEET_CACHE/lab/pki}"

fleet_log() { printf '[fleet] %s\n' "$*" >&2; }
fleet_die() { printf '[fleet] error: %s\n' "$*" >&2; exit 1; }

# Seconds since $1 (date +%s.%N), one decimal.
fleet_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# PKI, kernel and golden image; sets FLEET_KERNEL and FLEET_IMAGE.
fleet_prepare() {
	local stub=() t0

	[ "${1:-}" != --allow-stub ] || stub=(--allow-stub)
	FLEET_PKI=$("$FLEET_ROOT/deploy/pki.sh" | tail -n 1)
	if [ -n "${IMATRUST_KERNEL:-}" ]; then
		FLEET_KERNEL=$IMATRUST_KERNEL
	else
		t0=$(date +%s.%N)
		fleet_log "kernel: kernel/build.sh (cold: ~15 min on 2 cores)"
		FLEET_KERNEL=$("$FLEET_ROOT/kernel/build.sh" | tail -n 1)
		fleet_log "kernel ready in $(fleet_since "$t0")s"
	fi
	[ -f "$FLEET_KERNEL" ] || fleet_die "no bzImage ($FLEET_KERNEL)"
	if [ -n "${IMATRUST_IMAGE:-}" ]; then
		FLEET_IMAGE=$IMATRUST_IMAGE
	else
		t0=$(date +%s.%N)
		fleet_log "golden image: deploy/image/build-debian.sh"
		FLEET_IMAGE=$("$FLEET_ROOT/deploy/image/build-debian.sh" \
		    ${stub[@]+"${stub[@]}"} | tail -n 1)
		fleet_log "golden image ready in $(fleet_since "$t0")s: $FLEET_IMAGE"
	fi
	[ -f "$FLEET_IMAGE/rootfs.ext4" ] && [ -d "$FLEET_IMAGE/root" ] ||
		fleet_die "no golden image in '$FLEET_IMAGE'"
	# The verifier and CLI of this run, copied: a rebuild of build/bin
	# during a run (the agent is already frozen in the image) must not
	# restart the verifier as another version.
	mkdir -p "$FLEET_DIR/bin"
	cp "$FLEET_BIN/imatrust-verifier" "$FLEET_BIN/imatrust" "$FLEET_DIR/bin/" ||
		fleet_die "no imatrust-verifier or imatrust in $FLEET_BIN (make all)"
	FLEET_BIN=$FLEET_DIR/bin
	export IMATRUST_VERIFIER=$FLEET_BIN/imatrust-verifier
	printf 'FLEET_KERNEL=%q\nFLEET_IMAGE=%q\nFLEET_PKI=%q\nFLEET_BIN=%q\nexport IMATRUST_VERIFIER=%q\n' \
	    "$FLEET_KERNEL" "$FLEET_IMAGE" "$FLEET_PKI" "$FLEET_BIN" \
	    "$IMATRUST_VERIFIER" >"$FLEET_DIR/env"
}

fleet_load_env() {
	[ -f "$FLEET_DIR/env" ] || fleet_die "no fleet in $FLEET_DIR (fleet.sh up)"
	# shellcheck disable=SC1091
	. "$FLEET_DIR/env"
}

fleet_write_config() {
	local stale=$1

	cat >"$FLEET_DIR/verifier.conf" <<-EOF
	# written by deploy/lab/fleet.sh (example: deploy/config/verifier.conf)
	listen = 10.77.0.1
	port = 8443
	tls_cert = $FLEET_PKI/server.pem
	tls_key = $FLEET_PKI/server.key
	database = $FLEET_DIR/verifier.db
	ek_ca = $("$FLEET_LAB" ca)
	nonce_ttl = 30
	stale_after = $stale
	violations = allow
	any_path = deny
	log_level = info
	EOF
}

# The imatrust CLI inside the namespace, connected to the lab verifier.
fleet_cli() {
	ip netns exec "$FLEET_NS" env IMATRUST_URL="$FLEET_URL" \
	    IMATRUST_CA="$FLEET_PKI/ca.pem" \
	    IMATRUST_TOKEN_FILE="$FLEET_DIR/token" "$FLEET_BIN/imatrust" "$@"
}

# References: every file of the golden image's root (sha256 and sha1, for
# the sha1 guest; $1 other algorithms, e.g. sha256,sha1,sha384 for a
# sha384 guest), then each guest's agent.conf as that guest measures it.
# shellcheck disable=SC2120 # tests/guest/fleet/uefi.sh passes algorithms
fleet_refs_image() {
	local t0 out algos=${1:-sha256,sha1}

	t0=$(date +%s.%N)
	fleet_log "references: imatrust ref import-dir --prefix / --algo $algos (golden root)"
	out=$(fleet_cli ref import-dir --prefix / --algo "$algos" \
	    --source golden-image "$FLEET_IMAGE/root" 2>&1) ||
		fleet_die "ref import-dir failed: $out"
	echo "$out" >"$FLEET_DIR/refs-image.log"
	fleet_log "references imported in $(fleet_since "$t0")s ($(tail -n 1 "$FLEET_DIR/refs-image.log"))"
}

# fleet_ref_add PATH ALGO:HEX - one reference digest.
fleet_ref_add() {
	fleet_cli ref add "$1" "$2" >/dev/null
}

fleet_refs_site() {
	local n=$1 f=$FLEET_RUN/guest$1/disk-site.d/agent.conf

	[ -f "$f" ] || fleet_die "no agent.conf of guest $n"
	fleet_ref_add /srv/site/agent.conf "sha256:$(sha256sum "$f" | cut -d' ' -f1)"
	fleet_ref_add /srv/site/agent.conf "sha1:$(sha1sum "$f" | cut -d' ' -f1)"
	[ "$(cat "$FLEET_RUN/guest$n/bank" 2>/dev/null)" != sha384 ] ||
		fleet_ref_add /srv/site/agent.conf "sha384:$(sha384sum "$f" | cut -d' ' -f1)"
}

fleet_verifier() {
	case "$1" in
	start) "$FLEET_LAB" verifier start "$FLEET_DIR/verifier.conf" ;;
	*) "$FLEET_LAB" verifier "$1" ;;
	esac
}

# The firmware of guest $1 from IMATRUST_FIRMWARE (one, or a comma list).
fleet_firmware() {
	local list=() i

	IFS=, read -r -a list <<<"${IMATRUST_FIRMWARE:-bios}"
	i=$(($1 - 1))
	[ "$i" -lt "${#list[@]}" ] || i=$((${#list[@]} - 1))
	echo "${list[$i]}"
}

# fleet_guest N [sha1|sha256]: (re)start guest N, register its agent.conf.
fleet_guest() {
	local n=$1 bank=${2:-sha256}

	"$FLEET_LAB" stop "$n" >/dev/null 2>&1 || true
	"$FLEET_LAB" guest "$n" --image "$FLEET_IMAGE" --kernel "$FLEET_KERNEL" \
	    --bank "$bank" --firmware "$(fleet_firmware "$n")"
	fleet_refs_site "$n"
}

# fleet_fresh_verifier STALE_AFTER: the namespace and a verifier on a new
# database (no references, no machines) with a new operator token; after
# fleet_prepare. Tests that bring their own references start from here.
fleet_fresh_verifier() {
	[ -x "$FLEET_BIN/imatrust-verifier" ] || fleet_die "no $FLEET_BIN/imatrust-verifier (make all)"
	"$FLEET_LAB" up
	"$FLEET_LAB" verifier stop >/dev/null 2>&1 || true
	rm -f "$FLEET_DIR"/verifier.db*
	fleet_write_config "$1"
	IMATRUST_BIN_DIR="$FLEET_BIN" "$FLEET_ROOT/deploy/pki.sh" token \
	    "$FLEET_DIR/verifier.conf" operator "$FLEET_DIR/token" >/dev/null
	fleet_verifier start
}

fleet_up() {
	local guests=3 sha1=0 stale=30 stub_opt='' n

	while [ $# -gt 0 ]; do
		case "$1" in
		--guests) guests=$2; shift ;;
		--sha1) sha1=$2; shift ;;
		--stale-after) stale=$2; shift ;;
		--allow-stub) stub_opt=--allow-stub ;;
		*) fleet_die "up: unknown option $1" ;;
		esac
		shift
	done
	fleet_prepare $stub_opt
	fleet_fresh_verifier "$stale"
	fleet_refs_image
	for n in $(seq "$guests"); do
		if [ "$n" = "$sha1" ]; then
			fleet_guest "$n" sha1
		else
			fleet_guest "$n" sha256
		fi
	done
}

fleet_main() {
	local cmd=${1:-}

	[ "$(id -u)" = 0 ] || fleet_die "the fleet needs root (lab namespace)"
	[ $# = 0 ] || shift
	case "$cmd" in
	prepare) fleet_prepare "$@"; cat "$FLEET_DIR/env" ;;
	up) fleet_up "$@" ;;
	guest)
		fleet_load_env
		fleet_guest "$1" "$([ "${2:-}" = --sha1 ] && echo sha1 || echo sha256)"
		;;
	verifier) fleet_load_env; fleet_verifier "${1:-status}" ;;
	cli) fleet_load_env; fleet_cli "$@" ;;
	exec) exec "$FLEET_ROOT/deploy/lab/guest-exec" "$@" ;;
	down) "$FLEET_LAB" down ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	   exit 2 ;;
	esac
}

# Sourced (demo, tests): only the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	fleet_main "$@"
fi
