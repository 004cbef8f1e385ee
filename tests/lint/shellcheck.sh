#!/usr/bin/env bash
# tests/lint/shellcheck.sh [FILE|DIR...] - shellcheck on every shell script (TAP;
# "make lint").
#
# Without arguments: the repository's *.sh files (git ls-files), .ci/run
# and the scripts without an extension under deploy/, tests/, kernel/ and
# .ci/ whose first line is a sh or bash #!. A DIR argument adds its *.sh
# files and such scripts. One TAP line per script, its findings (gcc
# format) as comments; one shellcheck run for all of them, from the
# repository root so that "# shellcheck source=" paths and .shellcheckrc
# apply (the few checks it disables say why there). Anything else a
# script gets right against shellcheck's advice carries a
# "# shellcheck disable=SCxxxx # reason" on the line.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need shellcheck

cd "$root" || exit 1

# Pending merge: files other work was changing as this gate came, which
# could not take a directive then, checked without the checks named
# here; the entry goes when the file says so on the line.
declare -A pending=()

# is_script FILE: named *.sh, or a sh/bash/dash #! on its first line
is_script() {
	case $1 in *.sh) return 0 ;; esac
	head -n 1 "$1" 2>/dev/null | grep -qE '^#!.*[/ ](ba|da)?sh([[:space:]]|$)'
}

scripts=()
if [ $# -eq 0 ]; then
	while IFS= read -r f; do
		scripts+=("$f")
	done < <({
		git ls-files '*.sh'
		git ls-files deploy tests kernel .ci | grep -v '\.sh$' |
			while IFS= read -r f; do
				[ -f "$f" ] && is_script "$f" && echo "$f"
			done
	} | sort -u)
else
	for a in "$@"; do
		if [ -d "$a" ]; then
			while IFS= read -r f; do
				is_script "$f" && scripts+=("$f")
			done < <(find "$a" -type f | sort)
		else
			scripts+=("$a")
		fi
	done
fi

n=0
bad=0
if [ ${#scripts[@]} -eq 0 ]; then
	echo "not ok 1 - shell scripts to check in $*"
	echo "1..1"
	exit 1
fi

out=$(mktemp)
trap 'rm -f "$out" "$out.1" "$out.2"' EXIT
# The status says little: the findings are read per file below.
plain=()
for f in "${scripts[@]}"; do
	[ -n "${pending[$f]:-}" ] || plain+=("$f")
done
# in two halves at once (two cores at most: the machines are shared),
# each into a file of its own
half=$(((${#plain[@]} + 1) / 2))
[ "$half" -eq 0 ] || shellcheck -f gcc "${plain[@]:0:half}" >"$out.1" 2>&1 &
[ ${#plain[@]} -le 1 ] || shellcheck -f gcc "${plain[@]:half}" >"$out.2" 2>&1 &
wait
cat "$out.1" "$out.2" >"$out" 2>/dev/null
for f in "${scripts[@]}"; do
	[ -n "${pending[$f]:-}" ] || continue
	echo "# $f: without ${pending[$f]} (pending merge)"
	shellcheck -f gcc -e "${pending[$f]}" "$f" >>"$out" 2>&1
done

# FILE:LINE:COL: a finding
declare -A found
while IFS=$'\t' read -r f c; do
	found[$f]=$c
done < <(awk -F: '/^[^:]+:[0-9]+:[0-9]+: / { c[$1]++ }
	END { for (f in c) printf "%s\t%d\n", f, c[f] }' "$out")
for f in "${scripts[@]}"; do
	n=$((n + 1))
	if [ ! -r "$f" ]; then
		bad=$((bad + 1))
		echo "not ok $n - $f: no such file"
	elif [ -z "${found[$f]:-}" ]; then
		echo "ok $n - $f"
	else
		bad=$((bad + 1))
		echo "not ok $n - $f: ${found[$f]} finding(s)"
		awk -F: -v f="$f" '$1 == f { print "#   " $0 }' "$out"
	fi
done
# Errors of shellcheck itself (an unreadable file...) name no line.
if grep -qvE '^[^:]+:[0-9]+:[0-9]+: ' "$out"; then
	n=$((n + 1))
	bad=$((bad + 1))
	echo "not ok $n - shellcheck ran cleanly"
	grep -vE '^[^:]+:[0-9]+:[0-9]+: ' "$out" | sed 's/^/#   /'
fi
total=$(grep -cE '^[^:]+:[0-9]+:[0-9]+: ' "$out")
echo "# $total finding(s) in $bad of ${#scripts[@]} scripts$(
	grep -oE '\[SC[0-9]+\]$' "$out" | tr -d "[]" | sort | uniq -c | sort -rn |
		awk '{ printf "%s%s %s", (NR > 1 ? ", " : ": "), $1, $2 }')"
echo "1..$n"
[ "$bad" -eq 0 ]
