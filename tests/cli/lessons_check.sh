#!/usr/bin/env bash
# tests/cli/lessons_check.sh: `slublab lessons check DIR` (docs/cli.md) on a
# good course (one lesson asking where the engine records a branch, one
# exercise whose solution reaches its goal): no problem, exit 0; and on a
# bad one: one line per problem naming the file and the key path (the
# format, a scenario that does not exist, a position beyond the scenario's
# end, a question where no branch is recorded, a goal the solution misses,
# a solution over max_ops, a file whose name is not an id), exit 1.
. "$(dirname "$0")/lib.bash"

# where the engine records decisions in scenarios/default.json, from its own events
sl run scenarios/default.json --events
node -e '
const fs = require("fs");
const ev = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse)
  .filter((e) => e.seq !== undefined);
const asks = ev.filter((e) => e.branches && e.branches.length).map((e) => e.seq);
const plain = ev.filter((e) => !e.branches || !e.branches.length).map((e) => e.seq);
console.log(asks[0], plain[plain.length - 1], ev.length);
' "$TMP/out" >"$TMP/seqs"
read -r ask plain nev <"$TMP/seqs"
check "default.json has an event with a branch record ($ask) and one without ($plain)" \
    test -n "$ask" -a -n "$plain" -a "$ask" != undefined

good=$TMP/good
mkdir -p "$good/exercises"
cat >"$good/01-first.json" <<JSON
{"format": 1, "id": "01-first", "title": "The first allocation", "minutes": 5,
 "summary": "What the first allocation does.",
 "slides": [
  {"title": "Before", "text": "Nothing yet.", "scenario": "default", "at": 0},
  {"title": "Guess", "text": "What happens next?", "at": $ask, "ask": true, "tab": "counters", "spotlight": "barn:0",
   "breakpoints": ["new_slab", "counter:alloc_slowpath", "fn:__slab_free/discard"]},
  {"title": "On 6.12", "text": "The same on another release.", "kernel": "6.12", "at": 3},
  {"title": "The end", "text": "All freed.", "scenario": "default", "at": $nev}]}
JSON
cat >"$good/exercises/fill.json" <<'JSON'
{"format": 1, "id": "fill", "title": "Fill a slab", "task": "Allocate until a second slab is made.",
 "max_ops": 70,
 "preset": {"format": 1, "name": "exercise-fill", "machine": {"cpus": 1},
            "caches": [{"name": "A", "object_size": 64}], "ops": []},
 "goal": [{"metric": "A.slabs", "op": ">=", "value": 2}],
 "hints": ["Allocate.", "Allocate more than one slab holds."],
 "solution": [{"op": "repeat", "times": 65, "ops": [{"op": "alloc", "cpu": 0, "cache": "A", "name": "o{i}"}]}]}
JSON
sl lessons check "$good" --scenarios scenarios
check "a good course: exit 0" test "$status" -eq 0
check "and only the summary" grep -qx 'lessons check: 1 lessons, 1 exercises, 0 problems' "$TMP/out"
check "one line in all" test "$(wc -l <"$TMP/out")" -eq 1

bad=$TMP/bad
cp -r "$good" "$bad"
node -e '
const fs = require("fs"), dir = process.argv[1], [ask, plain, nev] = process.argv.slice(2).map(Number);
const rd = (f) => JSON.parse(fs.readFileSync(`${dir}/${f}`, "utf8"));
const wr = (f, d) => fs.writeFileSync(`${dir}/${f}`, JSON.stringify(d));
let l = rd("01-first.json");
l.id = "02-wrong"; l.slides[1].at = plain; l.slides[3].at = nev + 5; wr("02-wrong.json", l);
l = rd("01-first.json"); l.id = "03-noscn"; l.slides[0].scenario = "no-such-scenario"; wr("03-noscn.json", l);
l = rd("01-first.json"); l.id = "04-format"; l.minutes = 40; wr("04-format.json", l);
l = rd("01-first.json"); l.id = "05-typo"; l.slides[1].aks = true; wr("05-typo.json", l);
l = rd("01-first.json"); l.id = "06-ask-end"; l.slides[3].ask = true; wr("06-ask-end.json", l);
l = rd("01-first.json"); l.id = "07-spot"; l.slides[0].spotlight = "barn:x"; l.slides[2].spotlight = "column:colour"; wr("07-spot.json", l);
let x = rd("exercises/fill.json");
x.id = "miss"; x.goal.push({ metric: "A.slabs", op: ">=", value: 3 }); x.max_ops = 10;
wr("exercises/miss.json", x);
fs.writeFileSync(`${dir}/Bad Name.json`, "{}");
fs.writeFileSync(`${dir}/exercises/broken.json`, "{not json");
' "$bad" "$ask" "$plain" "$nev"
sl lessons check "$bad" --scenarios scenarios
check "a bad course: exit 1" test "$status" -eq 1
has() { grep -qF -- "$1" "$TMP/out" || { echo "missing: $1"; cat "$TMP/out"; false; }; }
check "no branch record where a slide asks" has "$bad/02-wrong.json: slides[1].ask: event $plain of scenario \"default\" carries no branch record"
check "at beyond the scenario's events" has "$bad/02-wrong.json: slides[3].at: $((nev + 5)) is beyond the $nev events"
check "a scenario that does not exist" has "$bad/03-noscn.json: slides[0].scenario: no scenario named \"no-such-scenario\""
check "the format: minutes" has "$bad/04-format.json: minutes: expected an integer from 5 to 15"
check "an unknown key" has "$bad/05-typo.json: slides[1].aks: unknown key"
check "a question at the end" has "$bad/06-ask-end.json: slides[3].ask: position $nev is the end"
check "a spotlight on nothing" has "$bad/07-spot.json: slides[0].spotlight: \"barn:x\" names nothing on screen"
check "a goal the solution misses" has "$bad/exercises/miss.json: goal[1]: the solution ends with A.slabs = 2, not >= 3"
check "a solution over max_ops" has "$bad/exercises/miss.json: solution: takes 65 operations beyond the preset's, more than max_ops (10)"
check "a file that is not JSON" has "$bad/exercises/broken.json: not JSON"
check "a name that is not an id" has "$bad/Bad Name.json: the name is not an id"
check "the good files have no problem" not grep -q "01-first.json\|fill.json" "$TMP/out"
check "the summary counts them" grep -qx 'lessons check: 7 lessons, 3 exercises, 11 problems' "$TMP/out"

# the scenarios directory defaults to the one beside DIR
mkdir -p "$TMP/course"
cp -r "$good" "$TMP/course/lessons"
ln -s "$PWD/scenarios" "$TMP/course/scenarios"
sl lessons check "$TMP/course/lessons"
check "scenarios beside DIR by default" test "$status" -eq 0
sl lessons --scenarios scenarios check "$good"
check "options before the action" test "$status" -eq 0
sl lessons check "$TMP/nowhere"
check "a directory that is not there: exit 2" test "$status" -eq 2
sl lessons frob
check "an unknown action: exit 2" test "$status" -eq 2
finish
