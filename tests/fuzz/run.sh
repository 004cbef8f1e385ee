#!/usr/bin/env bash
# run.sh SECONDS FUZZER... - run each libFuzzer target for SECONDS from a
# copy of its seed corpus tests/fuzz/corpus/<target>/ (which is left as
# it is); TAP output, one test per target, with its final cov/ft figures.
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
	seeds=$here/corpus/$name
	if [ ! -d "$seeds" ]; then
		echo "not ok $n - $name: no seed corpus $seeds (make-corpus.sh)"
		failed=1
		continue
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
	else
		echo "not ok $n - $name crashed; reproducer in ${TMPDIR:-/tmp}/$name-*"
		tail -40 "$log" | sed 's/^/# /'
		failed=1
	fi
	rm -rf "$work" "$log"
done
echo "1..$n"
exit $failed
