#!/usr/bin/env bash
# run.sh SECONDS FUZZER... - run each libFuzzer target for SECONDS from a
# copy of its seed corpus tests/fuzz/corpus/<target>/ (which is left as
# it is); TAP output, one test per target, with its final cov/ft figures.
# FUZZ_JOBS targets run at once (default: the CPUs, at most 2), each on
# one core for SECONDS: the same fuzzing in less wall time; the TAP lines
# come in the order of the arguments.
set -u
seconds=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
jobs=${FUZZ_JOBS:-$(nproc)}
[ "$jobs" -le 2 ] || jobs=2
# libtss2-mu warns on stderr about every malformed input it is fed
export TSS2_LOG=${TSS2_LOG:-all+none}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# fuzz_one N FUZZER: its TAP line (and the log's tail on a crash) in
# $out/N.tap; exits 1 on a crash or a missing corpus.
fuzz_one() {
	local n=$1 f=$2 name seeds work log runs cov

	name=$(basename "$f")
	seeds=$here/corpus/$name
	if [ ! -d "$seeds" ]; then
		echo "not ok $n - $name: no seed corpus $seeds (make-corpus.sh)"
		return 1
	fi
	work=$(mktemp -d)
	cp "$seeds"/* "$work"/
	log=$(mktemp)
	if "$f" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="${TMPDIR:-/tmp}/$name-" \
		"$work" >"$log" 2>&1; then
		runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1)
		cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
		echo "ok $n - $name: $runs in ${seconds}s, $cov, no crash"
		rm -rf "$work" "$log"
		return 0
	fi
	echo "not ok $n - $name crashed; reproducer in ${TMPDIR:-/tmp}/$name-*"
	tail -40 "$log" | sed 's/^/# /'
	rm -rf "$work" "$log"
	return 1
}

n=0
running=0
for f in "$@"; do
	n=$((n + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	fuzz_one "$n" "$f" >"$out/$n.tap" &
	running=$((running + 1))
done
wait
failed=0
for i in $(seq 1 "$n"); do
	cat "$out/$i.tap"
	grep -q '^not ok' "$out/$i.tap" && failed=1
done
echo "1..$n"
exit $failed
