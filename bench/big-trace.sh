#!/usr/bin/env bash
# bench/big-trace.sh: a real-sized kmem trace through slublab, at two
# lengths with the same live state (docs/benchmarks.md, "Big traces").
#
#   bench/big-trace.sh [EVENTS ...]     (default: 1000000 10000000)
#
# For each length: a synthetic trace of a busy machine (bench/gen-kmem-trace.py:
# 64 real caches, 8 CPUs, 300,000 live objects once warm), then in one run
# `slublab replay` alone, `slublab replay --db` (the session a user opens),
# their wall time and peak resident memory (/usr/bin/time), the database's
# bytes per operation, and when the session was stored, through `slublab
# serve --session-memory $SESSION_MB` (default 768): the first open (the
# server replays the op log and keeps checkpoint images in the database),
# 1,000 seeks to random positions, each followed by a step timed apart (the
# first step after a seek), and 1,000 steps (position + 1), as p50 and p99
# ($SEEKS changes the count), and the server's peak resident memory; then
# the database's bytes per operation with the images, and a restarted server:
# its open (from the images), 1,000 seeks, and its peak resident memory.  SLUBLAB_BIN names the program (default
# build/slublab); the traces are kept in ${TMPDIR:-/tmp}/slublab-big-trace for
# the next run.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${SLUBLAB_BIN:-build/slublab}
dir=${TMPDIR:-/tmp}/slublab-big-trace
mkdir -p "$dir"
lengths=("$@")
((${#lengths[@]})) || lengths=(1000000 10000000)

session_mb=${SESSION_MB:-768}
echo "| events | replay | replay RSS | --db | --db RSS | --db / replay | result | DB bytes/op | open | seek p50/p99 | step p50/p99 | server RSS | images | DB bytes/op with images | reopen | seek p50/p99 after | server RSS after | first step after a seek p50/p99 |"
echo "|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in "${lengths[@]}"; do
    trace=$dir/trace-$n.txt
    [[ -s $trace ]] || python3 bench/gen-kmem-trace.py "$n" >"$trace" || exit 1
    db=$dir/trace-$n.db
    rm -f "$db" "$db"-*
    /usr/bin/time -o "$dir/t1" -f '%e %M' "$bin" replay "$trace" >/dev/null 2>&1
    /usr/bin/time -o "$dir/t2" -f '%e %M' "$bin" replay "$trace" --db "$db" >"$dir/db.out" 2>"$dir/db.err"
    read -r rs rk < <(tail -n 1 "$dir/t1")
    read -r ds dk < <(tail -n 1 "$dir/t2")
    if grep -q '^session .* saved' "$dir/db.out"; then
        result=stored
        ops=$(grep -oE 'replayed [0-9]+ operations' "$dir/db.out" | grep -oE '[0-9]+')
        bpo=$(awk -v b="$(stat -c %s "$db")" -v o="$ops" 'BEGIN { printf "%.0f", b / o }')
        lat=$(AFTER_STEP=1 node bench/big-trace-seeks.mjs "$bin" "$db" --session-memory "$session_mb" \
            --memory-mb $((session_mb * 2)) 2>"$dir/seeks.err" || echo "failed: $(tail -n 1 "$dir/seeks.err")")
        # the database again, with the checkpoint images the first server kept
        bpo2=$(awk -v b="$(stat -c %s "$db")" -v o="$ops" 'BEGIN { printf "%.1f", b / o }')
        lat=$(awk -v l="$lat" -v b="$bpo2" 'BEGIN { n = split(l, f, " [|] "); s = f[1];
            for (i = 2; i <= n; i++) { s = s " | " f[i]; if (i == 5) s = s " | " b " B" } print s }')
    else
        result="failed: $(grep -m1 'slublab replay' "$dir/db.err" | sed 's/.*--db [^:]*: //')"
        bpo=-
        lat="- | - | - | - | - | - | - | - | - | -"
    fi
    ratio=$(awk -v a="$ds" -v b="$rs" 'BEGIN { printf "%.2f", a / b }')
    printf '| %s | %s s | %s MiB | %s s | %s MiB | %s | %s | %s | %s |\n' "$n" "$rs" "$((rk / 1024))" "$ds" \
        "$((dk / 1024))" "$ratio" "$result" "$bpo" "$lat"
done
