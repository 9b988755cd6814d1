# Sourced (bash) by the shell-driven suites: counts checks and prints
# "ok   NAME" or "FAIL NAME: DETAIL" for each; the suite prints its own
# "NAME: $pass passed, $fail failed" line at the end.
pass=0
fail=0
check() { # NAME STATUS [DETAIL]
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok   $1"
	else
		fail=$((fail + 1))
		echo "FAIL $1${3:+: $3}"
	fi
}
