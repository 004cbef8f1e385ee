#!/bin/bash
# Build the Debian 12 (bookworm) systemd guest image into the cache:
#
#   deploy/image/build-debian.sh [--mirror URL] [--size SIZE]
#
#   rootfs.ext4   ext4 root file system (virtio /dev/vda), minbase +
#                 systemd + the run-time libraries imatrust-agent links
#
# Boot it with our bzImage, e.g.
#   deploy/lab/lab.sh start 1 --kernel BZIMAGE --disk-rw IMG/rootfs.ext4 \
#       --mem 512 --append "root=/dev/vda rw"
# The root account has no password on the serial console (lab only).
#
# Output goes to ${IMATRUST_CACHE:-/var/cache/imatrust}/images/debian-<key>/
# (<key> hashes this script and the options); an existing image is reused.
# The last stdout line is that directory. Needs mmdebstrap and access to a
# Debian mirror.
set -euo pipefail

readonly BUILD_VERSION=1
readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly SUITE=bookworm
# Run-time dependencies of imatrust-agent plus what a lab guest needs.
readonly PACKAGES="systemd-sysv,udev,iproute2,iputils-ping,ca-certificates,\
libtss2-esys-3.0.2-0,libtss2-mu0,libtss2-tctildr0,libtss2-tcti-device0,\
libcurl4,libjansson4,libssl3"

mirror=http://deb.debian.org/debian
size=1G
tmp=

log() { printf '[image] %s\n' "$*" >&2; }
die() { printf '[image] error: %s\n' "$*" >&2; exit 1; }

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--mirror) mirror=${2:?--mirror needs a URL}; shift ;;
		--size) size=${2:?--size needs a size}; shift ;;
		*) die "usage: $0 [--mirror URL] [--size SIZE]" ;;
		esac
		shift
	done
}

compute_key() {
	{
		echo "version $BUILD_VERSION $SUITE $mirror $size $PACKAGES"
		sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1
	} | sha256sum | cut -c1-16
}

# Settings a lab guest needs: fstab, hostname, serial root login.
customize() {
	local root=$1

	echo "/dev/vda / ext4 defaults 0 1" >"$root/etc/fstab"
	echo "imatrust-guest" >"$root/etc/hostname"
	printf '127.0.0.1 localhost\n127.0.1.1 imatrust-guest\n' \
	    >"$root/etc/hosts"
	# Lab only: password-less root on the serial console.
	chroot "$root" passwd -d root >/dev/null
	mkdir -p "$root/etc/systemd/system/serial-getty@ttyS0.service.d"
	cat >"$root/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<-EOC
	[Service]
	ExecStart=
	ExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 %I \$TERM
	EOC
	# The kernel configures eth0 from ip= on the command line.
	rm -f "$root/etc/machine-id"
	: >"$root/etc/machine-id"
}

main() {
	local key dir

	parse_args "$@"
	command -v mmdebstrap >/dev/null || die "mmdebstrap not installed"
	[ "$(id -u)" = 0 ] || die "needs root (chroot, file ownership)"
	key=$(compute_key)
	dir="$CACHE/images/debian-$key"
	mkdir -p "$dir"
	exec 9>"$dir/lock"
	flock 9
	if [ -f "$dir/done" ]; then
		log "cache hit debian-$key"
		echo "$dir"
		return
	fi
	tmp=$(mktemp -d "$dir/tmp.XXXXXX")
	trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
	log "mmdebstrap $SUITE minbase from $mirror"
	mmdebstrap --quiet --variant=minbase --include="$PACKAGES" \
	    "$SUITE" "$tmp/root" "$mirror" >&2
	customize "$tmp/root"
	log "making ext4 image ($size)"
	truncate -s "$size" "$tmp/rootfs.ext4"
	mkfs.ext4 -q -F -L imatrust-root -d "$tmp/root" "$tmp/rootfs.ext4" >&2
	mv "$tmp/rootfs.ext4" "$dir/rootfs.ext4"
	rm -rf "$tmp"
	tmp=
	touch "$dir/done"
	log "debian image: $dir/rootfs.ext4"
	echo "$dir"
}

main "$@"
