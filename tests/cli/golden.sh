#!/usr/bin/env bash
# Golden event streams: every shipped scenario, replayed headless, must give
# exactly the events recorded in tests/golden/ (scripts/update-golden makes
# them; a stream over 1 MB is kept as its SHA-256).  Guards determinism and
# makes every change to the engine's events a reviewed diff.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

for f in "$root"/scenarios/*.json; do
    name=$(basename "$f" .json)
    golden=$root/tests/golden/$name.jsonl
    sum=$root/tests/golden/$name.sha256
    sl run "$f" --events
    if [ "$status" -ne 0 ]; then
        bad "$name: run --events exited $status"
    elif [ -f "$golden" ]; then
        if cmp -s "$TMP/out" "$golden"; then
            ok
        else
            bad "$name: events differ from tests/golden/$name.jsonl"
            diff "$golden" "$TMP/out" | head -4 | cut -c1-200
        fi
    elif [ -f "$sum" ]; then
        check "$name: events match tests/golden/$name.sha256" \
            test "$(sha256sum <"$TMP/out" | cut -d' ' -f1)" = "$(cat "$sum")"
    else
        bad "$name: no golden stream (run scripts/update-golden)"
    fi
done
# every golden stream belongs to a shipped scenario
for g in "$root"/tests/golden/*.jsonl "$root"/tests/golden/*.sha256; do
    [ -e "$g" ] || continue
    name=$(basename "${g%.*}")
    check "$name golden has a scenario" test -f "$root/scenarios/$name.json"
done
finish
