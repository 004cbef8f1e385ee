#!/bin/sh
# make-bundle.sh - a one-shot verification bundle from this machine's TPM
# with tpm2-tools, for POST /v1/verify (`imatrust verify BUNDLE.json`;
# verifier/README.md "One-shot verification"). Written on stdout.
#
#   make-bundle.sh [-b BANK] [-l LIST] [-e EVENTLOG] [-p POLICY]
#                  NONCE_HEX AK_CTX AK_PUB > bundle.json
#
# NONCE_HEX  16-64 bytes of hex the caller made fresh (openssl rand -hex 32)
# AK_CTX     the AK's context (tpm2_createak -c), a restricted signing key
# AK_PUB     its TPM2B_PUBLIC (tpm2_createak -u), sent as "ak_pub"
# -b BANK    sha256 (default) or sha1: the PCR bank quoted (0-10, and
#            every other PCR the -e log extends, which the verifier
#            requires quoted)
# -l LIST    the binary measurement list (default: securityfs's
#            binary_runtime_measurements; reading it needs root)
# -e FILE    the firmware event log to add as "boot_log"
#            (/sys/kernel/security/tpm0/binary_bios_measurements)
# -p POLICY  the named policy to judge under
#
# The verifier wants the whole list proven by the quote. The kernel may
# add records while we quote, so the list is read before and after the
# quote and the bundle made only when both reads agree (a few tries).
# The TPM is tpm2-tools' (TPM2TOOLS_TCTI). Needs tpm2-tools, od, base64
# (and tpm2_eventlog, awk and sort with -e).
set -eu

usage() {
	echo "usage: make-bundle.sh [-b BANK] [-l LIST] [-e EVENTLOG] [-p POLICY] NONCE_HEX AK_CTX AK_PUB" >&2
	exit 2
}

bank=sha256
list=/sys/kernel/security/ima/binary_runtime_measurements
eventlog=
policy=
while getopts b:l:e:p: opt; do
	case $opt in
	b) bank=$OPTARG ;;
	l) list=$OPTARG ;;
	e) eventlog=$OPTARG ;;
	p) policy=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || usage
nonce=$1 ak_ctx=$2 ak_pub=$3
case $bank in
sha1) hexlen=40 ;;
sha256) hexlen=64 ;;
*) echo "make-bundle.sh: bank $bank: sha1 or sha256" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

b64() { base64 -w0 "$1"; }

# PCRs 0-10, then each other one an event of the log (not EV_NO_ACTION)
# extends: systemd-stub's 11-13, shim's 14 (proto/DESIGN.md §4)
sel="0 1 2 3 4 5 6 7 8 9 10"
if [ -n "$eventlog" ]; then
	more=$(tpm2_eventlog "$eventlog" | awk '/^ *PCRIndex:/ { p = $2 }
		/^ *EventType:/ { if ($2 != "EV_NO_ACTION" && p > 10) print p }' |
		sort -un | tr '\n' ' ')
	sel="$sel $more"
fi
# shellcheck disable=SC2086 # $sel: PCR numbers, split on purpose
list_sel=$(printf '%s,' $sel)
list_sel=${list_sel%,}

tries=0
while :; do
	cat "$list" >"$tmp/before"
	tpm2_quote -Q -c "$ak_ctx" -l "$bank:$list_sel" \
		-q "$nonce" -m "$tmp/quote" -s "$tmp/sig" -o "$tmp/pcrs" \
		-F values
	cat "$list" >"$tmp/after"
	cmp -s "$tmp/before" "$tmp/after" && break
	tries=$((tries + 1))
	if [ "$tries" -ge 5 ]; then
		echo "make-bundle.sh: the list keeps growing during the quote" >&2
		exit 1
	fi
done

# -F values: the selected PCRs' values one after the other, in index order
hex=$(od -An -v -tx1 "$tmp/pcrs" | tr -d ' \n')
pcrs=
k=0
for i in $sel; do
	value=$(printf '%s' "$hex" | cut -c$((k * hexlen + 1))-$(((k + 1) * hexlen)))
	pcrs="$pcrs${pcrs:+,}\"$i\":\"$value\""
	k=$((k + 1))
done

printf '{"v":1'
[ -n "$policy" ] && printf ',"policy":"%s"' "$policy"
printf ',"ak_pub":"%s","nonce":"%s","bank":"%s"' "$(b64 "$ak_pub")" \
	"$nonce" "$bank"
printf ',"quote":"%s","signature":"%s"' "$(b64 "$tmp/quote")" \
	"$(b64 "$tmp/sig")"
printf ',"pcrs":{%s},"records":"%s"' "$pcrs" "$(b64 "$tmp/after")"
[ -n "$eventlog" ] && printf ',"boot_log":"%s"' "$(b64 "$eventlog")"
printf '}\n'
