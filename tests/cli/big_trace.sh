#!/usr/bin/env bash
# bench/gen-kmem-trace.py, the trace generator of bench/big-trace.sh, kept
# honest at a small size: the same arguments give the same bytes, another
# seed another trace, and `slublab replay` reads every line of it as a kmem
# event of the kinds and counts the generator wrote, with the validator on.
# Then a trace past the scenario limit: -o says so and writes nothing,
# --db keeps it as an op log, and a failing --db says why.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
gen=$root/bench/gen-kmem-trace.py

(cd "$root" && python3 "$gen" 4000 --live 1500 >"$TMP/a.txt" && python3 "$gen" 4000 --live 1500 >"$TMP/b.txt" &&
    python3 "$gen" 4000 --live 1500 --seed 2 >"$TMP/c.txt")
check "generator: same arguments, same bytes" cmp -s "$TMP/a.txt" "$TMP/b.txt"
check "generator: another seed, another trace" not cmp -s "$TMP/a.txt" "$TMP/c.txt"
n() { grep -c ": $1: " "$TMP/a.txt"; }
sl replay "$TMP/a.txt" --validate
check "replay: exit 0" test "$status" -eq 0
check "replay: 8 CPUs from the header" grep -q '8 CPUs (from the #P: header)' "$TMP/out"
check "replay: every line a kmem event" grep -q "^4006 lines: 4000 kmem events ($(n kmem_cache_alloc) kmem_cache_alloc, $(n kmem_cache_free) kmem_cache_free, $(n kmalloc) kmalloc, $(n kfree) kfree)" "$TMP/out"
check "replay: no violation" grep -q 'validation after every operation: 0 violations' "$TMP/out"
check "replay: every free of a live object" not grep -q 'allocated before the trace' "$TMP/out"

# -o writes a scenario only when the trace fits one; --db keeps any length
(cd "$root" && python3 "$gen" 200000 --live 4000 >"$TMP/long.txt")
sl replay "$TMP/long.txt" -o "$TMP/long.json"
check "-o past the scenario limit: exit 1" test "$status" -eq 1
check "-o past the scenario limit: says why and what instead" grep -q 'not written: the scenario would be .* MiB, more than the 8 MiB .*--db FILE keeps' "$TMP/err"
check "-o past the scenario limit: no file" test ! -e "$TMP/long.json"
sl replay "$TMP/long.txt" --db "$TMP/long.db"
check "--db of the same trace: exit 0" test "$status" -eq 0
check "--db: the operations and events are printed" grep -qE '^session [a-z0-9]+ saved in .* \([0-9]+ operations, [0-9]+ events\)' "$TMP/out"
check "--db: about 9 bytes an operation in the database" test "$(stat -c %s "$TMP/long.db")" -lt $((200000 * 16))
# every failure says what failed
sl replay "$TMP/long.txt" --db "$TMP/no/such/dir/x.db"
check "--db in a missing directory: exit 2" test "$status" -eq 2
check "--db in a missing directory: a reason after the colon" grep -qE -- '--db [^:]+: .+[a-z]' "$TMP/err"
finish
