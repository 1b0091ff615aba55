#!/usr/bin/env bash
# bench/overview.sh: the overview of a big trace session in one request
# (docs/benchmarks.md, "Overview").
#
#   bench/overview.sh [EVENTS ...]     (default: 1000000 10000000)
#
# For each length: the synthetic trace bench/big-trace.sh makes (the same
# file in ${TMPDIR:-/tmp}/slublab-big-trace, generated when missing), stored
# with `slublab replay --db` (which keeps the session's overview), then
# served and asked for its overview (bench/overview.mjs): the whole run in
# 1,000 and in 4,096 buckets and a tenth of it in 1,000, p50 and max over
# $REQUESTS (default 50) requests each, answered from the store without
# building the session.  With BUILD=1, the same again once the server has
# built the session (from memory).  SLUBLAB_BIN names the program.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${SLUBLAB_BIN:-build/slublab}
dir=${TMPDIR:-/tmp}/slublab-big-trace
mkdir -p "$dir"
lengths=("$@")
((${#lengths[@]})) || lengths=(1000000 10000000)

echo "| events | whole, 1,000 buckets p50 / max | whole, 4,096 p50 / max | a tenth, 1,000 p50 / max | answer bytes (4,096) | from |"
echo "|---:|---:|---:|---:|---:|---|"
for n in "${lengths[@]}"; do
    trace=$dir/trace-$n.txt
    [[ -s $trace ]] || python3 bench/gen-kmem-trace.py "$n" >"$trace" || exit 1
    db=$dir/overview-$n.db
    rm -f "$db" "$db"-*
    if ! "$bin" replay "$trace" --db "$db" >"$dir/overview-db.out" 2>&1; then
        echo "| $n | replay --db failed: $(tail -n 1 "$dir/overview-db.out") |"
        continue
    fi
    echo "| $(node bench/overview.mjs "$bin" "$db") |"
    if [[ ${BUILD:-0} == 1 ]]; then
        echo "| $(node bench/overview.mjs "$bin" "$db" --build) |"
    fi
    rm -f "$db" "$db"-*
done
