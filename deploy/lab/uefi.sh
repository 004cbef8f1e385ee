#!/bin/bash
# UEFI for the lab: the lab's own Secure Boot keys, an EFI system partition
# with a signed boot chain, and OVMF variable stores with the keys enrolled.
#
#   uefi.sh keys                  print the key directory (creates it)
#   uefi.sh esp OUT --kernel K [--initrd I] [--options STR] [--unsigned]
#                                 GPT disk image OUT: ESP with systemd-boot
#                                 as EFI/BOOT/BOOTX64.EFI and K behind it
#   uefi.sh vars OUT [--setup]    OVMF variable store OUT: the lab's PK,
#                                 KEK and db enrolled (Secure Boot on), or
#                                 with --setup the blank one (setup mode,
#                                 Secure Boot off)
#   uefi.sh qemu-args VARS ESP    the QEMU options of a UEFI guest, one per
#                                 line (q35 with SMM, OVMF, the ESP disk)
#   uefi.sh sign IN OUT           IN signed with the lab's db key, as the
#                                 ESP holds it (what `imatrust ref
#                                 import-efi` takes as the booted image)
#   uefi.sh sdboot                print the systemd-boot image the ESP uses
#
# The chain is the one a Debian machine without shim boots: OVMF verifies
# systemd-boot against db, systemd-boot loads the kernel through the
# firmware's LoadImage (verified against db again, measured into PCR 4),
# the kernel's EFI stub starts Linux. The firmware measures PCRs 0-7 and
# writes the TCG event log Linux exposes as binary_bios_measurements.
#
# Keys are made once per cache (openssl, efitools' cert-to-efi-sig-list and
# sign-efi-sig-list); the enrolled variable store is made once per key set
# by booting the lab kernel in setup mode and writing the signed PK, KEK
# and db into efivarfs (deploy/lab/uefi-enroll), then cached.
#
# Environment: IMATRUST_CACHE (default /var/cache/imatrust), IMATRUST_ACCEL,
# IMATRUST_KERNEL (the kernel the enrollment boot uses).
set -euo pipefail

readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly KEYS="$CACHE/lab/uefi-keys"
readonly OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
readonly OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
readonly SDBOOT=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
# The owner GUID of the lab's signature list entries.
readonly LAB_GUID=6d1a7e00-1ab0-4c1a-9e5e-696d61747275
readonly ESP_MB=48
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
readonly ROOT="$HERE/../.."

log() { printf '[uefi] %s\n' "$*" >&2; }
die() { printf '[uefi] error: %s\n' "$*" >&2; exit 1; }

need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null ||
			die "$t not found: run deploy/install-deps.sh"
	done
}

# PK signs KEK, KEK signs db, PK signs itself: the .auth files a firmware
# in setup mode accepts, and db.key/db.crt sign the boot chain.
cmd_keys() {
	local k tmp
	need openssl cert-to-efi-sig-list sign-efi-sig-list
	mkdir -p "$(dirname "$KEYS")"
	exec 9>"$(dirname "$KEYS")/uefi-keys.lock"
	flock 9
	if [ ! -f "$KEYS/done" ]; then
		tmp=$(mktemp -d "$(dirname "$KEYS")/keys.XXXXXX")
		for k in PK KEK db; do
			openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 \
			    -days 3650 -subj "/CN=imatrust lab $k/" \
			    -keyout "$tmp/$k.key" -out "$tmp/$k.crt" 2>/dev/null
			openssl x509 -in "$tmp/$k.crt" -outform DER \
			    -out "$tmp/$k.der"
			cert-to-efi-sig-list -g "$LAB_GUID" "$tmp/$k.crt" \
			    "$tmp/$k.esl" >/dev/null
		done
		sign-efi-sig-list -g "$LAB_GUID" -k "$tmp/PK.key" \
		    -c "$tmp/PK.crt" PK "$tmp/PK.esl" "$tmp/PK.auth" >/dev/null
		sign-efi-sig-list -g "$LAB_GUID" -k "$tmp/PK.key" \
		    -c "$tmp/PK.crt" KEK "$tmp/KEK.esl" "$tmp/KEK.auth" >/dev/null
		sign-efi-sig-list -g "$LAB_GUID" -k "$tmp/KEK.key" \
		    -c "$tmp/KEK.crt" db "$tmp/db.esl" "$tmp/db.auth" >/dev/null
		touch "$tmp/done"
		rm -rf "$KEYS"
		mv "$tmp" "$KEYS"
		log "created the lab's Secure Boot keys in $KEYS"
	fi
	flock -u 9
	echo "$KEYS"
}

# sign IN OUT: IN signed with the lab's db key (sbsign, Authenticode).
sign() {
	sbsign --key "$KEYS/db.key" --cert "$KEYS/db.crt" --output "$2" "$1" \
	    2>/dev/null || die "sbsign $1 failed"
}

cmd_esp() {
	local out=${1:-} kernel='' initrd='' options='' signed=1 tmp fat
	[ -n "$out" ] || die "usage: uefi.sh esp OUT --kernel K ..."
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) kernel=$2 ;;
		--initrd) initrd=$2 ;;
		--options) options=$2 ;;
		--unsigned) signed=0; shift; continue ;;
		*) die "esp: unknown option $1" ;;
		esac
		shift 2 || die "esp: $1 needs a value"
	done
	[ -f "$kernel" ] || die "esp: --kernel FILE required"
	[ -z "$initrd" ] || [ -f "$initrd" ] || die "esp: no initrd $initrd"
	need sgdisk mkfs.vfat mmd mcopy sbsign
	[ -f "$SDBOOT" ] || die "$SDBOOT missing: run deploy/install-deps.sh"
	cmd_keys >/dev/null
	tmp=$(mktemp -d)
	if [ "$signed" = 1 ]; then
		sign "$SDBOOT" "$tmp/BOOTX64.EFI"
		sign "$kernel" "$tmp/linux.efi"
	else
		cp "$SDBOOT" "$tmp/BOOTX64.EFI"
		cp "$kernel" "$tmp/linux.efi"
	fi
	printf 'default imatrust.conf\ntimeout 0\neditor no\n' >"$tmp/loader.conf"
	{
		echo "title imatrust lab"
		echo "linux /imatrust/linux.efi"
		[ -z "$initrd" ] || echo "initrd /imatrust/initrd"
		echo "options $options"
	} >"$tmp/imatrust.conf"
	# The FAT file system is made as a file and placed at 1 MiB of a GPT
	# disk: no loop device, no mount.
	fat="$tmp/esp.fat"
	mkfs.vfat -C -n ESP "$fat" $((ESP_MB * 1024)) >/dev/null
	mmd -i "$fat" ::/EFI ::/EFI/BOOT ::/imatrust ::/loader \
	    ::/loader/entries
	mcopy -i "$fat" "$tmp/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
	mcopy -i "$fat" "$tmp/linux.efi" ::/imatrust/linux.efi
	[ -z "$initrd" ] || mcopy -i "$fat" "$initrd" ::/imatrust/initrd
	mcopy -i "$fat" "$tmp/loader.conf" ::/loader/loader.conf
	mcopy -i "$fat" "$tmp/imatrust.conf" ::/loader/entries/imatrust.conf
	rm -f "$out"
	truncate -s $((ESP_MB + 2))M "$out"
	sgdisk -n 1:2048:+${ESP_MB}M -t 1:ef00 -c 1:ESP \
	    -u 1:0b1e5eed-0000-4000-8000-696d61747275 \
	    -U 0b1e5eed-0000-4000-8000-000000000000 "$out" >/dev/null
	dd if="$fat" of="$out" bs=1M seek=1 conv=notrunc status=none
	rm -rf "$tmp"
}

# The enrolled store is cached by the key set: the enrollment boot costs a
# UEFI boot once per cache.
cmd_vars() {
	local out=${1:-} setup=0 key cached
	[ -n "$out" ] || die "usage: uefi.sh vars OUT [--setup]"
	[ "${2:-}" != --setup ] || setup=1
	[ -f "$OVMF_VARS" ] || die "$OVMF_VARS missing: run deploy/install-deps.sh"
	if [ "$setup" = 1 ]; then
		cp "$OVMF_VARS" "$out"
		return
	fi
	cmd_keys >/dev/null
	key=$(cat "$KEYS/PK.auth" "$KEYS/KEK.auth" "$KEYS/db.auth" \
	    "$OVMF_VARS" "$HERE/uefi-enroll" | sha256sum | cut -c1-16)
	cached="$CACHE/lab/uefi-vars-$key.fd"
	[ -f "$cached" ] || enroll "$cached"
	cp "$cached" "$out"
}

# enroll OUT: boot the lab kernel in setup mode with deploy/lab/uefi-enroll
# as its program; it writes db, KEK and PK (last: it ends setup mode).
enroll() {
	local out=$1 tmp kernel img accel
	kernel=${IMATRUST_KERNEL:-$("$ROOT/kernel/build.sh" | tail -n 1)}
	[ -f "$kernel" ] || die "no kernel $kernel"
	tmp=$(mktemp -d)
	mkdir -p "$tmp/overlay/keys"
	cp "$HERE/uefi-enroll" "$tmp/overlay/uefi-enroll"
	cp "$KEYS/PK.auth" "$KEYS/KEK.auth" "$KEYS/db.auth" "$tmp/overlay/keys/"
	img=$("$ROOT/deploy/image/build-minimal.sh" --overlay "$tmp/overlay" |
	    tail -n 1)
	cmd_esp "$tmp/esp.img" --kernel "$kernel" \
	    --initrd "$img/initramfs.cpio.gz" --unsigned \
	    --options "console=ttyS0 panic=-1 imatrust.run=/uefi-enroll"
	cp "$OVMF_VARS" "$tmp/vars.fd"
	accel=${IMATRUST_ACCEL:-tcg}
	log "enrolling the lab keys into an OVMF variable store ($accel)"
	mapfile -t args < <(cmd_qemu_args "$tmp/vars.fd" "$tmp/esp.img")
	timeout -k 5 300 qemu-system-x86_64 -accel "$accel" -m 256 \
	    -nodefaults -no-user-config -display none -no-reboot \
	    -serial "file:$tmp/console.log" "${args[@]}" >/dev/null 2>&1 || true
	if ! grep -q '^uefi-enroll: enrolled' "$tmp/console.log"; then
		tail -n 20 "$tmp/console.log" >&2
		rm -rf "$tmp"
		die "key enrollment failed (console above)"
	fi
	mv "$tmp/vars.fd" "$out"
	rm -rf "$tmp"
	log "enrolled store $out"
}

cmd_qemu_args() {
	local vars=${1:-} esp=${2:-}
	[ -f "$vars" ] && [ -f "$esp" ] || die "usage: uefi.sh qemu-args VARS ESP"
	printf '%s\n' -machine q35,smm=on \
	    -global driver=cfi.pflash01,property=secure,value=on \
	    -global ICH9-LPC.disable_s3=1 \
	    -drive "if=pflash,format=raw,unit=0,file=$OVMF_CODE,readonly=on" \
	    -drive "if=pflash,format=raw,unit=1,file=$vars" \
	    -drive "file=$esp,if=none,id=esp,format=raw,snapshot=on" \
	    -device virtio-blk-pci,drive=esp,bootindex=0,addr=0x10
}

main() {
	local cmd=${1:-}
	[ $# -eq 0 ] || shift
	case "$cmd" in
	keys) cmd_keys ;;
	esp) cmd_esp "$@" ;;
	vars) cmd_vars "$@" ;;
	qemu-args) cmd_qemu_args "$@" ;;
	sign) [ $# = 2 ] || die "usage: uefi.sh sign IN OUT"
	      cmd_keys >/dev/null
	      sign "$1" "$2" ;;
	sdboot) echo "$SDBOOT" ;;
	*) die "usage: uefi.sh keys|esp|vars|qemu-args|sign|sdboot (see the header)" ;;
	esac
}

main "$@"
