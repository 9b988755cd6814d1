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
$sudo apt-get update -q >/dev/null
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
