#!/usr/bin/env bash
# The legacy model from the command line: the CPU_PARTIAL_DIRECT_LOAD
# variant (the step from ERA_DELAYED_FREEZE to ERA_DIRECT_LOAD) shows in the
# events as one lock section instead of pop, freeze_slab and retry_load_slab,
# with the same counters; the eras spelled as models; compare across models
# marks the counters a kernel does not have; what the legacy model refuses.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
refill=$root/scenarios/legacy-cpu-partial-refill.json

count() { grep -c "\"fn\":\"$1\",\"label\":\"$2\"" "$TMP/out"; }

sl run "$refill" --events --variant CPU_PARTIAL_DIRECT_LOAD=after
check "after: run exits 0" test "$status" -eq 0
check "after: one cpu_partial_load section" test "$(count ___slab_alloc cpu_partial_load)" -eq 1
check "after: no freeze_slab" test "$(count freeze_slab freeze)" -eq 0
check "after: no cpu_partial_pop" test "$(count ___slab_alloc cpu_partial_pop)" -eq 0
after_events=$(grep -c '"seq"' "$TMP/out")
after_retry=$(count ___slab_alloc retry_load_slab)

sl run "$refill" --events --variant CPU_PARTIAL_DIRECT_LOAD=before
check "before: run exits 0" test "$status" -eq 0
check "before: one cpu_partial_pop" test "$(count ___slab_alloc cpu_partial_pop)" -eq 1
check "before: one freeze_slab" test "$(count freeze_slab freeze)" -eq 1
check "before: one more retry_load_slab" \
    test "$(count ___slab_alloc retry_load_slab)" -eq $((after_retry + 1))
check "before: no cpu_partial_load" test "$(count ___slab_alloc cpu_partial_load)" -eq 0
check "before: two more events ($after_events after)" \
    test "$(grep -c '"seq"' "$TMP/out")" -eq $((after_events + 2))

# the era names the same machine as the variant
sl run "$refill" --model legacy:ERA_DELAYED_FREEZE --json
check "ERA_DELAYED_FREEZE runs" test "$status" -eq 0
check "ERA_DELAYED_FREEZE reports its model" grep -q '"model":"legacy:ERA_DELAYED_FREEZE"' "$TMP/out"
check "ERA_DELAYED_FREEZE reports the variant before" \
    grep -q '"CPU_PARTIAL_DIRECT_LOAD":"before"' "$TMP/out"
sl run "$refill" --model legacy:era_frozen_partial
check "ERA_FROZEN_PARTIAL fails the alloc_refill expect (it refills through REDO)" \
    test "$status" -eq 1
check "... and says so" grep -q "FAIL cpu-partial-refill: alloc_refill == 0 (got 1)" "$TMP/out"

# era and variant must agree; unknown eras; no prefill before sheaves
sl run "$refill" --model legacy:ERA_DELAYED_FREEZE --variant CPU_PARTIAL_DIRECT_LOAD=after
check "conflicting era and variant: exit 2" test "$status" -eq 2
check "conflicting era and variant: message" grep -q "is CPU_PARTIAL_DIRECT_LOAD=before" "$TMP/err"
sl run "$refill" --model legacy:ERA_SHEAVES
check "unknown era: exit 2" test "$status" -eq 2
check "unknown era: message" grep -q 'unknown model "legacy:ERA_SHEAVES"' "$TMP/err"
sl run "$root/scenarios/prefill-oversize.json" --model legacy
check "prefill on legacy: exit 2" test "$status" -eq 2
check "prefill on legacy: message" grep -q "kmem_cache_prefill_sheaf: the legacy model" "$TMP/err"

# one workload on both models
sl compare "$root/scenarios/legacy-vs-sheaves.json" --model legacy,sheaves
check "compare --model legacy,sheaves exits 0" test "$status" -eq 0
check "sheaf counters are n/a on legacy" grep -Eq '^sheaf_refill +n/a +[0-9]+' "$TMP/out"
check "cpu partial counters are n/a on sheaves" grep -Eq '^cpu_partial_free +3 +n/a' "$TMP/out"
sl compare "$root/scenarios/legacy-vs-sheaves.json" --model legacy,sheaves --json
check "compare --json is JSON" json_doc "$TMP/out"
check "rows say which kernels count them" \
    grep -q '"metric":"free_frozen","baseline":16,"patched":0,"change_pct":null,"in_baseline":true,"in_patched":false' "$TMP/out"
sl compare "$root/scenarios/legacy-vs-sheaves.json" --model legacy,sheaves --md -o "$TMP/cmp.md"
check "compare --md across models exits 0" test "$status" -eq 0
check "the Markdown table marks n/a too" grep -q '^| free_frozen | 16 | n/a | - | - |$' "$TMP/cmp.md"
sl compare "$refill" --model legacy:ERA_FROZEN_PARTIAL,legacy:ERA_DIRECT_LOAD
check "compare across eras exits 0" test "$status" -eq 0
check "alloc_refill 1 -> 0 across eras" grep -Eq '^alloc_refill +1 +0 ' "$TMP/out"
# 1.C, the unlikely branch, in the three eras (docs/engine.md, the legacy model)
numa=$root/scenarios/legacy-numa-mismatch.json
sl compare "$numa" --model legacy:ERA_DELAYED_FREEZE,legacy:ERA_DIRECT_LOAD
check "6.8 -> 6.9: cpu_partial_alloc 1 -> 0" grep -Eq '^cpu_partial_alloc +1 +0 ' "$TMP/out"
check "6.8 -> 6.9: free_add_partial stays 1" grep -Eq '^free_add_partial +1 +1 ' "$TMP/out"
check "6.8 -> 6.9: no node mismatch either way (0 in both: left out)" not grep -Eq '^alloc_node_mismatch ' "$TMP/out"
sl compare "$numa" --model legacy:ERA_FROZEN_PARTIAL,legacy:ERA_DIRECT_LOAD
check "6.2-6.7: alloc_node_mismatch" grep -Eq '^alloc_node_mismatch +1 +0 ' "$TMP/out"
check "6.2-6.7: deactivate_remote_frees" grep -Eq '^deactivate_remote_frees +1 +0 ' "$TMP/out"
check "6.2-6.7: deactivate_to_tail" grep -Eq '^deactivate_to_tail +1 +0 ' "$TMP/out"
check "6.2-6.7: no free_add_partial" grep -Eq '^free_add_partial +0 +1 ' "$TMP/out"
finish
