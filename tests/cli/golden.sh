#!/usr/bin/env bash
# Golden event streams: every shipped scenario, replayed headless, must give
# exactly the events recorded in tests/golden/ (scripts/update-golden makes
# them).  Guards determinism and makes every change to the engine's events a
# reviewed diff.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

for f in "$root"/scenarios/*.json; do
    name=$(basename "$f" .json)
    golden=$root/tests/golden/$name.jsonl
    if [ ! -f "$golden" ]; then
        bad "$name: no golden stream (run scripts/update-golden)"
        continue
    fi
    sl run "$f" --events
    if [ "$status" -ne 0 ]; then
        bad "$name: run --events exited $status"
    elif cmp -s "$TMP/out" "$golden"; then
        ok
    else
        bad "$name: events differ from tests/golden/$name.jsonl"
        diff "$golden" "$TMP/out" | head -4 | cut -c1-200
    fi
done
# every golden stream belongs to a shipped scenario
for g in "$root"/tests/golden/*.jsonl; do
    name=$(basename "$g" .jsonl)
    check "$name.jsonl has a scenario" test -f "$root/scenarios/$name.json"
done
finish
