#!/usr/bin/env bash
# function-length.sh [--limit N] [--list FILE] [--longest] [FILE|DIR...] -
# the length gate of the C functions (TAP; "make lint").
#
# Measures every function of the C files given, or of agent/, verifier/,
# proto/ and db/ (tests are not measured), with function-length.awk: the
# lines between a function's "{" and "}" at column 0. A function longer
# than the limit (80 lines, one screen: proto/DESIGN.md §9 rule 1,
# "one that grows past a screen or two is split") fails, unless
# tests/lint/long-functions.txt lists it ("FILE FUNCTION LENGTH": the
# offenders when the gate came), and then it may not grow past its listed
# length. A listed function that shrank to the limit or below, or is gone,
# fails too, with the hint to remove its line, so the list only ever gets
# shorter. Only the entries of the files measured are checked. Prints
# the 10 longest functions; with --longest only them (no TAP: "make lint"
# shows them after the suite, which keeps logs of what passed to itself).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
limit=80
list=$here/long-functions.txt
longest=0
while [ $# -gt 0 ]; do
	case $1 in
	--limit) limit=$2; shift 2 ;;
	--list) list=$2; shift 2 ;;
	--longest) longest=1; shift ;;
	*) break ;;
	esac
done

# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need awk

cd "$root" || exit 1
files=()
if [ $# -eq 0 ]; then
	set -- agent verifier proto db
fi
for a in "$@"; do
	if [ -d "$a" ]; then
		while IFS= read -r f; do
			files+=("$f")
		done < <(find "${a#./}" -name '*.c' -type f | sort)
	else
		files+=("${a#./}")
	fi
done

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad=0
not_ok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; }

if [ ${#files[@]} -eq 0 ]; then
	not_ok "C files to measure in $*"
	echo "1..$n"
	exit 1
fi

measured=$(awk -f "$here/function-length.awk" "${files[@]}")
# print_longest: the 10 longest functions measured, as comments
print_longest() {
	echo "# the 10 longest functions of ${#files[@]} files" \
		"($(wc -l <<<"$measured") functions):"
	sort -t$'\t' -k3,3nr <<<"$measured" | head -n 10 |
		awk -F'\t' '{ printf "#   %4d  %s %s() line %d\n", $3, $1, $2, $4 }'
}
if [ "$longest" = 1 ]; then
	print_longest
	exit 0
fi
declare -A len measured_file listed
while IFS=$'\t' read -r f fn l _; do
	[ -n "$f" ] || continue
	len["$f $fn"]=$l
done <<<"$measured"
for f in "${files[@]}"; do
	measured_file[$f]=1
done

# The list: "FILE FUNCTION LENGTH" lines, "#" comments.
if [ -f "$list" ]; then
	while read -r f fn l _; do
		case $f in '' | '#'*) continue ;; esac
		listed["$f $fn"]=$l
	done <"$list"
fi

# Functions over the limit that the list does not name.
new=$(awk -F'\t' -v limit="$limit" '$3 > limit { printf "%s %s() %d lines (line %d)\n", $1, $2, $3, $4 }' \
	<<<"$measured" | while read -r f fn rest; do
		[ -n "${listed["$f ${fn%()}"]+x}" ] || echo "#   $f $fn $rest"
	done)
if [ -z "$new" ]; then
	ok "no function over $limit lines outside $(basename "$list")"
else
	not_ok "function(s) over $limit lines: split them (not by adding them to $(basename "$list"))"
	echo "$new"
fi

# Each listed function of the files measured: not longer than listed.
while read -r f fn; do
	k="$f $fn"
	# an empty list gives one empty line
	[ -n "$f" ] && [ -n "${measured_file[$f]+x}" ] || continue
	want=${listed[$k]}
	have=${len[$k]:-}
	if [ -z "$have" ]; then
		not_ok "$k() listed at $want lines is gone: remove its line from $list"
	elif [ "$have" -le "$limit" ]; then
		not_ok "$k() is $have lines now, within $limit: remove its line from $list"
	elif [ "$have" -gt "$want" ]; then
		not_ok "$k() grew from $want to $have lines: split it"
	else
		ok "$k() $have lines, listed at $want"
		[ "$have" -lt "$want" ] &&
			echo "# hint: $k() shrank: set its length in $list to $have"
	fi
done < <(printf '%s\n' "${!listed[@]}" | sort)

print_longest
echo "1..$n"
[ "$bad" -eq 0 ]
