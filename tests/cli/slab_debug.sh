#!/usr/bin/env bash
# The slab_debug= boot option in its own grammar (--slab-debug, or a string
# config.slab_debug): letters per group, a cache list with prefix globs,
# '-' for none, 'O' to spare caches whose slab order debugging would raise,
# groups joined by ';' (setup_slub_debug, parse_slub_debug_flags,
# kmem_cache_flags).
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

cat >"$TMP/two.json" <<'JSON'
{"format": 1, "name": "two", "kernel": "7.3",
 "caches": [{"name": "A", "object_size": 64}, {"name": "big", "object_size": 4096}],
 "ops": [{"op": "kmalloc", "cpu": 0, "size": 18, "name": "k"}, {"op": "mark", "name": "m"}],
 "expect": [{"at": "m", "metric": "A.slab_size", "op": ">=", "value": 0},
            {"at": "m", "metric": "big.slab_size", "op": ">=", "value": 0},
            {"at": "m", "metric": "kmalloc-32.slab_size", "op": ">=", "value": 0}]}
JSON
sizes() { grep -o '^PASS m: [^ ]* >= 0 (got [0-9]*)' "$TMP/out" | sed 's/^PASS m: \([^ ]*\)\.slab_size >= 0 (got \([0-9]*\))/\1=\2/' | tr '\n' ' '; }

sl run "$TMP/two.json"
check "no option: no debug" test "$(sizes)" = "A=64 big=4096 kmalloc-32=32 "
sl run "$TMP/two.json" --slab-debug ''
check "slab_debug alone: FZPU everywhere ($(sizes))" test "$(sizes)" = "A=160 big=4192 kmalloc-32=160 "
sl run "$TMP/two.json" --slab-debug 'FZPU'
check "FZPU everywhere ($(sizes))" test "$(sizes)" = "A=160 big=4192 kmalloc-32=160 "
sl run "$TMP/two.json" --slab-debug 'ZU,kmalloc-*'
check "ZU on the kmalloc caches only ($(sizes))" test "$(sizes)" = "A=64 big=4096 kmalloc-32=160 "
sl run "$TMP/two.json" --slab-debug 'FZPU;-,A'
check "all but A ($(sizes))" test "$(sizes)" = "A=64 big=4192 kmalloc-32=160 "
sl run "$TMP/two.json" --slab-debug 'FZPUO'
check "O spares the cache whose order debugging would raise ($(sizes))" \
    test "$(sizes)" = "A=160 big=4096 kmalloc-32=160 "
sl run "$TMP/two.json" --slab-debug ',A,big'
check "a bare list is full debugging for those caches ($(sizes))" \
    test "$(sizes)" = "A=160 big=4192 kmalloc-32=32 "
sl run "$TMP/two.json" --slab-debug 'FZQ'
check "an unknown letter is refused" test "$status" = 2
check "and named" grep -q "option 'Q' unknown" "$TMP/err"

# the same grammar as config.slab_debug in a scenario
sed 's/"kernel": "7.3",/"kernel": "7.3", "config": {"slab_debug": "ZU,kmalloc-*"},/' "$TMP/two.json" >"$TMP/cfg.json"
sl run "$TMP/cfg.json"
check "config.slab_debug as a string ($(sizes))" test "$(sizes)" = "A=64 big=4096 kmalloc-32=160 "
# the kmalloc red zone scenario, debugging only the kmalloc caches: the same findings
sl run "$root/scenarios/debug-kmalloc-redzone.json" --slab-debug 'ZU,kmalloc-*'
check "debug-kmalloc-redzone with ZU,kmalloc-*: every expectation" not grep -q '^FAIL' "$TMP/out"
sl run "$root/scenarios/debug-kmalloc-redzone.json" --slab-debug '-'
check "and with -: nothing is found" grep -q '^FAIL validated: kmalloc-32.slab_errors == 2 (got 0)' "$TMP/out"
finish
