#!/usr/bin/env bash
# run.sh SECONDS FUZZER... - run each libFuzzer target for SECONDS, seeded
# from the real kernel fixtures; TAP output, one test per target.
set -u
seconds=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
# libtss2-mu warns on stderr about every malformed input it is fed
export TSS2_LOG=${TSS2_LOG:-all+none}
n=0
failed=0
for f in "$@"; do
	n=$((n + 1))
	name=$(basename "$f")
	corpus=$(mktemp -d)
	case $name in
	fuzz_ima_list)
		for l in "$here"/../fixtures/ima/*/binary_runtime_measurements; do
			# byte 0 selects the piece size, see fuzz_ima_list.c
			{ printf '\0'; cat "$l"; } >"$corpus/$(basename "$(dirname "$l")")"
			{ printf '\7'; cat "$l"; } >"$corpus/$(basename "$(dirname "$l")")-7"
		done ;;
	fuzz_wire)
		printf '\004{"v":1,"state":"trusted","nonce":"0011223344556677","nonce_expires":1,"next_index":0}' >"$corpus/verdict"
		printf '\003{"v":1,"agent":"a","nonce":"0011223344556677","bank":"sha1","quote":"AAEC","signature":"AAEC","pcrs":{"10":"0000000000000000000000000000000000000000"},"first_index":0,"records":""}' >"$corpus/evidence"
		printf '\000{"v":1,"agent":"n1","ek_pub":"AAEC","ak_pub":"AAEC","ek_cert":"MII="}' >"$corpus/enroll" ;;
	fuzz_pcr_set)
		cp "$here"/../fixtures/ima/ima-ng-sha256/pcrs-sha256 "$corpus/" ;;
	fuzz_conf)
		printf '# c\nname = n1\nmode=bb\r\ncount = 7\n' >"$corpus/conf" ;;
	esac
	log=$(mktemp)
	if "$f" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
		-artifact_prefix="${TMPDIR:-/tmp}/$name-" "$corpus" >"$log" 2>&1; then
		runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1)
		echo "ok $n - $name: $runs in ${seconds}s, no crash"
	else
		echo "not ok $n - $name crashed; reproducer in ${TMPDIR:-/tmp}/$name-*"
		tail -40 "$log" | sed 's/^/# /'
		failed=1
	fi
	rm -rf "$corpus" "$log"
done
echo "1..$n"
exit $failed
