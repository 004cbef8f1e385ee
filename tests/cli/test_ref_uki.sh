#!/usr/bin/env bash
# test_ref_uki.sh - "imatrust ref uki" (TAP), offline: a UKI built here
# with objcopy from Debian's systemd-stub (as Debian 12 documents it)
# gives each section's sha256 as the file that went into it, in the
# stub's order, under the file's name or --name; the stub alone (no
# section the stub measures) and a file that is no PE image are refused
# by name.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

skip_without objcopy jq sha256sum
stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
need "$stub"

printf 'root=/dev/vda2 ro ima_policy=tcb' >"$tmp/cmdline"
printf 'ID=debian\nVERSION_ID=12\n' >"$tmp/osrel"
head -c 100001 /dev/urandom >"$tmp/linux"
head -c 5003 /dev/urandom >"$tmp/initrd"
objcopy --add-section .osrel="$tmp/osrel" --change-section-vma .osrel=0x20000 \
	--add-section .cmdline="$tmp/cmdline" \
	--change-section-vma .cmdline=0x30000 \
	--add-section .linux="$tmp/linux" --change-section-vma .linux=0x2000000 \
	--add-section .initrd="$tmp/initrd" \
	--change-section-vma .initrd=0x3000000 "$stub" "$tmp/debian-6.1.efi" ||
	{ echo "Bail out! objcopy"; exit 1; }

expect 0 "a UKI's entry is printed" "$imatrust" ref uki "$tmp/debian-6.1.efi"
for s in linux osrel cmdline initrd; do
	want=$(sha256sum "$tmp/$s" | cut -d' ' -f1)
	got=$(jq -r --arg k ".$s" '.[$k]' "$tmp/out")
	[ "$got" = "$want" ] && ok ".$s is the sha256 of its contents" ||
		not_ok ".$s is the sha256 of its contents ($got, not $want)" "$tmp/out"
done
[ "$(jq -r .name "$tmp/out")" = debian-6.1 ] && ok "named after the file" ||
	not_ok "named after the file" "$tmp/out"
[ "$(jq -r 'keys_unsorted | join(" ")' "$tmp/out")" = \
	"name .linux .osrel .cmdline .initrd" ] && ok "in the stub's order" ||
	not_ok "in the stub's order" "$tmp/out"
expect 0 "--name names the entry" \
	"$imatrust" ref uki --name debian-6.1.0-13 "$tmp/debian-6.1.efi"
[ "$(jq -r .name "$tmp/out")" = debian-6.1.0-13 ] && ok "--name is kept" ||
	not_ok "--name is kept" "$tmp/out"

expect 2 "the stub alone is no UKI" "$imatrust" ref uki "$stub"
contains "$tmp/err" 'linuxx64.efi.stub: no section .*not a UKI' \
	"the refusal names the file"
expect 2 "a file that is no PE image is refused" \
	"$imatrust" ref uki "$tmp/cmdline"
contains "$tmp/err" 'cmdline: not an EFI image' "the refusal names the file"
expect 2 "two files are a usage error" \
	"$imatrust" ref uki "$tmp/debian-6.1.efi" "$tmp/debian-6.1.efi"

echo "1..$n"
