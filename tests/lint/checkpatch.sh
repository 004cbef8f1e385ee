#!/usr/bin/env bash
# checkpatch.sh [--counts FILE] [FILE|DIR...] - the kernel's checkpatch.pl
# on the user-space C (TAP; "make lint").
#
# checkpatch.pl, spelling.txt and const_structs.checkpatch come from
# Debian's linux-source-6.1 tarball (the one kernel/build.sh patches),
# extracted once into the cache kernel/build.sh uses,
# ${IMATRUST_CACHE:-/var/cache/imatrust}/kernel/checkpatch-<tarball key>/
# (shared with "make kernel-check"), or into
# ${XDG_CACHE_HOME:-~/.cache}/imatrust/ where that is not writable.
#
# Checks the .c and .h files given, or those of agent/, verifier/, proto/
# and db/, with --no-tree --file --terse and the ignore list below (what
# it found in a file is kept there too, for the next run on the same
# content). The code had 213 findings in 73 files when this came (most of
# them BLOCK_COMMENT_STYLE, "*/" of a multi-line comment on its last
# line): too many to fix while other work changes the same files, so it
# is a ratchet: tests/lint/checkpatch-counts.txt ("FILE COUNT") holds
# each file's count, which may not grow; a file it does not name has
# none. A file below its count gets the hint to lower it. One TAP line a
# file, its findings as comments.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
counts=$here/checkpatch-counts.txt
if [ "${1:-}" = --counts ]; then
	counts=$2
	shift 2
fi
tarball=${IMATRUST_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

# What does not apply to user-space C, one reason each:
ignore=(
	# kernel-only macros and functions: ARRAY_SIZE(), __printf() and
	# __packed, kstrto*(), strscpy()
	ARRAY_SIZE PREFER_DEFINED_ATTRIBUTE_MACRO CONSIDER_KSTRTO
	SSCANF_TO_KSTRTO STRLCPY
	# no ftrace in a daemon: fatal("%s", __func__) is its trace
	TRACING_LOGGING
	# a signal handler's flag is a volatile sig_atomic_t (C11 7.14.1.1)
	VOLATILE
	# SQL statements and messages are split to keep to 80 columns
	# (proto/DESIGN.md §9 rule 2); the kernel's reason, grepping
	# dmesg for a message, is not ours
	SPLIT_STRING
	# static functions named by plain words (fill, store, duplicate)
	# that SQL and messages use as words
	EMBEDDED_FUNCTION_NAME
	# the code's multi-line comments close "*/" on their last line, as
	# the OpenBSD daemons' do (161 of the 223 findings when the gate
	# came): the style the code is written in, not a defect
	BLOCK_COMMENT_STYLE
)

# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need perl xz "$tarball"

cd "$root" || exit 1

# checkpatch_dir: where checkpatch.pl is, extracted on the first run
checkpatch_dir() {
	local cache=${IMATRUST_CACHE:-/var/cache/imatrust} dir key

	key=$(stat -c 'tarball %n %s %Y' "$tarball" | sha256sum | cut -c1-16)
	if ! mkdir -p "$cache/kernel" 2>/dev/null || [ ! -w "$cache/kernel" ]; then
		cache=${XDG_CACHE_HOME:-$HOME/.cache}/imatrust
	fi
	dir=$cache/kernel/checkpatch-$key
	if [ ! -f "$dir/checkpatch.pl" ]; then
		echo "# extracting scripts/checkpatch.pl from $tarball into $dir" >&2
		rm -rf "$dir.tmp.$$"
		mkdir -p "$dir.tmp.$$" || return 1
		tar -xJf "$tarball" -C "$dir.tmp.$$" --strip-components=2 \
			--wildcards '*/scripts/checkpatch.pl' \
			'*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' || return 1
		# another run may have won the race: its copy is the same
		mv -T "$dir.tmp.$$" "$dir" 2>/dev/null || rm -rf "$dir.tmp.$$"
	fi
	echo "$dir"
}

files=()
[ $# -gt 0 ] || set -- agent verifier proto db
for a in "$@"; do
	if [ -d "$a" ]; then
		while IFS= read -r f; do
			files+=("$f")
		done < <(find "${a#./}" -type f \( -name '*.c' -o -name '*.h' \) |
			sort)
	else
		files+=("${a#./}")
	fi
done

n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; }
finish() {
	echo "1..$n"
	[ "$bad" -eq 0 ]
	exit
}

dir=$(checkpatch_dir)
if [ ! -f "$dir/checkpatch.pl" ]; then
	not_ok "checkpatch.pl from $tarball"
	finish
fi
if [ ${#files[@]} -eq 0 ]; then
	not_ok "C files to check in $*"
	finish
fi

out=$(mktemp)
new=$(mktemp)
trap 'rm -f "$out" "$new" "$new.1" "$new.2"' EXIT
ignored=$(IFS=,; echo "${ignore[*]}")

# A file's findings are kept beside checkpatch.pl, under the hash of the
# ignore list, its path and its content: a file not changed since is not
# checked again (checkpatch.pl takes a minute of CPU for all of them).
results=$dir/results
mkdir -p "$results" 2>/dev/null
find "$results" -type f -mtime +30 -delete 2>/dev/null
declare -A key
todo=()
for f in "${files[@]}"; do
	[ -r "$f" ] || continue
	key[$f]=$({ echo "$ignored $f"; cat "$f"; } | sha256sum | cut -c1-32)
	if [ -f "$results/${key[$f]}" ]; then
		cat "$results/${key[$f]}" >>"$out"
	else
		todo+=("$f")
	fi
done
# In two halves at once (two cores at most: the machines are shared),
# each into a file of its own; checkpatch.pl exits non-zero on any
# finding: the findings are read per file below.
checkpatch() {
	perl "$dir/checkpatch.pl" --no-tree --file --terse --no-summary \
		--show-types --no-color --ignore "$ignored" "$@"
}
if [ ${#todo[@]} -gt 0 ]; then
	half=$(((${#todo[@]} + 1) / 2))
	checkpatch "${todo[@]:0:half}" >"$new.1" 2>&1 &
	[ ${#todo[@]} -le 1 ] || checkpatch "${todo[@]:half}" >"$new.2" 2>&1 &
	wait
	cat "$new.1" "$new.2" >"$new" 2>/dev/null
	cat "$new" >>"$out"
	# kept only when checkpatch.pl said nothing but findings
	if ! grep -qvE '^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):' "$new"; then
		for f in "${todo[@]}"; do
			awk -F: -v f="$f" '$1 == f' "$new" >"$results/${key[$f]}.$$" &&
				mv "$results/${key[$f]}.$$" "$results/${key[$f]}"
		done 2>/dev/null
	fi
fi

declare -A found allowed
while IFS=$'\t' read -r f c; do
	found[$f]=$c
done < <(awk -F: '/^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):/ { c[$1]++ }
	END { for (f in c) printf "%s\t%d\n", f, c[f] }' "$out")
if [ -f "$counts" ]; then
	while read -r f c _; do
		case $f in '' | '#'*) continue ;; esac
		allowed[$f]=$c
	done <"$counts"
fi

total=0
for f in "${files[@]}"; do
	have=${found[$f]:-0}
	max=${allowed[$f]:-0}
	total=$((total + have))
	if [ ! -r "$f" ]; then
		not_ok "$f: no such file"
	elif [ "$have" -gt "$max" ]; then
		not_ok "$f: $have checkpatch finding(s), at most $max"
		awk -F: -v f="$f" '$1 == f { print "#   " $0 }' "$out"
	else
		ok "$f: $have checkpatch finding(s), at most $max"
		[ "$have" -lt "$max" ] &&
			echo "# hint: lower $f to $have in $counts"
	fi
done
# Errors of checkpatch.pl itself name no line of a file.
if grep -vE '^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):' "$out" | grep -q .; then
	not_ok "checkpatch.pl ran cleanly"
	grep -vE '^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):' "$out" | sed 's/^/#   /'
fi
echo "# $total finding(s) in ${#files[@]} files$(
	grep -oE ': (ERROR|WARNING|CHECK):[A-Z0-9_]+:' "$out" | cut -d: -f3 |
		sort | uniq -c | sort -rn |
		awk '{ printf "%s%s %s", (NR > 1 ? ", " : ": "), $1, $2 }')"
finish
