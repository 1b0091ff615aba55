#!/usr/bin/env bash
# tests/pg/with-cluster.sh PROGRAM [ARG...]: run PROGRAM with SLUBLAB_TEST_PG
# naming a throw-away PostgreSQL cluster (tests/pg/cluster.sh), stopped and
# removed afterwards; how ctest runs the store's conformance suite
# (tests/server/test_store_backends.c) on PostgreSQL.  Where no PostgreSQL
# server could be installed (Debian's postgresql package), exits 77: ctest
# counts the test as skipped, not passed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
(($# > 0)) || { echo "usage: with-cluster.sh PROGRAM [ARG...]" >&2; exit 2; }
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    echo "with-cluster.sh: no PostgreSQL server here (apt install postgresql): skipped" >&2
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/slublab-pg.XXXXXX")
cleanup() {
    "$here/cluster.sh" stop "$dir"
    rm -rf "$dir"
}
trap cleanup EXIT
SLUBLAB_TEST_PG=$("$here/cluster.sh" start "$dir")
export SLUBLAB_TEST_PG
"$@"
