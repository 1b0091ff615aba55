#!/usr/bin/env bash
# The race op from the command line: a schedule the engine cannot run is
# refused naming its token, before anything runs; the parser checks the
# contexts and the tokens; each step is one event with ctx and step, and
# the unsplit operations around it have neither.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
irq=$root/scenarios/race-irq-alloc.json

# schedule edits of race 1
with_schedule() { sed "s/\"schedule\": \"A A I\* A\*\"/\"schedule\": \"$1\"/" "$irq" >"$TMP/s.json"; }

with_schedule "A A I* A* I"
sl run "$TMP/s.json"
check "a finished context: exit 2" test "$status" -eq 2
check "a finished context: the token named" \
    grep -q 'schedule token "I": context I has finished (at its step 6)' "$TMP/err"
with_schedule "I! A"
sl run "$TMP/s.json"
check "a task under its CPU's interrupt: refused" \
    grep -q 'schedule token "A": context A is shut out by the interrupt running on its CPU' "$TMP/err"
with_schedule "B"
sl run "$TMP/s.json"
check "an unknown context: the parser says so" \
    grep -q 'ops\[2\]: key "schedule": token "B": no context named "B"' "$TMP/err"
with_schedule "I>1"
sl run "$TMP/s.json"
check "an interrupt does not migrate" grep -q 'only a task migrates' "$TMP/err"
with_schedule "A* I*"
sl run "$TMP/s.json"
check "A* I*: runs (expects fail: no retry)" test "$status" -eq 1
check "A* I*: no cmpxchg_double_cpu_fail" grep -q 'FAIL raced: c.cpu0.cmpxchg_double_cpu_fail == 1 (got 0)' "$TMP/out"

# every step is one event; unsplit operations have no step
sl run "$irq" --events
check "events are JSON lines" json_lines "$TMP/out"
check "14 step events" test "$(grep -c '"step":{' "$TMP/out")" -eq 14
check "one cmpxchg_fail step of A" \
    test "$(grep -c '"ctx":"A","step":{"ctx":"A","index":3,"kind":"cmpxchg_fail"' "$TMP/out")" -eq 1
check "unsplit events have no ctx" test "$(grep -c '"ctx"' "$TMP/out")" -eq 14
check "words: c->tid read" grep -q '"reads":\[{"word":"c->tid","cpu":0,"value":"0x40"}\]' "$TMP/out"

# the parser's checks of the contexts
bad_race() {
    python3 - "$irq" "$TMP/b.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"))
PY
    sl run "$TMP/b.json"
}
bad_race 's["ops"][2]["contexts"] = s["ops"][2]["contexts"][:1]'
check "one context: refused" grep -q 'key "contexts": 2 or 3 contexts, not 1' "$TMP/err"
bad_race 's["ops"][2]["contexts"][1]["id"] = "A"'
check "two contexts named A" grep -q 'two contexts are named "A"' "$TMP/err"
bad_race 's["ops"][2]["contexts"][1]["kind"] = "nmi"'
check "kind nmi: refused" grep -q 'key "kind": "nmi" is not task or irq' "$TMP/err"
bad_race 's["ops"][2]["contexts"][0]["ops"] = [{"op": "kmalloc"}]'
check "kmalloc in a context: refused" grep -q 'a race.s context runs alloc, free or flush_cpu' "$TMP/err"
bad_race 's["ops"][2]["contexts"][0]["ops"] = [{"op": "free", "name": "nobody"}]'
check "freeing an unknown name: refused" grep -q 'no earlier operation allocates "nobody"' "$TMP/err"
bad_race 's["ops"][2]["contexts"][0]["ops"] = [{"op": "free", "name": "first"}]; s["ops"][2]["contexts"][1]["ops"] = [{"op": "free", "name": "first"}]'
check "one object freed by two contexts: refused" grep -q '"first" is freed twice in the race' "$TMP/err"
bad_race 's["ops"][2]["contexts"][0]["cpu"] = 5'
check "cpu out of range" grep -q 'key "cpu": 5 is not below machine.cpus (2)' "$TMP/err"
bad_race 's["ops"].append({"op": "free", "cpu": 0, "name": "x"})'
check "a race's name is defined after it" test "$status" -le 1

# NO_TID's spelling: a variant that is not a kernel
bad_race 's["variants"] = {"NO_TID": "maybe"}'
check "NO_TID takes on or off" grep -q 'key "NO_TID": expected "on" or "off"' "$TMP/err"
sl run "$root/scenarios/race-no-tid.json"
check "NO_TID is named in the model line" grep -q 'NO_TID=on (not a kernel)' "$TMP/out"
check "NO_TID: the run warns of the validator's finding" \
    grep -q 'misuse: NO_TID (not a kernel): 1 lost update; the validator finds 1 violation' "$TMP/out"
finish
