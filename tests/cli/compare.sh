#!/usr/bin/env bash
# slublab compare says when its table of +0.0% means nothing: a variant
# that does not change the scenario's model (CPU_PARTIAL_DIRECT_LOAD on a
# sheaves scenario), or two runs that are identical; and says nothing when
# the runs differ.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
field() { # field KEY: a top-level field of $TMP/out's JSON
    node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1]))[process.argv[2]])' "$TMP/out" "$1"
}

sl compare "$root/scenarios/free-storm.json" --variant CPU_PARTIAL_DIRECT_LOAD
check "compare exits 0" test "$status" -eq 0
check "the table warns that the variant is the legacy model's" \
    grep -q '^warning:  CPU_PARTIAL_DIRECT_LOAD does not change what the sheaves model does' "$TMP/out"
check "... and that the two runs are identical" grep -q 'the two runs are identical' "$TMP/out"

sl compare "$root/scenarios/free-storm.json" --variant CPU_PARTIAL_DIRECT_LOAD --json
check "--json is JSON" json_doc "$TMP/out"
check "--json: identical" test "$(field identical)" = true
check "--json: the warning" grep -q '"warning":"CPU_PARTIAL_DIRECT_LOAD does not change' "$TMP/out"

sl compare "$root/scenarios/free-storm.json" --variant CPU_PARTIAL_DIRECT_LOAD --md
check "--md: the warning" grep -q '^> \*\*Warning:\*\* CPU\\_PARTIAL\\_DIRECT\\_LOAD does not change' "$TMP/out"

# a variant of the model that makes no difference to this scenario
sl compare "$root/scenarios/free-storm.json" --variant BARN_REFILL --json
check "BARN_REFILL on free-storm: identical" test "$(field identical)" = true
check "... said so" grep -q '"warning":"the two runs are identical (the same 113 operations and 253 events)' "$TMP/out"

# runs that differ: no warning
sl compare "$root/scenarios/fresh-slab-fill.json" --variant DEFERRED_FREELIST --json
check "DEFERRED_FREELIST on fresh-slab-fill: not identical" test "$(field identical)" = false
check "... and no warning" test "$(field warning)" = null
sl compare "$root/scenarios/fresh-slab-fill.json" --variant DEFERRED_FREELIST
check "the table has no warning line" not grep -q '^warning:' "$TMP/out"
sl compare "$root/scenarios/legacy-vs-sheaves.json" --model legacy,sheaves --json
check "across models: no warning" test "$(field warning)" = null
finish
