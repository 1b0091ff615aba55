#!/usr/bin/env bash
# tests/cli/lessons.sh: the shipped course (lessons/, docs/teaching.md).
# `slublab lessons check lessons` must find no problem (formats, positions,
# every asking slide before an event with a branch record, every exercise's
# solution within max_ops, minutes from 5 to 15); beyond what it checks,
# the course itself: at least 12 lessons, numbered 01, 02, ... without
# gaps, each with at least 3 questions; at least 8 exercises, none already solved
# by its preset alone; and docs/teaching.md names every lesson and exercise.
# $1 is the slublab program.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

sl lessons check "$root/lessons"
check "lessons check lessons: exit 0" [ "$status" -eq 0 ]
check "lessons check lessons: no problem" grep -q ' 0 problems$' "$TMP/out"
if [ "$status" -ne 0 ]; then head -20 "$TMP/out"; fi

# the course's shape: count, numbering, questions per lesson
node -e '
const fs = require("fs"), path = require("path");
const dir = process.argv[1];
const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
const bad = [];
if (files.length < 12) bad.push(`${files.length} lessons, fewer than 12`);
files.forEach((f, i) => {
  const l = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
  const nn = String(i + 1).padStart(2, "0");
  if (!f.startsWith(nn + "-")) bad.push(`${f}: expected lesson number ${nn}`);
  const asks = l.slides.filter((s) => s.ask).length;
  if (asks < 3) bad.push(`${f}: ${asks} questions, fewer than 3`);
});
console.log(bad.join("\n"));
process.exit(bad.length ? 1 : 0);
' "$root/lessons" >"$TMP/shape" 2>&1
check "the course: >= 12 lessons numbered 01.., >= 3 questions each" [ $? -eq 0 ]
[ -s "$TMP/shape" ] && sed 's/^/  /' "$TMP/shape"

# every exercise needs work: its preset alone does not reach the goal
nex=0
for f in "$root"/lessons/exercises/*.json; do
    id=$(basename "$f" .json)
    nex=$((nex + 1))
    node -e '
const fs = require("fs");
const x = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
const s = Object.assign({}, x.preset, {expect: x.goal.map((g) => Object.assign({at: "end"}, g))});
fs.writeFileSync(process.argv[2], JSON.stringify(s));
' "$f" "$TMP/preset.json"
    sl run "$TMP/preset.json" --json
    check "exercise $id: the preset runs" [ "$status" -le 1 ]
    check "exercise $id: the preset alone misses the goal" grep -q '"result":"fail"' "$TMP/out"
done
check "at least 8 exercises ($nex)" [ "$nex" -ge 8 ]

# the guide names every lesson and exercise
for f in "$root"/lessons/*.json "$root"/lessons/exercises/*.json; do
    id=$(basename "$f" .json)
    check "docs/teaching.md names $id" grep -qF "$id" "$root/docs/teaching.md"
done

finish
