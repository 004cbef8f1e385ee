#!/usr/bin/env bash
# The lint tier of the kernel patch series (issue #32), in TAP for
# tests/run-suite.sh ("make lint" runs --patches, "make check-kernel-lint"
# both):
#
#   kernel/lint.sh --patches [SERIES]
#                              checkpatch.pl --strict on each patch
#   kernel/lint.sh --trees     sparse and W=1 on security/integrity/ima/,
#                              stock tree against patched tree
#   kernel/lint.sh --compare LABEL STOCK_LOG PATCHED_LOG
#                              the comparison of --trees on two make logs
#
# --patches: the tarball's scripts/checkpatch.pl (build.sh
# --checkpatch-tool) with --strict --no-tree on every patch listed in
# patches/series (or SERIES, its patches beside it), one TAP line a
# patch, its findings as comments. Any ERROR, WARNING or CHECK fails,
# save the types of the ignore list below (empty: the series is clean
# under --strict).
#
# --trees: for the stock, then the patched variant: kernel/build.sh
# [--stock] (a cache hit when warm), then, holding the work tree's lock
# (build.sh's), sparse (make C=2: every source of the directory that the
# config builds) and a W=1 build of security/integrity/ima/ in the work
# tree, with build.sh's CC, ccache and KBUILD_BUILD_* settings (make -k;
# the W=1 build with KCFLAGS=-Wno-error against the config's
# CONFIG_WERROR, so a warning stays a warning to compare). The W=1
# build deletes the directory's objects first (else make would have
# nothing to compile and no warning to say), and the directory is built
# once more without W=1 (ccache: seconds), so the tree is left as
# build.sh built it. The result entries (<variant>-<key>/, what build.sh
# keys its cache hits on) are not written. A work tree that holds another
# series or config (another checkout sharing the cache built since) is
# brought back with build.sh --config-only first.
#
# The comparison: the warnings and errors of a log, each as "FILE:
# MESSAGE" (line and column dropped, "./" and sparse's indented
# "expected/got" lines that follow joined on), counted as often as they
# occur; a warning the patched tree has more often than the stock tree
# fails, and is printed.
#
# A missing tool fails (not a skip), naming its Debian package.
set -u

KDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly KDIR
ROOT=$(cd "$KDIR/.." && pwd)
readonly ROOT
readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly TARBALL="${IMATRUST_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}"
# The series --trees checks (build.sh's); --patches may name another.
readonly SERIES="$KDIR/patches/series"
series=$SERIES
readonly JOBS="${IMATRUST_JOBS:-$(nproc)}"
readonly IMA=security/integrity/ima

# checkpatch.pl types not to report, each with its reason. None: every
# patch is clean under --strict. An entry: TYPE # why it is a false
# positive for this series.
ignore=()

# shellcheck source=tests/lib/need.sh
. "$ROOT/tests/lib/need.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $*"; }
# comment [FILE]: stdin (or FILE) as TAP comments
comment() { sed 's/^/#   /' "$@"; }
finish() {
	echo "1..$n"
	[ "$bad" -eq 0 ]
	exit
}

usage() {
	echo "usage: $0 --patches [SERIES] | --trees |" \
		"--compare LABEL STOCK_LOG PATCHED_LOG" >&2
	exit 2
}

# require TOOL...: a "not ok" naming the Debian package of each missing
# TOOL (an absolute path is tested as a file); false if one is missing.
require() {
	local tool missing=0

	for tool in "$@"; do
		if [ "${tool#/}" != "$tool" ]; then
			[ -e "$tool" ] && continue
		elif command -v "$tool" >/dev/null; then
			continue
		fi
		not_ok "$tool not installed (Debian package" \
			"$(tool_package "$tool"): deploy/install-deps.sh)"
		missing=1
	done
	[ "$missing" -eq 0 ]
}

# Patch file names listed in the series, comments and blank lines skipped
# (as build.sh reads it).
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$series" | grep -v '^$'
}

# --patches: one TAP line per patch of the series.
lint_patches() {
	local tool p out rc dir flags=(--no-tree --no-color --strict --terse
		--show-types --no-summary)

	require perl xz "$TARBALL" || finish
	[ ${#ignore[@]} -eq 0 ] ||
		flags+=(--ignore "$(IFS=,; echo "${ignore[*]}")")
	if ! tool=$("$KDIR/build.sh" --checkpatch-tool 2>"$tmp/err"); then
		not_ok "checkpatch.pl from $TARBALL (kernel/build.sh --checkpatch-tool)"
		comment "$tmp/err"
		finish
	fi
	if [ ! -f "$series" ]; then
		not_ok "$series: no such file"
		finish
	fi
	dir=$(dirname "$series")
	for p in $(series_patches); do
		if [ ! -f "$dir/$p" ]; then
			not_ok "$p: listed in $series, no such file"
			continue
		fi
		# shellcheck disable=SC2086 # extra flags are a list of words
		out=$(perl "$tool" "${flags[@]}" ${IMATRUST_CHECKPATCH_FLAGS:-} \
			"$dir/$p" 2>&1)
		rc=$?
		if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
			ok "$p: checkpatch.pl --strict: no finding"
		else
			not_ok "$p: checkpatch.pl --strict: $(grep -cE \
				': (ERROR|WARNING|CHECK):' <<<"$out") finding(s) (exit $rc)"
			comment <<<"$out"
		fi
	done
	[ "$n" -gt 0 ] || not_ok "patches listed in $series"
}

# warnings LOG: its warnings and errors (gcc, sparse, kernel-doc,
# objtool), one a line, "FILE: warning: MSG", sorted (C locale) for comm.
warnings() {
	awk '
	function flush() { if (cur != "") print cur; cur = "" }
	# "FILE:LINE:COL: ", "FILE:LINE: " or "FILE: " (objtool) dropped to
	# "FILE: "
	function norm(s,   f, r) {
		f = s
		sub(/:.*/, "", f)
		r = substr(s, length(f) + 2)
		sub(/^[0-9]+:/, "", r)
		sub(/^[0-9]+:/, "", r)
		sub(/^ +/, "", r)
		sub(/^\.\//, "", f)
		return f ": " r
	}
	/^[^ :][^:]*:([0-9]+:)?([0-9]+:)? +(warning|error): / {
		flush()
		cur = norm($0)
		next
	}
	# sparse: "FILE:LINE:COL:    expected ..." continues the warning
	cur != "" && /^[^ :][^:]*:[0-9]+:([0-9]+:)?    / {
		line = $0
		sub(/^[^ :][^:]*:[0-9]+:([0-9]+:)? +/, "", line)
		cur = cur "; " line
		next
	}
	{ flush() }
	END { flush() }' "$1" | LC_ALL=C sort
}

# compare LABEL STOCK_LOG PATCHED_LOG: one TAP line, the new warnings as
# comments on failure.
compare() {
	local label=$1 ns np

	warnings "$2" >"$tmp/stock.w"
	warnings "$3" >"$tmp/patched.w"
	ns=$(wc -l <"$tmp/stock.w")
	np=$(wc -l <"$tmp/patched.w")
	LC_ALL=C comm -13 "$tmp/stock.w" "$tmp/patched.w" >"$tmp/new.w"
	if [ ! -s "$tmp/new.w" ]; then
		ok "$label: no warning the stock tree does not have" \
			"(stock $ns, patched $np)"
	else
		not_ok "$label: $(wc -l <"$tmp/new.w") warning(s) the stock" \
			"tree does not have (stock $ns, patched $np)"
		comment "$tmp/new.w"
	fi
}

# Whether the work tree of VARIANT holds this checkout's input: the
# tarball, no half-done series change, the series (none for stock) and
# the config build.sh made for it (CONFIG, from the result entry).
tree_holds() {
	local v=$1 config=$2 tdir=$CACHE/kernel/tree-$1 want="" p

	[ -f "$tdir/base" ] && [ ! -e "$tdir/dirty" ] || return 1
	grep -qxF "$(stat -c 'tarball %n %s %Y' "$TARBALL")" "$tdir/base" ||
		return 1
	[ "$v" = stock ] || want=$(series_patches)
	[ "$(cat "$tdir/applied/series" 2>/dev/null)" = "$want" ] || return 1
	for p in $want; do
		cmp -s "$KDIR/patches/$p" "$tdir/applied/$p" || return 1
	done
	cmp -s "$config" "$tdir/src/.config"
}

# ready VARIANT: the kernel built and its work tree holding this
# checkout's input, locked (fd 9) until unlocked; a "not ok" if not.
ready() {
	local v=$1 lock=$CACHE/kernel/tree-$1/lock image flag=()

	[ "$v" = stock ] && flag=(--stock)
	if ! image=$("$KDIR/build.sh" "${flag[@]}" 2>"$tmp/$v.build"); then
		not_ok "$v kernel built (kernel/build.sh ${flag[*]})"
		tail -n 20 "$tmp/$v.build" | comment
		return 1
	fi
	image=$(tail -n 1 <<<"$image")
	exec 9>"$lock"
	flock 9
	tree_holds "$v" "${image%/*}/config" && return 0
	exec 9>&-
	echo "# the $v work tree holds another series or config:" \
		"kernel/build.sh ${flag[*]} --config-only"
	"$KDIR/build.sh" "${flag[@]}" --config-only >/dev/null \
		2>>"$tmp/$v.build"
	exec 9>"$lock"
	flock 9
	tree_holds "$v" "${image%/*}/config" && return 0
	exec 9>&-
	not_ok "the $v work tree holds this checkout's series and config" \
		"(another build changed it meanwhile?)"
	tail -n 20 "$tmp/$v.build" | comment
	return 1
}

# kmake TREE ARG...: make in TREE as build.sh runs it, output in order;
# -k: a file that does not compile does not hide the others' warnings;
# LC_ALL=C: the same words and quotes whatever the caller's locale.
kmake() {
	local tree=$1

	shift
	LC_ALL=C CCACHE_DIR="$CACHE/kernel/ccache" CCACHE_BASEDIR="$tree" \
		KBUILD_BUILD_TIMESTAMP=@0 KBUILD_BUILD_USER=imatrust \
		KBUILD_BUILD_HOST=imatrust KBUILD_BUILD_VERSION=1 \
		make -C "$tree" -j"$JOBS" -k -Otarget CC="ccache gcc" "$@"
}

# run_check DESC LOG VERB TREE ARG...: kmake into LOG; a TAP line with
# the count of files (make's "VERB" lines in the directory), of warnings
# and the seconds it took.
run_check() {
	local desc=$1 log=$2 verb=$3 tree=$4 rc files start=$SECONDS

	shift 4
	kmake "$tree" "$@" >"$log" 2>&1
	rc=$?
	files=$(grep -cE "^  $verb +$IMA/[^/]+\\.[co]\$" "$log")
	if [ "$rc" -ne 0 ] || [ "$files" -eq 0 ]; then
		not_ok "$desc (exit $rc, $files file(s))"
		tail -n 30 "$log" | comment
		return 1
	fi
	ok "$desc: $files file(s), $(warnings "$log" | wc -l) warning(s)," \
		"$((SECONDS - start)) s"
}

# lint_tree VARIANT: sparse and W=1 on the variant's work tree, logs in
# $tmp/VARIANT.sparse and $tmp/VARIANT.w1.
lint_tree() {
	local v=$1 tree=$CACHE/kernel/tree-$1/src start=$SECONDS

	ready "$v" || return 1
	run_check "$v tree: sparse (C=2) on $IMA/" "$tmp/$v.sparse" CHECK \
		"$tree" C=2 "$IMA/"
	rm -f "$tree/$IMA"/*.o
	# CONFIG_WERROR (x86_64_defconfig) makes every W=1 warning an error
	# that stops the file: warnings here, compared like sparse's.
	run_check "$v tree: W=1 build of $IMA/" "$tmp/$v.w1" CC "$tree" \
		W=1 KCFLAGS=-Wno-error "$IMA/"
	if ! kmake "$tree" "$IMA/" >"$tmp/$v.rebuild" 2>&1; then
		not_ok "$v tree: $IMA/ built again without W=1"
		tail -n 30 "$tmp/$v.rebuild" | comment
	fi
	exec 9>&-
	echo "# $v tree: $((SECONDS - start)) s in all (build.sh, lock," \
		"sparse, W=1, build without W=1)"
}

lint_trees() {
	local v

	require make gcc ccache sparse perl flock || finish
	for v in stock patched; do
		lint_tree "$v"
	done
	if [ -f "$tmp/stock.sparse" ] && [ -f "$tmp/patched.sparse" ]; then
		compare "sparse on $IMA/" "$tmp/stock.sparse" \
			"$tmp/patched.sparse"
		compare "W=1 build of $IMA/" "$tmp/stock.w1" "$tmp/patched.w1"
	else
		not_ok "stock and patched trees compared (see above)"
	fi
}

case ${1:-} in
--patches)
	[ $# -le 2 ] || usage
	series=${2:-$SERIES}
	lint_patches
	;;
--trees) lint_trees ;;
--compare)
	[ $# -eq 4 ] || usage
	compare "$2" "$3" "$4"
	;;
*) usage ;;
esac
finish
