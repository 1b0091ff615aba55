#!/usr/bin/env bash
# slublab report and slublab compare --md: Markdown reports whose numbers
# are the engine's (checked against `slublab run --json` and
# `slublab compare --json`), with their SVG charts beside them.
. "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
scn=$here/../data/export.json
js() { node -e "$1" "${@:2}"; }

sl run "$scn" --json && cp "$TMP/out" "$TMP/summary.json"
sl report "$scn"
check "report: exit 0" test "$status" -eq 0
cp "$TMP/out" "$TMP/report.md"
nr_events=$(sed -n 's/^# slublab report: export at step \([0-9]*\) of \1$/\1/p' "$TMP/report.md")
check "report: title names the scenario and the end" test -n "$nr_events"
check "report: no chart on stdout" not grep -q 'svg' "$TMP/report.md"
# every live cache's row in the state table: slabs partial objects objects_partial total_objects
js 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
for (const c of d.caches) if (c.alive)
  console.log(`| ${c.name.replace(/_/g, "\\_")} | ${c.object_size} | ${c.slab_size} | ${c.objs_per_slab} | ${c.order} | ${c.slabs} | ${c.partial} | ${c.objects} | ${c.objects_partial} | ${c.total_objects} |`);' \
    "$TMP/summary.json" >"$TMP/rows-want"
grep -F -f "$TMP/rows-want" -x "$TMP/report.md" >"$TMP/rows-got"
check "report: state rows of every live cache" diff "$TMP/rows-want" "$TMP/rows-got"
check "report: destroyed cache left out" not grep -q '^| gone |' "$TMP/report.md"
# counters: "| alloc_fastpath | total | cpu0 | cpu1 | cpu2 | cpu3 |" of the cache plain
want=$(js 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
const c = d.caches.find((x) => x.name === "plain");
console.log(`| alloc_fastpath | ${c.stats.alloc_fastpath} | ${c.cpus.map((x) => x.stats.alloc_fastpath || 0).join(" | ")} |`);' "$TMP/summary.json")
check "report: per-CPU counters ($want)" grep -qxF "$want" <(sed -n '/^### plain$/,/^### /p' "$TMP/report.md")
check "report: per-node slabs" grep -qE '^\| dentry\\_like \| [0-9]+ \([0-9]+\) \| [0-9]+ \([0-9]+\) \|$' "$TMP/report.md"

mkdir "$TMP/r"
sl report "$scn" --at 900 -o "$TMP/r/step.md"
check "report -o: exit 0" test "$status" -eq 0
check "report -o: the report" grep -q "^# slublab report: export at step 900 of $nr_events$" "$TMP/r/step.md"
check "report -o: links its chart" grep -qF '](step-objects.svg)' "$TMP/r/step.md"
check "report -o: the chart beside it" grep -q '^<svg xmlns="http://www.w3.org/2000/svg"' "$TMP/r/step-objects.svg"
check "report -o: the chart is closed" test "$(tail -1 "$TMP/r/step-objects.svg")" = "</svg>"
sl export "$scn" --at 900
plain=$(awk '$1 == "plain" { print $2 " / " $3 }' "$TMP/out")
check "report --at 900: the chart's numbers are the export's ($plain)" grep -qF ">$plain<" "$TMP/r/step-objects.svg"
sl report "$scn" --at $((nr_events + 1))
check "report --at beyond the end: exit 2" test "$status" -eq 2
sl report "$scn" -o "$TMP/nodir/x.md"
check "report -o in a missing directory: exit 2" test "$status" -eq 2
sl report
check "report without a file: exit 2" test "$status" -eq 2
sl report --help
check "report --help" grep -q 'usage: slublab report' "$TMP/out"

# the legacy model: each CPU's cpu slab (lockless freelist / partial list) instead of sheaves
leg=$here/../data/export-legacy.json
sl run "$leg" --json && cp "$TMP/out" "$TMP/legacy.json"
sl report "$leg"
check "legacy report: exit 0" test "$status" -eq 0
check "legacy report: no sheaves table" not grep -q 'Per-CPU sheaves' "$TMP/out"
js 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
for (const c of d.caches) if (c.alive)
  console.log(`| ${c.name.replace(/_/g, "\\_")} | ${c.cpus.map((x) => !x.cpu_slab ? "n/a"
    : `${x.cpu_slab.slab ? x.cpu_slab.freelist.length : "-"} / ${x.cpu_slab.partial.length}`).join(" | ")} | ${c.cpu_partial || 0} |`);' \
    "$TMP/legacy.json" >"$TMP/leg-want"
grep -F -f "$TMP/leg-want" -x "$TMP/out" >"$TMP/leg-got"
check "legacy report: each CPU's cpu slab and partial list, as run --json has them" diff "$TMP/leg-want" "$TMP/leg-got"
check "legacy report: a CPU with a partial list but no cpu slab" grep -qE '^\| t512 \|.* - / [1-9]' "$TMP/out"

# compare --md: the cover-letter block and the table hold compare --json's rows
fsf=$here/../../scenarios/fresh-slab-fill.json
sl compare "$fsf" --variant DEFERRED_FREELIST --json && cp "$TMP/out" "$TMP/cmp.json"
sl compare "$fsf" --variant DEFERRED_FREELIST --md -o "$TMP/r/cmp.md"
check "compare --md: exit 0" test "$status" -eq 0
js 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
for (const r of d.rows) if (r.baseline || r.patched) {
  const delta = r.patched - r.baseline;
  const ch = r.change_pct === null ? (r.baseline ? "-" : "new") : r.change_pct === 0 ? "0%" : `${r.change_pct > 0 ? "+" : ""}${r.change_pct.toFixed(1)}%`;
  console.log(`| ${r.metric} | ${r.baseline} | ${r.patched} | ${delta > 0 ? "+" : ""}${delta} | ${ch} |`);
}' "$TMP/cmp.json" >"$TMP/cmp-want"
grep -E '^\| [a-z_]+ \| [0-9]' "$TMP/r/cmp.md" >"$TMP/cmp-got"
check "compare --md: the table is compare --json's non-zero rows" diff "$TMP/cmp-want" "$TMP/cmp-got"
check "compare --md: cover-letter line" \
    grep -qE '^engine_freeptr_reads +60 +0 +-60 +-100\.0%$' "$TMP/r/cmp.md"
check "compare --md: the state of both runs" test "$(grep -c '^## State at the end' "$TMP/r/cmp.md")" -eq 2
check "compare --md -o: chart" grep -q '>engine_freeptr_reads<' "$TMP/r/cmp-counters.svg"
check "compare --md -o: chart linked" grep -qF '](cmp-counters.svg)' "$TMP/r/cmp.md"
sl compare "$fsf" --variant DEFERRED_FREELIST --md --json
check "compare --md --json: exit 2" test "$status" -eq 2
sl compare "$fsf" --variant DEFERRED_FREELIST -o "$TMP/r/x.md"
check "compare -o without --md: exit 2" test "$status" -eq 2
finish
