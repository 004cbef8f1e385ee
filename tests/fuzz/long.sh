#!/usr/bin/env bash
# long.sh SECONDS JOBS MERGE FUZZER... - run every libFuzzer target for
# SECONDS, at most JOBS at a time (one process, one core each), from a
# copy of its seed corpus. With MERGE=1, inputs that add coverage are
# merged back into tests/fuzz/corpus/<target>/ (libFuzzer -merge=1: only
# new features, minimised). Prints each target's final cov: and ft:.
# Logs and working corpora: build/fuzz/long/<target>.{log,corpus}.
set -u
seconds=$1
jobs=$2
merge=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
dir=$top/build/fuzz/long
export TSS2_LOG=${TSS2_LOG:-all+none}
mkdir -p "$dir"
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1

one() {
	local f=$1 name
	name=$(basename "$f")
	rm -rf "$dir/$name.corpus"
	mkdir -p "$dir/$name.corpus"
	cp "$here/corpus/$name"/* "$dir/$name.corpus"/ 2>/dev/null
	"$f" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$dir/$name-" "$dir/$name.corpus" \
		>"$dir/$name.log" 2>&1
	echo $? >"$dir/$name.rc"
}

running=0
for f in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	one "$f" &
	running=$((running + 1))
done
wait

failed=0
printf '%-18s %10s %8s %8s %8s  %s\n' target runs cov ft corpus result
for f in "$@"; do
	name=$(basename "$f")
	log=$dir/$name.log
	rc=$(cat "$dir/$name.rc" 2>/dev/null || echo 1)
	runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" |
		awk '{ print $2 }' | tail -1)
	last=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
	if [ "$merge" = 1 ] && [ "$rc" = 0 ]; then
		"$f" -merge=1 -max_len=4096 "$here/corpus/$name" \
			"$dir/$name.corpus" >"$dir/$name.merge.log" 2>&1 ||
			rc="merge-failed"
	fi
	result=ok
	if [ "$rc" != 0 ]; then
		result="CRASH: $dir/$name-*"
		failed=1
	fi
	printf '%-18s %10s %8s %8s %8s  %s\n' "$name" "${runs:--}" \
		"$(echo "$last" | awk '{ print $2 }')" \
		"$(echo "$last" | awk '{ print $4 }')" \
		"$(find "$dir/$name.corpus" -type f | wc -l)" "$result"
done
exit $failed
