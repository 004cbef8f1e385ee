#!/usr/bin/env bash
# test_lint.sh - the gates of "make lint" catch what they are for:
# tests/lint/*.sh, through tests/run-suite.sh, on planted files (an
# unquoted variable, a script without an extension, a C file not in the
# .clang-format style, a 200-line function,
# a listed function that grew or shrank, a checkpatch finding over a
# file's count, a stray file at the top level, a document naming a file
# that is gone, a mutant whose anchor a change moved), and pass their
# clean twins.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runner=$root/tests/run-suite.sh
lint=$root/tests/lint
tarball=${IMATRUST_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need shellcheck awk clang-format

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	[ -f "$tmp/out" ] && sed 's/^/# /' "$tmp/out"
}

# gate WANT PATTERN DESC CMD: the runner on the gate command line CMD
# passes (WANT pass) or fails (fail) with no TAP plan error, and prints
# lines matching each PATTERN (ERE; several separated by " && ").
gate() {
	local want=$1 pats=$2 desc=$3 rc p good=1

	shift 3
	env -u CI IMATRUST_STRICT=0 "$runner" planted "$*" >"$tmp/out" 2>&1
	rc=$?
	case $want in
	pass) [ "$rc" -eq 0 ] && grep -q '^PASS ' "$tmp/out" || good=0 ;;
	fail) [ "$rc" -ne 0 ] && grep -q '^FAIL ' "$tmp/out" || good=0 ;;
	esac
	grep -qE 'TAP plan|planned [0-9]+ tests' "$tmp/out" && good=0
	while [ -n "$pats" ]; do
		p=${pats%% && *}
		[ "$p" = "$pats" ] && pats="" || pats=${pats#* && }
		grep -qE -- "$p" "$tmp/out" || good=0
	done
	if [ "$good" -eq 1 ]; then ok "$desc"; else not_ok "$desc"; fi
}

# c_function FILE NAME LINES: append a function of LINES body lines,
# its declarator over three lines
c_function() {
	{
		printf 'static int\n%s(int a,\n\tint b)\n{\n\tint x = a + b;\n' "$2"
		for _ in $(seq 3 "$3"); do
			printf '\tx += a;\n'
		done
		printf '\treturn x;\n}\n\n'
	} >>"$1"
}

# --- shellcheck.sh ---
mkdir -p "$tmp/sh" "$tmp/sh-clean"
cat >"$tmp/sh/bad.sh" <<'EOS'
#!/bin/bash
f=$1
rm -f $f
EOS
cat >"$tmp/sh/no-extension" <<'EOS'
#!/usr/bin/env bash
printf "$1"
EOS
cat >"$tmp/sh/notes.txt" <<'EOS'
ls $not_a_script
EOS
cat >"$tmp/sh-clean/good.sh" <<'EOS'
#!/bin/sh
f=$1
rm -f -- "$f"
EOS
gate fail 'bad\.sh:3:[0-9]+: .*\[SC2086\] && no-extension:2:[0-9]+: .*\[SC2059\]' \
	"shellcheck.sh fails an unquoted variable and a variable format, naming file, line and check" \
	"$lint/shellcheck.sh $tmp/sh"
if grep -q notes.txt "$tmp/out"; then
	not_ok "shellcheck.sh leaves a file that is no script alone"
else
	ok "shellcheck.sh leaves a file that is no script alone"
fi
gate pass 'PASS .*\(1 passed' "shellcheck.sh passes a clean script" \
	"$lint/shellcheck.sh $tmp/sh-clean"

# --- layout.sh ---
mkdir -p "$tmp/plan"
(
	cd "$tmp/plan" && git init -q &&
		for d in kernel agent verifier proto db deploy tests; do
			mkdir "$d" && : >"$d/f"
		done && : >Makefile && : >README.md && git add -A
) || not_ok "a git work tree for layout.sh"
gate pass 'PASS' "layout.sh passes the floor plan" "$lint/layout.sh $tmp/plan"
: >"$tmp/plan/81" && git -C "$tmp/plan" add 81
gate fail 'outside the floor plan: 81' \
	"layout.sh fails a stray file tracked at the top, naming it" \
	"$lint/layout.sh $tmp/plan"

# --- doc-paths.sh ---
bq='`'
echo "The agent speaks through ${bq}agent/f$bq (agent/f.c is gone)." \
	>"$tmp/plan/README.md"
git -C "$tmp/plan" add README.md
gate fail 'README.md:1: agent/f.c' \
	"doc-paths.sh fails a document naming a file that is gone, with its line" \
	"$lint/doc-paths.sh $tmp/plan"
echo "The agent speaks through ${bq}agent/f$bq." >"$tmp/plan/README.md"
git -C "$tmp/plan" add README.md
gate pass 'PASS' "doc-paths.sh passes documents naming files that exist" \
	"$lint/doc-paths.sh $tmp/plan"

# --- the mutants' anchors (tests/mutants/run.sh --anchors) ---
mkdir -p "$tmp/plan/db"
printf 'int f(int v)\n{\n\tif (v == 1)\n\t\treturn 0;\n\treturn 1;\n}\n' \
	>"$tmp/plan/db/f.c"
printf 'mutant  one compared\nfile    %s\nfind    \\tif (v == 1)\\n\nrepl    \\tif (0)\\n\ntest    true\n' \
	"$tmp/plan/db/f.c" >"$tmp/mutants.list"
gate pass 'PASS .*\(1 passed' "run.sh --anchors passes an anchor found once" \
	"$root/tests/mutants/run.sh --anchors $tmp/mutants.list"
sed -i 's/v == 1/v == 2/' "$tmp/plan/db/f.c"
gate fail 'f\.c: one compared: anchor found 0 times, not once \(list line 1\)' \
	"run.sh --anchors fails an anchor a change moved, naming the mutant and its list line" \
	"$root/tests/mutants/run.sh --anchors $tmp/mutants.list"

# --- clang-format.sh ---
mkdir -p "$tmp/fmt-bad" "$tmp/fmt-good"
printf 'int  f(int x){\nreturn x+1;}\n' >"$tmp/fmt-bad/bad.c"
printf 'int f(int x)\n{\n\treturn x + 1;\n}\n' >"$tmp/fmt-good/good.c"
gate fail 'fmt-bad: .* not as && bad\.c:1' \
	"clang-format.sh fails a file not in the style, naming its lines" \
	"$lint/clang-format.sh $tmp/fmt-bad/bad.c"
gate pass 'PASS' "clang-format.sh passes a file in the style" \
	"$lint/clang-format.sh $tmp/fmt-good/good.c"

# --- function-length.sh ---
mkdir -p "$tmp/c-long" "$tmp/c-edge" "$tmp/c-list"
c_function "$tmp/c-long/long.c" short_one 10
c_function "$tmp/c-long/long.c" long_one 200
c_function "$tmp/c-edge/edge.c" at_limit 80
gate fail 'long\.c long_one\(\) 200 lines && the 10 longest && 200  .*long_one' \
	"function-length.sh fails a new 200-line function, naming it, and prints the longest" \
	"$lint/function-length.sh $tmp/c-long"
gate pass 'PASS' "function-length.sh passes a function of 80 lines" \
	"$lint/function-length.sh $tmp/c-edge"
c_function "$tmp/c-list/a.c" grown 120
c_function "$tmp/c-list/a.c" split 50
c_function "$tmp/c-list/a.c" kept 90
c_function "$tmp/c-list/a.c" better 95
{
	echo "# planted"
	echo "$tmp/c-list/a.c grown 100"
	echo "$tmp/c-list/a.c split 100"
	echo "$tmp/c-list/a.c kept 90"
	echo "$tmp/c-list/a.c better 99"
	echo "$tmp/c-list/a.c gone 99"
	echo "$tmp/elsewhere.c other 99"
} >"$tmp/list"
gate fail 'grown\(\) grew from 100 to 120 && split\(\) is 50 lines now, within 80: remove && gone\(\) listed at 99 lines is gone: remove && ok [0-9]+ - .*kept\(\) 90 lines, listed at 90 && better\(\) shrank: set its length .* to 95' \
	"function-length.sh: a listed function may not grow, leaves the list within the limit or when gone" \
	"$lint/function-length.sh --list $tmp/list $tmp/c-list"
if grep -q elsewhere "$tmp/out"; then
	not_ok "function-length.sh checks only the list entries of the files measured"
else
	ok "function-length.sh checks only the list entries of the files measured"
fi
# the awk's reading of kernel style: struct initializers and prototypes
# are not functions; a "{" at column 0 after ")" is
printf 'struct s { int a; };\nstatic const struct s t[] = {\n\t{ 1 },\n};\nint f(void);\nint\ng(void)\n{\n\treturn 0;\n}\n' \
	>"$tmp/shape.c"
if [ "$(awk -f "$lint/function-length.awk" "$tmp/shape.c")" = \
	"$(printf '%s\tg\t1\t8' "$tmp/shape.c")" ]; then
	ok "function-length.awk: only g() is a function, of 1 line"
else
	awk -f "$lint/function-length.awk" "$tmp/shape.c" >"$tmp/out"
	not_ok "function-length.awk: only g() is a function, of 1 line"
fi

# --- checkpatch.sh ---
mkdir -p "$tmp/cp"
cat >"$tmp/cp/bad.c" <<'EOS'
// SPDX-License-Identifier: GPL-2.0-only
static int f(int x)
{
	if (x) return 1;
	return 0;
}
EOS
cat >"$tmp/cp/clean.c" <<'EOS'
// SPDX-License-Identifier: GPL-2.0-only
static const int t[] = { 1, 2 };

static int g(void)
{
	return sizeof(t) / sizeof(t[0]);
}
EOS
: >"$tmp/counts0"
echo "$tmp/cp/bad.c 1" >"$tmp/counts1"
if [ ! -f "$tarball" ] || ! command -v perl >/dev/null; then
	for d in "a file at its count passes" \
		"a finding over the file's count fails" \
		"an ignored check is no finding"; do
		ok "checkpatch.sh: $d # SKIP perl or $tarball not installed (Debian packages perl, linux-source-6.1)"
	done
else
	gate pass 'PASS' "checkpatch.sh: a file at its count passes" \
		"$lint/checkpatch.sh --counts $tmp/counts1 $tmp/cp/bad.c"
	gate fail 'bad\.c: 1 checkpatch finding\(s\), at most 0 && bad\.c:4: ERROR:TRAILING_STATEMENTS' \
		"checkpatch.sh: a finding over the file's count fails, named (from the findings kept by the run before)" \
		"$lint/checkpatch.sh --counts $tmp/counts0 $tmp/cp/bad.c"
	gate pass 'PASS' "checkpatch.sh: an ignored check (ARRAY_SIZE) is no finding" \
		"$lint/checkpatch.sh --counts $tmp/counts0 $tmp/cp/clean.c"
fi
echo "1..$n"
