#!/usr/bin/env bash
# Runs the browser suite with Debian's interpreter when there is one.
cd "$(dirname "$0")" || exit 1
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" run.py "$@"
