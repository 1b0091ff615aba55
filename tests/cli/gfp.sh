#!/usr/bin/env bash
# tests/cli/gfp.sh: `slublab gfp`: the decoded table through
# the command (hex and names of the slow-path flags), thresholds on the
# default machine and on a scenario's zones, the coupled translation under
# the renumbered layout, --json, and exit status 2 for bad masks.
. "$(dirname "$0")/lib.bash"

# row MASK ORDER CONTEXT SLOW_HEX SLOW_NAMES
row() {
    sl gfp "$1" --order "$2" --context "$3"
    check "gfp $1 order $2 $3 exits 0" [ "$status" -eq 0 ]
    check "gfp $1 order $2 $3: slow path $4 $5" grep -qE "^slow path +$4 +$5\$" "$TMP/out"
}
row GFP_KERNEL 0 task 0x840 'WMARK_MIN\|CPUSET\|KSWAPD'
row GFP_ATOMIC 0 task 0x830 'WMARK_MIN\|NON_BLOCK\|MIN_RESERVE\|KSWAPD'
row GFP_ATOMIC 3 task 0xa30 'WMARK_MIN\|NON_BLOCK\|MIN_RESERVE\|HIGHATOMIC\|KSWAPD'
row GFP_NOWAIT 0 task 0x850 'WMARK_MIN\|NON_BLOCK\|CPUSET\|KSWAPD'
row GFP_HIGHUSER_MOVABLE 0 task 0x8c0 'WMARK_MIN\|CPUSET\|CMA\|KSWAPD'
row GFP_DMA 0 task 0x50 'WMARK_MIN\|NON_BLOCK\|CPUSET'
row 'GFP_ATOMIC|__GFP_NOMEMALLOC' 0 task 0x820 'WMARK_MIN\|MIN_RESERVE\|KSWAPD'
row GFP_TRANSHUGE_LIGHT 9 task 0xc0 'WMARK_MIN\|CPUSET\|CMA'
row 0xd20c0 3 task 0x40 'WMARK_MIN\|CPUSET'
row GFP_KERNEL 0 rt 0x860 'WMARK_MIN\|MIN_RESERVE\|CPUSET\|KSWAPD'

sl gfp 'GFP_KERNEL|__GFP_MEMALLOC'
check "MEMALLOC: the retry ignores watermarks" grep -qE '^retry +0x804 +NO_WATERMARKS\|KSWAPD$' "$TMP/out"
check "MEMALLOC: no retry threshold" grep -qE '^  0 +Normal .* none$' "$TMP/out"
sl gfp 'GFP_NOFS|__GFP_ZERO|__GFP_NOFAIL|__GFP_HARDWALL|__GFP_ACCOUNT'
check "every name of a 6.18 trace's mask" grep -q \
    '^mask *GFP_NOFS|__GFP_NOFAIL|__GFP_ZERO|__GFP_HARDWALL|__GFP_ACCOUNT (0x508d40)$' "$TMP/out"
sl gfp 'GFP_KERNEL|__GFP_NOLOCKDEP'
check "a name this kernel defines as 0 (LOCKDEP=n) adds nothing" grep -q '^mask *GFP_KERNEL (0xcc0)$' "$TMP/out"
sl gfp 0xdc0
check "hex input prints names" grep -q '^mask *GFP_KERNEL|__GFP_ZERO (0xdc0)$' "$TMP/out"

# thresholds on the default 64 MiB node: min 256, low 320; GFP_ATOMIC 3M/8 = 96
sl gfp GFP_ATOMIC
check "default machine: Normal 256/320/384, fast 320, slow 96" \
    grep -qE '^  0 +Normal +16384 +256 +320 +384 +0 +320 +96 +96$' "$TMP/out"

# a scenario's zones: DMA 16 MiB, DMA32 256 MiB, min_free_kbytes 4096
cat >"$TMP/zones.json" <<'JSON'
{"format": 1, "name": "zones", "machine": {"cpus": 1, "mem_mb_per_node": 64, "dma_mb": 16,
 "dma32_mb": 256}, "config": {"min_free_kbytes": 4096}, "ops": []}
JSON
sl gfp GFP_KERNEL --scenario "$TMP/zones.json"
check "zonelist Normal, DMA32, DMA" test "$(grep -cE '^  0 +(Normal|DMA32|DMA) ' "$TMP/out")" -eq 3
check "DMA32 is protected by its lowmem reserve (16384 / 256 = 64)" \
    grep -qE '^  0 +DMA32 +65536 +[0-9]+ +[0-9]+ +[0-9]+ +64 ' "$TMP/out"
check "NOFRAGMENT on the fast path when ZONE_DMA32 exists" grep -q '^fast path.*NOFRAGMENT' "$TMP/out"
sl gfp 'GFP_KERNEL|GFP_DMA' --scenario "$TMP/zones.json"
check "GFP_DMA: zone DMA only" test "$(grep -cE '^  0 +' "$TMP/out")" -eq 1
check "GFP_DMA: zone DMA" grep -q '^zone *DMA$' "$TMP/out"

# the renumbered layout: refused with the coupled form, wrong when forced
cat >"$TMP/renum.json" <<'JSON'
{"format": 1, "name": "renum", "variants": {"GFP_TRANSLATE": "coupled"},
 "config": {"alloc_layout": "renumbered"}, "ops": []}
JSON
sl gfp GFP_ATOMIC --scenario "$TMP/renum.json"
check "coupled + renumbered: exit 2" [ "$status" -eq 2 ]
check "coupled + renumbered: says why" grep -q 'ALLOC_MIN_RESERVE' "$TMP/err"
sed -i 's/"renumbered"/"renumbered-forced"/' "$TMP/renum.json"
sl gfp GFP_ATOMIC --scenario "$TMP/renum.json"
check "forced coupled: the copied bits mean nothing" \
    grep -qE '^slow path +0x870 +WMARK_MIN\|NON_BLOCK\|CPUSET\|0x820$' "$TMP/out"
check "forced coupled: threshold back to M" grep -qE '^  0 +Normal .* 320 +256 +256$' "$TMP/out"
sl gfp GFP_ATOMIC --scenario "$TMP/renum.json" --variant GFP_TRANSLATE=explicit
check "explicit on the renumbered layout: MIN_RESERVE at 0x1000" \
    grep -qE '^slow path +0x3010 +WMARK_MIN\|NON_BLOCK\|MIN_RESERVE\|KSWAPD$' "$TMP/out"

sl gfp 'GFP_KERNEL|__GFP_ZERO' --json
check "--json is one JSON document" json_doc "$TMP/out"
check "--json keys" test "$(json_keys "$TMP/out")" = \
    "gfp,names,order,context,cma,translate,alloc_layout,zone,migratetype,can_reclaim,costly,fast,slow,retry,zonelist"

# bad input: exit 2 with the reason
bad_mask() {
    sl gfp "$@"
    check "'gfp $*' exits 2" [ "$status" -eq 2 ]
    check "'gfp $*' says why" grep -qF -- "$want" "$TMP/err"
}
want="is not a gfp mask" bad_mask GFP_KERNL
want="is not a gfp mask" bad_mask 'GFP_KERNEL|'
want="GFP_ZONE_BAD" bad_mask 'GFP_DMA|GFP_DMA32'
want="bit 9 is unused" bad_mask 0x200
want="__GFP_RECLAIMABLE" bad_mask '__GFP_MOVABLE|__GFP_RECLAIMABLE'
want="--order wants" bad_mask GFP_KERNEL --order 11
want="--context wants" bad_mask GFP_KERNEL --context irq
want="which mask" bad_mask
want="node 3" bad_mask GFP_KERNEL --node 3

# scenarios: the page allocator's keys, ops and metrics refuse bad input with the reason
bad_scenario() {
    echo "$1" >"$TMP/bad.json"
    sl run "$TMP/bad.json"
    check "bad scenario exits 2: $1" [ "$status" -eq 2 ]
    check "bad scenario says \"$2\": $1" grep -qF -- "$2" "$TMP/err"
}
bad_scenario '{"format":1,"name":"x","machine":{"dma_mb":5},"ops":[]}' 'must be multiples of 4'
bad_scenario '{"format":1,"name":"x","machine":{"dma_mb":20},"ops":[]}' 'above the limit 16'
bad_scenario '{"format":1,"name":"x","config":{"alloc_layout":"bogus"},"ops":[]}' 'is not kernel, renumbered or renumbered-forced'
bad_scenario '{"format":1,"name":"x","variants":{"GFP_TRANSLATE":"coupled"},"config":{"alloc_layout":"renumbered"},"ops":[]}' 'renumbered-forced to run it anyway'
bad_scenario '{"format":1,"name":"x","variants":{"GFP_TRANSLATE":"sideways"},"ops":[]}' 'expected "before" or "after"'
bad_scenario '{"format":1,"name":"x","config":{"min_free_kbytes":300000},"ops":[]}' 'above the limit 262144'
bad_scenario '{"format":1,"name":"x","ops":[{"op":"alloc_pages","order":11}]}' 'above the limit 10'
bad_scenario '{"format":1,"name":"x","ops":[{"op":"alloc_pages","context":"irq"}]}' 'is not task, atomic or rt'
bad_scenario '{"format":1,"name":"x","ops":[{"op":"alloc_pages","gfp":"GFP_DMA|GFP_DMA32"}]}' 'GFP_ZONE_BAD'
bad_scenario '{"format":1,"name":"x","ops":[{"op":"free_pages","name":"nope"}]}' 'no earlier operation allocates "nope"'
bad_scenario '{"format":1,"name":"x","ops":[{"op":"alloc_pages","name":"a","order":2},{"op":"free_pages","name":"a","order":1}]}' 'has order 2, not 1'
bad_scenario '{"format":1,"name":"x","ops":[],"expect":[{"at":"end","metric":"Bogus.free_pages","op":"==","value":1}]}' '"Bogus" is not a zone'
bad_scenario '{"format":1,"name":"x","ops":[],"expect":[{"at":"end","metric":"Normal@1.free_pages","op":"==","value":1}]}' '"Normal@1" is not a zone'

# the variant's own words work everywhere a variant is named
cat >"$TMP/words.json" <<'JSON'
{"format": 1, "name": "words", "variants": {"GFP_TRANSLATE": "coupled"}, "ops": []}
JSON
sl gfp GFP_ATOMIC --scenario "$TMP/words.json"
check "variants: GFP_TRANSLATE coupled" grep -q 'GFP_TRANSLATE=coupled' "$TMP/out"
finish
