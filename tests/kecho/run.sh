#!/usr/bin/env bash
# The echo test on the host: user-echo-server echoes correct bytes to 200
# concurrent clients (1 byte to 64 KiB messages, split writes), exits 0 on
# SIGTERM with clients connected, and refuses bad flags; echo-bench itself
# notices a wrong echo.  The same echo test runs against kecho.ko in the
# kernel suite (tests/kernel/kecho.py).  Prints "echo: N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
server=$BUILD/user-echo-server
bench=$BUILD/echo-bench
work=$(mktemp -d /tmp/echo-test.XXXXXX)
pids=()
. tests/checks.sh
finish() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$work"
	echo "echo: $pass passed, $fail failed"
}
trap finish EXIT

# wait_line FILE PATTERN: up to 5 s for a line matching PATTERN in FILE.
wait_line() {
	for _ in $(seq 50); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

"$server" -p 0 -t 2 >"$work/server.out" 2>&1 &
spid=$!
pids+=("$spid")
wait_line "$work/server.out" 'listening on'
port=$(sed -n 's/.* port \([0-9]*\),.*/\1/p' "$work/server.out")
check "user-echo-server starts and names its port" $((${#port} == 0))

timeout 60 "$bench" -c 1,200 -s 1,1000,65536 --split 3 -r 3 \
	"127.0.0.1:$port" >"$work/bench.out" 2>&1
rc=$?
check "200 concurrent clients get their exact bytes back" $rc \
	"$(tail -n 5 "$work/bench.out")"
rows=$(grep -cE '^ +(1|200) +(1|1000|65536) +[0-9]+ ' "$work/bench.out")
check "a row per level and size (6)" $((rows != 6)) "$rows rows"

timeout 20 "$bench" --hold 100 --seconds 10 "127.0.0.1:$port" \
	>"$work/hold.out" 2>&1 &
hpid=$!
wait_line "$work/hold.out" 'holding 100 connections'
check "100 idle connections held" $?
kill -TERM "$spid"
wait "$spid"
check "SIGTERM with clients connected: exit status 0" $?
wait "$hpid"
check "every held connection closed when the server exits" $? \
	"$(cat "$work/hold.out")"

"$server" --port nope >"$work/flag.out" 2>&1
rc=$?
grep -q "invalid port 'nope'" "$work/flag.out"
check "a bad --port: exit 2 and a message" $(($? != 0 || rc != 2))
"$bench" --clients 0 1 >"$work/flag.out" 2>&1
rc=$?
grep -q "invalid client list '0'" "$work/flag.out"
check "a bad --clients: exit 2 and a message" $(($? != 0 || rc != 2))

# The checker checks: one wrong byte in 1,000 must fail the run.
python3 tests/kecho/bad_echo.py >"$work/bad.out" 2>&1 &
pids+=("$!")
wait_line "$work/bad.out" '^[0-9]'
bad_port=$(head -n 1 "$work/bad.out")
timeout 30 "$bench" -c 5 -s 4000 -r 2 "127.0.0.1:$bad_port" \
	>"$work/badbench.out" 2>&1
rc=$?
grep -q 'echo differs' "$work/badbench.out"
check "echo-bench fails on a wrong echo" $(($? != 0 || rc != 1)) \
	"exit $rc"
[ "$fail" -eq 0 ]
