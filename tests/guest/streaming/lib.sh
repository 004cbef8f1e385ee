# shellcheck shell=bash
# Shared by tests/guest/streaming/run.sh and tests/bench/kernel-resume:
# build the patched and stock kernels and the test image, boot guests in
# a private lab namespace, wait for them. Source it; it defines functions,
# ROOT, LAB, STREAMING, and st_patched, st_stock, st_initrd once set.
#
# Environment: IMATRUST_KERNEL / IMATRUST_STOCK_KERNEL (use this bzImage
# instead of kernel/build.sh's), IMATRUST_CACHE, IMATRUST_ACCEL.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
LAB="$ROOT/deploy/lab/lab.sh"
STREAMING="$ROOT/tests/guest/streaming"
readonly ST_CFLAGS="-O2 -Wall -Wextra -Werror"
readonly ST_MEM=1024		# MiB per guest: 100,000 records ~ 60 MiB

# Set by st_kernels and st_image.
st_patched=
st_stock=
st_initrd=

st_log() { printf '[streaming] %s\n' "$*" >&2; }
st_die() { printf '[streaming] error: %s\n' "$*" >&2; exit 1; }

# st_kernels: set st_patched and st_stock to bzImage paths.
st_kernels() {
	st_log "kernel (patched)"
	st_patched=${IMATRUST_KERNEL:-$("$ROOT/kernel/build.sh" | tail -n 1)}
	[ -f "$st_patched" ] || st_die "no patched bzImage"
	st_log "kernel (stock)"
	st_stock=${IMATRUST_STOCK_KERNEL:-$("$ROOT/kernel/build.sh" --stock |
	    tail -n 1)}
	[ -f "$st_stock" ] || st_die "no stock bzImage"
}

# st_image DIR: build the helper and the image; set st_initrd.
st_image() {
	local dir=$1 img

	mkdir -p "$dir/overlay/test"
	# shellcheck disable=SC2086 # ST_CFLAGS is a list of words
	gcc -static $ST_CFLAGS -o "$dir/overlay/test/imastream" \
	    "$STREAMING/imastream.c"
	# shellcheck disable=SC2086
	gcc -static $ST_CFLAGS -o "$dir/overlay/test/imaexport" \
	    "$STREAMING/imaexport.c"
	install -m 0755 "$STREAMING/guest.sh" "$dir/overlay/test/streaming.sh"
	img=$("$ROOT/deploy/image/build-minimal.sh" --overlay "$dir/overlay" |
	    tail -n 1)
	st_initrd="$img/initramfs.cpio.gz"
	[ -f "$st_initrd" ] || st_die "no minimal image in '$img'"
}

# st_start N KERNEL RESULTS APPEND: boot guest N with the test script.
# CRB rather than TIS: each extend is one buffer, not a byte-wise FIFO,
# which makes 100,000 records take minutes instead of much longer.
st_start() {
	mkdir -p "$3"
	"$LAB" start "$1" --kernel "$2" --initrd "$st_initrd" --share "$3" \
	    --mem "$ST_MEM" --tpm crb \
	    --append "$4 imatrust.run=/test/streaming.sh"
}

# st_wait N SECONDS: wait for guest N, stop it on timeout.
st_wait() {
	"$LAB" wait "$1" "$2" && return 0
	st_log "guest$1: timeout after ${2}s"
	"$LAB" stop "$1"
	return 1
}

st_console() { echo "$IMATRUST_LAB_RUN/guest$1/console.log"; }

# st_bench_figure RESULTS SIZE [NAME]: median microseconds of the bench
# NAME (bench: resume at EOF, default; seekback: seek back to the middle)
# at SIZE.
st_bench_figure() {
	local what=${3:-bench} tag=BENCH

	[ "$what" = bench ] || tag=SEEKBENCH
	sed -n "s/^# $2 $what: $tag median_us=\([0-9.]*\).*/\1/p" "$1/tap" |
	    head -n 1
}
