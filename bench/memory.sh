#!/usr/bin/env bash
# bench/memory.sh: what one request of N caches on 64 CPUs costs the server.
#
#   bench/memory.sh [BIN...]      (default build/slublab; give two to compare)
#
# For each binary, starts `slublab serve` on port 0 with a temporary
# database and the default budgets, then, one request at a time, POSTs the
# 170-byte scenario that creates N caches on a 64-CPU machine (N = 250,
# 1000, 2000, 4000) and prints its status, wall time and the server's
# resident memory (VmRSS) after it, then the peak (VmHWM).  A binary that
# takes more than 60 s for a request, or passes 8 GiB resident, is stopped
# there ("stopped").  Binaries run one after the other on the same machine.
set -euo pipefail
cd "$(dirname "$0")/.."

bins=("$@")
((${#bins[@]})) || bins=(build/slublab)
tmp=$(mktemp -d)
trap 'kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT

body() {
    printf '{"scenario":{"format":1,"name":"cb","machine":{"cpus":64},"ops":[{"op":"repeat","times":%d,"ops":[{"op":"create","name":"c{i}","object_size":64}]}]}}' "$1"
}

echo "| binary | N caches | status | seconds | RSS after (MiB) |"
echo "|---|---:|---:|---:|---:|"
for bin in "${bins[@]}"; do
    rm -f "$tmp/lab.db"*
    "$bin" serve --port 0 --db "$tmp/lab.db" --quiet >"$tmp/out" 2>&1 &
    srv=$!
    for _ in $(seq 50); do grep -q listening "$tmp/out" && break; sleep 0.1; done
    url=$(grep -o 'http://[^ ]*' "$tmp/out" | head -1)
    url=${url%/}
    for n in 250 1000 2000 4000; do
        t0=$(date +%s.%N)
        # a watchdog: stop the server past 8 GiB resident or 60 s
        ( for _ in $(seq 600); do
              rss=$(awk '/VmRSS/ {print $2}' "/proc/$srv/status" 2>/dev/null || echo 0)
              ((rss > 8 * 1024 * 1024)) && { kill "$srv"; exit; }
              sleep 0.1
          done; kill "$srv" ) 2>/dev/null &
        dog=$!
        code=$(curl -s -o /dev/null -w '%{http_code}' -m 60 -X POST "$url/api/sessions" \
            -H 'Content-Type: application/json' --data-binary "$(body "$n")" || true)
        kill "$dog" 2>/dev/null || true
        t1=$(date +%s.%N)
        if ! kill -0 "$srv" 2>/dev/null; then
            echo "| $bin | $n | stopped | $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') | > 8192 or > 60 s |"
            break
        fi
        rss=$(awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$srv/status")
        echo "| $bin | $n | $code | $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') | $rss |"
    done
    if kill -0 "$srv" 2>/dev/null; then
        echo "| $bin | peak | | | $(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$srv/status") |"
        kill "$srv"
        wait "$srv" 2>/dev/null || true
    fi
done
