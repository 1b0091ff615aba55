#!/usr/bin/env bash
# tests/pg/cluster.sh: a throw-away PostgreSQL server for the tests that run
# slublab on its PostgreSQL store.
#
#   tests/pg/cluster.sh start DIR   initdb a cluster in DIR, start it on a
#                                   Unix socket in DIR (no TCP), print the
#                                   URL of its database "postgres"
#   tests/pg/cluster.sh stop DIR    stop it (DIR is left for the caller)
#   tests/pg/cluster.sh resume DIR  start the stopped cluster in DIR again
#
# As root, the server runs as the "postgres" user the Debian package makes
# (PostgreSQL refuses to run as root). The binaries come from Debian's
# postgresql package: /usr/lib/postgresql/<version>/bin.
set -euo pipefail
cmd=${1:?usage: cluster.sh start|stop|resume DIR}
dir=${2:?usage: cluster.sh start|stop|resume DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[[ -x $bin/initdb ]] || { echo "cluster.sh: no PostgreSQL server (apt install postgresql)" >&2; exit 1; }
as=()
if ((EUID == 0)); then as=(runuser -u postgres --); fi
case $cmd in
start)
    mkdir -p "$dir"
    ((EUID == 0)) && chown postgres: "$dir"
    "${as[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    ;&
resume)
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-k $dir -c listen_addresses='' -c fsync=off -c max_connections=200" start >/dev/null ||
        { cat "$dir/server.log" >&2; exit 1; }
    # libpq's URL: the socket directory as host, percent-encoded
    host=$(printf '%s' "$dir" | sed 's|/|%2F|g')
    echo "postgresql://postgres@$host/postgres"
    ;;
stop)
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
*)
    echo "usage: cluster.sh start|stop|resume DIR" >&2
    exit 2
    ;;
esac
