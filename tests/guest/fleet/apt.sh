#!/bin/bash
# Fleet test of issue 11: a real install and upgrade from a local apt
# archive, judged against imported packages.
#
#   tests/guest/fleet/apt.sh [--keep]
#
# deploy/lab/apt-archive.sh builds two flat archives (hello:
# imatrust-lab-hello 1.0 and 1.1, a compiled program, a conffile, a
# postinst; rogue: imatrust-lab-rogue 1.0) and serves them on
# http://10.77.0.1:8080/ in the lab namespace. The verifier gets the golden
# image's files (import-dir, source golden-image), the guest's agent.conf
# and the sources.list the operator gives the guest (ref add, source
# manual), the hello archive (`imatrust ref import-archive`), and the
# policy below. The rogue archive is never imported.
#
# The guest's root is the golden image behind its own qcow2 overlay
# (lab.sh guest), mounted read-only by fstab; the test remounts it
# read-write over the lab control channel (writes stay in the overlay),
# so dpkg and apt write where a real machine does, and every file they
# make root read or execute is measured by the tcb policy.
#
#   - apt-get update, install imatrust-lab-hello=1.0 and run it, apt-get
#     upgrade to 1.1 and run it: trusted after each step, and no event
#     ever turned the machine untrusted;
#   - install imatrust-lab-rogue (from the second archive): untrusted at
#     once, the reason naming the control part dpkg unpacked
#     (/var/lib/dpkg/tmp.ci/...) and saying no imported package provides
#     it; running it: the reason names /usr/bin/imatrust-lab-rogue;
#   - `imatrust ref import-deb` of the rogue package: trusted again, with
#     no new record from the guest (the re-judge of the import does it).
#
# TAP on stdout, last line "N passed, N failed". Environment as run.sh:
# IMATRUST_KERNEL, IMATRUST_IMAGE, IMATRUST_ACCEL, IMATRUST_FLEET_TIMEOUT.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly POLICY=apt-fleet
readonly PORT=8080

# What apt and dpkg make root read that no package provides, measured in
# a guest during apt-get update, install, upgrade and a second install
# (see deploy/lab/README.md, "apt in a guest"); everything else the
# operations measure is a file of the image or of an imported package
# (the maintainer scripts included: the deb importer emits the control
# members where dpkg keeps them, /var/lib/dpkg/info/, and where it unpacks
# them and runs preinst from, /var/lib/dpkg/tmp.ci/; and each conffile
# also as PATH.dpkg-new, where dpkg unpacks it first). Nothing on this
# list is executed by apt or dpkg, but a path excluded is excluded for
# every hook, exec included.
readonly EXCLUDES='[
 {"prefix": "/var/lib/apt/lists/"},
 {"glob": "/var/lib/apt/extended_states*"},
 {"glob": "/var/cache/apt/*pkgcache.bin*"},
 {"prefix": "/var/cache/apt/archives/"},
 {"prefix": "/var/lib/dpkg/status"},
 {"glob": "/var/lib/dpkg/info/*.list"}
]'

# apt_step DESC CMD: run CMD in guest 1 (DEBIAN_FRONTEND=noninteractive);
# its output in $run_dir/apt-N.log.
apt_step() {
	local desc=$1 out

	shift
	steps=$((steps + 1))
	out=$run_dir/apt-$steps.log
	if gexec -t 600 1 "DEBIAN_FRONTEND=noninteractive $*" >"$out" 2>&1; then
		return 0
	fi
	not_ok "guest1: $desc" "$(tail -n 3 "$out")"
	return 1
}

# still_trusted DESC: every record the guest has now judged, trusted.
still_trusted() {
	local st

	st=$(caught_up 1 guest1)
	if [ "$st" = trusted ]; then
		ok "guest1 trusted after $1"
	else
		not_ok "guest1 trusted after $1" "state $st" "reason: $(reason_of guest1)"
	fi
}

# run_hello VERSION: the installed program says VERSION and its conffile's.
run_hello() {
	local out

	out=$(gexec 1 imatrust-lab-hello 2>&1)
	if [ "$out" = "imatrust-lab-hello $1"$'\n'"greeting = hello from $1" ]; then
		ok "guest1: imatrust-lab-hello $1 runs with its conffile"
	else
		not_ok "guest1: imatrust-lab-hello $1 runs with its conffile" "$out"
	fi
}

setup() {
	archives=$("$ROOT/deploy/lab/apt-archive.sh" build 2>>"$run_dir/up.log" |
	    tail -n 1) || return 1
	"$ROOT/deploy/lab/apt-archive.sh" sources "$PORT" >"$run_dir/sources.list"
	jq -n --argjson ex "$EXCLUDES" '{machines: ["guest*"], default: false,
	    sources: ["deb:*", "dir-tree:golden-image", "dir-tree:manual"],
	    excludes: $ex, violations: "allow", any_path: "deny",
	    conffiles: "reference"}' >"$run_dir/policy.json"
	fleet_fresh_verifier 30 &&
	    fleet_refs_image &&
	    fleet_cli ref import-archive --algo sha256 "$archives/hello" &&
	    fleet_cli policy put "$POLICY" "$run_dir/policy.json" &&
	    fleet_ref_add /etc/apt/sources.list \
	    "sha256:$(sha256sum "$run_dir/sources.list" | cut -d' ' -f1)" &&
	    "$ROOT/deploy/lab/apt-archive.sh" serve "$archives" "$PORT" &&
	    fleet_guest 1 sha256
}

test_upgrade() {
	local ev0 bad

	if wait_state guest1 trusted "$TIMEOUT" 1 >/dev/null 2>&1; then
		ok "guest1 (golden image, references: image, hello archive) is trusted"
	else
		not_ok "guest1 is trusted" "state: $(jq_machine guest1 .machine.state)" \
		    "reason: $(reason_of guest1)" "console: $run_dir/lab/guest1/console.log"
	fi
	ev0=$(last_event guest1)
	apt_step "remount / read-write" 'mount -o remount,rw / && findmnt -n -o OPTIONS / | grep -q "^rw"' &&
	    gexec --quiet 1 --put "$run_dir/sources.list" /etc/apt/sources.list &&
	    apt_step "apt-get update" apt-get update &&
	    still_trusted "apt-get update"
	apt_step "apt-get install imatrust-lab-hello=1.0" \
	    apt-get install -y imatrust-lab-hello=1.0 && run_hello 1.0 &&
	    still_trusted "installing and running imatrust-lab-hello 1.0"
	apt_step "apt-get upgrade" apt-get -y upgrade && run_hello 1.1 &&
	    still_trusted "upgrading to and running imatrust-lab-hello 1.1"
	bad=$(events_to guest1 "$ev0" untrusted)
	check "guest1: trusted throughout (no event turned it untrusted)" [ "$bad" = "[]" ]
}

test_rogue() {
	local p=/usr/bin/imatrust-lab-rogue reason deb i

	# dpkg unpacks the package's control part and reads it as root, so
	# the install alone is caught: no imported package has that control
	apt_step "apt-get install imatrust-lab-rogue" \
	    apt-get install -y imatrust-lab-rogue || true
	if wait_state guest1 untrusted 120 0.2 >/dev/null 2>&1; then
		ok "guest1: installing imatrust-lab-rogue (not imported) turns it untrusted"
	else
		not_ok "guest1: installing imatrust-lab-rogue turns it untrusted" \
		    "$(machine guest1 | jq -c .machine)"
	fi
	reason=$(reason_of guest1)
	if jq -e '(.path | startswith("/var/lib/dpkg/tmp.ci/")) and
	    (.why | test("no imported package"))' <<<"$reason" >/dev/null; then
		ok "guest1: the reason names the control part dpkg unpacked and that no imported package provides it"
	else
		not_ok "guest1: the reason names the unpacked control part" "reason: $reason"
	fi
	gexec --quiet 1 imatrust-lab-rogue || true
	for i in $(seq 600); do
		reason=$(reason_of guest1)
		jq -e --arg p "$p" '.path == $p' <<<"$reason" >/dev/null && break
		sleep 0.2
	done
	if jq -e --arg p "$p" '.path == $p and (.why | test("no imported package"))' \
	    <<<"$reason" >/dev/null; then
		ok "guest1: running it, the reason names $p and that no imported package provides it"
	else
		not_ok "guest1: the reason names $p and no imported package" "reason: $reason"
	fi
	deb=$(echo "$archives"/rogue/imatrust-lab-rogue_1.0_*.deb)
	rejudged_alone 1 guest1 "imatrust ref import-deb of the rogue package" \
	    fleet_cli ref import-deb --algo sha256 "$deb"
	if [ "$(caught_up 1 guest1)" = trusted ]; then
		ok "guest1 trusted once its agent streams again"
	else
		not_ok "guest1 trusted once its agent streams again" "reason: $(reason_of guest1)"
	fi
}

tests() {
	set +e	# a failing step is a "not ok", never the end of the run
	echo "TAP version 13"
	tap_guard "$run_dir/up.log"
	steps=0
	if fleet_prepare >"$run_dir/up.log" 2>&1 && setup >>"$run_dir/up.log" 2>&1; then
		ok "archives, verifier (image + hello archive + policy $POLICY), guest1"
	else
		not_ok "archives, verifier, policy, guest1" "$(tail -n 5 "$run_dir/up.log")"
		fleet_test_done
		exit 1
	fi
	log "waiting for guest1 (accelerator $("$FLEET_LAB" accel "$FLEET_KERNEL"))"
	test_upgrade
	test_rogue
	fleet_test_done
}

fleet_test_main "$@"
