#!/usr/bin/env bash
# tests/cli/oracle_check.sh: `slublab oracle check` judged on fixtures whose
# .out the ENGINE wrote (`slublab oracle engine`), never on made-up kernel
# output: the unchanged fixture passes; one value changed fails with a diff
# naming the program, mark, cache and file; runs that differ per CPU are
# compared by their totals, runs that differ in total by their range; a
# known difference forgives exactly its program and file, and one that
# covers nothing fails as stale; a file not listed as not compared and
# missing from the engine fails.  The fixtures are edited in a work
# directory and packed (scripts/pack-fixtures) into the release's
# programs.tar.gz before each check, as the repository keeps them; an
# unpacked programs/ or a damaged archive is refused.
. "$(dirname "$0")/lib.bash"

root=$TMP/repo
fx=$TMP/work/programs
archive=$root/tests/oracle/7.3/programs.tar.gz
mkdir -p "$fx" "$root/tests/oracle/7.3" "$root/tests/oracle/minimal"
cp tests/oracle/not-compared.txt "$root/tests/oracle/"
printf '# none\n' >"$root/tests/oracle/known-differences.txt"
topo="cpus=4 nodes=2 cpu_node=0,0,1,1"
"$BIN" oracle gen --seed 11 --kernel 7.3 --nodes 2 -o "$fx/r11.json"
"$BIN" oracle gen --seed 12 --kernel 7.3 --nodes 2 -o "$fx/r12.json"
# two runs, as the kernel side records them: the engine's one run twice
twice() {
    "$BIN" oracle engine --program "$1" --kernel 7.3 --topology "$topo" -o "$TMP/one.out"
    { sed -n '1,/^run 1$/p' "$TMP/one.out"; sed '1,/^run 1$/d' "$TMP/one.out"
      echo "run 2"; sed '1,/^run 1$/d' "$TMP/one.out"; } >"$2"
}
twice "$fx/r11.json" "$fx/r11.out"
twice "$fx/r12.json" "$fx/r12.out"
cp "$fx/r11.out" "$TMP/r11.orig"
check "the engine's .out has marks" grep -q '^mark end$' "$fx/r11.out"
check "and counters per CPU" grep -qE '^alloc_slowpath [0-9]+ C[0-9]=' "$fx/r11.out"
# ocheck ARGS...: `slublab oracle check --root $root ARGS...` on the fixtures as $fx has them now
ocheck() {
    scripts/pack-fixtures pack "$fx" "$archive" || bad "pack-fixtures pack"
    sl oracle check --root "$root" "$@"
}

ocheck
check "unchanged fixtures pass" [ "$status" -eq 0 ]
check "the summary line" grep -qE '^oracle check 7.3: programs 2, marks [1-9][0-9]*, files compared [1-9][0-9]*, equal [1-9][0-9]*, known differences 0, differences 0' "$TMP/out"
compared=$(sed -nE 's/.*files compared ([0-9]+), equal ([0-9]+),.*/\1 \2/p' "$TMP/out")
check "every compared file equal" [ "${compared% *}" = "${compared#* }" ]

# one value changed in both runs: a difference
awk '/^run / { done = 0 } !done && /^alloc_slowpath [0-9]/ { $2 = $2 + 1; done = 1 } { print }' "$TMP/r11.orig" >"$fx/r11.out"
ocheck
check "one changed value fails" [ "$status" -eq 1 ]
check "the diff names program, mark, cache and file" grep -qE '^DIFF 7.3 r11 mark [^ ]+ cache c[01] file alloc_slowpath \(every run\):$' "$TMP/out"
check "with the kernel's and the engine's lines" grep -qE '^  kernel [0-9]+ ' "$TMP/out"
check "and counts it" grep -q 'differences 1 ' "$TMP/out"

# a known difference forgives it, listed by program and file
cat >"$root/tests/oracle/known-differences.txt" <<'KD'
id: test-one
mechanism: a value changed by this test
kernels: 7.3
minimal: tests/oracle/minimal/test-one.json
covers: 7.3 r11 alloc_slowpath
KD
cp "$fx/r12.json" "$root/tests/oracle/minimal/test-one.json"
ocheck
check "a known difference passes" [ "$status" -eq 0 ]
check "and is counted" grep -q 'known differences 1, differences 0' "$TMP/out"
ocheck --verbose
check "--verbose shows it" grep -q '^known 7.3 r11 mark ' "$TMP/out"
# ... but not another program's
awk '/^run / { done = 0 } !done && /^alloc_slowpath [0-9]/ { $2 = $2 + 1; done = 1 } { print }' "$fx/r12.out" >"$TMP/x" && cp "$TMP/x" "$fx/r12.out"
ocheck
check "it does not cover another program" [ "$status" -eq 1 ]
check "whose diff is shown" grep -q '^DIFF 7.3 r12 ' "$TMP/out"
twice "$fx/r12.json" "$fx/r12.out"

# a known difference that covers nothing is stale
cp "$TMP/r11.orig" "$fx/r11.out"
ocheck
check "a stale known difference fails" [ "$status" -eq 1 ]
check "and says so" grep -q '^STALE known difference test-one: covers 7.3 r11 alloc_slowpath' "$TMP/out"
printf '# none\n' >"$root/tests/oracle/known-differences.txt"

# wildcards over programs and entries without a minimal program are refused
printf 'id: x\nmechanism: m\nkernels: 7.3\nminimal: tests/oracle/minimal/test-one.json\ncovers: 7.3 r* alloc_slowpath\n' >"$root/tests/oracle/known-differences.txt"
ocheck
check "a wildcard is a usage error" [ "$status" -eq 2 ]
printf 'id: x\nmechanism: m\nkernels: 7.3\nminimal: tests/oracle/minimal/none.json\ncovers: 7.3 r11 alloc_slowpath\n' >"$root/tests/oracle/known-differences.txt"
ocheck
check "a missing minimal program is a usage error" [ "$status" -eq 2 ]
printf '# none\n' >"$root/tests/oracle/known-differences.txt"

# runs that differ per CPU only: compared by totals
awk '/^run 2$/ { two = 1 } two && !done && /^alloc_slowpath [0-9]+ C/ {
        $2 = $2; sub(/C[0-9]=/, "C7="); done = 1 } { print }' "$TMP/r11.orig" >"$fx/r11.out"
check "the mutation took" not cmp -s "$fx/r11.out" "$TMP/r11.orig"
ocheck
check "runs differing per CPU: totals compared, pass" [ "$status" -eq 0 ]
check "counted as totals only" grep -qE 'totals only [1-9]' "$TMP/out"
# runs that differ in total: the engine's total must lie in their range
awk '/^run 2$/ { two = 1 } two && !done && /^alloc_slowpath [0-9]/ { $2 = $2 + 5; done = 1 } { print }' "$TMP/r11.orig" >"$fx/r11.out"
ocheck
check "engine within the kernel's range: pass" [ "$status" -eq 0 ]
check "counted as a range" grep -qE 'ranges [1-9]' "$TMP/out"
awk '/^run / { done = 0; r++ } !done && /^alloc_slowpath [0-9]/ { $2 = $2 + 3 + r; done = 1 } { print }' "$TMP/r11.orig" >"$fx/r11.out"
ocheck
check "engine outside the kernel's range: fail" [ "$status" -eq 1 ]
check "the range is shown" grep -qE '^  kernel [0-9]+\.\.[0-9]+$' "$TMP/out"

# a kernel file the engine does not write fails unless listed as not compared
cp "$TMP/r11.orig" "$fx/r11.out"
sed -i 's/^trace 0$/trace 0\nctor foo+0x0\/0x10\nmystery 1/' "$fx/r11.out"
ocheck
check "an unknown kernel file fails" [ "$status" -eq 1 ]
check "mystery is the difference" grep -q 'file mystery (every run):' "$TMP/out"
check "ctor is not compared" not grep -q 'file ctor ' "$TMP/out"

# a broken .out is reported, not skipped
cp "$TMP/r11.orig" "$fx/r11.out"
sed -i '/^topology/d' "$fx/r11.out"
ocheck
check "a .out without topology fails" [ "$status" -eq 1 ]
check "and says why" grep -q 'no topology line' "$TMP/out"

# the archive as packed: the same bytes every time, and read as it is
cp "$TMP/r11.orig" "$fx/r11.out"
ocheck
check "repacked fixtures pass" [ "$status" -eq 0 ]
cp "$archive" "$TMP/first.tar.gz"
touch "$fx/r11.out"
scripts/pack-fixtures pack "$fx" "$archive"
check "packing is deterministic" cmp -s "$archive" "$TMP/first.tar.gz"
check "members under programs/" test "$(tar -tzf "$archive" | sed -n 2p)" = programs/r11.json
# a damaged archive is a usage error naming it, never a pass
head -c 3000 "$TMP/first.tar.gz" >"$archive"
sl oracle check --root "$root"
check "a cut archive: usage error" [ "$status" -eq 2 ]
check "a cut archive: named" grep -q 'programs.tar.gz: ' "$TMP/err"
# an unpacked programs/ without its archive is refused with the command that packs it
rm "$archive"
cp -r "$fx" "$root/tests/oracle/7.3/programs"
sl oracle check --root "$root"
check "unpacked programs/: usage error" [ "$status" -eq 2 ]
check "unpacked programs/: says how to pack it" grep -q 'scripts/pack-fixtures oracle' "$TMP/err"

# a kernel run the engine gives only with several choices turned: 7.3's
# r144 as the kernel recorded it, whose kfree_rcu batches of several grace
# periods ran on one CPU (four choices from the default; the search of one
# or two turned choices left it to a known difference): matched through
# choices by one run, with no known difference
deep=$TMP/deep
mkdir -p "$deep/tests/oracle/7.3" "$TMP/r144"
tar -xzf tests/oracle/7.3/programs.tar.gz -C "$TMP/r144" programs/r144.json programs/r144.out
cp tests/oracle/not-compared.txt "$deep/tests/oracle/"
printf '# none\n' >"$deep/tests/oracle/known-differences.txt"
scripts/pack-fixtures pack "$TMP/r144/programs" "$deep/tests/oracle/7.3/programs.tar.gz" || bad "pack-fixtures pack"
sl oracle check --root "$deep" --verbose
check "r144 with no known difference: passes" [ "$status" -eq 0 ]
check "r144: files matched through choices" grep -q '^choice 7.3 r144 mark end cache c0 file free_slowpath' "$TMP/out"
check "r144: one run matches every mark" grep -q '^search 7.3 r144: [0-9]* runs, one run matches every mark' "$TMP/out"

finish
