#!/usr/bin/env bash
# test_man.sh - the manual pages (TAP): imatrust-verifier.conf(5) is what
# deploy/man/gen-conf-man.sh makes of `imatrust-verifier -H` today, every
# page renders without a groff warning, imatrust(1) names every command
# `imatrust help` lists, imatrust-verifier(8) lists the keys SIGHUP takes,
# and `make install` puts programs, pages and units
# under PREFIX in DESTDIR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
root=$(cd "$here/../.." && pwd)

skip_without groff make

pages=(verifier/imatrust.1 verifier/imatrust-verifier.8
	verifier/imatrust-verifier.conf.5 agent/imatrust-agent.8
	agent/imatrust-agent.conf.5)

"$root/deploy/man/gen-conf-man.sh" "$bin/imatrust-verifier" >"$tmp/conf.5"
if diff -u "$root/verifier/imatrust-verifier.conf.5" "$tmp/conf.5" >"$tmp/diff"; then
	ok "imatrust-verifier.conf.5 matches imatrust-verifier -H"
else
	not_ok "imatrust-verifier.conf.5 matches imatrust-verifier -H (run deploy/man/gen-conf-man.sh)" "$tmp/diff"
fi
"$bin/imatrust-verifier" -H | grep -v $'^\t' | sed 's/ = .*//' >"$tmp/keys"
missing=$(while read -r k; do grep -q "^\.BR $k " "$root/verifier/imatrust-verifier.conf.5" || echo "$k"; done <"$tmp/keys")
[ -z "$missing" ] && [ -s "$tmp/keys" ] && ok "every verifier key has an entry" ||
	not_ok "every verifier key has an entry: missing $missing"
# the keys -H marks as taken on SIGHUP: exactly those imatrust-verifier(8)
# names in SIGNALS (as ".BR key" words before "Any other key")
"$bin/imatrust-verifier" -H | awk '/^[a-z_]+ = / { k = $1 }
	/taken again on SIGHUP$/ { print k }' | sort >"$tmp/reload-keys"
sed -n '/^\.SH SIGNALS/,/^Any other key/p' "$root/verifier/imatrust-verifier.8" |
	sed -n 's/^\.BR //p' | tr -d '",' | tr ' ' '\n' | sed 's/\\-/-/g' |
	grep -E '^[a-z_]+$' | sort -u >"$tmp/reload-doc"
if [ -s "$tmp/reload-keys" ] &&
	diff -u "$tmp/reload-keys" "$tmp/reload-doc" >"$tmp/diff"; then
	ok "imatrust-verifier(8) SIGNALS names the keys SIGHUP takes, no other"
else
	not_ok "imatrust-verifier(8) SIGNALS names the keys SIGHUP takes, no other" "$tmp/diff"
fi
"$bin/imatrust-agent" -H | grep -v $'^\t' | sed 's/ = .*//' >"$tmp/agent-keys"
missing=$(while read -r k; do grep -q "^\.BR $k " "$root/agent/imatrust-agent.conf.5" || echo "$k"; done <"$tmp/agent-keys")
[ -z "$missing" ] && [ -s "$tmp/agent-keys" ] && ok "every agent key has an entry" ||
	not_ok "every agent key has an entry: missing $missing"

for p in "${pages[@]}"; do
	if LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$root/$p" >"$tmp/groff" 2>&1 &&
		[ ! -s "$tmp/groff" ]; then
		ok "$p renders without warnings"
	else
		not_ok "$p renders without warnings" "$tmp/groff"
	fi
done

"$bin/imatrust" help | awk '/^  [a-z]/ { print $1 }' >"$tmp/commands"
missing=$(while read -r c; do grep -qE "^\.BI? \"?$c( |\"|\\\\|$)" "$root/verifier/imatrust.1" || echo "$c"; done <"$tmp/commands")
[ -z "$missing" ] && [ -s "$tmp/commands" ] && ok "imatrust(1) names every command of imatrust help" ||
	not_ok "imatrust(1) names every command: missing $missing"

if make -s -C "$root" install BUILD="$(dirname "$bin")" DESTDIR="$tmp/stage" \
	PREFIX=/usr >"$tmp/install" 2>&1; then
	ok "make install DESTDIR PREFIX=/usr"
else
	not_ok "make install DESTDIR PREFIX=/usr" "$tmp/install"
fi
for f in usr/bin/imatrust usr/sbin/imatrust-verifier usr/sbin/imatrust-agent \
	usr/share/man/man1/imatrust.1 usr/share/man/man5/imatrust-verifier.conf.5 \
	usr/share/man/man5/imatrust-agent.conf.5 usr/share/man/man8/imatrust-verifier.8 \
	usr/share/man/man8/imatrust-agent.8 \
	usr/lib/systemd/system/imatrust-verifier.service \
	usr/lib/systemd/system/imatrust-agent.service; do
	[ -f "$tmp/stage/$f" ] && ok "installed $f" || not_ok "installed $f"
done
[ -x "$tmp/stage/usr/sbin/imatrust-verifier" ] && "$tmp/stage/usr/bin/imatrust" version |
	grep -q '^imatrust ' && ok "the installed imatrust runs" || not_ok "the installed imatrust runs"

echo "1..$n"
