#!/usr/bin/env bash
# test_repo_self_contained.sh - nothing in the repository points outside it
# (TAP).
#
# Every tracked file but this one is searched for paths to a checkout's
# neighbours (the folder beside a checkout, named in $beside below, by a
# relative or an absolute path) and for citations of a design or
# style document other than proto/DESIGN.md; every "proto/DESIGN.md §N"
# (and "§9 rule N") cited must exist as a heading (a rule) there. A
# citation is checked when "proto/DESIGN.md" and the "§N" stand on one
# line; inside proto/DESIGN.md every "§N" is checked.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
self=tests/cli/test_repo_self_contained.sh
design=proto/DESIGN.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	bad=$((bad + 1))
	echo "not ok $n - $1"
	# shellcheck disable=SC1003 # sed "$a\" ends the last line
	[ -n "${2:-}" ] && sed -e 's/^/# /' -e '$a\' "$2"
}
# check DESCRIPTION FILE: passes when FILE (the offending lines) is empty
check() { if [ -s "$2" ]; then not_ok "$1" "$2"; else ok "$1"; fi; }

# The filters read "path:line:text" lines (grep -n over several files).

# Paths that only exist next to a development checkout.
# The neighbour's name is put together so that this file does not name it.
beside=sha; beside=${beside}red
outside_refs() { grep -E "\\.\\./$beside|/work/$beside" || true; }

# A DESIGN.md or STYLE.md other than proto/DESIGN.md: "STYLE.md"
# anywhere, "DESIGN.md" not as .../proto/DESIGN.md, and bare citations
# such as "DESIGN §4" or "DESIGN section 3".
foreign_docs() {
	local cite='[[:alnum:]_./-]*DESIGN(\.md|[[:space:]]+(§|section|\\u00a7))'

	while IFS= read -r l; do
		case $l in *STYLE.md*) echo "$l"; continue ;; esac
		printf '%s\n' "${l#*:*:}" | grep -oE "$cite" |
			grep -qvE '(^|/)proto/DESIGN\.md$' && echo "$l"
	done
	return 0
}

# "path:line:N" for every section cited: "§N", "§N-M", "\u00a7N" on a line
# naming proto/DESIGN.md, and every "§N" in proto/DESIGN.md itself.
cited_sections() {
	local sec='(§|\\u00a7)[0-9]+(-[0-9]+)?'

	while IFS= read -r l; do
		local where=${l%%:*} rest=${l#*:} s
		rest=${rest#*:}
		case $where:$rest in
		"$design":* | *proto/DESIGN.md*) ;;
		*) continue ;;
		esac
		for s in $(printf '%s\n' "$rest" | grep -oE "$sec" |
			   sed -E 's/^(§|\\u00a7)//; s/-/ /'); do
			echo "${l%%:*}:$(echo "$l" | cut -d: -f2):$s"
		done
	done
	return 0
}

# "path:line:N" for every rule of section 9 cited: "§9 rule 6",
# "§9 rules 10 and 12", "§9 rules 3, 4".
cited_rules() {
	local re='§9[[:space:]]+rules?[[:space:]]+[0-9]+(([[:space:]]*,[[:space:]]*|[[:space:]]+and[[:space:]]+)[0-9]+)*'

	while IFS= read -r l; do
		local r
		for r in $(printf '%s\n' "${l#*:*:}" | grep -oE "$re" |
			   sed 's/^§9//' | grep -oE '[0-9]+'); do
			echo "$(echo "$l" | cut -d: -f1-2):$r"
		done
	done
	return 0
}

# The filters themselves, on lines they must flag and lines they must not,
# so a pattern that matches nothing cannot make the checks below pass.
cat >"$tmp/sample" <<EOF
a.c:1: * see ../$beside/fixtures/ and /work/$beside/DESIGN.md
a.c:2: * (DESIGN §4) and (STYLE.md rule 6) and DESIGN section 3
a.c:3: * (docs/DESIGN.md §2) "DESIGN \u00a75"
b.c:1: * (proto/DESIGN.md §4-5) and (proto/DESIGN.md §9 rules 10 and 12)
b.c:2: * RFC 4648 §4 and TPM 2.0 Part 1 §24; our own design
EOF
if [ "$(outside_refs <"$tmp/sample" | wc -l)" -eq 1 ] &&
	[ "$(foreign_docs <"$tmp/sample" | cut -d: -f1-2 | tr '\n' ' ')" = \
	  "a.c:1 a.c:2 a.c:3 " ] &&
	[ "$(cited_sections <"$tmp/sample" | cut -d: -f3 | tr '\n' ' ')" = \
	  "4 5 9 " ] &&
	[ "$(cited_rules <"$tmp/sample" | cut -d: -f3 | tr '\n' ' ')" = "10 12 " ]
then
	ok "the checks flag planted references and pass clean ones"
else
	not_ok "the checks flag planted references and pass clean ones"
fi

cd "$root" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "ok $((n + 1)) # SKIP not a git checkout: no tracked files"
	echo "1..$((n + 1))"
	exit 0
fi
git ls-files -z | grep -zvxF "$self" |
	xargs -0 grep -I -n -H -E '' -- 2>/dev/null >"$tmp/all"
if [ -s "$tmp/all" ]; then
	ok "tracked files read ($(cut -d: -f1 "$tmp/all" | sort -u | wc -l) text files)"
else
	not_ok "tracked files read"
fi

outside_refs <"$tmp/all" >"$tmp/outside"
check "no tracked file points to the folder beside the checkout" "$tmp/outside"

grep -E 'DESIGN|STYLE\.md' "$tmp/all" | foreign_docs >"$tmp/foreign"
check "every design citation is proto/DESIGN.md; no STYLE.md" "$tmp/foreign"

if [ -f "$design" ]; then
	ok "$design exists"
else
	not_ok "$design exists"
fi
sed -nE 's/^## ([0-9]+)\..*/\1/p' "$design" 2>/dev/null | sort -u >"$tmp/heads"
# the numbered rules of "## 9.", up to the next section
awk '/^## [0-9]+\./ { in9 = ($2 == "9.") } in9 && /^[0-9]+\. / {
	sub(/\..*/, ""); print }' "$design" 2>/dev/null | sort -u >"$tmp/rules"

grep -E '§|\\u00a7' "$tmp/all" | cited_sections >"$tmp/secs"
: >"$tmp/badsec"
while IFS=: read -r f l s; do
	grep -qx "$s" "$tmp/heads" ||
		echo "$f:$l: §$s is not a section of $design" >>"$tmp/badsec"
done <"$tmp/secs"
if [ -s "$tmp/secs" ]; then
	check "the $(wc -l <"$tmp/secs") sections cited exist in $design" \
		"$tmp/badsec"
else
	not_ok "sections of $design are cited (none found: the check is broken)"
fi

grep -E '§9[[:space:]]+rule' "$tmp/all" | cited_rules >"$tmp/rulecites"
: >"$tmp/badrule"
while IFS=: read -r f l r; do
	grep -qx "$r" "$tmp/rules" ||
		echo "$f:$l: rule $r is not in §9 of $design" >>"$tmp/badrule"
done <"$tmp/rulecites"
check "the $(wc -l <"$tmp/rulecites") code style rules cited exist in §9" \
	"$tmp/badrule"

echo "1..$n"
[ "$bad" -eq 0 ]
