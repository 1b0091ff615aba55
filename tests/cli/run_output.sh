#!/usr/bin/env bash
# tests/cli/run_output.sh: what `slublab run` and `slublab compare` print:
# the sysfs-style report, --json and --events (valid, keys in their fixed
# order, identical bytes on every run), --snapshot, expect results and exit
# statuses, warnings for misuse.  $1 is the slublab program.
. "$(dirname "$0")/lib.bash"

cat >"$TMP/s.json" <<'JSON'
{"format": 1, "name": "s", "title": "test", "seed": 7,
 "machine": {"cpus": 2, "nodes": 2, "cpu_node": [0, 1], "mem_mb_per_node": 16},
 "config": {"freelist_random": true},
 "caches": [{"name": "A", "object_size": 64}, {"name": "B", "object_size": 200, "flags": ["SLAB_HWCACHE_ALIGN"]}],
 "ops": [
   {"op": "alloc", "cpu": 0, "cache": "A", "name": "first"},
   {"op": "mark", "name": "one"},
   {"op": "repeat", "times": 70, "ops": [{"op": "alloc", "cpu": 1, "cache": "A", "name": "o{i}"}]},
   {"op": "alloc_bulk", "cpu": 0, "cache": "B", "count": 9, "name": "b"},
   {"op": "free", "cpu": 0, "name": "b[3]"},
   {"op": "free", "cpu": 1, "name": "b"},
   {"op": "kmalloc", "cpu": 1, "size": 100, "gfp": "GFP_KERNEL|__GFP_ZERO", "name": "k"},
   {"op": "kfree", "cpu": 0, "name": "k"},
   {"op": "repeat", "times": 70, "ops": [{"op": "free", "cpu": 0, "name": "o{i}"}, {"op": "mark", "name": "f{i}"}]},
   {"op": "flush_all", "cache": "A"},
   {"op": "shrink", "cache": "B"}
 ],
 "expect": [
   {"at": "one", "metric": "alloc_fastpath", "op": "==", "value": 1},
   {"at": "f69", "metric": "A.cpu1.alloc_fastpath", "op": "==", "value": 70},
   {"at": "end", "metric": "B.sheaf_capacity", "op": ">", "value": 0},
   {"at": "end", "metric": "A.alloc_fastpath", "op": "==", "value": 71}
 ]}
JSON

# ---- text report ----
sl run "$TMP/s.json"
check "run exits 0 when every expect passes" [ "$status" -eq 0 ]
check "report has a section per cache" grep -qx '/sys/kernel/slab/B/' "$TMP/out"
for f in object_size slab_size align objs_per_slab order min_partial sheaf_capacity \
    slabs objects partial objects_partial total_objects; do
    check "report has the $f file" grep -q "^$f [0-9]" "$TMP/out"
done
check "counters use show_stat format" grep -Eq '^alloc_fastpath [0-9]+( C[0-9]+=[0-9]+)+$' "$TMP/out"
check "NUMA slab-state files have N<node> parts" grep -Eq '^total_objects [0-9]+( N[0-9]+=[0-9]+)+$' "$TMP/out"
check "per-CPU sheaves are shown" grep -q '^cpu1 (node 1) sheaves: main ' "$TMP/out"
check "per-node barns are shown" grep -q '^node1 barn: full ' "$TMP/out"
check "expects are listed" grep -q '^PASS f69: A.cpu1.alloc_fastpath == 70 (got 70)$' "$TMP/out"
check "expect totals" grep -qx '4 passed, 0 failed' "$TMP/out"

# ---- --json ----
sl run "$TMP/s.json" --json
check "--json exits 0" [ "$status" -eq 0 ]
check "--json is one line" [ "$(wc -l <"$TMP/out")" -eq 1 ]
check "--json parses" json_doc "$TMP/out"
keys=$(json_keys "$TMP/out")
check "--json keys in order ($keys)" [ "$keys" = "scenario,variants,kernel,model,seed,caches,zones,min_free_kbytes,watermark_scale_factor,kswapd,cma,expects,warnings,ok" ]
check "--json ok is true" grep -q '"ok":true}$' "$TMP/out"
check "--json addresses are hex strings" grep -Eq '"random":"0x[0-9a-f]+"' "$TMP/out"

# ---- --events: deterministic JSON Lines ----
sl run "$TMP/s.json" --events
cp "$TMP/out" "$TMP/ev1"
sl run "$TMP/s.json" --events
check "--events exits 0" [ "$status" -eq 0 ]
check "--events prints the same bytes twice" cmp -s "$TMP/out" "$TMP/ev1"
check "--events lines all parse" json_lines "$TMP/out"
check "--events has many events" [ "$(wc -l <"$TMP/out")" -gt 100 ]
check "--events ends with the summary" grep -q '^{"summary":{"scenario":"s",' <(tail -n 1 "$TMP/out")
head -n 1 "$TMP/out" >"$TMP/first"
keys=$(json_keys "$TMP/first")
check "event keys in order ($keys)" [ "$keys" = "seq,op,cpu,node,cache,fn,label,moves,stats,report" ]
check "events number seq from 0" grep -q '^{"seq":0,' <(head -n 1 "$TMP/out")
check "slab ids are hex strings" grep -Eq '"kind":"slab","id":"0x[0-9a-f]+"' "$TMP/out"
check "sheaf ids are integers" grep -Eq '"kind":"sheaf","id":[0-9]+,' "$TMP/out"
check "places omit unset fields" grep -q '"from":{"type":"none"}' "$TMP/out"
sl run "$TMP/s.json" --events --seed 8
check "another seed gives other events" not cmp -s "$TMP/out" "$TMP/ev1"

# ---- --snapshot ----
sl run "$TMP/s.json" --snapshot
check "--snapshot parses" json_doc "$TMP/out"
keys=$(json_keys "$TMP/out")
check "--snapshot keys ($keys)" [ "$keys" = "seq,op,nr_cpus,nr_nodes,cpu_node,caches,slabs,sheaves,zones,inflight,rcu_pending,rcu_callbacks" ]

# ---- overrides ----
sl run "$TMP/s.json" --json --variant DEFERRED_FREELIST=before --seed 9
check "--variant shows in --json" grep -q '"DEFERRED_FREELIST":"before"' "$TMP/out"
check "--seed shows in --json" grep -q '"seed":9,' "$TMP/out"

# ---- failing expects: exit 1 ----
sed 's/"op": "==", "value": 70/"op": "==", "value": 71/' "$TMP/s.json" >"$TMP/f.json"
sl run "$TMP/f.json"
check "a failing expect exits 1" [ "$status" -eq 1 ]
check "the failing expect is marked" grep -q '^FAIL f69: A.cpu1.alloc_fastpath == 71 (got 70)$' "$TMP/out"
sl run "$TMP/f.json" --json
check "--json with a failing expect exits 1" [ "$status" -eq 1 ]
check "--json ok is false" grep -q '"ok":false}$' "$TMP/out"

# ---- misuse is a warning, not an abort ----
cat >"$TMP/m.json" <<'JSON'
{"format": 1, "name": "m", "caches": [{"name": "A", "object_size": 64}],
 "ops": [{"op": "alloc", "cpu": 0, "cache": "A", "name": "x"},
         {"op": "kfree", "cpu": 0, "addr": "0xffff888100000008"},
         {"op": "free", "cpu": 0, "name": "x"}]}
JSON
sl run "$TMP/m.json"
check "misuse does not stop the run" [ "$status" -eq 0 ]
check "misuse is a warning line" grep -q '^warning: ops\[1\] (kfree): misuse: ' "$TMP/out"
check "the report follows the warning" grep -qx '/sys/kernel/slab/A/' "$TMP/out"
sl run "$TMP/m.json" --json
check "misuse is in --json warnings" grep -q '"warnings":\[{"path":"ops\[1\]","op":"kfree","status":"misuse"' "$TMP/out"

# ---- --validate ----
sl run "$TMP/s.json" --validate
check "--validate passes on a sound engine" [ "$status" -eq 0 ]

# ---- compare ----
sl compare "$TMP/s.json" --variant DEFERRED_FREELIST
check "compare exits 0" [ "$status" -eq 0 ]
check "compare prints the table head" grep -Eq '^metric +baseline +patched +delta +change$' "$TMP/out"
check "compare names both sides" grep -q '^baseline: DEFERRED_FREELIST=before$' "$TMP/out"
check "compare leaves zero counters out" not grep -Eq '^cpu_partial_drain ' "$TMP/out"
check "... and counts them" grep -Eq '^Left out: [0-9]+ counters that are 0 in both runs' "$TMP/out"
check "compare lists engine counters, with their delta" grep -Eq '^engine_freeptr_writes +[0-9]+ +[0-9]+ +[-+][0-9]+ +[-+][0-9]+\.[0-9]%$' "$TMP/out"
check "compare lists the slab-state files" grep -Eq '^objects_partial +[0-9]+ +[0-9]+ ' "$TMP/out"
sl compare "$TMP/s.json" --variant DEFERRED_FREELIST=after,before --cache B --json
check "compare --json exits 0" [ "$status" -eq 0 ]
check "compare --json parses" json_doc "$TMP/out"
check "compare --json rows have the fixed keys" \
    grep -Eq '"rows":\[\{"metric":"alloc_fastpath","baseline":[0-9]+,"patched":[0-9]+,"change_pct":' "$TMP/out"
check "compare --json: change_pct null for a zero baseline" \
    grep -q '{"metric":"free_slab","baseline":0,"patched":0,"change_pct":null}' "$TMP/out"
check "compare --json: a counter the kernel lacks is marked so (no sysfs file on 7.3)" \
    grep -q '{"metric":"cpu_partial_drain","baseline":0,"patched":0,"change_pct":null,"in_baseline":false,"in_patched":false}' "$TMP/out"
rows=$(json_len "$TMP/out" rows)
check "compare --json has a row per counter plus 5 ($rows)" [ "$rows" -ge 50 ]
sl compare "$TMP/s.json" --variant DEFERRED_FREELIST --json
cp "$TMP/out" "$TMP/c1"
sl compare "$TMP/s.json" --variant DEFERRED_FREELIST --json
check "compare is deterministic" cmp -s "$TMP/out" "$TMP/c1"

# ---- zones: the text section and --json against --snapshot and `slublab gfp` ----
# For a machine with DMA and DMA32 zones and for the default machine: the text's
# /proc/zoneinfo-like blocks equal --json's zones; those equal the final
# snapshot's zones (free, managed, watermarks, lowmem_reserve) in node/zone
# order; their watermarks equal what `slublab gfp` reports for the same machine
# (fresh: free = managed); min_free_kbytes is the scenario's, or sqrt(16 * lowmem
# KiB) computed here, and the min watermarks share it.
root=$(cd "$(dirname "$0")/../.." && pwd)
zones_check='
const fs = require("fs");
const [text, json, snap, gfp, scn] = process.argv.slice(1).map((f) => fs.readFileSync(f, "utf8"));
const sum = JSON.parse(json), st = JSON.parse(snap), g = JSON.parse(gfp), sc = JSON.parse(scn);
const fail = (m) => { console.log(m); process.exit(1); };
const eq = (a, b, m) => { if (JSON.stringify(a) !== JSON.stringify(b)) fail(`${m}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`); };
const types = ["DMA", "DMA32", "Normal", "Movable"];
// the text section, parsed as /proc/zoneinfo
const sec = text.split("\n\n").find((b) => b.startsWith("zones: "));
if (!sec) fail("no zones section");
const head = sec.split("\n")[0];
eq(head, `zones: min_free_kbytes ${sum.min_free_kbytes}, watermark_scale_factor ${sum.watermark_scale_factor}, ` +
   `kswapd ${sum.kswapd ? "on" : "off"}, cma ${sum.cma ? "on" : "off"}`, "header");
const parsed = [];
for (const l of sec.split("\n").slice(1)) {
  let m;
  if ((m = /^Node (\d+), zone +(\S+)$/.exec(l))) parsed.push({ node: +m[1], zone: m[2] });
  else if ((m = /^  pages free +(\d+)$/.exec(l))) parsed.at(-1).pages_free = +m[1];
  else if ((m = /^ {8}(min|low|high|managed) +(\d+)$/.exec(l))) parsed.at(-1)[m[1]] = +m[2];
  else if ((m = /^ {8}protection: \((.*)\)$/.exec(l))) parsed.at(-1).protection = m[1].split(", ").map(Number);
  else fail(`unexpected line "${l}"`);
}
eq(parsed, sum.zones, "text zones vs --json zones");
// --json zones vs the snapshot, which lists them in its own order
const want = st.zones.slice().sort((a, b) => a.node - b.node || types.indexOf(a.name) - types.indexOf(b.name))
  .map((z) => ({ node: z.node, zone: z.name, pages_free: z.free_pages, min: z.watermarks.min, low: z.watermarks.low,
                 high: z.watermarks.high, managed: z.pages, protection: types.map((t) => z.lowmem_reserve[t]) }));
eq(sum.zones, want, "--json zones vs --snapshot zones");
// the zonelist of GFP_KERNEL on node 0 (fresh machine)
for (const m of g.zonelist) {
  const z = sum.zones.find((x) => x.node === m.node && x.zone === m.zone);
  if (!z) fail(`gfp zone ${m.node}/${m.zone} missing`);
  eq([z.min, z.low, z.high], [m.watermarks.min, m.watermarks.low, m.watermarks.high], `${m.zone} watermarks vs gfp`);
  eq(z.managed, m.free_pages, `${m.zone} managed vs gfp free on a fresh machine`);
  eq(z.protection[types.indexOf("Normal")], m.lowmem_reserve, `${m.zone} protection vs gfp lowmem_reserve`);
}
const mc = sc.machine || {}, cfg = sc.config || {};
const mib = (mc.mem_mb_per_node || 64) * (mc.nodes || 1) + (mc.dma_mb || 0) + (mc.dma32_mb || 0);
eq(sum.zones.reduce((a, z) => a + z.managed, 0), mib * 256, "managed pages total the machine");
const auto = Math.min(262144, Math.max(128, Math.floor(Math.sqrt(16 * mib * 1024))));
eq(sum.min_free_kbytes, cfg.min_free_kbytes || auto, "min_free_kbytes");
const mins = sum.zones.reduce((a, z) => a + z.min, 0), pmin = sum.min_free_kbytes / 4;
if (!(mins <= pmin && mins > pmin - sum.zones.length)) fail(`min watermarks ${mins} do not share ${pmin} pages`);
eq(sum.watermark_scale_factor, cfg.watermark_scale_factor || 10, "watermark_scale_factor");
console.log(sum.zones.map((z) => z.zone).join(","));
'
if command -v node >/dev/null 2>&1; then
    for name in dma-cache default; do
        f=$root/scenarios/$name.json
        sl run "$f"; cp "$TMP/out" "$TMP/z.txt"
        sl run "$f" --json; cp "$TMP/out" "$TMP/z.json"
        sl run "$f" --snapshot; cp "$TMP/out" "$TMP/z.snap"
        sl gfp GFP_KERNEL --json --scenario "$f"; cp "$TMP/out" "$TMP/z.gfp"
        got=$(node -e "$zones_check" "$TMP/z.txt" "$TMP/z.json" "$TMP/z.snap" "$TMP/z.gfp" "$f" 2>&1)
        case $name in
        dma-cache) want=DMA,DMA32,Normal ;;
        *) want=Normal ;;
        esac
        check "$name: zones agree with --snapshot and gfp ($got)" [ "$got" = "$want" ]
    done
    # the section follows the caches and precedes the expects
    check "zones section between the caches and the expects" \
        sh -c "awk '/^\\/sys\\/kernel\\/slab\\//{c=NR} /^zones: /{z=NR} /^expects\$/{e=NR} END{exit !(c && c<z && z<e)}' '$TMP/z.txt'"
    # watermark settings reach the report
    sed 's/"min_free_kbytes": 4096/"min_free_kbytes": 2048, "watermark_scale_factor": 300, "kswapd": true, "cma": false/' \
        "$root/scenarios/dma-cache.json" >"$TMP/zw.json"
    sl run "$TMP/zw.json"
    check "configured watermark parameters in the zones header" \
        grep -qx 'zones: min_free_kbytes 2048, watermark_scale_factor 300, kswapd on, cma off' "$TMP/out"
    cp "$TMP/out" "$TMP/z.txt"
    sl run "$TMP/zw.json" --json; cp "$TMP/out" "$TMP/z.json"
    sl run "$TMP/zw.json" --snapshot; cp "$TMP/out" "$TMP/z.snap"
    sl gfp GFP_KERNEL --json --scenario "$TMP/zw.json"; cp "$TMP/out" "$TMP/z.gfp"
    got=$(node -e "$zones_check" "$TMP/z.txt" "$TMP/z.json" "$TMP/z.snap" "$TMP/z.gfp" "$TMP/zw.json" 2>&1)
    check "configured machine: zones agree with --snapshot and gfp ($got)" [ "$got" = "DMA,DMA32,Normal" ]
else
    skip "zones checks need node"
fi

# ---- the complete example of docs/scenario-format.md runs and passes ----
doc="$(dirname "$0")/../../docs/scenario-format.md"
sed -n '/^## A complete example/,/^## /p' "$doc" | sed -n '/^```json$/,/^```$/p' | sed '1d;$d' >"$TMP/doc.json"
sl run "$TMP/doc.json" --validate
check "the documented example scenario passes its expects" [ "$status" -eq 0 ]

finish
