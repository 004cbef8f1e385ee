#!/bin/bash
# Build the Debian 12 (bookworm) systemd guest image -- the fleet's golden
# image -- into the cache, in two layers:
#
#   deploy/image/build-debian.sh [--mirror URL] [--size SIZE]
#       [--agent FILE] [--unit FILE] [--ca FILE] [--allow-stub]
#       [--signed [--sign-key KEY --sign-cert CERT]]
#
#   base   mmdebstrap minbase + systemd + the run-time libraries of
#          imatrust-agent, as a tarball:
#          $CACHE/images/debian-base-<basekey>/base.tar
#          (<basekey>: suite, mirror, package list, BASE_VERSION)
#   image  the base plus the imatrust layer, as an ext4 file system and
#          the same tree unpacked (the reference digests come from it):
#          $CACHE/images/debian-<key>/rootfs.ext4, root/, manifest
#          (<key>: basekey, size, this script, deploy/image/debian/*, the
#          agent binary, its unit, the fleet CA)
#   signed (--signed) the image with every regular file signed by
#          `evmctl ima_sign` (security.ima, signature v2, sha256), as
#          $CACHE/images/debian-signed-<skey>/rootfs.ext4, root/ (xattrs
#          kept), ima.pem (the certificate), manifest
#          (<skey>: the image key, SIGN_VERSION, the key and certificate;
#          default the lab IMA key of deploy/pki.sh, ima.key and ima.pem)
#
# The imatrust layer installs the agent as a deployment would:
#   /usr/sbin/imatrust-agent        --agent (default build/bin/imatrust-agent)
#   /lib/systemd/system/imatrust-agent.service
#                                   --unit (default
#                                   deploy/systemd/imatrust-agent.service),
#                                   enabled (its [Install] WantedBy=)
#   /etc/imatrust/ca.pem            --ca (default: the fleet CA of
#                                   deploy/pki.sh, created if missing)
#   /etc/imatrust/agent.conf        symlink to /srv/site/agent.conf: the
#                                   per-machine config on the guest's site
#                                   disk (deploy/lab/lab.sh makes it)
# and the lab plumbing:
#   /etc/ima/ima-policy             the tcb rules + "dont_measure" the agent
#                                   state file system (see debian/ima-policy.in)
#   /etc/fstab                      / read-only (/dev/vda); /dev/vdb on
#                                   /var/lib/imatrust-agent (agent state, fs UUID
#                                   $STATE_UUID, not measured); /dev/vdc on
#                                   /srv/site (per-machine config and lab
#                                   scratch, measured); tmpfs /tmp /var/tmp
#                                   /var/log
#   /usr/local/sbin/imatrust-lab-control + unit: LAB ONLY command channel
#                                   on virtio-serial org.imatrust.lab.0
#
# The root file system is mounted read-only so that every file the guest
# measures from it is byte for byte a file of root/: the fleet's
# references are `imatrust ref import-dir --prefix / root/`.
#
# An agent binary that is missing, or that does not link libtss2-esys (the
# placeholder of build/bin before the daemon exists), is an error unless
# --allow-stub; every shared library the agent needs must be in the image.
# The last stdout line is the image directory. Needs root, mmdebstrap and a
# Debian mirror (cold: the base layer), e2fsprogs.
set -euo pipefail

readonly BASE_VERSION=1
readonly LAYER_VERSION=1
readonly SIGN_VERSION=1
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly ROOT
readonly FILES="$ROOT/deploy/image/debian"
readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly SUITE=bookworm
# The agent's state file system: the IMA policy excludes it by this UUID.
readonly STATE_UUID=7a1e5b7a-7e00-4d1b-9a6e-000000000001
# Images (layer results) kept; older ones are removed after a build.
readonly KEEP=3
# Run-time dependencies of imatrust-agent plus what a lab guest needs.
readonly PACKAGES="systemd-sysv,udev,iproute2,iputils-ping,ca-certificates,\
procps,libtss2-esys-3.0.2-0,libtss2-mu0,libtss2-rc0,libtss2-tctildr0,\
libtss2-tcti-device0,libcurl4,libjansson4,libssl3"

mirror=http://deb.debian.org/debian
size=1G
agent="$ROOT/build/bin/imatrust-agent"
unit="$ROOT/deploy/systemd/imatrust-agent.service"
ca=
allow_stub=0
signed=0
sign_key=
sign_cert=
tmp=

log() { printf '[image] %s\n' "$*" >&2; }
die() { printf '[image] error: %s\n' "$*" >&2; exit 1; }

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--mirror) mirror=${2:?--mirror needs a URL}; shift ;;
		--size) size=${2:?--size needs a size}; shift ;;
		--agent) agent=${2:?--agent needs a file}; shift ;;
		--unit) unit=${2:?--unit needs a file}; shift ;;
		--ca) ca=${2:?--ca needs a file}; shift ;;
		--allow-stub) allow_stub=1 ;;
		--signed) signed=1 ;;
		--sign-key) sign_key=${2:?--sign-key needs a file}; shift ;;
		--sign-cert) sign_cert=${2:?--sign-cert needs a file}; shift ;;
		*) die "usage: $0 [--mirror URL] [--size SIZE] [--agent FILE] [--unit FILE] [--ca FILE] [--allow-stub] [--signed [--sign-key KEY --sign-cert CERT]]" ;;
		esac
		shift
	done
}

sha() { sha256sum "$@" | cut -d' ' -f1; }

base_key() {
	echo "base $BASE_VERSION $SUITE $mirror $PACKAGES" | sha | cut -c1-16
}

# The agent and its unit, checked; a placeholder unit with --allow-stub.
check_agent() {
	[ -f "$agent" ] || {
		[ "$allow_stub" = 1 ] || die "no agent binary $agent (make all)"
		log "WARNING: no agent binary, image without imatrust-agent"
		agent=
	}
	if [ -n "$agent" ] && ! readelf -d "$agent" 2>/dev/null |
	    grep -q 'NEEDED.*libtss2-esys'; then
		[ "$allow_stub" = 1 ] ||
			die "$agent does not link libtss2-esys: the placeholder, not the agent daemon (--allow-stub to build anyway)"
		log "WARNING: $agent is the placeholder agent"
	fi
	if [ ! -f "$unit" ]; then
		[ "$allow_stub" = 1 ] || die "no unit file $unit"
		log "WARNING: no $unit, using a placeholder unit"
		unit=$tmp/imatrust-agent.service
		cat >"$unit" <<-EOF
		[Unit]
		Description=imatrust agent (placeholder unit of build-debian.sh)
		After=network-online.target
		[Service]
		ExecStart=/usr/sbin/imatrust-agent -c /etc/imatrust/agent.conf
		Restart=on-failure
		RestartSec=5
		[Install]
		WantedBy=multi-user.target
		EOF
	fi
}

image_key() {
	{
		echo "layer $LAYER_VERSION $(base_key) $size $STATE_UUID"
		sha "${BASH_SOURCE[0]}"
		(cd "$FILES" && find . -type f | LC_ALL=C sort | xargs sha256sum)
		if [ -n "$agent" ]; then sha "$agent"; else echo no-agent; fi
		if [ -f "$unit" ]; then sha "$unit"; else echo placeholder-unit; fi
		sha "$ca"
	} | sha | cut -c1-16
}

build_base() {
	local key dir t0

	key=$(base_key)
	dir="$CACHE/images/debian-base-$key"
	mkdir -p "$dir"
	exec 8>"$dir/lock"
	flock 8
	if [ ! -f "$dir/base.tar" ]; then
		command -v mmdebstrap >/dev/null || die "mmdebstrap not installed"
		t0=$(date +%s)
		log "base layer: mmdebstrap $SUITE minbase from $mirror (a few minutes)"
		rm -f "$dir/base.tar.tmp"
		mmdebstrap --quiet --variant=minbase --include="$PACKAGES" \
		    --format=tar "$SUITE" "$dir/base.tar.tmp" "$mirror" >&2
		mv "$dir/base.tar.tmp" "$dir/base.tar"
		log "base layer done in $(($(date +%s) - t0))s"
	else
		log "base layer: cache hit debian-base-$key"
	fi
	flock -u 8
	echo "$dir/base.tar"
}

# Settings every lab guest needs: fstab, hostname, serial root login.
customize() {
	local root=$1 u

	cat >"$root/etc/fstab" <<-EOF
	# / read-only: every measured file of it is a file of the golden image
	/dev/vda / ext4 ro 0 0
	# agent state (not measured: IMA policy dont_measure fsuuid=$STATE_UUID)
	/dev/vdb /var/lib/imatrust-agent ext4 rw,nofail,x-systemd.device-timeout=5min 0 0
	# per-machine config and lab scratch space (measured)
	/dev/vdc /srv/site ext4 rw,nofail,x-systemd.device-timeout=5min 0 0
	tmpfs /tmp tmpfs mode=1777,nosuid,nodev 0 0
	tmpfs /var/tmp tmpfs mode=1777,nosuid,nodev 0 0
	tmpfs /var/log tmpfs mode=0755,nosuid,nodev 0 0
	EOF
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
	# Nothing a lab guest needs, and each costs seconds of a TCG boot.
	for u in getty-static.service getty@tty1.service e2scrub_reap.service \
	    e2scrub_all.timer fstrim.timer apt-daily.timer \
	    apt-daily-upgrade.timer; do
		ln -sf /dev/null "$root/etc/systemd/system/$u"
	done
	# Empty: systemd makes a transient one on the read-only root.
	rm -f "$root/etc/machine-id" "$root/var/lib/dbus/machine-id"
	: >"$root/etc/machine-id"
}

# Link unit $2 into the .wants of each WantedBy= target of its file $1.
enable_unit() {
	local root=$1 name=$2 t

	# shellcheck disable=SC2013 # WantedBy= is a list of words
	for t in $(sed -n 's/^WantedBy=//p' "$root/lib/systemd/system/$name"); do
		mkdir -p "$root/etc/systemd/system/$t.wants"
		ln -sf "/lib/systemd/system/$name" \
		    "$root/etc/systemd/system/$t.wants/$name"
	done
}

# Every NEEDED library of the agent resolves inside the image.
check_libs() {
	local root=$1 lib d found missing=()

	for lib in $(readelf -d "$root/usr/sbin/imatrust-agent" |
	    sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p'); do
		found=0
		for d in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu lib usr/lib; do
			[ -e "$root/$d/$lib" ] && { found=1; break; }
		done
		[ "$found" = 1 ] || missing+=("$lib")
	done
	[ ${#missing[@]} = 0 ] ||
		die "agent libraries missing in the image: ${missing[*]} (add their packages to PACKAGES)"
}

imatrust_layer() {
	local root=$1

	mkdir -p "$root/etc/imatrust" "$root/var/lib/imatrust-agent" "$root/srv/site" \
	    "$root/etc/ima" "$root/usr/local/sbin"
	chmod 0700 "$root/var/lib/imatrust-agent"
	if [ -n "$agent" ]; then
		install -m 0755 "$agent" "$root/usr/sbin/imatrust-agent"
		check_libs "$root"
	fi
	install -m 0644 "$unit" "$root/lib/systemd/system/imatrust-agent.service"
	enable_unit "$root" imatrust-agent.service
	install -m 0644 "$ca" "$root/etc/imatrust/ca.pem"
	ln -sf /srv/site/agent.conf "$root/etc/imatrust/agent.conf"
	sed "s/@STATE_UUID@/$STATE_UUID/" "$FILES/ima-policy.in" \
	    >"$root/etc/ima/ima-policy"
	chmod 0644 "$root/etc/ima/ima-policy"
	# Lab only: the control channel.
	install -m 0755 "$FILES/imatrust-lab-control" \
	    "$root/usr/local/sbin/imatrust-lab-control"
	install -m 0644 "$FILES/imatrust-lab-control.service" \
	    "$root/lib/systemd/system/imatrust-lab-control.service"
	enable_unit "$root" imatrust-lab-control.service
}

write_manifest() {
	local dir=$1

	{
		echo "key $2"
		echo "base $3"
		echo "state_uuid $STATE_UUID"
		if [ -n "$agent" ]; then
			echo "agent $(sha "$agent") $agent"
		else
			echo "agent none"
		fi
		echo "unit $(sha "$unit") $unit"
		echo "ca $(sha "$ca") $ca"
		echo "built $(date -u +%FT%TZ)"
	} >"$dir/manifest"
}

sign_key_of() {
	{
		echo "signed $SIGN_VERSION $1"
		sha "$sign_key"
		sha "$sign_cert"
	} | sha | cut -c1-16
}

# The signed layer: a copy of image $1's root/ with security.ima on every
# regular file, and its ext4 (mkfs.ext4 -d copies the xattrs). Prints
# the directory.
build_signed() {
	local img=$1 key dir t0 keyid n

	[ -f "$sign_key" ] && [ -f "$sign_cert" ] ||
		die "no IMA signing key/certificate ($sign_key, $sign_cert)"
	command -v evmctl >/dev/null || die "evmctl not installed (ima-evm-utils)"
	key=$(sign_key_of "$(sed -n 's/^key //p' "$img/manifest")")
	dir="$CACHE/images/debian-signed-$key"
	mkdir -p "$dir"
	exec 7>"$dir/lock"
	flock 7
	if [ -f "$dir/done" ]; then
		log "cache hit debian-signed-$key"
		echo "$dir"
		return
	fi
	t0=$(date +%s)
	# The key id of signature v2: last 4 bytes of the SHA-1 of the public
	# key, which is the certificate's subject key identifier (pki.sh).
	keyid=$(openssl x509 -in "$sign_cert" -noout -ext subjectKeyIdentifier |
	    tail -n 1 | tr -d ' :' | tr 'A-F' 'a-f' | tail -c 9)
	log "signed layer debian-signed-$key: evmctl ima_sign, key id $keyid"
	rm -rf "$tmp/signed"
	mkdir "$tmp/signed"
	cp -a "$img/root" "$tmp/signed/root"
	# -r: every regular file below (symlinks and special files skipped);
	# it prints a line per file, and the check below is what counts
	evmctl ima_sign -r --hashalgo sha256 --key "$sign_key" \
	    "$tmp/signed/root" >/dev/null 2>&1
	n=$(find "$tmp/signed/root" -type f | wc -l)
	# every file got its signature, with our key id (header 03 02 04 id)
	[ "$(getfattr -R -h -d -m '^security\.ima$' -e hex \
	    "$tmp/signed/root" 2>/dev/null |
	    grep -c "^security.ima=0x030204$keyid")" = "$n" ] ||
		die "not every file of the signed tree carries a signature by $keyid"
	truncate -s "$size" "$tmp/signed/rootfs.ext4"
	mkfs.ext4 -q -F -L imatrust-root -d "$tmp/signed/root" \
	    "$tmp/signed/rootfs.ext4" >&2
	install -m 0644 "$sign_cert" "$tmp/signed/ima.pem"
	{
		echo "key $key"
		echo "image $img"
		echo "keyid $keyid"
		echo "cert $(sha "$sign_cert") $sign_cert"
		echo "signed_files $n"
		echo "built $(date -u +%FT%TZ)"
	} >"$tmp/signed/manifest"
	rm -rf "$dir/root"
	mv "$tmp/signed/root" "$dir/root"
	mv "$tmp/signed/rootfs.ext4" "$tmp/signed/ima.pem" \
	    "$tmp/signed/manifest" "$dir/"
	touch "$dir/done"
	log "signed layer done in $(($(date +%s) - t0))s: $n files signed"
	flock -u 7
	echo "$dir"
}

# Keeps the KEEP newest finished layers of each kind. A glob that matches
# nothing is no error: a cache with no signed layer yet is the normal case
# (under set -e and pipefail a failing ls here once ended the build after
# the layer was made, before its path was printed).
prune() {
	local d

	# shellcheck disable=SC2012 # names are ours: debian-<hex>
	for d in $(ls -1dt "$CACHE"/images/debian-signed-[0-9a-f]*/ 2>/dev/null |
	    tail -n +$((KEEP + 1))); do
		if [ -f "$d/done" ]; then rm -rf "$d"; fi
	done
	# shellcheck disable=SC2012,SC2010 # names are ours: debian-<hex>
	for d in $(ls -1dt "$CACHE"/images/debian-[0-9a-f]*/ 2>/dev/null |
	    grep -v '/debian-base-' | tail -n +$((KEEP + 1))); do
		if [ -f "$d/done" ]; then rm -rf "$d"; fi
	done
	return 0
}

main() {
	local key dir base t0

	parse_args "$@"
	[ "$(id -u)" = 0 ] || die "needs root (chroot, file ownership)"
	mkdir -p "$CACHE/images"
	tmp=$(mktemp -d "$CACHE/images/tmp.XXXXXX")
	trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
	if [ -z "$ca" ]; then
		ca="$("$ROOT/deploy/pki.sh" | tail -n 1)/ca.pem"
	fi
	[ -f "$ca" ] || die "no CA certificate $ca"
	if [ "$signed" = 1 ] && [ -z "$sign_key" ]; then
		sign_key="$("$ROOT/deploy/pki.sh" | tail -n 1)/ima.key"
		sign_cert="${sign_key%.key}.pem"
	fi
	check_agent
	base=$(build_base | tail -n 1)
	key=$(image_key)
	dir="$CACHE/images/debian-$key"
	mkdir -p "$dir"
	exec 9>"$dir/lock"
	flock 9
	if [ -f "$dir/done" ]; then
		log "cache hit debian-$key"
		flock -u 9
		[ "$signed" = 0 ] || dir=$(build_signed "$dir" | tail -n 1)
		echo "$dir"
		return
	fi
	t0=$(date +%s)
	log "image layer debian-$key: unpack base, imatrust layer, mkfs.ext4"
	mkdir "$tmp/root"
	tar -C "$tmp/root" --numeric-owner --xattrs --xattrs-include='*' \
	    -xpf "$base"
	customize "$tmp/root"
	imatrust_layer "$tmp/root"
	truncate -s "$size" "$tmp/rootfs.ext4"
	mkfs.ext4 -q -F -L imatrust-root -d "$tmp/root" "$tmp/rootfs.ext4" >&2
	write_manifest "$tmp" "$key" "$base"
	rm -rf "$dir/root"
	mv "$tmp/root" "$dir/root"
	mv "$tmp/rootfs.ext4" "$tmp/manifest" "$dir/"
	touch "$dir/done"
	log "image layer done in $(($(date +%s) - t0))s: $dir/rootfs.ext4"
	flock -u 9
	[ "$signed" = 0 ] || dir=$(build_signed "$dir" | tail -n 1)
	prune
	echo "$dir"
}

main "$@"
