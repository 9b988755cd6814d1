#!/usr/bin/env bash
# Compares htstress with wrk on the same target: Debian's nginx serving a
# 12-byte file on a loopback port, pinned to CPU 1, the client on CPU 0.
# Prints, per round and tool, requests/s and the client's own CPU time per
# request (user + system, from /proc), for keep-alive and for a new
# connection per request.
# Usage: tools/htstress/bench-vs-wrk.sh [HTSTRESS] [ROUNDS] [SECONDS]
set -eu
hts=$(realpath "${1:-build/htstress}")
rounds=${2:-3}
secs=${3:-4}
port=${PORT:-18181}
conns=${CONNS:-50}
dir=$(mktemp -d /tmp/htstress-bench.XXXXXX)
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null; sleep 0.2; rm -rf "$dir"' EXIT

chmod 755 "$dir" # nginx workers run as nobody
mkdir -p "$dir/www"
printf 'hello world\n' >"$dir/www/index.html"
cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 100000000;
	client_body_temp_path $dir/tmp;
	proxy_temp_path $dir/tmp;
	fastcgi_temp_path $dir/tmp;
	uwsgi_temp_path $dir/tmp;
	scgi_temp_path $dir/tmp;
	server { listen 127.0.0.1:$port; root $dir/www; }
}
CONF
taskset -c 1 nginx -c "$dir/nginx.conf" -p "$dir"
sleep 0.3
url=http://127.0.0.1:$port/

# CPU seconds (user + system) of a finished child, from wait4 via GNU time.
measure() {
	local out
	out=$( { /usr/bin/time -f 'CPU %U %S' taskset -c 0 "$@" ; } 2>&1 )
	echo "$out"
}

run() { # name keepalive
	local name=$1 ka=$2 out rps cpu
	if [ "$name" = wrk ]; then
		if [ "$ka" = 1 ]; then
			out=$(measure timeout $((secs + 10)) wrk -t1 -c"$conns" -d"${secs}s" "$url")
		else
			out=$(measure timeout $((secs + 10)) wrk -t1 -c"$conns" -d"${secs}s" -H 'Connection: close' "$url")
		fi
		rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
		reqs=$(awk '/requests in/ {print $1}' <<<"$out")
		grep -q 'Non-2xx' <<<"$out" && echo "  wrk saw failures: $out"
	else
		local k=
		[ "$ka" = 1 ] && k=-k
		out=$(measure timeout $((secs + 10)) "$hts" $k -c "$conns" -d "$secs" --json "$url")
		rps=$(grep -o '"rps": [0-9.]*' <<<"$out" | awk '{print $2}')
		reqs=$(grep -o '"requests": [0-9]*' <<<"$out" | awk '{print $2}')
		grep -q '"good": '"$reqs"',' <<<"$out" ||
			echo "  htstress saw failures: $out"
	fi
	cpu=$(awk '/^CPU/ {print $2 + $3}' <<<"$out")
	printf '%-9s %-10s %10.0f req/s  client %5.2f us CPU/request\n' \
		"$name" "$([ "$ka" = 1 ] && echo keep-alive || echo close)" \
		"$rps" "$(awk -v c="$cpu" -v n="$reqs" 'BEGIN {print c * 1e6 / n}')"
}

for r in $(seq "$rounds"); do
	echo "round $r"
	for ka in 1 0; do
		run wrk $ka
		run htstress $ka
	done
done
