#!/bin/bash
# imatrust QEMU lab: guests with their own swtpm on a private network made
# of a network namespace, a bridge and one tap per guest. See README.md.
#
#   lab.sh up                     namespace + bridge (idempotent)
#   lab.sh start N [options]      swtpm + QEMU for guest N (1..99)
#   lab.sh wait N SECONDS         wait until guest N powers off
#   lab.sh stop N                 stop guest N (QEMU, swtpm, tap)
#   lab.sh down                   stop every guest, delete the namespace
#   lab.sh status                 list guests and their processes
#   lab.sh ca                     print the EK CA bundle (creates the CA)
#   lab.sh accel KERNEL           print the accelerator start would use
#   lab.sh guest N [options]      a fleet guest: Debian image, agent, control
#   lab.sh verifier start CONFIG|stop|kill|status
#                                 imatrust-verifier inside the namespace
#   lab.sh exec N CMD...          run CMD in guest N over the control channel
#
# start options:
#   --kernel PATH      bzImage (required)
#   --initrd PATH      initramfs
#   --disk PATH        raw disk as virtio /dev/vda, writes discarded
#   --disk-rw PATH     raw disk as virtio /dev/vda, writes kept
#   --share DIR        9p export with mount tag "results"
#   --append STR       extra kernel command line
#   --mem MB           guest memory (default 256)
#   --tpm tis|crb      TPM interface (default tis)
#   --firmware F       bios (default: SeaBIOS, QEMU loads the kernel),
#                      uefi (OVMF, Secure Boot on with the lab's keys,
#                      signed systemd-boot + kernel on an ESP disk) or
#                      uefi-nosb (OVMF in setup mode, unsigned chain);
#                      see deploy/lab/uefi.sh
#   --chain C          with a UEFI firmware: sdboot (default: systemd-boot,
#                      the kernel) or shim-uki (shim, MOK, systemd-boot
#                      and a unified kernel image holding the kernel and
#                      the command line; Secure Boot on; see uefi.sh)
#   --drive FILE       another virtio disk (qcow2 by extension, else raw),
#                      writes kept; repeatable, in order after --disk
#   --control          virtio-serial port org.imatrust.lab.0 on the host
#                      socket guestN/control.sock (deploy/lab/guest-exec)
#   --reboot           a guest reboot resets the machine (same swtpm, TPM
#                      resetCount + 1) instead of ending QEMU
#   --pcr-banks LIST   the PCR banks swtpm_setup allocates (default
#                      sha1,sha256; e.g. sha256,sha384)
#
# guest options (see fleet_guest below and README.md):
#   --image DIR        golden image of deploy/image/build-debian.sh (required)
#   --kernel PATH      bzImage (required)
#   --bank sha256|sha1|sha384
#                      sha1: ima_hash=sha1 ima_template=ima, agent bank
#                      sha1; sha384: a TPM of banks sha256 and sha384 (no
#                      sha1), ima_hash=sha384 (boot_aggregate and file
#                      digests), agent bank sha384
#   --append STR       more kernel command line
#   --mem MB           guest memory (default 512)
#   --agent-conf FILE  template of agent.conf (default deploy/config/agent.conf
#                      when present); id, bank, verifier_url, ca_cert and
#                      state_dir are set per guest
#   --template NAME    ima_template= instead of the bank's (e.g. ima-sig)
#   --site DIR         files of DIR copied onto the site disk (/srv/site),
#                      modes and xattrs (security.ima) kept
#   --sign-site KEY    sign every regular file of the site disk that has no
#                      security.ima yet with `evmctl ima_sign --key KEY`
#   --firmware F       bios (default), uefi or uefi-nosb, as for start
#   --chain shim-uki   firmware uefi, the chain Debian boots: shim, MOK,
#                      systemd-boot, a UKI; systemd-pcrphase masked on its
#                      command line (see README.md)
#
# Environment: IMATRUST_CACHE (default /var/cache/imatrust),
# IMATRUST_LAB_NS (namespace, default imatrust-lab), IMATRUST_LAB_RUN (run
# directory, default $IMATRUST_CACHE/lab/run/$NS), IMATRUST_ACCEL (tcg|kvm,
# default: tcg unless a KVM probe boots the kernel),
# IMATRUST_LAB_AGENT_LOG_LEVEL (the guests' agents' log_level, default
# info; the fleet tests' debug gives each round's timing line).
set -euo pipefail

readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly NS="${IMATRUST_LAB_NS:-imatrust-lab}"
readonly RUN="${IMATRUST_LAB_RUN:-$CACHE/lab/run/$NS}"
readonly CA="${IMATRUST_LAB_CA:-$CACHE/lab/ca}"
readonly BRIDGE=br0
readonly NET_PREFIX=10.77.0
readonly VERIFIER_ADDR="$NET_PREFIX.1"
readonly PROBE_TIMEOUT=20
LAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly LAB_ROOT
readonly VERIFIER_BIN="${IMATRUST_VERIFIER:-$LAB_ROOT/build/bin/imatrust-verifier}"
readonly VERIFIER_PORT=8443
# The agent's state file system; deploy/image/build-debian.sh excludes it
# from measurement by this UUID.
readonly STATE_UUID=7a1e5b7a-7e00-4d1b-9a6e-000000000001

log() { printf '[lab] %s\n' "$*" >&2; }
die() { printf '[lab] error: %s\n' "$*" >&2; exit 1; }

ns_exists() { ip netns list | grep -qw -- "^$NS"; }
gdir() { echo "$RUN/guest$1"; }
guest_addr() { echo "$NET_PREFIX.$((10 + $1))"; }

check_index() {
	if ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ] || [ "$1" -gt 99 ]; then
		die "guest index must be 1..99, got '$1'"
	fi
}

cmd_up() {
	mkdir -p "$RUN"
	if ! ns_exists; then
		ip netns add "$NS"
		log "created namespace $NS"
	fi
	ip -n "$NS" link set lo up
	if ! ip -n "$NS" link show "$BRIDGE" >/dev/null 2>&1; then
		ip -n "$NS" link add "$BRIDGE" type bridge
		ip -n "$NS" addr add "$VERIFIER_ADDR/24" dev "$BRIDGE"
	fi
	ip -n "$NS" link set "$BRIDGE" up
}

# swtpm-localca configuration with its CA kept under $CA.
ca_init() {
	mkdir -p "$CA"
	exec 8>"$CA/lock"
	flock 8
	if [ ! -f "$CA/swtpm_setup.conf" ]; then
		cat >"$CA/swtpm-localca.conf" <<-EOC
		statedir = $CA
		signingkey = $CA/signkey.pem
		issuercert = $CA/issuercert.pem
		certserial = $CA/certserial
		EOC
		cat >"$CA/swtpm-localca.options" <<-EOC
		--platform-manufacturer imatrust
		--platform-version 2.1
		--platform-model QEMU
		EOC
		cat >"$CA/swtpm_setup.conf" <<-EOC
		create_certs_tool = /usr/bin/swtpm_localca
		create_certs_tool_config = $CA/swtpm-localca.conf
		create_certs_tool_options = $CA/swtpm-localca.options
		active_pcr_banks = sha1,sha256
		EOC
	fi
	if [ ! -f "$CA/ek-ca-bundle.pem" ]; then
		local tmp
		tmp=$(mktemp -d)
		tpm_manufacture "$tmp" "$tmp/setup.log" ||
			{ cat "$tmp/setup.log" >&2; rm -rf "$tmp"; die "CA creation failed"; }
		rm -rf "$tmp"
		cat "$CA/swtpm-localca-rootca-cert.pem" "$CA/issuercert.pem" \
		    >"$CA/ek-ca-bundle.pem"
		log "created EK CA, bundle $CA/ek-ca-bundle.pem"
	fi
	flock -u 8
}

# A fresh TPM 2.0 state: EK + platform certificates signed by our CA.
tpm_manufacture() {
	swtpm_setup --tpm2 --tpmstate "$1" --config "$CA/swtpm_setup.conf" \
	    --create-ek-cert --create-platform-cert --lock-nvram \
	    --pcr-banks "${3:-sha1,sha256}" --logfile "$2" >/dev/null
}

cmd_ca() {
	ca_init
	echo "$CA/ek-ca-bundle.pem"
}

# KVM only after it boots $1 to the root-mount panic within the timeout:
# nested KVM on some hosts hangs instead of failing.
probe_kvm() {
	local kernel=$1 out

	[ -w /dev/kvm ] || return 1
	out=$(mktemp)
	timeout -k 2 "$PROBE_TIMEOUT" qemu-system-x86_64 -accel kvm -m 128 \
	    -nodefaults -no-user-config -display none -no-reboot \
	    -serial "file:$out" -kernel "$kernel" \
	    -append "console=ttyS0 panic=-1" >/dev/null 2>&1 || true
	if grep -q 'Kernel panic' "$out"; then
		rm -f "$out"
		return 0
	fi
	rm -f "$out"
	return 1
}

choose_accel() {
	local kernel=$1 cache

	case "${IMATRUST_ACCEL:-}" in
	tcg|kvm) echo "$IMATRUST_ACCEL"; return ;;
	"") ;;
	*) die "IMATRUST_ACCEL must be tcg or kvm" ;;
	esac
	mkdir -p "$CACHE/lab"
	cache="$CACHE/lab/accel.$(cat /proc/sys/kernel/random/boot_id)"
	if [ ! -f "$cache" ]; then
		log "probing KVM (up to ${PROBE_TIMEOUT}s)"
		if probe_kvm "$kernel"; then echo kvm; else echo tcg; fi >"$cache"
		log "accelerator: $(cat "$cache")"
	fi
	cat "$cache"
}

cmd_accel() {
	[ -f "${1:-}" ] || die "usage: lab.sh accel KERNEL"
	choose_accel "$1"
}

start_swtpm() {
	local g=$1

	rm -rf "$g/tpm"
	mkdir -p "$g/tpm"
	tpm_manufacture "$g/tpm" "$g/swtpm_setup.log" "$2" ||
		die "swtpm_setup failed, see $g/swtpm_setup.log"
	ip netns exec "$NS" swtpm socket --tpm2 --tpmstate dir="$g/tpm" \
	    --ctrl type=unixio,path="$g/swtpm.sock" \
	    --log file="$g/swtpm.log",level=1 \
	    --pid file="$g/swtpm.pid" --daemon --terminate
	for _ in $(seq 50); do
		[ -S "$g/swtpm.sock" ] && return 0
		sleep 0.1
	done
	die "swtpm socket $g/swtpm.sock did not appear"
}

make_tap() {
	local tap=$1

	ip -n "$NS" link del "$tap" 2>/dev/null || true
	ip -n "$NS" tuntap add dev "$tap" mode tap
	ip -n "$NS" link set "$tap" master "$BRIDGE"
	ip -n "$NS" link set "$tap" up
}

# uefi_esp DIR FIRMWARE KERNEL INITRD CMDLINE: DIR/esp.img and DIR/vars.fd
# of a UEFI guest; uefi: the chain signed, the lab keys enrolled (Secure
# Boot on); uefi-nosb: unsigned, setup mode (Secure Boot off).
uefi_esp() {
	local g=$1 firmware=$2 kernel=$3 initrd=$4 cmdline=$5 chain=$6 esp=()
	local uefi_sh=$LAB_ROOT/deploy/lab/uefi.sh vars=()

	[ -z "$initrd" ] || esp+=(--initrd "$initrd")
	# the UKI's .cmdline, for a test that builds another
	[ "$chain" = sdboot ] || printf '%s' "$cmdline" >"$g/uki-cmdline"
	esp+=(--chain "$chain")
	if [ "$firmware" = uefi-nosb ]; then
		esp+=(--unsigned)
		vars+=(--setup)
	fi
	"$uefi_sh" esp "$g/esp.img" --kernel "$kernel" --options "$cmdline" \
	    ${esp[@]+"${esp[@]}"} || die "the ESP of $g failed"
	"$uefi_sh" vars "$g/vars.fd" ${vars[@]+"${vars[@]}"} ||
		die "the variable store of $g failed"
}

cmd_start() {
	local n=${1:-} kernel='' initrd='' disk='' disk_mode=on share=''
	local append='' mem=256 control=0 reboot=0 drives=() d
	local tpm=tis firmware=bios g accel ip args cmdline uefi=() banks=sha1,sha256
	local chain=sdboot

	check_index "$n"
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) kernel=$2 ;;
		--initrd) initrd=$2 ;;
		--disk) disk=$2; disk_mode=on ;;
		--disk-rw) disk=$2; disk_mode=off ;;
		--share) share=$2 ;;
		--append) append=$2 ;;
		--mem) mem=$2 ;;
		--tpm) tpm=$2 ;;
		--firmware) firmware=$2 ;;
		--drive) drives+=("$2") ;;
		--pcr-banks) banks=$2 ;;
		--chain) chain=$2 ;;
		--control) control=1; shift; continue ;;
		--reboot) reboot=1; shift; continue ;;
		*) die "start: unknown option $1" ;;
		esac
		shift 2 || die "start: $1 needs a value"
	done
	[ -f "$kernel" ] || die "start: --kernel FILE required"
	case "$tpm" in tis|crb) ;; *) die "--tpm must be tis or crb" ;; esac
	case "$firmware" in
	bios|uefi|uefi-nosb) ;;
	*) die "--firmware must be bios, uefi or uefi-nosb" ;;
	esac
	case "$chain" in
	sdboot) ;;
	shim-uki) [ "$firmware" = uefi ] || die "--chain shim-uki needs --firmware uefi" ;;
	*) die "--chain must be sdboot or shim-uki" ;;
	esac
	ns_exists || die "namespace $NS missing, run 'lab.sh up' first"
	g=$(gdir "$n")
	[ ! -f "$g/qemu.pid" ] || ! kill -0 "$(cat "$g/qemu.pid")" 2>/dev/null ||
		die "guest $n already running"
	# Keep the disks a caller (lab.sh guest) put into the guest directory.
	find "$g" -mindepth 1 -maxdepth 1 ! -name 'disk-*' -exec rm -rf {} + \
	    2>/dev/null || true
	mkdir -p "$g"
	echo "$firmware" >"$g/firmware"
	ca_init
	accel=$(choose_accel "$kernel")
	start_swtpm "$g" "$banks"
	make_tap "tap$n"
	ip=$(guest_addr "$n")
	cmdline="console=ttyS0 panic=-1 ip=$ip::$VERIFIER_ADDR:255.255.255.0:guest$n:eth0:off $append"
	# shellcheck disable=SC2054 # commas are QEMU's, not array separators
	args=(-name "guest$n" -accel "$accel" -m "$mem" -smp 1
	    -nodefaults -no-user-config -display none -vga none
	    -serial "file:$g/console.log"
	    -chardev "socket,id=chrtpm,path=$g/swtpm.sock"
	    -tpmdev emulator,id=tpm0,chardev=chrtpm
	    -device "tpm-$tpm,tpmdev=tpm0"
	    -netdev "tap,id=net0,ifname=tap$n,script=no,downscript=no"
	    -device "virtio-net-pci,netdev=net0,mac=52:54:00:77:00:$(printf %02x "$n")"
	    -device virtio-rng-pci
	    -pidfile "$g/qemu.pid" -daemonize)
	[ "$reboot" = 1 ] || args+=(-no-reboot)
	[ -z "$disk" ] || args+=(-drive "file=$disk,if=virtio,format=raw,snapshot=$disk_mode")
	# UEFI: OVMF boots systemd-boot and the kernel from an ESP disk added
	# at PCI slot 0x10, after the others (the root disk stays /dev/vda); BIOS: SeaBIOS and
	# QEMU's own kernel loader, no firmware event log.
	if [ "$firmware" = bios ]; then
		# no_timer_check: under TCG with many guests on few cores the
		# kernel's IO-APIC timer check can miss its ticks and panic
		# ("setup_IO_APIC"), though the timer works
		args+=(-machine pc -kernel "$kernel" -append "$cmdline no_timer_check")
		[ -z "$initrd" ] || args+=(-initrd "$initrd")
	else
		uefi_esp "$g" "$firmware" "$kernel" "$initrd" "$cmdline" "$chain"
		mapfile -t uefi < <("$LAB_ROOT/deploy/lab/uefi.sh" qemu-args \
		    "$g/vars.fd" "$g/esp.img")
	fi
	for d in ${drives[@]+"${drives[@]}"}; do
		[ -f "$d" ] || die "--drive $d: no such file"
		case "$d" in
		*.qcow2) args+=(-drive "file=$d,if=virtio,format=qcow2,discard=unmap") ;;
		*) args+=(-drive "file=$d,if=virtio,format=raw") ;;
		esac
	done
	# shellcheck disable=SC2054
	[ "$control" = 0 ] || args+=(-device virtio-serial-pci,id=vser0
	    -chardev "socket,id=labctl,path=$g/control.sock,server=on,wait=off"
	    -device virtserialport,bus=vser0.0,chardev=labctl,name=org.imatrust.lab.0)
	# shellcheck disable=SC2054
	[ -z "$share" ] || args+=(-fsdev "local,id=share0,path=$share,security_model=none"
	    -device virtio-9p-pci,fsdev=share0,mount_tag=results)
	args+=(${uefi[@]+"${uefi[@]}"})
	printf '%q ' qemu-system-x86_64 "${args[@]}" >"$g/qemu.cmd"
	ip netns exec "$NS" qemu-system-x86_64 "${args[@]}" 2>"$g/qemu.err" ||
		die "qemu failed to start: $(cat "$g/qemu.err")"
	log "guest$n started ($accel, $ip), console $g/console.log"
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# --- the fleet: Debian guests with the agent, the verifier -----------------

# agent.conf for guest $1 from template $2 (or built-in keys), bank $3:
# the per-guest keys replace the template's lines of the same name.
agent_conf() {
	local n=$1 tmpl=$2 bank=$3 k

	declare -A set=(
		[verifier_url]="https://$VERIFIER_ADDR:$VERIFIER_PORT"
		[ca_cert]=/etc/imatrust/ca.pem
		[id]="guest$n"
		[bank]="$bank"
		[state_dir]=/var/lib/imatrust-agent
		[log_level]="${IMATRUST_LAB_AGENT_LOG_LEVEL:-info}"
	)
	if [ -n "$tmpl" ]; then
		grep -vE "^[[:space:]]*($(IFS='|'; echo "${!set[*]}"))[[:space:]]*=" "$tmpl" || true
	else
		echo "# imatrust-agent, lab guest $n (deploy/lab/lab.sh guest)"
		echo "tcti = device:/dev/tpmrm0"
		echo "measurement_list = /sys/kernel/security/ima/binary_runtime_measurements"
		echo "heartbeat = 10"
	fi
	for k in verifier_url ca_cert id bank state_dir log_level; do
		echo "$k = ${set[$k]}"
	done
}

# A small ext4 disk image $1 (label $2, UUID $3 or random) holding dir $4.
small_ext4() {
	rm -f "$1"
	truncate -s 64M "$1"
	mkfs.ext4 -q -F -L "$2" ${3:+-U "$3"} ${4:+-d "$4"} "$1" >&2
}

# Boot guest N from the golden image: a qcow2 overlay over its rootfs.ext4
# (vda, mounted read-only), a fresh agent state disk (vdb) and a site disk
# with this guest's agent.conf (vdc), the control channel, reboots allowed.
cmd_guest() {
	local n=${1:-} image='' kernel='' bank=sha256 append='' mem=512 tmpl=''
	local template='' extra='' sign='' firmware=bios g site cmdline f banks=sha1,sha256
	local chain=sdboot

	check_index "$n"
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--image) image=$2 ;;
		--kernel) kernel=$2 ;;
		--bank) bank=$2 ;;
		--append) append=$2 ;;
		--mem) mem=$2 ;;
		--agent-conf) tmpl=$2 ;;
		--template) template=$2 ;;
		--site) extra=$2 ;;
		--sign-site) sign=$2 ;;
		--firmware) firmware=$2 ;;
		--chain) chain=$2 ;;
		*) die "guest: unknown option $1" ;;
		esac
		shift 2 || die "guest: $1 needs a value"
	done
	[ -f "$image/rootfs.ext4" ] || die "guest: --image DIR with rootfs.ext4 required"
	[ -f "$kernel" ] || die "guest: --kernel FILE required"
	if [ -z "$tmpl" ] && [ -f "$LAB_ROOT/deploy/config/agent.conf" ]; then
		tmpl=$LAB_ROOT/deploy/config/agent.conf
	fi
	case "$bank" in
	sha256) cmdline="ima_policy=tcb ima_template=ima-ng ima_hash=sha256" ;;
	sha1) cmdline="ima_policy=tcb ima_template=ima ima_hash=sha1" ;;
	sha384) cmdline="ima_policy=tcb ima_template=ima-ng ima_hash=sha384"
		banks=sha256,sha384 ;;
	*) die "guest: --bank must be sha256, sha1 or sha384" ;;
	esac
	# the kernel keeps the first ima_template=, so replace it here
	# shellcheck disable=SC2001 # [^ ]* has no ${//} spelling
	[ -z "$template" ] ||
		cmdline=$(sed "s/ima_template=[^ ]*/ima_template=$template/" <<<"$cmdline")
	# On a UKI boot systemd 252's pcrphase units extend PCR 11 (sysinit,
	# ready) with no firmware-log event: the verifier's replay of PCR 11
	# would differ from the quote (proto/DESIGN.md section 12). Masked on
	# the UKI's own command line, so the PCR 11 that names the UKI names
	# the mask too.
	if [ "$chain" = shim-uki ]; then
		firmware=uefi
		cmdline+=" systemd.mask=systemd-pcrphase.service"
		cmdline+=" systemd.mask=systemd-pcrphase-sysinit.service"
	fi
	g=$(gdir "$n")
	[ ! -f "$g/qemu.pid" ] || ! kill -0 "$(cat "$g/qemu.pid")" 2>/dev/null ||
		die "guest $n already running"
	rm -rf "$g"
	# disk-*: kept by cmd_start; disk-site.d/agent.conf is what the guest
	# measures as /srv/site/agent.conf.
	site=$g/disk-site.d
	mkdir -p "$site/lab"
	qemu-img create -q -f qcow2 -F raw -b "$(realpath "$image/rootfs.ext4")" \
	    "$g/disk-root.qcow2" >&2
	small_ext4 "$g/disk-state.img" imatrust-state "$STATE_UUID" ""
	agent_conf "$n" "$tmpl" "$bank" >"$site/agent.conf"
	chmod 0644 "$site/agent.conf"
	if [ -n "$extra" ]; then
		[ -d "$extra" ] || die "guest: --site $extra is not a directory"
		cp -a "$extra/." "$site/"
	fi
	if [ -n "$sign" ]; then
		find "$site" -type f -print0 | while IFS= read -r -d '' f; do
			getfattr -h -n security.ima "$f" >/dev/null 2>&1 ||
				evmctl ima_sign --key "$sign" "$f" >/dev/null 2>&1 ||
				die "guest: evmctl ima_sign $f failed"
		done
	fi
	small_ext4 "$g/disk-site.img" imatrust-site "" "$site"
	cmd_start "$n" --kernel "$kernel" --mem "$mem" --control --reboot \
	    --pcr-banks "$banks" --firmware "$firmware" --chain "$chain" --drive "$g/disk-root.qcow2" --drive "$g/disk-state.img" \
	    --drive "$g/disk-site.img" \
	    --append "root=/dev/vda ro rootwait net.ifnames=0 systemd.hostname=guest$n $cmdline $append"
	echo "$bank" >"$g/bank"
}

verifier_pidfile() { echo "$RUN/verifier.pid"; }

# imatrust-verifier -c CONFIG inside the namespace; waits for its port.
cmd_verifier() {
	local sub=${1:-} conf=${2:-} pidf pid

	pidf=$(verifier_pidfile)
	case "$sub" in
	start)
		[ -f "$conf" ] || die "usage: lab.sh verifier start CONFIG"
		[ -x "$VERIFIER_BIN" ] || die "$VERIFIER_BIN not built (make all)"
		ns_exists || die "namespace $NS missing, run 'lab.sh up' first"
		! pid_alive "$pidf" || die "verifier already running ($(cat "$pidf"))"
		mkdir -p "$RUN"
		ip netns exec "$NS" setsid "$VERIFIER_BIN" -c "$(realpath "$conf")" \
		    >>"$RUN/verifier.log" 2>&1 </dev/null &
		pid=$!
		echo "$pid" >"$pidf"
		for _ in $(seq 100); do
			kill -0 "$pid" 2>/dev/null ||
				die "verifier exited: $(tail -n 5 "$RUN/verifier.log")"
			if ip netns exec "$NS" ss -Hltn "sport = :$VERIFIER_PORT" |
			    grep -q .; then
				log "verifier running (pid $pid), log $RUN/verifier.log"
				return 0
			fi
			sleep 0.1
		done
		die "verifier not listening on :$VERIFIER_PORT after 10s"
		;;
	stop) kill_pidfile "$pidf" ;;
	kill)
		if pid_alive "$pidf"; then
			kill -9 "$(cat "$pidf")"
			while pid_alive "$pidf"; do sleep 0.05; done
		fi
		rm -f "$pidf"
		;;
	status)
		if pid_alive "$pidf"; then echo "running $(cat "$pidf")"; else
			echo stopped; return 1; fi
		;;
	*) die "usage: lab.sh verifier start CONFIG|stop|kill|status" ;;
	esac
}

cmd_exec() {
	exec "$LAB_ROOT/deploy/lab/guest-exec" "$@"
}

cmd_wait() {
	local n=${1:-} secs=${2:-} g end

	check_index "$n"
	[[ "$secs" =~ ^[0-9]+$ ]] || die "usage: lab.sh wait N SECONDS"
	g=$(gdir "$n")
	end=$(($(date +%s) + secs))
	while pid_alive "$g/qemu.pid"; do
		if [ "$(date +%s)" -ge "$end" ]; then
			log "guest$n still running after ${secs}s"
			return 1
		fi
		sleep 0.2
	done
	return 0
}

# SIGTERM, then SIGKILL after 3 s, for the process in pid file $1.
kill_pidfile() {
	local f=$1 pid

	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 30); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
}

cmd_stop() {
	local n=${1:-} g

	check_index "$n"
	g=$(gdir "$n")
	kill_pidfile "$g/qemu.pid"
	kill_pidfile "$g/swtpm.pid"
	rm -f "$g/swtpm.sock"
	if ns_exists; then
		ip -n "$NS" link del "tap$n" 2>/dev/null || true
	fi
}

cmd_down() {
	local g pid

	kill_pidfile "$(verifier_pidfile)"
	for g in "$RUN"/guest*; do
		[ -d "$g" ] || continue
		cmd_stop "${g##*/guest}"
	done
	if ns_exists; then
		# Anything still inside the namespace was started by the lab.
		for pid in $(ip netns pids "$NS"); do
			kill -9 "$pid" 2>/dev/null || true
		done
		ip netns del "$NS"
		log "deleted namespace $NS"
	fi
}

cmd_status() {
	local g n

	if ns_exists; then
		echo "namespace $NS: up, verifier address $VERIFIER_ADDR"
	else
		echo "namespace $NS: down"
	fi
	for g in "$RUN"/guest*; do
		[ -d "$g" ] || continue
		n=${g##*/guest}
		printf 'guest%s %s qemu:%s swtpm:%s\n' "$n" "$(guest_addr "$n")" \
		    "$(pid_alive "$g/qemu.pid" && echo running || echo stopped)" \
		    "$(pid_alive "$g/swtpm.pid" && echo running || echo stopped)"
	done
}

main() {
	local cmd=${1:-}

	[ "$(id -u)" = 0 ] || die "the lab needs root (namespaces, taps)"
	if [ $# -gt 0 ]; then shift; fi
	case "$cmd" in
	up) cmd_up ;;
	start) cmd_start "$@" ;;
	wait) cmd_wait "$@" ;;
	stop) cmd_stop "$@" ;;
	down) cmd_down ;;
	status) cmd_status ;;
	ca) cmd_ca ;;
	accel) cmd_accel "$@" ;;
	guest) cmd_guest "$@" ;;
	verifier) cmd_verifier "$@" ;;
	exec) cmd_exec "$@" ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	   exit 2 ;;
	esac
}

main "$@"
