#!/usr/bin/env bash
# run.sh [--anchors] [LIST] - mutation testing of the verdict-critical
# conditions (issue 32; make check-mutants).
#
# Copies the tree once, with its warm build/, into a scratch directory;
# then for each mutant of LIST (default tests/mutants/mutants.list, format
# at its top) applies the mutation to the scratch copy, builds the test
# targets the mutant names (only the mutated file recompiles), runs its
# tests and restores the file. TAP on stdout, for tests/run-suite.sh:
#   ok N - killed: FILE: DESCRIPTION (S s)
#   not ok N - SURVIVED: FILE:LINE: FIND -> REPL
#   not ok N - LIST ERROR: FILE: DESCRIPTION: why (an anchor not found
#              exactly once, a mutant that does not compile)
# A mutant that does not compile is a list error, not a kill. Before the
# first mutant the unmutated copy builds and every test named passes, or
# nothing is counted ("Bail out!").
#
# --anchors checks the list alone, in seconds and with no build (make
# lint): each mutant's file exists and holds its anchor exactly once, so
# a change that moves a condition fails lint, not the mutants stage.
#
# Environment: MUTANTS_ONLY (an extended regular expression: only the
# mutants whose file or description matches), MUTANTS_JOBS (make -j,
# default 2), MUTANTS_TIMEOUT (seconds per test command, default 120; a
# test that times out kills its mutant), MUTANTS_KEEP=1 (keep the scratch
# copy and print where it is).
set -u
shopt -u patsub_replacement 2>/dev/null || true

top=$(cd "$(dirname "$0")/../.." && pwd)
anchors_only=0
if [ "${1:-}" = --anchors ]; then
	anchors_only=1
	shift
fi
list=${1:-$top/tests/mutants/mutants.list}
jobs=${MUTANTS_JOBS:-2}
limit=${MUTANTS_TIMEOUT:-120}
only=${MUTANTS_ONLY:-}
# a cmocka binary stops at its first failed assertion: a kill is known
export CMOCKA_TEST_ABORT=1
# the copy builds with the Makefile's defaults, whatever make ran us
# (SANITIZE=1, its jobserver)
unset MAKEFLAGS MFLAGS MAKELEVEL

bail() {
	echo "Bail out! $*"
	exit 1
}

[ -r "$list" ] || bail "cannot read $list"

# "\n" and "\t" of a list field as a newline and a tab.
unescape() {
	local s=$1
	s=${s//\\n/$'\n'}
	s=${s//\\t/$'\t'}
	printf '%s' "$s"
}

# ---- the list -------------------------------------------------------------

m_desc=() m_file=() m_find=() m_repl=() m_tests=() m_make=() m_at=()
n=0
desc="" file="" find="" repl="" tests="" more="" at=0 have_repl=0

# Close the block being read; list errors stop the run.
close_block() {
	[ -n "$desc$file$find$tests" ] || return 0
	[ -n "$desc" ] || bail "$list:$at: a block without 'mutant'"
	[ -n "$file" ] || bail "$list:$at: $desc: no 'file'"
	[ -n "$find" ] || bail "$list:$at: $desc: no 'find'"
	[ "$have_repl" -eq 1 ] || bail "$list:$at: $desc: no 'repl'"
	[ -n "$tests" ] || bail "$list:$at: $desc: no 'test'"
	if [ -z "$only" ] || [[ "$file: $desc" =~ $only ]]; then
		m_desc[n]=$desc
		m_file[n]=$file
		m_find[n]=$(unescape "$find")
		m_repl[n]=$(unescape "$repl")
		m_tests[n]=$tests
		m_make[n]=$more
		m_at[n]=$at
		n=$((n + 1))
	fi
	desc="" file="" find="" repl="" tests="" more="" have_repl=0
}

lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $line in
	'#'*) continue ;;
	'') close_block; continue ;;
	esac
	key=${line%% *}
	val=${line#"$key"}
	val=${val#"${val%%[! ]*}"}	# the spaces after the keyword
	[ -n "$desc$file$find$tests" ] || at=$lineno
	case $key in
	mutant) desc=$val ;;
	file) file=$val ;;
	find) find=$val ;;
	repl) repl=$val; have_repl=1 ;;
	test) tests+=$val$'\n' ;;
	make) more+=" $val" ;;
	*) bail "$list:$lineno: unknown keyword '$key'" ;;
	esac
done <"$list"
close_block
[ "$n" -gt 0 ] || bail "no mutant in $list${only:+ matches $only}"

# The make targets of mutant $1: its make line and the build/ words of
# its tests.
targets_of() {
	local t w out=${m_make[$1]}

	while IFS= read -r t; do
		for w in $t; do
			case $w in build/*) out+=" $w" ;; esac
		done
	done <<<"${m_tests[$1]%$'\n'}"
	printf '%s' "$out"
}

# How many times the anchor of mutant $1 occurs in the text $2.
anchor_count() {
	local rest=${2//"${m_find[$1]}"/}

	echo $(((${#2} - ${#rest}) / ${#m_find[$1]}))
}

# The text of file $1 in $text, trailing newlines included.
read_text() {
	text=$(cat "$1"; printf x)
	text=${text%x}
}

if [ "$anchors_only" -eq 1 ]; then
	echo "1..$n"
	bad=0
	for ((i = 0; i < n; i++)); do
		f=${m_file[i]}
		path=$f
		[[ $path = /* ]] || path=$top/$f
		count=0
		if [ -f "$path" ]; then
			read_text "$path"
			count=$(anchor_count "$i" "$text")
		fi
		if [ "$count" -eq 1 ]; then
			echo "ok $((i + 1)) - anchor once: $f: ${m_desc[i]}"
		else
			echo "not ok $((i + 1)) - $f: ${m_desc[i]}: anchor found $count times, not once (list line ${m_at[i]})"
			bad=$((bad + 1))
		fi
	done
	exit $((bad > 0))
fi

# ---- the scratch copy -------------------------------------------------------

scratch=$(mktemp -d "${TMPDIR:-/tmp}/imatrust-mutants.XXXXXX") ||
	bail "mktemp failed"
logs=$scratch.logs
mkdir -p "$logs" || bail "cannot make $logs"
if [ "${MUTANTS_KEEP:-0}" = 1 ]; then
	echo "# scratch copy kept in $scratch, logs in $logs"
else
	trap 'rm -rf "$scratch" "$logs"' EXIT
fi

start_all=$(date +%s)
# the sources, and the objects of the normal build (times kept, so only
# what a mutant changes is built again); not the fuzz, sanitizer or log
# trees, nor git's files
tar -C "$top" --exclude=./.git --exclude=./build/fuzz --exclude=./build/san \
	--exclude=./build/test-logs -cf - . | tar -C "$scratch" -xf - ||
	bail "cannot copy $top to $scratch"

all_targets=""
for ((i = 0; i < n; i++)); do
	all_targets+=" $(targets_of "$i")"
done
# shellcheck disable=SC2086 # a list of make targets
read -r -a uniq_targets <<<"$(printf '%s\n' $all_targets | sort -u | tr '\n' ' ')"

# Run the test lines of mutant $1 in the scratch copy; 0 when all pass.
run_tests() {
	local t

	while IFS= read -r t; do
		[ -n "$t" ] || continue
		(cd "$scratch" && timeout -k 5 "$limit" bash -c "$t$after") \
			>>"$logs/test.log" 2>&1 </dev/null || return 1
	done <<<"${m_tests[$1]}"
	return 0
}

# A second command after a test's command line: bash -c then forks for
# it and reports a crash (SIGABRT: CMOCKA_TEST_ABORT) into the test's log.
after=$'\nexit $?'

# ---- the unmutated copy: it must build, its tests must pass --------------

if ! make -C "$scratch" -s -j"$jobs" "${uniq_targets[@]}" \
	>"$logs/build.log" 2>&1; then
	sed 's/^/# /' "$logs/build.log" | tail -n 40
	bail "the unmutated tree does not build"
fi
declare -A seen_test=()
for ((i = 0; i < n; i++)); do
	while IFS= read -r t; do
		if [ -z "$t" ] || [ -n "${seen_test[$t]:-}" ]; then
			continue
		fi
		seen_test[$t]=1
		: >"$logs/test.log"
		if ! (cd "$scratch" && timeout -k 5 "$limit" bash -c "$t$after") \
			>"$logs/test.log" 2>&1 </dev/null; then
			sed 's/^/# /' "$logs/test.log" | tail -n 40
			bail "fails without any mutation: $t"
		fi
	done <<<"${m_tests[$i]}"
done
echo "# baseline: built and passed in $(($(date +%s) - start_all)) s"

# ---- the mutants ------------------------------------------------------------

echo "1..$n"
killed=0 survived=0 errors=0
for ((i = 0; i < n; i++)); do
	num=$((i + 1))
	f=${m_file[i]}
	path=$scratch/$f
	what="${m_find[i]} -> ${m_repl[i]}"
	what=${what//$'\n'/\\n}
	what=${what//$'\t'/}
	t0=$(date +%s)
	if [ ! -f "$path" ]; then
		echo "not ok $num - LIST ERROR: $f: ${m_desc[i]}: no such file (list line ${m_at[i]})"
		errors=$((errors + 1))
		continue
	fi
	read_text "$path"
	orig=$text
	count=$(anchor_count "$i" "$orig")
	if [ "$count" -ne 1 ]; then
		echo "not ok $num - LIST ERROR: $f: ${m_desc[i]}: anchor found $count times, not once (list line ${m_at[i]})"
		errors=$((errors + 1))
		continue
	fi
	before=${orig%%"${m_find[i]}"*}
	nl=${before//[!$'\n']/}
	line=$((${#nl} + 1))
	printf '%s' "${orig/"${m_find[i]}"/"${m_repl[i]}"}" >"$path"
	: >"$logs/test.log"
	read -r -a targets <<<"$(targets_of "$i")"
	if ! make -C "$scratch" -s -j"$jobs" "${targets[@]}" \
		>"$logs/build.log" 2>&1; then
		echo "not ok $num - LIST ERROR: $f:$line: ${m_desc[i]}: the mutant does not compile (list line ${m_at[i]})"
		grep -m 5 'error' "$logs/build.log" | sed 's/^/#   /'
		errors=$((errors + 1))
	elif run_tests "$i"; then
		echo "not ok $num - SURVIVED: $f:$line: $what ($(($(date +%s) - t0)) s)"
		echo "#   ${m_desc[i]}; killer expected: ${m_tests[i]%$'\n'}"
		survived=$((survived + 1))
	else
		echo "ok $num - killed: $f: ${m_desc[i]} ($(($(date +%s) - t0)) s)"
		killed=$((killed + 1))
	fi
	# restored with a new time, so the next build compiles it again
	printf '%s' "$orig" >"$path"
done
echo "# $n mutants: $killed killed, $survived survived, $errors list errors; $(($(date +%s) - start_all)) s in all"
[ "$survived" -eq 0 ] && [ "$errors" -eq 0 ]
