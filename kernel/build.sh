#!/bin/bash
# Build the imatrust guest kernel (bzImage) from Debian's linux-source-6.1.
#
#   kernel/build.sh [--stock] [--config-only] [--force]
#   kernel/build.sh --checkpatch | --checkpatch-tool
#
# Results are cached outside the repository,
#   ${IMATRUST_CACHE:-/var/cache/imatrust}/kernel/<variant>-<key>/bzImage
# where <key> hashes the tarball, the patch series (unless --stock), the
# config fragment and this script's version: an unchanged key is not
# rebuilt. One work tree per variant (kernel/tree-<variant>/src) is reused
# across keys: the previous series is reverted and the new one applied, so
# make only rebuilds what the changed patches touch. Progress goes to stderr, one line per stage; the last line on
# stdout is the path of the bzImage. --checkpatch builds nothing: it runs
# the tarball's scripts/checkpatch.pl on every patch of the series and
# fails if one has an error or warning; --checkpatch-tool only prints the
# path of that checkpatch.pl (kernel/lint.sh runs it patch by patch).
set -euo pipefail

# Bump when the way the tree is configured or built changes.
readonly BUILD_VERSION=2

KDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly KDIR
readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly TARBALL="${IMATRUST_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}"
readonly SERIES="$KDIR/patches/series"
readonly FRAGMENT="$KDIR/config/guest.config"
readonly JOBS="${IMATRUST_JOBS:-$(nproc)}"
# Result entries kept per variant; older ones are removed after a build.
readonly KEEP=8

stock=0
config_only=0
force=0
checkpatch=0
checkpatch_tool=0
# Long-running child (tar, make) to stop when this script is interrupted.
child=

on_exit() {
	[ -z "$child" ] || kill "$child" 2>/dev/null || true
}

# Run "$@" in the background and wait, so a signal stops it with us.
run_child() {
	local rc=0

	"$@" &
	child=$!
	wait "$child" || rc=$?
	child=
	return "$rc"
}

log() { printf '[kernel] %s\n' "$*" >&2; }
die() { printf '[kernel] error: %s\n' "$*" >&2; exit 1; }

usage() {
	echo "usage: $0 [--stock] [--config-only] [--force] |" \
	    "--checkpatch | --checkpatch-tool" >&2
	exit 2
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--stock) stock=1 ;;
		--config-only) config_only=1 ;;
		--force) force=1 ;;
		--checkpatch) checkpatch=1 ;;
		--checkpatch-tool) checkpatch_tool=1 ;;
		-h|--help) usage ;;
		*) echo "unknown argument: $1" >&2; usage ;;
		esac
		shift
	done
}

# Patch file names listed in the series, comments and blank lines skipped.
series_patches() {
	[ -f "$SERIES" ] || die "missing $SERIES"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$SERIES" | grep -v '^$' || true
}

tarball_id() {
	stat -c 'tarball %n %s %Y' "$TARBALL"
}

# checkpatch.pl and the data files it reads, from the tarball, cached.
checkpatch_tools() {
	local dir

	dir="$CACHE/kernel/checkpatch-$(tarball_id | sha256sum | cut -c1-16)"
	if [ ! -f "$dir/checkpatch.pl" ]; then
		log "extracting scripts/checkpatch.pl from $(basename "$TARBALL")"
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		run_child tar -xJf "$TARBALL" -C "$dir.tmp" --strip-components=2 \
		    --wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		    '*/scripts/const_structs.checkpatch'
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir/checkpatch.pl"
}

# Every patch of the series through checkpatch.pl (no tree, as for a
# patch mailed upstream), --strict as the issue asks; extra flags from
# IMATRUST_CHECKPATCH_FLAGS.
run_checkpatch() {
	local tool p n=0 bad=0

	tool=$(checkpatch_tools)
	for p in $(series_patches); do
		[ -f "$KDIR/patches/$p" ] || die "series lists missing patch $p"
		n=$((n + 1))
		# shellcheck disable=SC2086 # flags are a list of words
		if perl "$tool" --no-tree --no-color --strict \
		    ${IMATRUST_CHECKPATCH_FLAGS:-} "$KDIR/patches/$p" >&2; then
			log "checkpatch: $p clean"
		else
			log "checkpatch: $p has errors or warnings"
			bad=$((bad + 1))
		fi
	done
	[ "$n" -gt 0 ] || log "checkpatch: the series is empty"
	[ "$bad" = 0 ] || die "checkpatch: $bad of $n patch(es) not clean"
	log "checkpatch: $n patch(es) clean"
}

# Everything the built image depends on, hashed into the cache key.
compute_key() {
	local p
	{
		echo "build-version $BUILD_VERSION"
		echo "variant $([ "$stock" = 1 ] && echo stock || echo patched)"
		tarball_id
		sha256sum "$FRAGMENT" | cut -d' ' -f1
		if [ "$stock" = 0 ]; then
			sha256sum "$SERIES" | cut -d' ' -f1
			for p in $(series_patches); do
				[ -f "$KDIR/patches/$p" ] ||
					die "series lists missing patch $p"
				echo "$p $(sha256sum "$KDIR/patches/$p" | cut -d' ' -f1)"
			done
		fi
	} | sha256sum | cut -c1-16
}

# Identity of the pristine tree: a different one means a fresh extract.
base_id() {
	echo "build-version $BUILD_VERSION"
	tarball_id
}

extract_tree() {
	local tdir=$1

	rm -rf "$tdir/src" "$tdir/src.tmp" "$tdir/applied"
	mkdir -p "$tdir/src.tmp" "$tdir/applied"
	log "stage 1/5: extracting $(basename "$TARBALL")"
	run_child tar -xJf "$TARBALL" -C "$tdir/src.tmp" --strip-components=1
	mv "$tdir/src.tmp" "$tdir/src"
	: >"$tdir/applied/series"
	base_id >"$tdir/base"
}

# Revert the patches recorded in applied/ (copies, so edits to the
# repository's patch files do not matter), newest first.
revert_applied() {
	local tdir=$1 p

	for p in $(tac "$tdir/applied/series"); do
		patch -p1 -R -E --fuzz=0 --no-backup-if-mismatch --quiet \
		    -d "$tdir/src" <"$tdir/applied/$p" || return 1
		sed -i '$d' "$tdir/applied/series"
		rm -f "$tdir/applied/$p"
	done
}

# Apply the series on a pristine tree, recording each patch in applied/.
# A patch that does not apply is reported and the tree left pristine.
apply_series() {
	local tdir=$1 p n=0

	if [ "$stock" = 1 ]; then
		log "stage 2/5: stock build, series not applied"
		return
	fi
	for p in $(series_patches); do
		log "stage 2/5: applying $p"
		if ! patch -p1 -N -E --fuzz=0 --dry-run --quiet -d "$tdir/src" \
		    <"$KDIR/patches/$p" >&2; then
			# Leave a pristine tree, or force a fresh extract.
			if revert_applied "$tdir"; then
				rm -f "$tdir/dirty"
			else
				rm -f "$tdir/base"
			fi
			die "patch $p does not apply"
		fi
		cp "$KDIR/patches/$p" "$tdir/applied/$p"
		echo "$p" >>"$tdir/applied/series"
		patch -p1 -N -E --fuzz=0 --no-backup-if-mismatch --quiet \
		    -d "$tdir/src" <"$tdir/applied/$p" >&2
		n=$((n + 1))
	done
	log "stage 2/5: $n patch(es) applied"
}

# Bring the variant's work tree to: pristine tarball + current series.
prepare_tree() {
	local tdir=$1

	if [ "$force" = 0 ] && [ -f "$tdir/base" ] &&
	    [ "$(cat "$tdir/base")" = "$(base_id)" ] &&
	    [ ! -e "$tdir/dirty" ]; then
		log "stage 1/5: reusing work tree, reverting" \
		    "$(wc -l <"$tdir/applied/series") previous patch(es)"
		touch "$tdir/dirty"
		if ! revert_applied "$tdir"; then
			log "stage 1/5: previous series does not revert cleanly"
			extract_tree "$tdir"
		fi
	else
		touch "$tdir/dirty"
		extract_tree "$tdir"
	fi
	apply_series "$tdir"
	rm -f "$tdir/dirty"
}

# Whether the Kconfig files of TREE define option OPT (CONFIG_ prefix
# included).
kconfig_defines() {
	grep -rqx --include='Kconfig*' -- "config ${2#CONFIG_}" "$1"
}

# Check every CONFIG_ line of the fragment in the final .config of TREE.
# The stock tree skips options that only the series defines (such as
# CONFIG_IMA_STAGING): Kconfig drops them there, as intended.
verify_config() {
	local tree=$1 config=$1/.config line opt bad=0

	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF -- "$line" "$config" && continue
			if [ "$stock" = 1 ] &&
			    ! kconfig_defines "$tree" "${line%%=*}"; then
				log "config: ${line%%=*} not in the stock tree, skipped"
				continue
			fi
			log "config: wanted '$line', got '$(grep -E \
			    "^(# )?${line%%=*}[= ]" "$config" || echo unset)'"
			bad=1
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -q "^$opt=" "$config" || continue
			log "config: wanted '$opt' off, got '$(grep "^$opt=" \
			    "$config")'"
			bad=1
			;;
		esac
	done <"$FRAGMENT"
	[ "$bad" = 0 ] || die "config fragment not honoured, see above"
}

configure_tree() {
	local tree=$1

	log "stage 3/5: configuring (x86_64_defconfig + kvm_guest.config + guest.config)"
	make -C "$tree" -s x86_64_defconfig >/dev/null
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config \
	    kernel/configs/kvm_guest.config "$FRAGMENT" >/dev/null)
	make -C "$tree" -s olddefconfig >/dev/null
	verify_config "$tree"
}

# Print a progress line per minute while make runs in the background.
build_tree() {
	local tree=$1 blog=$2 pid start next rc=0

	log "stage 4/5: compiling with $JOBS job(s), log in $blog"
	start=$(date +%s)
	export CCACHE_DIR="$CACHE/kernel/ccache"
	export CCACHE_BASEDIR="$tree"
	export KBUILD_BUILD_TIMESTAMP="@0" KBUILD_BUILD_USER=imatrust
	export KBUILD_BUILD_HOST=imatrust KBUILD_BUILD_VERSION=1
	mkdir -p "$CCACHE_DIR"
	make -C "$tree" -j"$JOBS" CC="ccache gcc" bzImage >"$blog" 2>&1 &
	pid=$!
	child=$pid
	next=$((start + 60))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		[ "$(date +%s)" -ge "$next" ] || continue
		next=$((next + 60))
		log "stage 4/5: $(($(date +%s) - start))s," \
		    "$(grep -c '^  CC ' "$blog" || true) files compiled"
	done
	wait "$pid" || rc=$?
	child=
	if [ "$rc" != 0 ]; then
		tail -n 30 "$blog" >&2
		die "kernel build failed (exit $rc), full log: $blog"
	fi
	log "stage 4/5: compiled in $(($(date +%s) - start))s"
}

# Keep the newest $KEEP finished entries of this variant.
prune_cache() {
	local variant=$1 d

	find "$CACHE/kernel" -mindepth 2 -maxdepth 2 -name "variant-$variant" \
	    -printf '%T@ %h\n' | sort -rn | tail -n +$((KEEP + 1)) |
	while read -r _ d; do
		log "pruning old cache entry $d"
		rm -rf "$d"
	done
}

main() {
	local key work tdir tree variant

	parse_args "$@"
	trap on_exit EXIT
	trap 'exit 130' INT TERM
	[ -f "$TARBALL" ] || die "$TARBALL not found (apt-get install linux-source-6.1)"
	if [ "$checkpatch_tool" = 1 ]; then
		checkpatch_tools
		return
	fi
	if [ "$checkpatch" = 1 ]; then
		run_checkpatch
		return
	fi
	command -v ccache >/dev/null || die "ccache not installed"
	variant=$([ "$stock" = 1 ] && echo stock || echo patched)
	key=$(compute_key)
	work="$CACHE/kernel/$variant-$key"
	tdir="$CACHE/kernel/tree-$variant"
	tree="$tdir/src"
	mkdir -p "$work" "$tdir"
	# One build per variant at a time: they share the work tree.
	exec 9>"$tdir/lock"
	flock 9

	if [ "$force" = 0 ] && [ "$config_only" = 0 ] && [ -f "$work/bzImage" ]; then
		log "cache hit $variant-$key"
		echo "$work/bzImage"
		return
	fi
	log "building $variant kernel, cache key $key"
	rm -f "$work/bzImage"
	prepare_tree "$tdir"
	configure_tree "$tree"
	if [ "$config_only" = 1 ]; then
		log "config only: $tree/.config"
		echo "$tree/.config"
		return
	fi
	build_tree "$tree" "$work/build.log"
	log "stage 5/5: installing bzImage"
	cp "$tree/arch/x86/boot/bzImage" "$work/bzImage.tmp"
	cp "$tree/.config" "$work/config"
	mv "$work/bzImage.tmp" "$work/bzImage"
	touch "$work/variant-$variant"
	prune_cache "$variant"
	echo "$work/bzImage"
}

main "$@"
