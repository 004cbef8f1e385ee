# shellcheck shell=bash
# haproxy.sh - HAProxy in front of test backends, on loopback (sourced).
#
#   haproxy_start DIR FRONT BACKEND...  HAProxy in mode tcp (TLS passed
#                         through) listening on FRONT (127.0.0.1:PORT)
#                         and spreading connections over the BACKENDs
#                         (HOST:PORT, loopback); its config and log in
#                         DIR; returns once FRONT accepts connections
#                         (within 10 s), non-zero with the reason if not.
#                         Sets HAPROXY_PID.
#   haproxy_stop          stops it; idempotent, safe in a trap
#
# Environment: HAPROXY_MAXCONN (1000: connections at once),
# HAPROXY_BALANCE (roundrobin; leastconn as in
# deploy/haproxy/haproxy.cfg.example), HAPROXY_CHECK: tcp (default: a TCP
# connect) or https (GET /v1/health over TLS, certificate not verified,
# as the example does against a verifier). Checks every 500 ms, down
# after 2 failures, up after 1 success; a server marked down has its
# sessions shut. It runs in the foreground (-db) as this shell's child:
# no daemon, no pid file, no chroot.

HAPROXY_PID=

# Only loopback addresses: a test never listens on or connects to more.
haproxy_loopback() {
	case $1 in
	127.*:[0-9]* | '[::1]':[0-9]*) return 0 ;;
	esac
	echo "haproxy.sh: $1 is not a loopback HOST:PORT" >&2
	return 1
}

haproxy_config() {	# haproxy_config FRONT BACKEND...
	local front=$1 check i=0 b

	shift
	case ${HAPROXY_CHECK:-tcp} in
	tcp) check="check" ;;
	https) check="check check-ssl verify none" ;;
	*)
		echo "haproxy.sh: HAPROXY_CHECK is tcp or https" >&2
		return 1
		;;
	esac
	cat <<EOC
global
	log stderr format short local0 info
	maxconn ${HAPROXY_MAXCONN:-1000}

defaults
	mode tcp
	log global
	option tcplog
	timeout connect 2s
	timeout client 30s
	timeout server 30s
	retries 1
	option redispatch

frontend front
	bind $front
	default_backend backends

backend backends
	balance ${HAPROXY_BALANCE:-roundrobin}
EOC
	if [ "${HAPROXY_CHECK:-tcp}" = https ]; then
		printf '\toption httpchk GET /v1/health\n'
		printf '\thttp-check expect status 200\n'
	fi
	printf '\tdefault-server %s inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions\n' \
		"$check"
	for b in "$@"; do
		i=$((i + 1))
		printf '\tserver b%d %s\n' "$i" "$b"
	done
}

# Does HOST:PORT accept a TCP connection?
haproxy_listens() {
	local host=${1%:*} port=${1##*:}

	host=${host#[}
	host=${host%]}
	(exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

haproxy_start() {
	local dir=$1 front=$2 b n=50

	shift 2
	command -v haproxy >/dev/null || {
		echo "haproxy.sh: haproxy not installed (deploy/install-deps.sh)" >&2
		return 1
	}
	[ $# -gt 0 ] || {
		echo "haproxy.sh: no backend" >&2
		return 1
	}
	for b in "$front" "$@"; do
		haproxy_loopback "$b" || return 1
	done
	mkdir -p "$dir" || return 1
	haproxy_config "$front" "$@" >"$dir/haproxy.cfg" || return 1
	haproxy -c -q -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 || {
		echo "haproxy.sh: bad configuration ($dir/haproxy.log)" >&2
		return 1
	}
	haproxy -db -f "$dir/haproxy.cfg" >>"$dir/haproxy.log" 2>&1 &
	HAPROXY_PID=$!
	while ! haproxy_listens "$front"; do
		n=$((n - 1))
		if [ "$n" -eq 0 ] || ! kill -0 "$HAPROXY_PID" 2>/dev/null; then
			echo "haproxy.sh: not listening on $front" \
				"($dir/haproxy.log)" >&2
			haproxy_stop
			return 1
		fi
		sleep 0.2
	done
}

haproxy_stop() {
	[ -n "$HAPROXY_PID" ] || return 0
	kill "$HAPROXY_PID" 2>/dev/null
	wait "$HAPROXY_PID" 2>/dev/null
	HAPROXY_PID=
	return 0
}
