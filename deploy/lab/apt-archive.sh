#!/bin/bash
# Local apt archives for the lab fleet (issue 11: a real upgrade).
#
#   apt-archive.sh build              build (or take from the cache) the
#                                     archives; prints their directory
#   apt-archive.sh serve DIR [PORT]   serve DIR over HTTP on 10.77.0.1:PORT
#                                     (default 8080) inside the lab namespace
#   apt-archive.sh stop               stop that server
#   apt-archive.sh sources [PORT]     the sources.list lines a guest uses
#
# The archives, in $CACHE/lab/apt-<key>/ (<key>: this script's sha256 and
# the compiler's version), both flat repositories (`deb URL ./`) with
# Packages, Packages.xz and an unsigned Release (guests use [trusted=yes]):
#
#   hello/  imatrust-lab-hello 1.0 and 1.1: /usr/bin/imatrust-lab-hello (a
#           small compiled program that prints its version and the greeting
#           of its conffile), the conffile /etc/imatrust-lab-hello.conf
#           (another greeting in 1.1), a postinst (dpkg runs it from
#           /var/lib/dpkg/info: the guest measures it) and a copyright file
#   rogue/  imatrust-lab-rogue 1.0: /usr/bin/imatrust-lab-rogue; the fleet
#           test never imports this archive
#
# Packages are made with `dpkg-deb --build` (root:root, SOURCE_DATE_EPOCH
# fixed) and indexed with `dpkg-scanpackages --multiversion`; equal inputs
# give equal bytes. Environment as lab.sh (IMATRUST_CACHE, IMATRUST_LAB_NS,
# IMATRUST_LAB_RUN). Needs gcc, dpkg-dev, xz-utils, python3 (serve).
set -euo pipefail

readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly NS="${IMATRUST_LAB_NS:-imatrust-lab}"
readonly RUN="${IMATRUST_LAB_RUN:-$CACHE/lab/run/$NS}"
readonly ADDR=10.77.0.1
readonly ARCH=amd64
# 2024-01-01: package and Release dates (in the past for any guest clock).
export SOURCE_DATE_EPOCH=1704067200

log() { printf '[apt-archive] %s\n' "$*" >&2; }
die() { printf '[apt-archive] error: %s\n' "$*" >&2; exit 1; }

sha() { sha256sum "$@" | cut -d' ' -f1; }

archive_key() {
	{ sha "${BASH_SOURCE[0]}"; gcc --version | head -n 1; } | sha | cut -c1-16
}

# The program of both packages: its name and version, then the conffile.
write_source() {
	cat >"$1" <<'EOF'
#include <stdio.h>

int main(void)
{
	char line[256];
	FILE *f;

	printf("%s %s\n", PKG_NAME, PKG_VERSION);
	f = fopen(PKG_CONF, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	fclose(f);
	return 0;
}
EOF
}

# make_deb OUTDIR NAME VERSION GREETING|-: one package, built in a
# scratch tree; GREETING - means no conffile and no postinst.
make_deb() {
	local out=$1 name=$2 ver=$3 greeting=$4 t conf

	t=$(mktemp -d)
	conf=/etc/$name.conf
	mkdir -p "$t/pkg/DEBIAN" "$t/pkg/usr/bin" "$t/pkg/usr/share/doc/$name"
	write_source "$t/prog.c"
	gcc -O2 -Wall -Werror -DPKG_NAME="\"$name\"" -DPKG_VERSION="\"$ver\"" \
	    -DPKG_CONF="\"$conf\"" -ffile-prefix-map="$t"=. \
	    -o "$t/pkg/usr/bin/$name" "$t/prog.c"
	strip "$t/pkg/usr/bin/$name"
	printf 'imatrust lab package %s, for tests only.\n' "$name" \
	    >"$t/pkg/usr/share/doc/$name/copyright"
	if [ "$greeting" != - ]; then
		mkdir -p "$t/pkg/etc"
		printf 'greeting = %s\n' "$greeting" >"$t/pkg$conf"
		echo "$conf" >"$t/pkg/DEBIAN/conffiles"
		printf '#!/bin/sh\nset -e\n# imatrust lab: a maintainer script the guest runs\nexit 0\n' \
		    >"$t/pkg/DEBIAN/postinst"
		chmod 0755 "$t/pkg/DEBIAN/postinst"
	fi
	cat >"$t/pkg/DEBIAN/control" <<-EOF
	Package: $name
	Version: $ver
	Architecture: $ARCH
	Maintainer: imatrust lab <lab@imatrust.invalid>
	Depends: libc6
	Section: misc
	Priority: optional
	Description: imatrust lab test package $name
	 A small program for the imatrust fleet tests (deploy/lab/apt-archive.sh).
	EOF
	find "$t/pkg" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	chmod -R u=rwX,go=rX "$t/pkg"
	[ "$greeting" = - ] || chmod 0755 "$t/pkg/DEBIAN/postinst"
	chmod 0755 "$t/pkg/usr/bin/$name"
	dpkg-deb --root-owner-group -Zxz --build "$t/pkg" \
	    "$out/${name}_${ver}_$ARCH.deb" >/dev/null
	rm -rf "$t"
}

# Packages, Packages.xz and an unsigned Release for the flat archive $1.
index_archive() {
	local d=$1 f

	(cd "$d" && dpkg-scanpackages --multiversion . /dev/null \
	    2>/dev/null >Packages)
	xz -9 -k -c "$d/Packages" >"$d/Packages.xz"
	{
		echo "Origin: imatrust-lab"
		echo "Label: imatrust-lab $(basename "$d")"
		echo "Suite: lab"
		echo "Codename: lab"
		echo "Date: $(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%a, %d %b %Y %H:%M:%S UTC')"
		echo "Architectures: $ARCH"
		echo "SHA256:"
		for f in Packages Packages.xz; do
			printf ' %s %s %s\n' "$(sha "$d/$f")" \
			    "$(stat -c %s "$d/$f")" "$f"
		done
	} >"$d/Release"
}

cmd_build() {
	local key dir t

	for t in gcc dpkg-deb dpkg-scanpackages xz; do
		command -v "$t" >/dev/null || die "missing $t (deploy/install-deps.sh)"
	done
	key=$(archive_key)
	dir=$CACHE/lab/apt-$key
	if [ -f "$dir/done" ]; then
		log "cache hit apt-$key"
		echo "$dir"
		return
	fi
	t=$(mktemp -d "$CACHE/lab/apt-tmp.XXXXXX")
	chmod 0755 "$t"
	mkdir -p "$t/hello" "$t/rogue"
	make_deb "$t/hello" imatrust-lab-hello 1.0 "hello from 1.0"
	make_deb "$t/hello" imatrust-lab-hello 1.1 "hello from 1.1"
	make_deb "$t/rogue" imatrust-lab-rogue 1.0 -
	index_archive "$t/hello"
	index_archive "$t/rogue"
	touch "$t/done"
	rm -rf "$dir"
	mv "$t" "$dir"
	log "archives built: $dir (hello: $(grep -c '^Package:' "$dir/hello/Packages") packages, rogue: $(grep -c '^Package:' "$dir/rogue/Packages"))"
	echo "$dir"
}

pidfile() { echo "$RUN/apt-http.pid"; }

cmd_serve() {
	local dir=${1:-} port=${2:-8080} pid

	[ -d "$dir" ] || die "usage: apt-archive.sh serve DIR [PORT]"
	ip netns list | grep -qw -- "^$NS" || die "namespace $NS missing (lab.sh up)"
	cmd_stop
	mkdir -p "$RUN"
	ip netns exec "$NS" setsid python3 -m http.server --bind "$ADDR" \
	    --directory "$(realpath "$dir")" "$port" \
	    >>"$RUN/apt-http.log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$(pidfile)"
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null ||
			die "http server exited: $(tail -n 3 "$RUN/apt-http.log")"
		if ip netns exec "$NS" ss -Hltn "sport = :$port" | grep -q .; then
			log "serving $dir on http://$ADDR:$port/ (pid $pid)"
			return 0
		fi
		sleep 0.1
	done
	die "http server did not listen on $ADDR:$port"
}

cmd_stop() {
	local f pid

	f=$(pidfile)
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	kill "$pid" 2>/dev/null || true
	rm -f "$f"
}

cmd_sources() {
	local port=${1:-8080} a

	for a in hello rogue; do
		echo "deb [trusted=yes] http://$ADDR:$port/$a ./"
	done
}

case "${1:-}" in
build) cmd_build ;;
serve) shift; cmd_serve "$@" ;;
stop) cmd_stop ;;
sources) shift; cmd_sources "$@" ;;
*) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
   exit 2 ;;
esac
