#!/usr/bin/env bash
# bench/gen-kmem-trace.py, the trace generator of bench/big-trace.sh, kept
# honest at a small size: the same arguments give the same bytes, another
# seed another trace, and `slublab replay` reads every line of it as a kmem
# event of the kinds and counts the generator wrote, with the validator on.
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
finish
