#!/usr/bin/env bash
# scripts/record-kmem-trace: records one second of this machine's kmem
# events and `slublab replay` reads the result; an interrupted recording
# still disables its events and removes its tracefs instance.  Where the
# script cannot trace (not root, no tracefs) the checks are skipped, not
# passed.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
rec=$root/scripts/record-kmem-trace

"$rec" >"$TMP/out" 2>"$TMP/err"
check "no arguments: exit 2" test $? -eq 2
"$rec" 0 "$TMP/x" >"$TMP/out" 2>"$TMP/err"
check "0 seconds: exit 2" test $? -eq 2
"$rec" 1s "$TMP/x" >"$TMP/out" 2>"$TMP/err"
check "bad seconds: exit 2" test $? -eq 2

# where tracefs is (or is not) mounted before, and instances left behind
tracefs_state() { grep -c ' tracefs ' /proc/mounts || true; }
leftovers() {
    for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
        [ -d "$d/instances" ] && ls -d "$d"/instances/slublab-* 2>/dev/null
    done | wc -l
}

if [ "$(id -u)" -ne 0 ]; then
    skip "recording needs root"
    finish
    exit
fi
before=$(tracefs_state)
"$rec" 1 "$TMP/t.txt.gz" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ "$st" -eq 1 ] && grep -qE 'cannot mount tracefs|no kmem:' "$TMP/err"; then
    skip "tracing is not possible here: $(head -1 "$TMP/err")"
    finish
    exit
fi
check "record 1 s: exit 0" test "$st" -eq 0
check "record 1 s: gzip written" gzip -t "$TMP/t.txt.gz"
check "record: tracefs mounts as before" test "$(tracefs_state)" = "$before"
check "record: no instance left" test "$(leftovers)" = 0
sl replay "$TMP/t.txt.gz" # validated replays: tests/cli/replay.sh (a busy second is 100k events)
check "replay of the recording: exit 0" test "$status" -eq 0
check "replay: names this kernel" grep -q "from Linux $(uname -r)" "$TMP/out"
check "replay: CPUs from the header" grep -q '(from the #P: header)' "$TMP/out"
check "replay: events replayed" grep -qE '^replayed [1-9][0-9]* operations' "$TMP/out"
check "replay: no engine failure" not grep -qE 'simulated failures|misuse|rejected' "$TMP/out"
check "replay: no unreadable line" not grep -q 'unreadable' "$TMP/out"

# interrupted (SIGTERM: a background job of a script ignores SIGINT): the
# trap disables the events and removes the instance
"$rec" 30 "$TMP/i.txt" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 50); do grep -q recording "$TMP/err" && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"
st=$?
check "interrupted: exit 143" test "$st" -eq 143
check "interrupted: no instance left" test "$(leftovers)" = 0
check "interrupted: tracefs mounts as before" test "$(tracefs_state)" = "$before"
check "interrupted: no partial output" test ! -e "$TMP/i.txt"
finish
