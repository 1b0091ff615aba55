#!/usr/bin/env bash
# slublab explore: every schedule of a scenario's race.  With the kernel's
# protocol (legacy tid + cmpxchg, sheaves' local_trylock and barn->lock)
# every schedule of every shipped race is safe; with NO_TID (not a kernel)
# explore finds the bad schedule, and -o writes it as a scenario that
# replays to the same lost update.  The same NO_TID workload without the
# variant is safe: the tid is what makes the difference.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

for f in "$root"/scenarios/race-*.json; do
    name=$(basename "$f" .json)
    [ "$name" = race-no-tid ] && continue
    sl explore "$f"
    check "$name: every schedule safe (exit 0)" test "$status" -eq 0
    check "$name: says so" grep -q '^every schedule is safe$' "$TMP/out"
    check "$name: reports the schedules and the time" \
        grep -Eq '^schedules [1-9][0-9]*, cut at the bound 0, outcomes [1-9][0-9]*, time [0-9.]+ s$' "$TMP/out"
    check "$name: no bad outcome" not grep -q 'BAD' "$TMP/out"
done

# the retry is one of race 1's outcomes, and so is its absence
sl explore "$root/scenarios/race-irq-alloc.json" --json
check "irq-alloc --json is JSON" json_doc "$TMP/out"
check "irq-alloc: a schedule with the retry" grep -q '"cmpxchg_double_cpu_fail.cpu0":1' "$TMP/out"
check "irq-alloc: a schedule without it" grep -q '"cmpxchg_double_cpu_fail.cpu0":0' "$TMP/out"
check "irq-alloc: safe" grep -q '"safe":true' "$TMP/out"

# both models: sheaves (7.3) and legacy (6.12)
sl explore "$root/scenarios/race-sheaves-trylock.json" --json
check "sheaves: the trylock failure is an outcome" grep -q '"alloc_slowpath.cpu0":1' "$TMP/out"
check "sheaves: safe" grep -q '"safe":true' "$TMP/out"

# NO_TID: explore finds the double hand-out
sl explore "$root/scenarios/race-no-tid.json" -o "$TMP/bad.json"
check "no-tid: exit 1 (a bad schedule)" test "$status" -eq 1
check "no-tid: a BAD outcome" grep -q 'BAD' "$TMP/out"
check "no-tid: the validator's violation" grep -q 'violations 1: slab .* (conservation)' "$TMP/out"
check "no-tid: the shortest bad schedule" grep -q '^shortest bad schedule: A A A I\* A\*$' "$TMP/out"
check "no-tid: -o wrote a scenario" json_doc "$TMP/bad.json"
sl run "$TMP/bad.json" --events
check "the written scenario runs" test "$status" -le 1
check "... and loses the update" grep -q '"report":"NO_TID (not a kernel): A.s cmpxchg compared c->freelist' "$TMP/out"
check "... which the narration attributes to the interrupt's cmpxchg" \
    grep -q "I's step 8 (cmpxchg) had taken" "$TMP/out"
check "... and the validator reports" grep -q '"fn":"validate_slab_cache","label":"violation"' "$TMP/out"

# the same workload with the real protocol: safe
grep -v '"variants": {"NO_TID": "on"}' "$root/scenarios/race-no-tid.json" >"$TMP/tid.json"
sl explore "$TMP/tid.json"
check "with the tid: every schedule safe" test "$status" -eq 0
check "with the tid: the retry shows" grep -q 'cmpxchg_double_cpu_fail C0=1' "$TMP/out"
sl explore "$TMP/tid.json" -o "$TMP/none.json"
check "with the tid: -o writes nothing" test ! -e "$TMP/none.json"

# the bound cuts long schedules; a scenario without a race; bad options
sl explore "$root/scenarios/race-migrate.json" --bound 6
check "--bound 6: cut schedules" grep -Eq 'cut at the bound [1-9]' "$TMP/out"
sl explore "$root/scenarios/default.json"
check "no race: exit 2" test "$status" -eq 2
check "no race: says so" grep -q 'has no race op' "$TMP/err"
sl explore "$root/scenarios/race-migrate.json" --bound 0
check "--bound 0: exit 2" test "$status" -eq 2
finish
