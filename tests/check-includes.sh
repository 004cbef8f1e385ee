#!/usr/bin/env bash
# check-includes.sh LIST - each folder sees only the headers it may use
# (TAP). `make check-includes` writes LIST from the Makefile's own
# include paths (INC_<folder>): the first line is the compiler with its
# flags, then one probe per line, "deny|allow FOLDER HEADER FLAGS...".
#
# A deny probe passes when a file of FOLDER that includes HEADER does not
# compile because HEADER is not found (the agent/verifier boundary, proto/
# below the daemons); an allow probe passes when it compiles, so a broken
# probe cannot pass the deny ones. Last, no source under agent/, verifier/,
# db/ or proto/ names a header by a path ("../verifier/x.h" or
# "daemon/log.h" would step around the include path).
set -u

list=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
	# shellcheck disable=SC1003 # sed "$a\" ends the last line
	[ -n "${2:-}" ] && sed -e 's/^/# /' -e '$a\' "$2"
}

read -r cc <"$list"
cd "$root" || exit 1
while read -r expect folder header flags; do
	printf '#include "%s"\n' "$header" >"$tmp/probe.c"
	# shellcheck disable=SC2086 # word splitting of the flags is wanted
	$cc $flags -fsyntax-only "$tmp/probe.c" >"$tmp/err" 2>&1
	rc=$?
	case $expect in
	deny)
		if [ "$rc" -ne 0 ] &&
		   grep -q "$header: No such file or directory" "$tmp/err"; then
			ok "$folder/ cannot include $header"
		else
			not_ok "$folder/ cannot include $header" "$tmp/err"
		fi ;;
	allow)
		if [ "$rc" -eq 0 ]; then
			ok "$folder/ includes $header"
		else
			not_ok "$folder/ includes $header" "$tmp/err"
		fi ;;
	esac
done < <(tail -n +2 "$list")

grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*/' \
	agent verifier db proto --include='*.[ch]' >"$tmp/paths"
if [ -s "$tmp/paths" ]; then
	not_ok "no source includes a header by a path" "$tmp/paths"
else
	ok "no source includes a header by a path"
fi

echo "1..$n"
[ "$fails" -eq 0 ]
