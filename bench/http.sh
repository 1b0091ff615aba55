#!/usr/bin/env bash
# bench/http.sh: the HTTP server under wrk, on loopback.
#
#   bench/http.sh [SECONDS]      (default 10 s per run; SLUBLAB_ROUNDS=3 rounds)
#
# Starts `slublab serve` (SLUBLAB_BIN, default build/slublab) on port 0 with
# a temporary database and measures, printing one Markdown table per part:
#   1. GET .../state of a small session (scenarios/default.json, a cached
#      position) at 1, 8 and 64 connections;
#   2. POST .../step of that session (each request moves the presenter one
#      event and returns the state) at 1, 8 and 64 connections;
#   2b. the cached state against GET /api/health, 8 connections each,
#      alternating, SLUBLAB_ROUNDS rounds: the ratio of their median
#      requests/s and the median p99 of each;
#   3. seek depth: GET .../state?at=N of a 1,000,010-event session
#      (bench/deep.json) for N scattered over [10, 1010) and over
#      [999000, 1000000), alternating, one connection: no state cache, no
#      cursor to walk forward from; the median p50 of each, and their ratio;
#   4. the presenter's step latency with no follower and with 200 followers
#      attached (bench/followers.mjs), alternating, one connection; the
#      median p99 of each, and their ratio;
#   5. keep-alive: curl reuses the connection, and what `Connection: close`
#      would cost.
# Needs wrk, curl and node (scripts/setup --test installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
rounds=${SLUBLAB_ROUNDS:-3} # alternating rounds of the seek-depth and follower parts
bin=${SLUBLAB_BIN:-build/slublab}
tmp=$(mktemp -d)
server=
followers=
cleanup() {
    [[ -n $followers ]] && kill "$followers" 2>/dev/null || true
    [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

"$bin" serve --port 0 --db "$tmp/bench.db" --quiet >"$tmp/serve.out" 2>&1 &
server=$!
for _ in $(seq 50); do
    grep -q http "$tmp/serve.out" 2>/dev/null && break
    sleep 0.1
done
url=$(grep -o 'http://[^ ]*' "$tmp/serve.out")
url=${url%/}

json() { node -e "const j = JSON.parse(require('fs').readFileSync(0, 'utf8')); console.log($1)"; }
create() { curl -sf -X POST "$url/api/sessions" -H 'Content-Type: application/json' --data-binary "$1"; }

small=$(create '{"scenario":"default"}')
sid=$(json j.id <<<"$small")
stok=$(json j.token <<<"$small")
deep=$(node -e "console.log(JSON.stringify({scenario: JSON.parse(require('fs').readFileSync('bench/deep.json', 'utf8'))}))" | curl -sf -X POST "$url/api/sessions" -H 'Content-Type: application/json' --data-binary @-)
did=$(json j.id <<<"$deep")
devents=$(json j.events <<<"$deep")
curl -sf "$url/api/sessions/$sid/state?at=20" >/dev/null

# run LABEL wrk-args...: one wrk run, one table row
run() {
    local label=$1 out
    shift
    out=$(wrk --latency "$@")
    awk -v label="$label" '
        /Requests\/sec/ { rps = $2 }
        /^ +50%/ { p50 = $2 }
        /^ +99%/ { p99 = $2 }
        /Non-2xx/ { bad = $4 }
        END { printf "| %s | %.0f | %s | %s |%s\n", label, rps, p50, p99, bad ? " " bad " non-2xx" : "" }
    ' <<<"$out"
}
threads() { (($1 < 2)) && echo 1 || echo 2; }
head_row() { printf '| %s | requests/s | p50 | p99 |\n|---|---|---|---|\n' "$1"; }

echo "## slublab serve benchmark ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, ${secs}s per run)"
echo
echo "### GET /api/sessions/ID/state?at=20 (small session, cached state)"
echo
head_row connections
for c in 1 8 64; do
    run "$c" -t"$(threads $c)" -c"$c" -d"${secs}s" "$url/api/sessions/$sid/state?at=20"
done

echo
echo "### POST /api/sessions/ID/step (one event forward, state in the answer)"
echo
head_row connections
for c in 1 8 64; do
    SLUBLAB_TOKEN=$stok SLUBLAB_EVENTS=35 run "$c" -t"$(threads $c)" -c"$c" -d"${secs}s" \
        -s bench/step.lua "$url/api/sessions/$sid/step"
done

# median of the p50 or p99 column (4 or 5, split on "|") of the rows matching a label
median() {
    grep -F "| $1" "$tmp/rows" | awk -F'|' -v col="$2" '{
        v = $col; gsub(/ /, "", v)
        if (v ~ /ms$/) { sub(/ms$/, "", v); v *= 1000 } else if (v ~ /us$/) { sub(/us$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1e6 }
        print v }' | sort -n | awk '{ a[NR] = $1 } END { printf "%.0f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

echo
echo "### The state route against the health route, 8 connections"
echo
head_row route
: >"$tmp/rows"
for round in $(seq "$rounds"); do
    run "health run $round" -t2 -c8 -d"${secs}s" "$url/api/health" | tee -a "$tmp/rows"
    run "state run $round" -t2 -c8 -d"${secs}s" "$url/api/sessions/$sid/state?at=20" | tee -a "$tmp/rows"
done
hrate=$(median "health run" 3)
srate=$(median "state run" 3)
echo
echo "Median requests/s: state ${srate}, health ${hrate}: state/health = $(awk -v a="$srate" -v b="$hrate" 'BEGIN { printf "%.2f", a / b }'); median p99: state $(median "state run" 5) us, health $(median "health run" 5) us."

echo
echo "### Seek depth: GET .../state?at=N, session of $devents events, 1 connection"
echo
head_row "positions N"
: >"$tmp/rows"
for round in $(seq "$rounds"); do
    for base in 10 999000; do
        SLUBLAB_BASE=$base SLUBLAB_PATH=/api/sessions/$did/state run "[$base, $((base + 1000))) run $round" \
            -t1 -c1 -d"${secs}s" -s bench/seek.lua "$url" | tee -a "$tmp/rows"
    done
done
shallow=$(median "[10," 4)
deep=$(median "[999000," 4)
echo
echo "Median p50: ${shallow} us near event 10, ${deep} us near event 1,000,000: deep/shallow = $(awk -v a="$deep" -v b="$shallow" 'BEGIN { printf "%.2f", a / b }')."

echo
echo "### The presenter's step with and without 200 followers, 1 connection"
echo
fsess=$(create '{"scenario":"default"}')
fid=$(json j.id <<<"$fsess")
ftok=$(json j.token <<<"$fsess")
head_row followers
: >"$tmp/rows"
for round in $(seq "$rounds"); do
    SLUBLAB_TOKEN=$ftok SLUBLAB_EVENTS=35 SLUBLAB_STATE=false run "none, run $round" -t1 -c1 -d"${secs}s" \
        -s bench/step.lua "$url/api/sessions/$fid/step" | tee -a "$tmp/rows"
    # the followers run niced: they stand for 200 other machines, and their own
    # CPU on this 2-core box is not what the presenter should wait for
    : >"$tmp/followers.out"
    nice -n 19 node bench/followers.mjs "$url" "$fid" 200 >"$tmp/followers.out" &
    followers=$!
    for _ in $(seq 100); do
        grep -q ready "$tmp/followers.out" && break
        sleep 0.1
    done
    SLUBLAB_TOKEN=$ftok SLUBLAB_EVENTS=35 SLUBLAB_STATE=false run "200, run $round" -t1 -c1 -d"${secs}s" \
        -s bench/step.lua "$url/api/sessions/$fid/step" | tee -a "$tmp/rows"
    kill "$followers"
    wait "$followers" 2>/dev/null || true
    followers=
    echo "|   (followers received $(grep -o 'messages [0-9]*' "$tmp/followers.out" | cut -d' ' -f2) position messages) | | | |"
done
none=$(median "none" 5)
with=$(median "200" 5)
echo
echo "Median p99: ${none} us with no follower, ${with} us with 200: with/without = $(awk -v a="$with" -v b="$none" 'BEGIN { printf "%.2f", a / b }')."

echo
echo "### Keep-alive"
echo
reuse=$(curl -sv "$url/api/health" "$url/api/health" 2>&1 | grep -c 'Re-using existing connection' || true)
echo "curl, two requests: $reuse connection reuse(s); no \`Connection: close\` in the answers: $(curl -si "$url/api/health" | grep -ci '^connection: close' || true) found"
echo
head_row "GET state, 8 connections"
run "keep-alive" -t2 -c8 -d"${secs}s" "$url/api/sessions/$sid/state?at=20"
run "Connection: close" -t2 -c8 -d"${secs}s" -H "Connection: close" "$url/api/sessions/$sid/state?at=20"
