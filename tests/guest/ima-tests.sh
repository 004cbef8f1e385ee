#!/bin/sh
# IMA behaviour tests, run INSIDE the minimal guest as imatrust.run=.
#
# imatrust.mode=tcb     boot with ima_policy=tcb: boot_aggregate, exec,
#                       mmap, root/unprivileged reads, pseudo filesystems,
#                       ToMToU, open_writers, re-measurement, counts
# imatrust.mode=policy  boot without ima_policy=: write a policy in the
#                       2008 grammar at run time, then the same checks
#                       under that policy, and an invalid rule
# imatrust.mode=kexec    measure, keep the list, kexec_file_load() the
#                       same kernel from /results (after which staging
#                       and deleting records must be refused) and reboot
#                       into it; there (imatrust.kexec=1) the list carried
#                       over must be the start of the new one, poll() and
#                       resumed reads and seeks work on it, and the whole
#                       list can be staged ("A"), saved and deleted ("D")
# imatrust.mode=kexec-staged  stage the list ("A"), read a file, then
#                       kexec_file_load(): "D" must fail with ESTALE, and
#                       the next kernel's list is the staged records, the
#                       list kept, the load's reads and its boot_aggregate
#
# TAP goes to /results/tap (9p share) and the console. Afterwards the
# lists, counters and PCR 0-10 of both banks are copied to /results so the
# host can replay them; /results/done marks a finished run.
#
# Reading a file as root measures it (FILE_CHECK uid=0), so files under
# test are hashed in the guest only after they were measured or when the
# test asserts they stay unmeasured.

IMA=/sys/kernel/security/ima
ASCII=$IMA/ascii_runtime_measurements
BINARY=$IMA/binary_runtime_measurements
TPM=/sys/class/tpm/tpm0
OUT=/results
HELPER=/test/imatest
VERIFIER=10.77.0.1
UNPRIV=1000
# records saved before a delete: on tmpfs, which the tcb policy does not
# measure (a root read of a file on the 9p share adds a record)
SAVED=/tmp/saved

n=0
mode=tcb
hash=sha256
template=ima-ng

# --- TAP ---------------------------------------------------------------

tap() {
	echo "$*" >>"$OUT/tap"
	echo "TAP: $*"
}

pass() { n=$((n + 1)); tap "ok $n - $1"; }

fail() {
	n=$((n + 1))
	tap "not ok $n - $1"
	shift
	[ $# -gt 0 ] && tap "# $*"
}

# check DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

# check_cmd DESC COMMAND...: pass when COMMAND succeeds
check_cmd() {
	desc=$1
	shift
	if "$@"; then pass "$desc"; else fail "$desc" "'$*' failed"; fi
}

# --- the measurement list -----------------------------------------------

# File digests of the non-violation records of path $1, oldest first.
digests_of() {
	awk -v p="$1" '$5 == p && $2 !~ /^0+$/ {
		d = $4; sub(/^[^:]*:/, "", d); print d }' "$ASCII"
}

records_of() { awk -v p="$1" '$5 == p' "$ASCII" | wc -l; }
zero_records_of() { awk -v p="$1" '$5 == p && $2 ~ /^0+$/' "$ASCII" | wc -l; }
records() { wc -l <"$ASCII"; }
violations() { cat "$IMA/violations"; }
file_digest() { "${hash}sum" "$1" | cut -d' ' -f1; }

# Hex digits of a digest of algorithm $1.
hex_len() {
	case "$1" in
	sha1) echo 40 ;; sha256) echo 64 ;; sha384) echo 96 ;;
	sha512) echo 128 ;; *) echo "?" ;;
	esac
}

# The algorithm of the file digest of path $1's first record: the prefix
# in ima-ng, SHA-1 in the 2008 "ima" template (no prefix).
algo_of() {
	awk -v p="$1" '$5 == p && $2 !~ /^0+$/ { d = $4
		if (d ~ /:/) { sub(/:.*/, "", d); print d } else print "sha1"
		exit }' "$ASCII"
}

# What file digests are computed with: ima_hash= in ima-ng, SHA-1 in ima.
file_algo() { if [ "$template" = ima ]; then echo sha1; else echo "$hash"; fi; }

# check_digest DESC FILE DIGEST: DIGEST is FILE's current one. Busybox has
# no sha384sum: there the length is checked here and the value on the
# host (run.sh compares the list with the staged files).
check_digest() {
	if command -v "${hash}sum" >/dev/null 2>&1; then
		check_eq "$1" "$(file_digest "$2")" "$3"
	else
		check_eq "$1 (its value compared on the host)" \
		    "$(hex_len "$hash")" "${#3}"
	fi
}

# check that $2 was measured exactly once, with its current digest
check_measured() {
	got=$(digests_of "$2")
	if [ -z "$got" ]; then
		fail "$1" "no record for $2"
		return
	fi
	check_digest "$1" "$2" "$got"
}

check_unmeasured() { check_eq "$1" 0 "$(records_of "$2")"; }

# Concatenated PCRs 0..$2 of bank $1, as hex.
pcr_range() {
	i=0
	while [ "$i" -le "$2" ]; do
		cat "$TPM/pcr-$1/$i"
		i=$((i + 1))
	done
}

# --- tests ----------------------------------------------------------------

test_boot_aggregate() {
	check_eq "first record is boot_aggregate" boot_aggregate \
	    "$(head -n 1 "$ASCII" | awk '{ print $5 }')"
	# 6.1 hashes the bank of ima_hash= when the TPM has one, else the
	# SHA-256 bank (the lab's TPMs have SHA-1 and SHA-256 only); the
	# "ima" template keeps SHA-1.
	bank=$(file_algo)
	[ -d "$TPM/pcr-$bank" ] || bank=sha256
	check_eq "boot_aggregate from the $bank bank (ima_hash=$hash)" \
	    "$bank" "$(algo_of boot_aggregate)"
	# The kernel hashes PCR 0-7 for the sha1 bank, 0-9 for the others.
	if [ "$bank" = sha1 ]; then last=7; else last=9; fi
	want=$(pcr_range "$bank" "$last" | "$HELPER" unhex | "${bank}sum" |
	    cut -d' ' -f1)
	check_eq "boot_aggregate = $bank(PCR 0-$last of the $bank bank)" \
	    "$want" "$(digests_of boot_aggregate | head -n 1)"
}

# Every file record (not boot_aggregate, not a violation) is of ima_hash=.
test_digest_algo() {
	want=$(file_algo)
	others=$(awk -v a="$want" '$5 != "boot_aggregate" && $2 !~ /^0+$/ {
		d = $4; if (d ~ /:/) sub(/:.*/, "", d); else d = "sha1"
		if (d != a) n++ } END { print n + 0 }' "$ASCII")
	check_eq "every file record's digest is $want" 0 "$others"
	check_eq "... $(hex_len "$want") hex digits long" "$(hex_len "$want")" \
	    "$(digests_of /data/bin/bb1 | head -n 1 | awk '{ print length }')"
}

test_network() {
	check_cmd "guest reaches the verifier address $VERIFIER" \
	    ping -c 1 -W 5 "$VERIFIER"
}

test_file_hooks() {
	/data/bin/bb1 true
	check_measured "exec of /data/bin/bb1 measured ($hash)" /data/bin/bb1
	/data/hello.sh >/dev/null
	check_measured "exec of script /data/hello.sh measured" /data/hello.sh
	check_cmd "mmap(PROT_EXEC) of /data/lib/libx.so as uid $UNPRIV" \
	    "$HELPER" mmapx "$UNPRIV" /data/lib/libx.so
	check_measured "mmap(PROT_EXEC) of /data/lib/libx.so measured" \
	    /data/lib/libx.so
	cat /data/app.conf >/dev/null
	check_measured "root read of /data/app.conf measured" /data/app.conf
	before=$(records)
	cat /data/app.conf /data/bin/bb1 >/dev/null
	check_eq "unchanged files read again add no record" "$before" \
	    "$(records)"
	check_cmd "read of /data/unpriv.txt as uid $UNPRIV" \
	    "$HELPER" readas "$UNPRIV" /data/unpriv.txt
	check_unmeasured "read by uid $UNPRIV not measured" /data/unpriv.txt
}

test_pseudo_fs() {
	echo tmpfs-data >/tmp/t.txt
	cat /tmp/t.txt >/dev/null
	check_unmeasured "root read on tmpfs not measured" /tmp/t.txt
	printf '#!/bin/sh\ntrue\n' >/tmp/t.sh
	chmod +x /tmp/t.sh
	/tmp/t.sh
	check_unmeasured "exec on tmpfs not measured" /tmp/t.sh
	cat /proc/cmdline /proc/self/status >/dev/null
	check_eq "root reads on proc not measured" 0 \
	    "$(grep -c ' /proc/' "$ASCII")"
	cat "$TPM/pcr-sha256/0" /sys/kernel/mm/transparent_hugepage/enabled \
	    >/dev/null 2>&1
	check_eq "root reads on sysfs not measured" 0 \
	    "$(grep -c ' /sys/' "$ASCII")"
	check_eq "no record outside /data besides boot_aggregate" 1 \
	    "$(awk '$5 !~ /^\/data\//' "$ASCII" | wc -l)"
}

test_violations() {
	v0=$(violations)
	# ToMToU: writer opens a file that is open for read and measured.
	exec 3</data/app.conf
	echo "appended" >>/data/app.conf
	exec 3<&-
	check_eq "ToMToU adds one zero record for /data/app.conf" 1 \
	    "$(zero_records_of /data/app.conf)"
	check_eq "ToMToU raises violations by 1" $((v0 + 1)) "$(violations)"

	# open_writers: a measured file is read while open for write.
	exec 4>>/data/hello.sh
	cat /data/hello.sh >/dev/null
	exec 4>&-
	check_eq "open_writers adds one zero record for /data/hello.sh" 1 \
	    "$(zero_records_of /data/hello.sh)"
	check_eq "open_writers raises violations by 1" $((v0 + 2)) \
	    "$(violations)"
	check_eq "violation records carry an all-zero file digest" 2 \
	    "$(awk '$2 ~ /^0+$/ { d = $4; sub(/^[^:]*:/, "", d);
	        if (d ~ /^0+$/) z++ } END { print z + 0 }' "$ASCII")"

	cat /data/app.conf >/dev/null
	got=$(digests_of /data/app.conf | tail -n 1)
	check_digest "modified /data/app.conf measured again with its new digest" \
	    /data/app.conf "$got"
	check_eq "/data/app.conf has two distinct measured digests" 2 \
	    "$(digests_of /data/app.conf | sort -u | wc -l)"
}

test_counts() {
	check_eq "runtime_measurements_count = records in the ascii list" \
	    "$(cat "$IMA/runtime_measurements_count")" "$(records)"
	check_eq "runtime_measurements_count = records in the binary list" \
	    "$(cat "$IMA/runtime_measurements_count")" \
	    "$("$HELPER" count "$BINARY")"
}

# check_results PREFIX COMMAND...: each "RESULT ok ..." or "RESULT fail:
# ..." line COMMAND prints is a TAP line; the other lines are comments.
check_results() {
	prefix=$1
	shift
	"$@" >/tmp/results.out 2>&1
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"RESULT ok "*) pass "$prefix: ${line#RESULT ok }" ;;
		"RESULT fail: "*) fail "$prefix: ${line#RESULT fail: }" ;;
		*) tap "# $prefix: $line" ;;
		esac
	done </tmp/results.out
	[ "$rc" = 0 ] || fail "$prefix: '$*' exited $rc"
}

has_line() { printf '%s\n' "$1" | grep -q "$2"; }

# The 2008 grammar: legacy hook names, fsmagic and uid conditions.
POLICY='dont_measure fsmagic=0x9fa0
dont_measure fsmagic=0x62656572
dont_measure fsmagic=0x73636673
measure func=BPRM_CHECK
measure func=FILE_MMAP mask=MAY_EXEC
measure func=PATH_CHECK mask=MAY_READ uid=0'

# Write rules $1 (newline separated) in one open; fails if one is refused.
write_policy() {
	rc=0
	exec 5>"$IMA/policy" || return 1
	echo "$1" | while IFS= read -r rule; do
		echo "$rule" >&5 || exit 1
	done || rc=1
	exec 5>&-
	return $rc
}

test_policy() {
	/data/bin/pre true
	check_unmeasured "without a policy exec is not measured" /data/bin/pre
	check_eq "policy reads back empty before a policy is loaded" "" \
	    "$(cat "$IMA/policy")"
	check_cmd "policy in the 2008 grammar accepted" write_policy "$POLICY"
	loaded=$(cat "$IMA/policy")
	echo "$loaded" | sed 's/^/policy: /'
	check_eq "policy reads back 6 rules" 6 "$(echo "$loaded" | wc -l)"
	check_cmd "legacy PATH_CHECK loaded as FILE_CHECK" has_line "$loaded" \
	    "^measure func=FILE_CHECK mask=MAY_READ uid=0"
	check_cmd "legacy FILE_MMAP loaded as MMAP_CHECK" has_line "$loaded" \
	    "^measure func=MMAP_CHECK mask=MAY_EXEC"

	/data/bin/pol-exec true
	check_measured "exec measured (BPRM_CHECK)" /data/bin/pol-exec
	"$HELPER" mmapx "$UNPRIV" /data/lib/pol-mmap.so
	check_measured "mmap(PROT_EXEC) measured (FILE_MMAP)" \
	    /data/lib/pol-mmap.so
	cat /data/pol-read.txt >/dev/null
	check_measured "root read measured (PATH_CHECK uid=0)" \
	    /data/pol-read.txt
	"$HELPER" readas "$UNPRIV" /data/pol-unpriv.txt
	check_unmeasured "read by uid $UNPRIV not measured (uid=0)" \
	    /data/pol-unpriv.txt
	cat /proc/cmdline /proc/self/status >/dev/null
	check_eq "root reads on proc not measured (fsmagic=0x9fa0)" \
	    0 "$(grep -c ' /proc/' "$ASCII")"
	echo control >/tmp/ctl.txt
	cat /tmp/ctl.txt >/dev/null
	check_eq "root read on tmpfs measured (no exclusion for it)" \
	    1 "$(records_of /tmp/ctl.txt)"

	if write_policy "measure func=NO_SUCH_HOOK" 2>/dev/null; then
		fail "invalid rule rejected"
	else
		pass "invalid rule rejected"
	fi
	check_eq "policy unchanged after the invalid rule" "$loaded" \
	    "$(cat "$IMA/policy")"
	if write_policy "dont_measure fsmagic=0x01021994
measure bogus=1" 2>/dev/null; then
		fail "valid rule followed by an invalid one rejected"
	else
		pass "valid rule followed by an invalid one rejected"
	fi
	check_eq "policy unchanged after the rejected batch" "$loaded" \
	    "$(cat "$IMA/policy")"
	/data/bin/pol-exec2 true
	check_measured "old policy still in effect after rejections" \
	    /data/bin/pol-exec2
}

# Snapshot of lists, counters and PCRs for the host-side replay. A list
# whose records were saved to $SAVED before a delete is copied as the
# saved records followed by the list left, the whole list PCR 10 attests;
# the count then includes the saved records too.
dump_results() {
	for f in "$BINARY" "$ASCII" "${BINARY}_sha1" "${BINARY}_sha256"; do
		[ -f "$f" ] || continue
		name=${f##*/}
		if [ -f "$SAVED/$name" ]; then
			cat "$SAVED/$name" "$f" >"$OUT/$name"
		else
			cat "$f" >"$OUT/$name"
		fi
	done
	for bank in sha1 sha256; do
		i=0
		while [ "$i" -le 10 ]; do
			echo "$i $(cat "$TPM/pcr-$bank/$i")"
			i=$((i + 1))
		done >"$OUT/pcrs-$bank"
	done
	saved=0
	[ ! -f "$SAVED/binary_runtime_measurements" ] ||
		saved=$("$HELPER" count "$SAVED/binary_runtime_measurements")
	echo $(($(cat "$IMA/runtime_measurements_count") + saved)) >"$OUT/count"
	cat "$IMA/violations" >"$OUT/violations"
	cat /proc/cmdline >"$OUT/cmdline"
}

# First boot of mode kexec: a record to carry, the list as it was, then
# into the same kernel. Returns only when the kexec failed.
test_kexec_first() {
	/data/bin/bb1 true
	check_measured "exec of /data/bin/bb1 measured before the kexec" \
	    /data/bin/bb1
	cp "$ASCII" "$OUT/before.ascii"
	records >"$OUT/before.count"
	check_cmd "kexec_file_load() of the same kernel and initramfs" \
	    "$HELPER" kexec-load "$OUT/bzImage" "$OUT/initramfs.cpio.gz" \
	    "$(cat /proc/cmdline) imatrust.kexec=1"
	# The lists are copied for the next kernel: user space must not save
	# and delete records it will show again (CONFIG_IMA_STAGING).
	cp "$ASCII" /tmp/loaded.ascii
	check_eq "after kexec_file_load(), \"A\" to the staged list: EACCES" \
	    EACCES "$("$HELPER" request "${BINARY}_sha256_staged" A)"
	check_eq "after kexec_file_load(), \"1\" to the list: ESTALE" \
	    ESTALE "$("$HELPER" request "${BINARY}_sha256" 1)"
	check_cmd "... and the list is unchanged" cmp -s /tmp/loaded.ascii \
	    "$ASCII"
	kexec_reboot
}

# Into the loaded kernel; returns only when that failed. The list is
# handed over as it is at load time (6.1): nothing may be measured after
# it. Unmount what the next kernel mounts again.
kexec_reboot() {
	sync
	umount /data
	umount /results
	"$HELPER" kexec-reboot
	mount -t 9p -o trans=virtio,version=9p2000.L results /results
	fail "reboot into the loaded kernel"
}

# After the kexec: the old list, then the new kernel's boot_aggregate.
test_kexec_second() {
	before=$(cat "$OUT/before.count")
	check_cmd "the kernel came up through kexec (imatrust.kexec=1)" \
	    grep -q 'imatrust.kexec=1' /proc/cmdline
	check_cmd "the $before records before the kexec are the list's start" \
	    sh -c "head -n $before '$ASCII' | cmp -s - '$OUT/before.ascii'"
	# the load's own reads (the kernel and initramfs, FILE_CHECK as root)
	# come after the copy, before the hand-over: carried too
	agg=$(awk '$5 == "boot_aggregate" { n++ } n == 2 { print NR; exit }' \
	    "$ASCII")
	check_eq "then the kexec load's reads, then the new boot_aggregate" \
	    "/results/bzImage /results/initramfs.cpio.gz boot_aggregate" \
	    "$(sed -n "$((before + 1)),${agg:-0}p" "$ASCII" |
		awk '{ printf "%s%s", sep, $5; sep = " " }')"
	check_eq "... equal to the first one (PCRs 0-9 were not reset)" \
	    "$(digests_of boot_aggregate | head -n 1)" \
	    "$(digests_of boot_aggregate | sed -n 2p)"
	# 6.1 restores the old records without entering them in its digest
	# table (ima_restore_measurement_entry()), so the same file, unchanged,
	# is recorded once more: a verifier sees the duplicate and replays it
	/data/bin/bb1 true
	check_eq "a file measured before is recorded again, the same record" \
	    "2 1" "$(records_of /data/bin/bb1) $(awk '$5 == "/data/bin/bb1"' \
	    "$ASCII" | sort -u | wc -l)"
	/data/hello.sh >/dev/null
	check_measured "a new exec after the kexec is measured" /data/hello.sh
	test_kexec_resume "$((agg - 1))"
	test_kexec_export "$before"
}

# First boot of mode kexec-staged: records staged ("A") and not deleted
# when kexec_file_load() copies the lists. The next kernel shows them,
# staged records first, so "D" must fail with ESTALE and delete nothing.
test_kexec_staged_first() {
	/data/bin/bb1 true
	check_measured "exec of /data/bin/bb1 measured before staging" \
	    /data/bin/bb1
	# Nothing may be measured after the load, or PCR 10 holds what the
	# next kernel's list does not: compare on tmpfs, which the tcb policy
	# does not measure, and only write to the share.
	cp "$ASCII" /tmp/staged.ascii
	cp /tmp/staged.ascii "$OUT/staged.ascii"
	staged=$(records)
	check_eq "\"A\" to binary_runtime_measurements_sha256_staged" ok \
	    "$("$HELPER" request "${BINARY}_sha256_staged" A)"
	echo kept >/data/kept.txt
	cat /data/kept.txt >/dev/null
	check_eq "after \"A\", a file read is the list's only record" \
	    "1 /data/kept.txt" "$(records) $(awk '{ print $5 }' "$ASCII")"
	cp "$ASCII" "$OUT/kept.ascii"
	check_cmd "kexec_file_load() with $staged records staged" \
	    "$HELPER" kexec-load "$OUT/bzImage" "$OUT/initramfs.cpio.gz" \
	    "$(cat /proc/cmdline) imatrust.kexec=1"
	check_eq "after kexec_file_load(), \"D\" to the staged list: ESTALE" \
	    ESTALE "$("$HELPER" request "${BINARY}_sha256_staged" D)"
	check_cmd "... and the staged records are all still staged" \
	    cmp -s "${ASCII}_staged" /tmp/staged.ascii
	kexec_reboot
}

# After that kexec: the staged records, the list kept, the load's reads,
# then the new boot_aggregate; the host replays the whole list to PCR 10,
# so a record lost or out of order fails there too.
test_kexec_staged_second() {
	staged=$(wc -l <"$OUT/staged.ascii")
	kept=$(wc -l <"$OUT/kept.ascii")
	check_cmd "the kernel came up through kexec (imatrust.kexec=1)" \
	    grep -q 'imatrust.kexec=1' /proc/cmdline
	check_cmd "the list starts with the $staged records staged before the kexec" \
	    sh -c "head -n $staged '$ASCII' | cmp -s - '$OUT/staged.ascii'"
	check_cmd "... then the $kept record(s) of the list left" \
	    sh -c "sed -n '$((staged + 1)),$((staged + kept))p' '$ASCII' |
		cmp -s - '$OUT/kept.ascii'"
	check_eq "then the kexec load's reads, then the new boot_aggregate" \
	    "/results/bzImage /results/initramfs.cpio.gz boot_aggregate" \
	    "$(sed -n "$((staged + kept + 1)),$((staged + kept + 3))p" \
		"$ASCII" | awk '{ printf "%s%s", sep, $5; sep = " " }')"
	check_eq "nothing is staged in the new kernel" "0 0" \
	    "$(wc -c <"${BINARY}_sha256_staged") $(wc -c <"${ASCII}_staged")"
}

# poll(), resumed reads and seeks back over the $1 records carried over.
test_kexec_resume() {
	mkdir -p /data/resume
	check_results "after the kexec" "$HELPER" resume /data/resume "$1" \
	    "$BINARY:20" "${BINARY}_sha256:32" "$ASCII:0"
}

# Stage every record, carried ones included, save them, delete them; the
# host replays the saved records followed by the list left (dump_results).
test_kexec_export() {
	mkdir -p /tmp/pre "$SAVED"
	views="binary_runtime_measurements ascii_runtime_measurements
binary_runtime_measurements_sha1 ascii_runtime_measurements_sha1
binary_runtime_measurements_sha256 ascii_runtime_measurements_sha256"
	for v in $views; do
		cp "$IMA/$v" "/tmp/pre/$v"
	done
	total=$(records)
	check_eq "\"A\" to binary_runtime_measurements_sha256_staged" ok \
	    "$("$HELPER" request "${BINARY}_sha256_staged" A)"
	check_eq "after \"A\": runtime_measurements_count 0, lists empty" \
	    "0 0 0 0" "$(cat "$IMA/runtime_measurements_count") $(wc -c \
	    <"$BINARY") $(wc -c <"${ASCII}_sha256") $(wc -c <"$ASCII")"
	bad=
	for v in $views; do
		cp "$IMA/${v}_staged" "$SAVED/$v"
		cmp -s "/tmp/pre/$v" "$SAVED/$v" || bad="$bad $v"
	done
	check_eq "every _staged view is the list before \"A\" ($total records)" \
	    "" "$bad"
	check_cmd "... starting with the $1 records of the first kernel" \
	    sh -c "head -n $1 '$SAVED/ascii_runtime_measurements' |
		cmp -s - '$OUT/before.ascii'"
	check_eq "\"D\" deletes the staged records" ok \
	    "$("$HELPER" request "${BINARY}_sha256_staged" D)"
	check_eq "\"D\" again: ENOENT" ENOENT \
	    "$("$HELPER" request "${BINARY}_sha256_staged" D)"
	check_eq "the _staged views are empty after \"D\"" "0 0" \
	    "$(wc -c <"${BINARY}_sha256_staged") $(wc -c <"${ASCII}_staged")"
	echo after-d >/data/after-d.txt
	cat /data/after-d.txt >/dev/null
	check_eq "a record after \"D\" is the only one in the list" \
	    "1 1 /data/after-d.txt" "$(cat "$IMA/runtime_measurements_count") \
$(records) $(awk '{ print $5 }' "$ASCII")"
}

main() {
	# shellcheck disable=SC2013 # the command line is one line of words
	for arg in $(cat /proc/cmdline); do
		case "$arg" in
		imatrust.mode=*) mode=${arg#*=} ;;
		ima_hash=*) hash=${arg#*=} ;;
		ima_template=*) template=${arg#*=} ;;
		esac
	done
	# after a kexec the first boot's TAP goes on
	if grep -q 'imatrust.kexec=1' /proc/cmdline; then
		n=$(grep -c '^\(not \)\{0,1\}ok ' "$OUT/tap")
	else
		: >"$OUT/tap"
	fi
	echo "guest tests: mode $mode, hash $hash, template $template"
	if [ ! -f "$ASCII" ] || [ ! -d "$TPM/pcr-sha256" ]; then
		fail "IMA lists and TPM PCRs present" "no securityfs list or TPM"
		touch "$OUT/done"
		return
	fi
	test_boot_aggregate
	case "$mode" in
	tcb)
		test_file_hooks
		test_pseudo_fs
		test_violations
		test_digest_algo
		;;
	policy)
		test_policy
		;;
	kexec)
		if grep -q 'imatrust.kexec=1' /proc/cmdline; then
			test_kexec_second
		else
			test_kexec_first
		fi
		;;
	kexec-staged)
		if grep -q 'imatrust.kexec=1' /proc/cmdline; then
			test_kexec_staged_second
		else
			test_kexec_staged_first
		fi
		;;
	*)
		fail "known test mode" "imatrust.mode=$mode"
		;;
	esac
	test_network
	test_counts
	dump_results
	tap "1..$n"
	touch "$OUT/done"
}

main
