#!/usr/bin/env bash
# `make install` and `make uninstall` into a scratch DESTDIR, the man page
# against --help (the same long options, in the same order) and as the
# option table writes it, the page renders without groff warnings, the
# systemd units are complete, and LICENSE covers every SPDX identifier in
# the tree.
# Prints "install: N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
work=$(mktemp -d /tmp/install-test.XXXXXX)
. tests/checks.sh
finish() {
	rm -rf "$work"
	echo "install: $pass passed, $fail failed"
}
trap finish EXIT

dest=$work/root
"$MAKE" --no-print-directory -s BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr \
	install >"$work/install.log" 2>&1
check "make install DESTDIR=... PREFIX=/usr" $? "$(tail -n 5 "$work/install.log")"
missing=
for f in usr/bin/sehttpd usr/bin/htstress usr/share/man/man1/sehttpd.1 \
	usr/lib/systemd/system/sehttpd.service \
	usr/lib/systemd/system/sehttpd.socket usr/share/doc/sehttpd/LICENSE \
	usr/share/doc/sehttpd/GPL-2.0; do
	[ -f "$dest/$f" ] || missing="$missing $f"
done
check "every file installed" $((${#missing} > 0)) "missing:$missing"
[ -x "$dest/usr/bin/sehttpd" ] && [ ! -x "$dest/usr/share/man/man1/sehttpd.1" ]
check "programs executable, the rest not" $?
out=$("$dest/usr/bin/sehttpd" --version 2>&1)
[[ $out == "sehttpd "* ]]
check "the installed sehttpd runs" $? "$out"
grep -q '^ExecStart=/usr/bin/sehttpd ' \
	"$dest/usr/lib/systemd/system/sehttpd.service" &&
	! grep -q '@BINDIR@' "$dest/usr/lib/systemd/system/sehttpd.service"
check "the service unit names the installed binary" $?
if command -v systemd-analyze >/dev/null; then
	# verify resolves ExecStart on the real root: point it at the copy.
	sed "s|/usr/bin/sehttpd|$dest/usr/bin/sehttpd|" \
		"$dest/usr/lib/systemd/system/sehttpd.service" \
		>"$work/sehttpd.service"
	cp "$dest/usr/lib/systemd/system/sehttpd.socket" "$work/"
	out=$(cd "$work" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify \
		--man=no ./sehttpd.socket ./sehttpd.service 2>&1 |
		grep -v -e 'Failed to .*bus' -e 'Operation not permitted')
	check "systemd-analyze verify finds nothing in the units" \
		$((${#out} > 0)) "$out"
fi

# Each option's line in --help starts with it (after any short form).
help_opts=$("$BUILD/sehttpd" --help |
	sed -nE 's/^  (-[a-zA-Z], )? *(--[a-z][a-z-]*).*/\2/p')
# Each option's tag: the line after .TP, its long name.
man_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' doc/sehttpd.1 |
	awk '/^\.TP/ { getline; print }' |
	grep -oE -- '\\-\\-[a-z][a-z\\-]*' | sed 's/\\//g' | uniq)
[ "$help_opts" = "$man_opts" ]
check "sehttpd(1) documents the options of --help, in order" $? \
	"$(diff <(echo "$help_opts") <(echo "$man_opts") | tr '\n' ' ')"
# The section is written from the option table: `make man` after a change.
out=$("$BUILD/man-options" <doc/sehttpd.1 | diff doc/sehttpd.1 - | head -n 8)
check "sehttpd(1)'s OPTIONS are the option table's (make man)" \
	$((${#out} > 0)) "$out"
if command -v groff >/dev/null; then
	out=$(groff -man -ww -z doc/sehttpd.1 2>&1)
	check "sehttpd(1) renders without warnings" $((${#out} > 0)) "$out"
fi

ids=$(git ls-files | xargs grep -ho 'SPDX-License-Identifier: [A-Za-z0-9.+-]*' 2>/dev/null |
	awk '{print $2}' | sort -u)
uncovered=
for id in $ids; do
	grep -q "$id" LICENSE || uncovered="$uncovered $id"
done
check "LICENSE covers every SPDX identifier ($(echo $ids))" \
	$((${#uncovered} > 0)) "not in LICENSE:$uncovered"

"$MAKE" --no-print-directory -s BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr \
	uninstall >"$work/uninstall.log" 2>&1
left=$(find "$dest" -type f | sed "s|^$dest/||")
check "make uninstall removes every installed file" $((${#left} > 0)) "$left"
[ "$fail" -eq 0 ]
