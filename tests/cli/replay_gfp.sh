#!/usr/bin/env bash
# tests/cli/replay_gfp.sh: `slublab replay` understands every gfp name of the
# committed 6.18 captures (no "gfp_flags not understood" line), and lists the
# names it does not know when a trace has some, using the rest of each mask.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
for trace in "$root"/tests/data/kmem-trace-slice.txt.gz "$root"/tests/data/kmem-trace-sample.txt.gz; do
    base=$(basename "$trace")
    sl replay "$trace"
    check "$base: exit 0" test "$status" -eq 0
    check "$base: has gfp_flags to read" test "$(zcat "$trace" | grep -c 'gfp_flags=')" -gt 100
    check "$base: every gfp name understood" not grep -q 'gfp_flags not understood' "$TMP/out"
done
check "the sample has __GFP_HARDWALL (once not understood)" \
    test "$(zcat "$root/tests/data/kmem-trace-sample.txt.gz" | grep -c '__GFP_HARDWALL')" -gt 0

# names no release prints: counted, listed once each, the rest of the mask used
zcat "$root/tests/data/kmem-trace-slice.txt.gz" | head -200 >"$TMP/t.txt"
cat >>"$TMP/t.txt" <<'TRACE'
            bash-1 [000] .....   300.000001: kmalloc: call_site=x+0x1/0x2 ptr=00000000deadbe00 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL|__GFP_FUTURE node=-1 accounted=false
            bash-1 [000] .....   300.000002: kmalloc: call_site=x+0x1/0x2 ptr=00000000deadbe40 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_ATOMIC|__GFP_FUTURE|__GFP_LATER node=-1 accounted=false
            bash-1 [000] .....   300.000003: kmalloc: call_site=x+0x1/0x2 ptr=00000000deadbe80 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL|__GFP_NOLOCKDEP|__GFP_SKIP_KASAN|0x1000000 node=-1 accounted=false
TRACE
sl replay "$TMP/t.txt"
check "unknown names: exit 0" test "$status" -eq 0
check "unknown names: two masks counted" grep -qE '^ +2 +gfp_flags not understood' "$TMP/out"
check "unknown names: listed once each" grep -qE '^ +names: __GFP_FUTURE __GFP_LATER$' "$TMP/out"
finish
