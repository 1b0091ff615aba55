#!/usr/bin/env bash
# slublab run --outcomes: a scenario under every combination of the kernel's
# own choices (flush_all's order, kfree_rcu's worker CPU, the remote-node
# draw), each distinct result once.  The minimal program of the flush order
# lists both results the 6.1 kernel's two recorded runs showed; a scenario
# without a choice point has one outcome, `slublab run`'s output.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
minimal=$root/tests/oracle/minimal/shrink-flush-order.json

sl run "$minimal" --outcomes
check "exit 0" test "$status" -eq 0
cp "$TMP/out" "$TMP/outcomes"
check "two outcomes, the defaults first" grep -qx -- '--- outcome 1 of 2: the defaults' "$TMP/outcomes"
check "the other flush order second" \
    grep -qx -- '--- outcome 2 of 2: op 43: flush_all: CPUs 1, 0: order 2 of 2' "$TMP/outcomes"
check "every combination was run" grep -qx -- '--- 2 runs: every combination of the choices reached' "$TMP/outcomes"

# outcome K's value of FILE (its first word; 0 when the report leaves it out)
value() {
    awk -v k="--- outcome $1 of" -v f="$2" '
        index($0, k) == 1 { on = 1; next } /^--- / { on = 0 }
        on && $1 == f { v = $2 } END { print v == "" ? 0 : v }' "$TMP/outcomes"
}
# each of the kernel's recorded runs is one of the outcomes, in every file
# the flush order decides
tar -xzOf "$root/tests/oracle/6.1/programs.tar.gz" programs/shrink-flush-order.out >"$TMP/kernel"
runs=$(grep -c '^run ' "$TMP/kernel")
check "the kernel recorded two runs" test "$runs" -eq 2
for r in $(seq 1 "$runs"); do
    found=
    for k in 1 2; do
        same=1
        for f in deactivate_empty deactivate_to_head free_slab free_add_partial partial slabs objects; do
            want=$(awk -v r="run $r" -v f="$f" '$0 == r { on = 1; next } /^run / { on = 0 }
                on && $1 == f { print $2 }' "$TMP/kernel")
            [ "$(value "$k" "$f")" = "$want" ] || same=
        done
        [ -n "$same" ] && found=$k
    done
    check "the kernel's run $r is an outcome" test -n "$found"
    eval "found_$r=$found"
done
check "the two runs are two outcomes" test "${found_1:-x}" != "${found_2:-y}"

sl run "$minimal" --outcomes
check "the same bytes twice" cmp -s "$TMP/out" "$TMP/outcomes"

# a scenario without a choice point: one outcome, the plain run's output
sl run "$root/scenarios/fast-paths.json"
cp "$TMP/out" "$TMP/plain"
sl run "$root/scenarios/fast-paths.json" --outcomes
check "one outcome" grep -qx -- '--- outcome 1 of 1: the defaults' "$TMP/out"
check "one run" grep -qx -- '--- 1 run: every combination of the choices reached' "$TMP/out"
sed '1d;$d' "$TMP/out" >"$TMP/body"
check "its text is slublab run's" cmp -s "$TMP/body" "$TMP/plain"

# past --max-runs: a seeded sample, and the note says so
sl run "$minimal" --outcomes --max-runs 1
check "--max-runs 1: exit 0" test "$status" -eq 0
check "--max-runs 1: the defaults alone" grep -qx -- '--- outcome 1 of 1: the defaults' "$TMP/out"
check "--max-runs 1: says it sampled" \
    grep -qx -- '--- the choices reached make more than 1 combinations: these are a seeded sample of 1 runs (seed 1), the first with the defaults' "$TMP/out"

sl run "$minimal" --max-runs 5
check "--max-runs alone is a usage error" test "$status" -eq 2
sl run "$minimal" --outcomes --json
check "--outcomes with --json is a usage error" test "$status" -eq 2

finish
