#!/usr/bin/env bash
# A scenario's "choices" key (docs/scenario-format.md, "choices") fixes the
# kernel's own choices a run takes: the minimal program of the flush order,
# with flush_all's other order at op 43, prints what `--outcomes` listed as
# that outcome; a pinned default changes nothing; bad entries are refused
# with the entry's path.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
minimal=$root/tests/oracle/minimal/shrink-flush-order.json

# the minimal program with "choices": $1 (a JSON array)
pinned() {
    sed '$d' "$minimal" | sed '$s/$/,/' >"$TMP/p.json"
    printf '  "choices": %s\n}\n' "$1" >>"$TMP/p.json"
}

sl run "$minimal" --outcomes
awk '/^--- outcome 2 of 2: op 43: flush_all: CPUs 1, 0: order 2 of 2$/ { on = 1; next }
    /^--- / { on = 0 } on' "$TMP/out" >"$TMP/outcome2"
check "--outcomes lists the other order" test -s "$TMP/outcome2"
sl run "$minimal"
cp "$TMP/out" "$TMP/plain"

pinned '[{"at": 43, "point": "flush_order", "option": 1}]'
sl run "$TMP/p.json"
check "pinned: exit 0" test "$status" -eq 0
check "pinned: the outcome --outcomes listed for op 43's order 2" cmp -s "$TMP/out" "$TMP/outcome2"
check "pinned: not the default run" not cmp -s "$TMP/out" "$TMP/plain"
sl run "$TMP/p.json" --events
check "pinned: the event after the choice carries it" \
    grep -q '"choice":{"kind":"flush_order","options":2,"taken":1,"text":"flush_all: CPUs 1, 0: order 2 of 2"' "$TMP/out"
sl run "$TMP/p.json" --outcomes
check "pinned: one outcome left" grep -qx -- '--- outcome 1 of 1: op 43: flush_all: CPUs 1, 0: order 2 of 2' "$TMP/out"

pinned '[{"at": 43, "point": "flush_order", "option": 0}]'
sl run "$TMP/p.json"
check "the default pinned: slublab run's output" cmp -s "$TMP/out" "$TMP/plain"
pinned '[{"at": 42, "point": "flush_order", "option": 1}]'
sl run "$TMP/p.json"
check "a pin at an op without the point: slublab run's output" cmp -s "$TMP/out" "$TMP/plain"

refused() {
    pinned "$1"
    sl run "$TMP/p.json"
    check "refused ($2): exit 2" test "$status" -eq 2
    check "refused ($2): says so" grep -qF "$2" "$TMP/err"
}
refused '[{"at": 43, "point": "flush_ordr", "option": 1}]' \
    'choices[0]: key "point": "flush_ordr" is not flush_order, rcu_worker or remote_draw'
refused '[{"at": 43, "option": 1}]' 'choices[0]: missing key "point"'
refused '[{"at": 43, "point": "flush_order"}]' 'choices[0]'
refused '[{"at": 43, "point": "flush_order", "option": 1, "cpu": 2}]' 'choices[0]: unknown key "cpu"'
refused '{"at": 43}' 'key "choices": expected an array, got an object'
refused '[{"at": 43, "point": "flush_order", "option": 1}, {"at": 43, "point": "flush_order", "option": 0}]' \
    'choices[1]: choice flush_order at op 43 (nth 0) is already given'

finish
