#!/usr/bin/env bash
# clang-format.sh [--fix] [FILE...] - the C is in the style .clang-format
# describes (TAP; "make lint"; "make format" is --fix).
#
# Without files: every .c and .h the repository tracks outside kernel/
# (the kernel series is held to checkpatch.pl --strict instead). One TAP
# line per directory; a file that differs fails its directory's line,
# with the first lines of its diff as comments. --fix rewrites the files
# in place and prints nothing. The style is the kernel's, pinned to
# Debian 12's clang-format 14: another version may format differently,
# so the check names the version it ran.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need clang-format

cd "$root" || exit 1
fix=0
if [ "${1:-}" = --fix ]; then
	fix=1
	shift
fi
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^kernel/')
fi
if [ $fix = 1 ]; then
	exec clang-format -i --style="file:$root/.clang-format" "${files[@]}"
fi

echo "# $(clang-format --version)"
# One run for all files: each place that differs is "FILE:LINE:COL:
# error: ..." followed by the line and a caret.
report=$(clang-format --style="file:$root/.clang-format" --dry-run --Werror "${files[@]}" 2>&1)
declare -A dir_files=()
for f in "${files[@]}"; do
	d=$(dirname "$f")
	dir_files[$d]=$((${dir_files[$d]:-0} + 1))
done
n=0 bad=0
for d in $(printf '%s\n' "${!dir_files[@]}" | sort); do
	n=$((n + 1))
	# the places in this directory's own files, not its subdirectories'
	places=$(grep -E "^$d/[^/]+:[0-9]+:[0-9]+: error" <<<"$report" |
		cut -d: -f1,2)
	if [ -z "$places" ]; then
		echo "ok $n - $d: ${dir_files[$d]} files as .clang-format has them"
		continue
	fi
	bad=$((bad + 1))
	echo "not ok $n - $d: $(wc -l <<<"$places") places not as" \
		".clang-format has them (make format), first:"
	head -n 10 <<<"$places" | sed 's/^/#   /'
done
echo "1..$n"
[ $bad = 0 ]
