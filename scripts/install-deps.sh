#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are missing.
# Usage: scripts/install-deps.sh PACKAGE...
set -eu
missing=()
for pkg in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing+=("$pkg")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing missing packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	sudo=sudo
else
	sudo=
fi
export DEBIAN_FRONTEND=noninteractive
# Another apt (a second make, unattended upgrades) may hold the locks for a
# while: wait for it rather than fail the build.  `install` waits by itself;
# `update` does not honour the timeout for the lists' lock, so it is retried.
lock=(-o DPkg::Lock::Timeout=600)
tries=0
until err=$($sudo apt-get "${lock[@]}" update -q 2>&1 >/dev/null); do
	tries=$((tries + 1))
	case $err in
	*"Could not get lock"*) [ $tries -lt 120 ] && sleep 5 && continue ;;
	esac
	echo "$err" >&2
	exit 1
done
$sudo apt-get "${lock[@]}" install -y -q --no-install-recommends \
	"${missing[@]}" >/dev/null
