#!/bin/bash
# Build the minimal imatrust guest image into the cache:
#
#   deploy/image/build-minimal.sh [--overlay DIR] [--data DIR]
#
#   initramfs.cpio.gz  busybox (static) + deploy/image/minimal/init, plus
#                      the files of --overlay DIR (e.g. test programs)
#   data.ext4          64 MiB ext4 disk (virtio /dev/vda, mounted on /data)
#                      holding the files of --data DIR
#
# Output goes to ${IMATRUST_CACHE:-/var/cache/imatrust}/images/minimal-<key>/,
# <key> hashing every input; an unchanged key is not rebuilt. The last
# stdout line is that directory.
set -euo pipefail

readonly BUILD_VERSION=1
IMGDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly IMGDIR
readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly BUSYBOX="${IMATRUST_BUSYBOX:-/bin/busybox}"
readonly DATA_MB=64
# Images kept; older ones are removed after a build.
readonly KEEP=10

overlay=
data=

log() { printf '[image] %s\n' "$*" >&2; }
die() { printf '[image] error: %s\n' "$*" >&2; exit 1; }

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--overlay) overlay=$(realpath "${2:?--overlay needs a dir}"); shift ;;
		--data) data=$(realpath "${2:?--data needs a dir}"); shift ;;
		*) die "usage: $0 [--overlay DIR] [--data DIR]" ;;
		esac
		shift
	done
	[ -z "$overlay" ] || [ -d "$overlay" ] || die "no directory $overlay"
	[ -z "$data" ] || [ -d "$data" ] || die "no directory $data"
}

# Names, modes and contents of every file under a directory.
tree_digest() {
	[ -n "$1" ] || { echo none; return; }
	(cd "$1" && find . -printf '%p %m %U %G %y\n' | LC_ALL=C sort &&
	    find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum) |
	    sha256sum | cut -d' ' -f1
}

compute_key() {
	{
		echo "version $BUILD_VERSION"
		sha256sum "$BUSYBOX" "$IMGDIR/minimal/init" | cut -d' ' -f1
		tree_digest "$overlay"
		tree_digest "$data"
	} | sha256sum | cut -c1-16
}

build_initramfs() {
	local out=$1 root=$2 applet

	mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,data,results}
	cp "$BUSYBOX" "$root/bin/busybox"
	for applet in $("$BUSYBOX" --list); do
		[ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
	done
	cp "$IMGDIR/minimal/init" "$root/init"
	printf 'root:x:0:0:root:/:/bin/sh\nuser:x:1000:1000:user:/:/bin/sh\n' \
	    >"$root/etc/passwd"
	printf 'root:x:0:\nuser:x:1000:\n' >"$root/etc/group"
	[ -z "$overlay" ] || cp -a "$overlay/." "$root/"
	(cd "$root" && find . | LC_ALL=C sort |
	    cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$out"
}

build_data() {
	local out=$1 src=$2

	mkdir -p "$src"
	[ -z "$data" ] || cp -a "$data/." "$src/"
	rm -f "$out"
	truncate -s "${DATA_MB}M" "$out"
	mkfs.ext4 -q -F -L imatrust-data -d "$src" "$out" >&2
}

prune_images() {
	local d

	find "$CACHE/images" -mindepth 2 -maxdepth 2 -path '*/minimal-*/done' \
	    -printf '%T@ %h\n' | sort -rn | tail -n +$((KEEP + 1)) |
	while read -r _ d; do
		rm -rf "$d"
	done
}

main() {
	local key dir tmp

	parse_args "$@"
	[ -x "$BUSYBOX" ] || die "$BUSYBOX missing (apt-get install busybox-static)"
	# A dynamic binary has a program interpreter; the initramfs has no libc.
	! readelf -l "$BUSYBOX" | grep INTERP >/dev/null ||
		die "$BUSYBOX is not statically linked"
	key=$(compute_key)
	dir="$CACHE/images/minimal-$key"
	mkdir -p "$dir"
	exec 9>"$dir/lock"
	flock 9
	if [ -f "$dir/done" ]; then
		log "cache hit minimal-$key"
		echo "$dir"
		return
	fi
	log "building minimal image $key"
	tmp=$(mktemp -d "$dir/tmp.XXXXXX")
	build_initramfs "$tmp/initramfs.cpio.gz" "$tmp/root"
	build_data "$tmp/data.ext4" "$tmp/data"
	mv "$tmp/initramfs.cpio.gz" "$tmp/data.ext4" "$dir/"
	rm -rf "$tmp"
	touch "$dir/done"
	prune_images
	log "initramfs $(du -h "$dir/initramfs.cpio.gz" | cut -f1)," \
	    "data disk ${DATA_MB}M"
	echo "$dir"
}

main "$@"
