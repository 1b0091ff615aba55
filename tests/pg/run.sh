#!/usr/bin/env bash
# tests/pg/run.sh NODE TEST.mjs...: the API tests again, every server on a
# PostgreSQL store: a throw-away cluster (tests/pg/with-cluster.sh) for the
# run, SLUBLAB_TEST_PG naming it (tests/api/lib.mjs gives each server a new
# database there).  Needs Debian's postgresql package (scripts/setup --test);
# where it could not be installed, exits 77 (ctest counts the test as
# skipped, not passed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
node=${1:?usage: run.sh NODE TEST.mjs...}
shift
command -v psql >/dev/null || {
    echo "run.sh: no psql here (apt install postgresql): skipped" >&2
    exit 77
}
# a throw-away cluster for the run (with-cluster.sh exits 77 where there is none)
[[ -n ${SLUBLAB_TEST_PG:-} ]] || exec "$here/with-cluster.sh" "$0" "$node" "$@"
"$node" --test "$@"
# the servers did use the cluster: one database each, with the store's tables
n=$(psql "$SLUBLAB_TEST_PG" -qAt -c "SELECT count(*) FROM pg_database WHERE datname LIKE 't\_%'")
echo "run.sh: the tests made $n PostgreSQL databases"
((n > 10)) || { echo "run.sh: too few: the servers did not use PostgreSQL" >&2; exit 1; }
