#!/usr/bin/env bash
# tests/lint/layout.sh [ROOT] - the repository's top level is its floor plan
# (TAP; "make lint"): the folders kernel agent verifier proto db deploy
# tests, the Makefile and the README, and the dot files the tools read
# (.ci, .clang-format, .gitignore, .shellcheckrc). Anything else tracked
# at the top (a stray output file a command wrote, a folder without a
# room) fails, named. ROOT (a git work tree) is for the self test.
set -u

root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1

allowed=" kernel agent verifier proto db deploy tests Makefile README.md .ci .clang-format .gitignore .shellcheckrc "
mapfile -t top < <(git ls-files | cut -d/ -f1 | sort -u)
[ "${#top[@]}" -gt 0 ] || { echo "Bail out! git ls-files listed nothing"; exit 1; }

echo "1..2"
stray=()
for t in "${top[@]}"; do
	case $allowed in *" $t "*) ;; *) stray+=("$t") ;; esac
done
if [ "${#stray[@]}" -eq 0 ]; then
	echo "ok 1 - the top level holds only the floor plan's entries (${#top[@]})"
else
	echo "not ok 1 - tracked at the top level, outside the floor plan: ${stray[*]}"
fi
missing=()
for t in kernel agent verifier proto db deploy tests Makefile README.md; do
	[ -e "$t" ] || missing+=("$t")
done
if [ "${#missing[@]}" -eq 0 ]; then
	echo "ok 2 - every room of the floor plan is there"
else
	echo "not ok 2 - missing at the top level: ${missing[*]}"
fi
