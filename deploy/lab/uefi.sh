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
#   uefi.sh uki OUT --kernel K [--initrd I] [--options STR]
#                                 a unified kernel image OUT: systemd's
#                                 stub with K, I, STR as .linux, .initrd,
#                                 .cmdline and the lab's .osrel, signed
#                                 with the lab's db key; prints the
#                                 sha256 PCR 11 the stub leaves
#                                 (systemd-measure)
#   uefi.sh esp OUT --chain shim-uki --kernel K [--initrd I] [--options STR]
#   uefi.sh esp OUT --chain shim-uki --uki U
#                                 the ESP of the chain Debian boots: shim
#                                 as EFI/BOOT/BOOTX64.EFI, systemd-boot as
#                                 EFI/BOOT/grubx64.efi (shim's default
#                                 loader), the UKI as EFI/Linux/imatrust.efi
#
# The chain is the one a Debian machine without shim boots: OVMF verifies
# systemd-boot against db, systemd-boot loads the kernel through the
# firmware's LoadImage (verified against db again, measured into PCR 4),
# the kernel's EFI stub starts Linux. The firmware measures PCRs 0-7 and
# writes the TCG event log Linux exposes as binary_bios_measurements.
#
# The chain shim-uki is the one Debian boots with shim: OVMF verifies
# shim (shim-unsigned's shimx64.efi, signed with the lab's db key) against
# db; shim loads \EFI\BOOT\grubx64.efi (its DEFAULT_LOADER), here
# systemd-boot, and verifies it against db, MokList and its vendor cert
# (Debian's CA), SBAT included (systemd-boot-efi's image has a .sbat
# section, so none is added); shim measures SbatLevel into PCR 7 and
# MokList, MokListX, MokListTrusted into PCR 14; systemd-boot loads the UKI
# through LoadImage (shim's protocol verifies it: db-signed); the stub
# measures the UKI's sections into PCR 11 and starts the kernel. The UKI
# is signed with the db key, not a MOK: MokList is a boot-services-only
# variable (shim deletes one a runtime OS could have written), so neither
# the enrollment boot nor any bookworm tool can seed it (python3-virt-
# firmware's virt-fw-vars is not in Debian 12); MokManager is interactive.
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
readonly STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
readonly SHIM=/usr/lib/shim/shimx64.efi
readonly MEASURE=/usr/lib/systemd/systemd-measure
# The owner GUID of the lab's signature list entries.
readonly LAB_GUID=6d1a7e00-1ab0-4c1a-9e5e-696d61747275
readonly ESP_MB=48
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
readonly ROOT="$HERE/../.."

log() { printf '[uefi] %s\n' "$*" >&2; }
die() { printf '[uefi] error: %s\n' "$*" >&2; exit 1; }

need() {
	local t p
	for t in "$@"; do
		command -v "$t" >/dev/null && continue
		case "$t" in
		objcopy | objdump) p=binutils ;;
		sbsign) p=sbsigntool ;;
		sgdisk) p=gdisk ;;
		mkfs.vfat) p=dosfstools ;;
		mmd | mcopy) p=mtools ;;
		cert-to-efi-sig-list | sign-efi-sig-list) p=efitools ;;
		*) p=$t ;;
		esac
		die "$t not found: install $p (deploy/install-deps.sh)"
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

# The end of the last section of PE image $1 (VMA + size), as a number.
pe_end() {
	objdump -h "$1" | awk '$1 ~ /^[0-9]+$/ { print $3, $4 }' |
	    while read -r size vma; do echo $((0x$vma + 0x$size)); done |
	    sort -n | tail -n 1
}

# uki OUT --kernel K [--initrd I] [--options STR]: systemd-stub with the
# sections added by objcopy (bookworm's systemd 252 has no ukify), each at
# the next 1 MiB boundary after the previous one (systemd's 252 recipe
# places them at fixed VMAs that a large kernel would overlap). The kernel
# inside is db-signed too (the stub may hand it to LoadImage).
cmd_uki() {
	local out=${1:-} kernel='' initrd='' options='' tmp vma s args=()
	[ -n "$out" ] || die "usage: uefi.sh uki OUT --kernel K ..."
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) kernel=$2 ;;
		--initrd) initrd=$2 ;;
		--options) options=$2 ;;
		*) die "uki: unknown option $1" ;;
		esac
		shift 2 || die "uki: $1 needs a value"
	done
	[ -f "$kernel" ] || die "uki: --kernel FILE required"
	[ -z "$initrd" ] || [ -f "$initrd" ] || die "uki: no initrd $initrd"
	need objcopy objdump sbsign
	[ -f "$STUB" ] || die "$STUB missing: install systemd-boot-efi (deploy/install-deps.sh)"
	cmd_keys >/dev/null
	tmp=$(mktemp -d)
	uki_sections "$tmp" "$kernel" "$initrd" "$options"
	vma=$(pe_end "$STUB")
	for s in osrel cmdline linux initrd; do
		[ -f "$tmp/$s" ] || continue
		vma=$(((vma + 0xfffff) & ~0xfffff))
		args+=(--add-section ".$s=$tmp/$s"
		    --change-section-vma ".$s=$(printf '0x%x' "$vma")")
		vma=$((vma + $(stat -c %s "$tmp/$s")))
	done
	objcopy "${args[@]}" "$STUB" "$tmp/uki.efi" ||
		{ rm -rf "$tmp"; die "objcopy of the UKI failed"; }
	sign "$tmp/uki.efi" "$out"
	uki_pcr11 "$tmp"
	rm -rf "$tmp"
}

# uki_pcr11 DIR: the sha256 PCR 11 the stub leaves, as systemd-measure
# predicts it from the section files (--phase=: : no pcrphase word).
uki_pcr11() {
	local d=$1 s args=()
	[ -x "$MEASURE" ] || die "$MEASURE missing: install systemd (deploy/install-deps.sh)"
	for s in linux osrel cmdline initrd; do
		[ ! -f "$d/$s" ] || args+=("--$s=$d/$s")
	done
	"$MEASURE" calculate "${args[@]}" --bank=sha256 --phase=: \
	    2>"$d/measure.err" | sed -n 's/^11:sha256=//p' |
	    grep -x '[0-9a-f]\{64\}' ||
	    die "systemd-measure calculate failed: $(cat "$d/measure.err")"
}

# signed_kernel IN OUT: IN signed with the db key, once per image and key
# set (sbsign's signature has a signing time): a UKI built again from the
# same kernel and command line has the same sections, so the same PCR 11.
signed_kernel() {
	local cached
	cached=$CACHE/lab/uki-linux-$(cat "$1" "$KEYS/db.crt" | sha256sum | cut -c1-16).efi
	if [ ! -f "$cached" ]; then
		sign "$1" "$cached.$$"
		mv "$cached.$$" "$cached"
	fi
	cp "$cached" "$2"
}

# uki_sections DIR KERNEL INITRD OPTIONS: the files of the UKI's sections,
# named as systemd-measure's options (--osrel= --cmdline= --linux=
# --initrd=), so a PCR 11 prediction can take them as they are.
uki_sections() {
	local d=$1
	printf 'NAME="imatrust lab"\nID=imatrust-lab\nPRETTY_NAME="imatrust lab UKI"\n' \
	    >"$d/osrel"
	printf '%s' "$4" >"$d/cmdline"
	signed_kernel "$2" "$d/linux"
	[ -z "$3" ] || cp "$3" "$d/initrd"
}

cmd_esp() {
	local out=${1:-} kernel='' initrd='' options='' signed=1 tmp fat
	local chain=sdboot uki=''
	[ -n "$out" ] || die "usage: uefi.sh esp OUT --kernel K ..."
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) kernel=$2 ;;
		--initrd) initrd=$2 ;;
		--options) options=$2 ;;
		--chain) chain=$2 ;;
		--uki) uki=$2 ;;
		--unsigned) signed=0; shift; continue ;;
		*) die "esp: unknown option $1" ;;
		esac
		shift 2 || die "esp: $1 needs a value"
	done
	case "$chain" in
	sdboot) ;;
	shim-uki) esp_shim_uki "$out" "$kernel" "$initrd" "$options" "$uki"
		  return ;;
	*) die "esp: --chain must be sdboot or shim-uki" ;;
	esac
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
	fat="$tmp/esp.fat"
	esp_fat "$fat" ::/EFI ::/EFI/BOOT ::/imatrust ::/loader ::/loader/entries
	mcopy -i "$fat" "$tmp/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
	mcopy -i "$fat" "$tmp/linux.efi" ::/imatrust/linux.efi
	[ -z "$initrd" ] || mcopy -i "$fat" "$initrd" ::/imatrust/initrd
	mcopy -i "$fat" "$tmp/loader.conf" ::/loader/loader.conf
	mcopy -i "$fat" "$tmp/imatrust.conf" ::/loader/entries/imatrust.conf
	esp_disk "$fat" "$out"
	rm -rf "$tmp"
}

# esp_fat FAT DIR...: a FAT file system of the ESP's size holding the
# directories DIR, made in that order (mtools, no mount).
esp_fat() {
	local fat=$1
	shift
	mkfs.vfat -C -n ESP "$fat" $((ESP_MB * 1024)) >/dev/null
	mmd -i "$fat" "$@"
}

# esp_disk FAT OUT: the FAT file system placed at 1 MiB of a GPT disk OUT
# (no loop device, no mount), partition type ESP.
esp_disk() {
	local fat=$1 out=$2
	rm -f "$out"
	truncate -s $((ESP_MB + 2))M "$out"
	sgdisk -n 1:2048:+${ESP_MB}M -t 1:ef00 -c 1:ESP \
	    -u 1:0b1e5eed-0000-4000-8000-696d61747275 \
	    -U 0b1e5eed-0000-4000-8000-000000000000 "$out" >/dev/null
	dd if="$fat" of="$out" bs=1M seek=1 conv=notrunc status=none
}

# esp_shim_uki OUT KERNEL INITRD OPTIONS UKI: shim, systemd-boot as its
# default loader, the UKI (UKI if given, else built from the others) as
# the only boot entry (a type #2 entry: EFI/Linux/*.efi).
esp_shim_uki() {
	local out=$1 kernel=$2 initrd=$3 options=$4 uki=$5 tmp fat
	need sgdisk mkfs.vfat mmd mcopy sbsign
	[ -f "$SHIM" ] || die "$SHIM missing: install shim-unsigned (deploy/install-deps.sh)"
	[ -f "$SDBOOT" ] || die "$SDBOOT missing: install systemd-boot-efi (deploy/install-deps.sh)"
	cmd_keys >/dev/null
	tmp=$(mktemp -d)
	if [ -z "$uki" ]; then
		uki=$tmp/imatrust.efi
		cmd_uki "$uki" --kernel "$kernel" ${initrd:+--initrd "$initrd"} \
		    --options "$options" >/dev/null
	fi
	[ -f "$uki" ] || die "esp: --uki FILE or --kernel FILE required"
	sign "$SHIM" "$tmp/BOOTX64.EFI"
	sign "$SDBOOT" "$tmp/grubx64.efi"
	printf 'default imatrust.efi\ntimeout 0\neditor no\n' >"$tmp/loader.conf"
	fat="$tmp/esp.fat"
	esp_fat "$fat" ::/EFI ::/EFI/BOOT ::/EFI/Linux ::/loader
	mcopy -i "$fat" "$tmp/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
	mcopy -i "$fat" "$tmp/grubx64.efi" ::/EFI/BOOT/grubx64.efi
	mcopy -i "$fat" "$uki" ::/EFI/Linux/imatrust.efi
	mcopy -i "$fat" "$tmp/loader.conf" ::/loader/loader.conf
	esp_disk "$fat" "$out"
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
	uki) cmd_uki "$@" ;;
	*) die "usage: uefi.sh keys|esp|vars|qemu-args|sign|sdboot|uki (see the header)" ;;
	esac
}

main "$@"
