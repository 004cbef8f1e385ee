# shellcheck shell=bash
# pg.sh - a private PostgreSQL cluster for tests (sourced).
#
#   pg_start DIR [FSYNC]  initdb in DIR (once) and start it: no TCP, one
#                         Unix socket in DIR/run; a role and a database
#                         "imatrust" owned by it; exports PG_URI (libpq
#                         URI), PG_SOCKET, PG_DB, PG_ROLE. FSYNC: on
#                         (default) or off (with synchronous_commit and
#                         full_page_writes off: a crash of the machine
#                         may lose the cluster, which is all a test needs)
#   pg_stop               stop it (pg_ctl stop -m fast); idempotent, safe
#                         in a trap, the data directory stays
#   pg_restart            pg_stop, then start the same data directory
#   pg_cleanup            pg_stop, then remove DIR: for the EXIT trap
#   pg_psql [ARGS...]     psql on the cluster as the imatrust role, with
#                         ON_ERROR_STOP, no ~/.psqlrc, quiet
#   pg_createdb NAME      (again) an empty database NAME owned by the
#                         role, UTF8 and C as the schema asks; prints its
#                         URI (PG_URI with the database NAME)
#   pg_bindir             the directory of initdb, pg_ctl and postgres
#
# initdb and postgres refuse to run as root: as root the cluster belongs
# to PG_OWNER (default: the "postgres" user the Debian package creates,
# else "nobody") and the server runs through setpriv; the directories
# above DIR are made traversable (o+x) for it where they are not. Local
# connections are "trust": only the owner and root can reach the socket
# directory (mode 0700). Logs: DIR/postgres.log.

PG_DIR=
PG_URI=
PG_SOCKET=
PG_DB=imatrust
PG_ROLE=imatrust
PG_OWNER=${PG_OWNER:-}

# pg_bindir: where initdb, pg_ctl and postgres are; non-zero, with the
# reason on stderr, when they are not installed.
pg_bindir() {
	local d cand=()

	# IMATRUST_PG_BINDIR: the one place to look (tests/self hides the
	# server this way to see the PostgreSQL legs fail without it)
	if [ -n "${IMATRUST_PG_BINDIR:-}" ]; then
		cand=("$IMATRUST_PG_BINDIR")
	else
		if command -v pg_config >/dev/null 2>&1; then
			cand+=("$(pg_config --bindir 2>/dev/null)")
		fi
		for d in /usr/lib/postgresql/*/bin; do
			cand+=("$d")
		done
	fi
	for d in "${cand[@]}"; do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] &&
			[ -x "$d/postgres" ]; then
			echo "$d"
			return 0
		fi
	done
	echo "pg.sh: no PostgreSQL server (initdb, pg_ctl, postgres) in" \
		"${cand[*]:-pg_config --bindir or /usr/lib/postgresql/*/bin}:" \
		"run deploy/install-deps.sh (package postgresql)" >&2
	return 1
}

# Run a program as the cluster's owner, from / (the caller's directory
# may be closed to it). setpriv execs (runuser would fork), so a server
# started with it in the background is this shell's child, which
# pg_stop reaps: no zombie is left to an init that does not reap.
pg_as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd / && exec setpriv --reuid="$PG_OWNER" \
			--regid="$(id -g "$PG_OWNER")" --init-groups -- "$@")
	else
		(cd / && exec "$@")
	fi
}

# Let PG_OWNER reach DIR: o+x on each directory above it that lacks it
# (only those; nothing is made readable).
pg_open_path() {
	local d=$1

	while [ "$d" != / ] && [ -n "$d" ]; do
		if ! runuser -u "$PG_OWNER" -- test -x "$d" 2>/dev/null; then
			chmod o+x "$d" || return 1
		fi
		d=$(dirname "$d")
	done
}

# A libpq URI names the socket directory in a query parameter: percent-
# encode what a query may not hold as is.
pg_uri_encode() {
	local s=$1 out='' c i

	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[A-Za-z0-9/._~-]) out+=$c ;;
		*) out+=$(printf '%%%02X' "'$c") ;;
		esac
	done
	printf '%s' "$out"
}

pg_start() {
	local dir=$1 fsync=${2:-on} bin

	case $fsync in
	on | off) ;;
	*)
		echo "pg_start: FSYNC is on or off, not $fsync" >&2
		return 1
		;;
	esac
	bin=$(pg_bindir) || return 1
	mkdir -p "$dir" || return 1
	PG_DIR=$(cd "$dir" && pwd)
	PG_SOCKET=$PG_DIR/run
	PG_BIN=$bin
	if [ "$(id -u)" -eq 0 ]; then
		if [ -z "$PG_OWNER" ]; then
			PG_OWNER=nobody
			id postgres >/dev/null 2>&1 && PG_OWNER=postgres
		fi
		pg_open_path "$(dirname "$PG_DIR")" || return 1
	else
		PG_OWNER=$(id -un)
	fi
	if [ ! -f "$PG_DIR/data/PG_VERSION" ]; then
		pg_init "$fsync" || return 1
	fi
	pg_ctl_start || return 1
	PG_URI="postgresql:///$PG_DB?host=$(pg_uri_encode "$PG_SOCKET")&user=$PG_ROLE"
	export PG_URI PG_SOCKET PG_DB PG_ROLE
	pg_bootstrap
}

# initdb, then the settings of a test cluster appended to its
# postgresql.conf (the later line wins).
pg_init() {
	local fsync=$1 sync=on

	[ "$fsync" = off ] && sync=off
	mkdir -p "$PG_DIR/data" "$PG_SOCKET" || return 1
	: >"$PG_DIR/postgres.log"
	if [ "$(id -u)" -eq 0 ]; then
		chown -R "$PG_OWNER:" "$PG_DIR" || return 1
	fi
	chmod 0700 "$PG_DIR" "$PG_DIR/data" "$PG_SOCKET"
	# UTF8 and the C collation: what db/schema/pg/0012_baseline.sql asks
	pg_as_owner "$PG_BIN/initdb" -D "$PG_DIR/data" --auth=trust \
		--encoding=UTF8 --locale=C --no-instructions \
		-U postgres >>"$PG_DIR/postgres.log" 2>&1 || {
		echo "pg_start: initdb failed ($PG_DIR/postgres.log)" >&2
		return 1
	}
	pg_as_owner tee -a "$PG_DIR/data/postgresql.conf" >/dev/null <<EOC

# tests/lib/pg.sh
listen_addresses = ''
unix_socket_directories = '$PG_SOCKET'
unix_socket_permissions = 0700
max_connections = 40
shared_buffers = 32MB
fsync = $fsync
synchronous_commit = $sync
full_page_writes = $sync
log_min_messages = warning
log_line_prefix = '%m [%p] '
EOC
}

# The postmaster as this shell's child (PG_PID); ready when it accepts
# connections on its socket, within 30 s.
PG_PID=
pg_ctl_start() {
	local n=150

	pg_as_owner "$PG_BIN/postgres" -D "$PG_DIR/data" \
		>>"$PG_DIR/postgres.log" 2>&1 &
	PG_PID=$!
	while ! "$PG_BIN/pg_isready" -q -h "$PG_SOCKET" -U postgres \
		-d postgres; do
		n=$((n - 1))
		if [ "$n" -eq 0 ] || ! kill -0 "$PG_PID" 2>/dev/null; then
			echo "pg_start: postgres did not start" \
				"($PG_DIR/postgres.log)" >&2
			pg_stop
			return 1
		fi
		sleep 0.2
	done
}

# The role and the database, once: PG_URI connects as that role.
pg_bootstrap() {
	local su=(psql -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -U postgres
		-d postgres)

	if [ "$("${su[@]}" -At -c \
		"SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")" = 1 ]; then
		return 0
	fi
	"${su[@]}" -c "CREATE ROLE $PG_ROLE LOGIN" \
		-c "CREATE DATABASE $PG_DB OWNER $PG_ROLE ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" ||
		{
			echo "pg_start: role or database not created" >&2
			return 1
		}
}

pg_stop() {
	[ -n "$PG_PID" ] || return 0
	if [ -f "$PG_DIR/data/postmaster.pid" ]; then
		pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w \
			-t 30 stop >/dev/null 2>&1
	fi
	# the server this shell started must not outlive the test
	kill -KILL "$PG_PID" 2>/dev/null
	wait "$PG_PID" 2>/dev/null
	PG_PID=
	return 0
}

pg_restart() {
	[ -n "$PG_DIR" ] || {
		echo "pg_restart: no cluster started" >&2
		return 1
	}
	pg_stop
	pg_ctl_start
}

pg_cleanup() {
	[ -n "$PG_DIR" ] || return 0
	pg_stop
	rm -rf "$PG_DIR"
	PG_DIR=
}

pg_psql() {
	psql -X -q -v ON_ERROR_STOP=1 "$PG_URI" "$@"
}

pg_createdb() {
	local name=$1

	case $name in
	'' | *[!a-z0-9_]*)
		echo "pg_createdb: a name of [a-z0-9_], not '$name'" >&2
		return 1
		;;
	esac
	psql -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -U postgres -d postgres \
		-c "SET client_min_messages = warning" \
		-c "DROP DATABASE IF EXISTS $name" \
		-c "CREATE DATABASE $name OWNER $PG_ROLE ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" ||
		return 1
	printf '%s\n' "${PG_URI/\/\/\/$PG_DB\?/\/\/\/$name?}"
}
