#!/usr/bin/env bash
# test_boot_log_file.sh - "imatrust boot-log FILE": a firmware event log
# checked offline, no verifier, on the lab's own logs (TAP): parsed,
# printed (text, JSON, CEL), replayed and compared with PCR values in
# tpm2_pcrread's format, "PCR HEX" lines or PCR=HEX words; a SHA-1-only
# legacy log said to be one; broken input exit 2.
set -u

here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../fixtures/eventlog"
. "$here/lib.sh"

skip_without jq

# contains FILE TEXT DESCRIPTION: a fixed string here, not lib.sh's ERE
contains() {
	if grep -qF -- "$2" "$1"; then ok "$3"; else not_ok "$3" "$1"; fi
}

f="$fixtures/patched-sb"
log="$f/binary_bios_measurements"

expect 0 "the PCRs the TPM read agree with the replay (sha256)" \
	"$imatrust" boot-log --pcrs "$f/pcrs-sha256" "$log"
contains "$tmp/out" "replay of sha256 agrees with PCR 0 1 2 3 4 5 6 7 8 9 12" \
	"PCRs 0-9 and the log's PCR 12 compared"
contains "$tmp/out" "not in the log, not compared: PCR 10" \
	"PCR 10 (IMA's) named, not compared"
contains "$tmp/out" "EV_EFI_BOOT_SERVICES_APPLICATION" "events printed"
expect 0 "the same in the sha1 bank" \
	"$imatrust" boot-log --bank sha1 --pcrs "$f/pcrs-sha1" "$log"

# tpm2_pcrread's output: both banks, values 0x-prefixed, upper case, the
# index printed as it prints it ("%-2d:": "0 : 0x..", "12: 0x..")
{
	echo "  sha1:"
	awk '{ printf "    %-2d: 0x%s\n", $1, toupper($2) }' "$f/pcrs-sha1"
	echo "  sha256:"
	awk '{ printf "    %-2d: 0x%s\n", $1, toupper($2) }' "$f/pcrs-sha256"
} >"$tmp/pcrread"
expect 0 "tpm2_pcrread's output: the sha256 section is taken" \
	"$imatrust" boot-log --pcrs "$tmp/pcrread" "$log"
expect 0 "tpm2_pcrread's output: the sha1 section with --bank sha1" \
	"$imatrust" boot-log --bank sha1 --pcrs "$tmp/pcrread" "$log"

pcr4=$(awk '$1 == 4 { print $2 }' "$f/pcrs-sha256")
pcr7=$(awk '$1 == 7 { print $2 }' "$f/pcrs-sha256")
expect 0 "PCR=HEX words on the command line" \
	"$imatrust" boot-log "$log" "4=$pcr4" "sha256:7=0x$pcr7"
expect 1 "a PCR that differs: exit 1" \
	"$imatrust" boot-log "$log" "4=$pcr7"
contains "$tmp/err" "PCR 4 (sha256): log replays to" "the PCR named, both values"
expect 2 "a malformed PCR word: exit 2" "$imatrust" boot-log "$log" "4=abc"
expect 2 "an unknown bank: exit 2" "$imatrust" boot-log --bank md5 "$log"
expect 2 "no file: usage" "$imatrust" boot-log

expect 0 "--json: the decoded view" "$imatrust" boot-log --json "$log"
if [ "$(jq -r '.format' "$tmp/out")" = crypto-agile ] &&
	[ "$(jq '.events | length' "$tmp/out")" -gt 20 ] &&
	[ "$(jq '.facts.secure_boot' "$tmp/out")" = true ] &&
	[ "$(jq '.facts.uefi' "$tmp/out")" = true ]; then
	ok "--json: format, events, Secure Boot on, UEFI"
else not_ok "--json: format, events, Secure Boot on, UEFI" "$tmp/out"; fi
expect 0 "--cel: TCG CEL JSON" "$imatrust" boot-log --cel "$log"
if [ "$(jq -r '.[1].content_type' "$tmp/out")" = pcclient_std ] &&
	[ "$(jq '.[1].recnum' "$tmp/out")" = 1 ]; then
	ok "--cel: records with recnum and pcclient_std content"
else not_ok "--cel: records with recnum and pcclient_std content" "$tmp/out"; fi

# Secure Boot off is still UEFI; SeaBIOS is not
"$imatrust" boot-log --json "$fixtures/patched-nosb/binary_bios_measurements" >"$tmp/nosb"
"$imatrust" boot-log --json "$fixtures/seabios/binary_bios_measurements" >"$tmp/bios"
if [ "$(jq '.facts.uefi, .facts.secure_boot' "$tmp/nosb" | tr '\n' ' ')" = "true false " ] &&
	[ "$(jq '.facts.uefi' "$tmp/bios")" = false ]; then
	ok "facts.uefi: true without Secure Boot, false for SeaBIOS"
else not_ok "facts.uefi: true without Secure Boot, false for SeaBIOS" "$tmp/nosb"; fi

# A TCG 1.2 log: one event, u32 PCR 0, type 8, a SHA-1, size 1, data
{
	printf '\0\0\0\0\010\0\0\0'
	head -c 20 /dev/zero
	printf '\001\0\0\0v'
} >"$tmp/legacy"
expect 1 "a SHA-1-only legacy log: exit 1" "$imatrust" boot-log "$tmp/legacy"
contains "$tmp/err" "SHA-1-only firmware event log" "the reason says what it is"
contains "$tmp/out" "legacy: a SHA-1-only firmware event log" \
	"the text view says it too (as machine ID boot-log does)"
"$imatrust" boot-log --json "$tmp/legacy" >"$tmp/legacy.json" 2>/dev/null
if [ "$(jq -r '.format' "$tmp/legacy.json")" = legacy ]; then
	ok "--json: format legacy"
else not_ok "--json: format legacy" "$tmp/legacy.json"; fi

head -c 1000 "$log" >"$tmp/short"
expect 2 "a truncated log: exit 2" "$imatrust" boot-log "$tmp/short"
contains "$tmp/err" "truncated" "the reason names the truncation"

echo "1..$n"
