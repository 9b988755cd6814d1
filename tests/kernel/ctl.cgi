#!/bin/sh
# The control channel into the test guest: runs the POSTed shell text and
# answers with its output (stdout and stderr) and a last line "exit=N".
export PATH=/bin
echo "Content-Type: text/plain"
echo
script=/tmp/ctl.$$
head -c "${CONTENT_LENGTH:-0}" >"$script"
sh "$script" 2>&1
echo "exit=$?"
rm -f "$script"
