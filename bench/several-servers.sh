#!/usr/bin/env bash
# bench/several-servers.sh: a class (bench/classroom.mjs) against
#   (a) one server on SQLite,
#   (b) one server on PostgreSQL,
#   (c) two servers on one PostgreSQL database behind nginx
#       (bench/nginx.conf.in: affinity by session id),
# all in one run, twice: as a class asks (a seek every 2 s a student) and
# saturated (each student seeks again at once: what the servers can
# serve); then the follow latency from a presenter on one server to a
# follower on another (bench/pg-follow.mjs).  Prints Markdown tables for
# docs/benchmarks.md.
#
#   bench/several-servers.sh [STUDENTS [SECONDS]]     (300 60)
#
# Needs Debian's postgresql and nginx (scripts/setup --bench) and the
# release build.  PostgreSQL is a throw-away cluster (tests/pg/cluster.sh)
# on a Unix socket, fsync off, as the tests run it.
set -euo pipefail
cd "$(dirname "$0")/.."
students=${1:-300}
seconds=${2:-60}
bin=$PWD/build/slublab
[[ -x $bin ]] || { echo "several-servers.sh: build first (./scripts/build)" >&2; exit 1; }
command -v nginx >/dev/null || { echo "several-servers.sh: no nginx (scripts/setup --bench)" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/slublab-several.XXXXXX")
chmod 755 "$dir" # nginx's workers (nobody, under root) use its temp directories
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    tests/pg/cluster.sh stop "$dir/pg"
    rm -rf "$dir"
}
trap cleanup EXIT

pg=$(tests/pg/cluster.sh start "$dir/pg")
newdb() { # a new, empty database; its URL (called in $(...): no counter survives)
    local name=bench_$(date +%s%N)
    psql "$pg" -qAt -c "CREATE DATABASE $name" >/dev/null
    echo "${pg%/postgres}/$name"
}
freeport() {
    node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# serve DB PROXYPORT: start a server on DB (port 0) behind the proxy on
# PROXYPORT; sets $srv_pid and $srv_port
serve() {
    local out=$dir/serve.$RANDOM
    "$bin" serve --port 0 --db "$1" --quiet --allow-origin "http://127.0.0.1:$2" \
        --trusted-proxy 127.0.0.1 >"$out" &
    srv_pid=$!
    pids+=("$srv_pid")
    for _ in $(seq 200); do
        grep -q 'http://' "$out" 2>/dev/null && break
        sleep 0.1
    done
    srv_port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$out")
    [[ -n $srv_port ]] || { echo "several-servers.sh: a server did not start" >&2; exit 1; }
}

behind_nginx() { # PERIOD SECONDS: two servers on one database behind nginx
    local nport db a b
    nport=$(freeport)
    db=$(newdb)
    serve "$db" "$nport"
    a=$srv_pid
    local sa="        server 127.0.0.1:$srv_port;"
    serve "$db" "$nport"
    b=$srv_pid
    local sb="        server 127.0.0.1:$srv_port;"
    mkdir -p "$dir/nginx"
    chmod 777 "$dir/nginx"
    sed -e "s|@DIR@|$dir/nginx|g" -e "s|@PORT@|$nport|" -e "s|@SERVERS@|$sa\n$sb|" \
        bench/nginx.conf.in >"$dir/nginx/nginx.conf"
    nginx -c "$dir/nginx/nginx.conf" -p "$dir/nginx" -e "$dir/nginx/error.log" &
    local ng=$!
    pids+=("$ng")
    for _ in $(seq 100); do
        [[ -s $dir/nginx/nginx.pid ]] && break
        sleep 0.1
    done
    node bench/classroom.mjs --students "$students" --seconds "$2" --period "$1" \
        --url "http://127.0.0.1:$nport" --pids "$a,$b" --label "two on PostgreSQL, nginx" | tail -n 1
    kill "$ng" "$a" "$b"
    wait "$ng" "$a" "$b" 2>/dev/null || true
}

echo "bench/several-servers.sh $students students; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%F)"
for period in 2000 0; do
    s=$seconds
    if ((period == 0)); then
        s=$(((seconds + 1) / 2))
        echo
        echo "saturated (--period 0), $s s:"
    else
        echo
        echo "a class (--period 2000), $s s:"
    fi
    echo
    echo '| servers | students | sessions | seeks | seeks/s | p50 | p99 | errors | peak RSS |'
    echo '|---|---:|---:|---:|---:|---:|---:|---:|---:|'
    node bench/classroom.mjs --students "$students" --seconds "$s" --period "$period" \
        --label "one on SQLite" | tail -n 1
    node bench/classroom.mjs --students "$students" --seconds "$s" --period "$period" \
        --db "$(newdb)" --label "one on PostgreSQL" | tail -n 1
    behind_nginx "$period" "$s"
done

echo
echo "follow latency, a presenter on A and followers on A and B (bench/pg-follow.mjs):"
echo
node bench/pg-follow.mjs "$(newdb)" --steps 100
