#!/usr/bin/env bash
# tests/cli/options.sh: the one option parser (server/cli/options.c) and the
# --help it generates from each command's option table: both spellings of
# a value, options after the file, repeated options, `--`, the usage errors
# (exit 2 and the message), and that every command's --help lists every
# option the command accepts and accepts every option it lists.
# $1 is the slublab program.
. "$(dirname "$0")/lib.bash"

cat >"$TMP/ok.json" <<'JSON'
{"format": 1, "name": "ok", "caches": [{"name": "A", "object_size": 64}],
 "ops": [{"op": "alloc", "cpu": 0, "cache": "A", "name": "x"}]}
JSON

# --- values: --opt=value, --opt value, before or after the file ---
sl run "$TMP/ok.json" --seed=5
check "--seed=5 exits 0" [ "$status" -eq 0 ]
check "--seed=5 is applied" grep -q 'seed 5' "$TMP/out"
sl run "$TMP/ok.json" --seed 6
check "--seed 6 is applied" grep -q 'seed 6' "$TMP/out"
sl run --seed 7 "$TMP/ok.json"
check "an option before the file is applied" grep -q 'seed 7' "$TMP/out"
sl run --model sheaves "$TMP/ok.json" --seed=8 --validate
check "options on both sides of the file: exit 0" [ "$status" -eq 0 ]
check "options on both sides of the file: applied" grep -q 'model sheaves, seed 8' "$TMP/out"
mkdir "$TMP/r1" "$TMP/r2"
sl report "$TMP/ok.json" -o="$TMP/r1/r.md"
check "-o=FILE writes FILE" [ -s "$TMP/r1/r.md" ]
sl report -o "$TMP/r2/r.md" "$TMP/ok.json"
check "-o FILE before the file writes FILE" [ -s "$TMP/r2/r.md" ]
check "both spellings write the same report" cmp -s "$TMP/r1/r.md" "$TMP/r2/r.md"

# --- a repeatable option keeps every value, in order ---
sl run "$TMP/ok.json" --variant BARN_REFILL=before --variant=DEFERRED_FREELIST=before
check "two --variant: exit 0" [ "$status" -eq 0 ]
check "two --variant: the first is applied" grep -q 'BARN_REFILL=before' "$TMP/out"
check "two --variant: the second is applied" grep -q 'DEFERRED_FREELIST=before' "$TMP/out"
sl run "$TMP/ok.json" --variant BARN_REFILL=before --variant BARN_REFILL=after
check "the same --variant twice: the last wins" grep -q 'BARN_REFILL=after' "$TMP/out"
sl run "$TMP/ok.json" --seed 1 --seed 9
check "a single-valued option twice: the last wins" grep -q 'seed 9' "$TMP/out"

# --- `--` ends the options; "-" alone is an argument ---
cp "$TMP/ok.json" "$TMP/-dash.json"
(cd "$TMP" && "$BIN" run -- -dash.json >"$TMP/out" 2>"$TMP/err")
check "'--' then a file named like an option: runs" grep -q '^scenario ok' "$TMP/out"
sl run -- "$TMP/ok.json" --json
check "after '--', --json is a second file" grep -qF 'one scenario file at a time' "$TMP/err"
sl export "$TMP/ok.json" --slabinfo -
check "'-' is a value: /proc/slabinfo on stdout" grep -q '^slabinfo - version: 2.1' "$TMP/out"

# --- --help and -h anywhere ---
for args in "run $TMP/ok.json --help" "run --seed 3 -h" "gfp GFP_KERNEL -h" "serve --port 0 --help"; do
    sl $args
    check "'$args' exits 0" [ "$status" -eq 0 ]
    check "'$args' prints the usage" grep -q "^usage: slublab ${args%% *} " "$TMP/out"
done

# --- usage errors: exit 2 and the parser's message ---
usage_error() {
    local want=$1
    shift
    sl "$@"
    check "'$*' exits 2" [ "$status" -eq 2 ]
    check "'$*' says \"$want\"" grep -qF -- "$want" "$TMP/err"
    check "'$*' points at --help" grep -qF -- "(see slublab $1 --help)" "$TMP/err"
}
usage_error 'unknown option "--frob"' run "$TMP/ok.json" --frob
usage_error 'unknown option "--frob=1"' run --frob=1 "$TMP/ok.json"
usage_error 'unknown option "-x"' report "$TMP/ok.json" -x
usage_error 'option --seed needs a value' run "$TMP/ok.json" --seed
usage_error 'option -o needs a value' report "$TMP/ok.json" -o
usage_error 'option --json takes no value' run "$TMP/ok.json" --json=yes
usage_error '--seed wants a non-negative integer, not "x"' run "$TMP/ok.json" --seed x
usage_error '--seed wants a non-negative integer, not "-1"' export "$TMP/ok.json" --seed -1
usage_error '--seed wants a non-negative integer, not "18446744073709551616"' \
    run "$TMP/ok.json" --seed 18446744073709551616
usage_error '--at wants a non-negative integer, not "3x"' report "$TMP/ok.json" --at=3x
usage_error '--port wants an integer from 0 to 65535, not "65536"' serve --port 65536
usage_error '--workers wants an integer from 1 to 256, not "0"' serve --workers=0
usage_error '--rounds wants an integer from 1 to 1000, not ""' bench fastpath --rounds=
usage_error '--seed wants a positive integer, not "0"' replay trace.txt --seed 0
usage_error '--order wants an integer from 0 to 10, not "11"' gfp GFP_KERNEL --order 11
usage_error 'one scenario file at a time ("a.json", then "b.json")' run a.json b.json
usage_error 'unexpected argument "extra"' import --sysfs /nonexistent extra
usage_error '--sysfs DIR is required' geometry --cpus 2
usage_error 'which scenario file?' report --at 1

# --- every command: its --help lists its options, and it accepts them ---
sl help
cp "$TMP/out" "$TMP/help"
commands=$(sed -n 's/^  \([a-z]*\)  .*/\1/p' "$TMP/help" | grep -vx help)
check "help lists the commands" [ "$(echo "$commands" | wc -w)" -ge 10 ]

# What each command documented before the option tables; none may go missing.
declare -A documented=(
    [run]="--json --events --snapshot --variant --model --seed --validate"
    [compare]="--variant --model --cache --seed --json --md -o"
    [serve]="--listen --port --db --web --vendor --scenarios --max-sessions --session-memory
             --max-ops --max-cpus --max-nodes --checkpoint-every --workers --threads --timeout
             --follow-ms --follow-rate --quiet"
    [geometry]="--sysfs --cpus"
    [replay]="--sysfs --cpus --model --seed --mem-mb --validate -o --db --progress"
    [import]="--sysfs --slabinfo --populate --cpus -o"
    [bench]="--json --rounds --scale --trace"
    [export]="--at --slabinfo --sysfs --variant --model --seed"
    [report]="--at -o --variant --model --seed"
    [gfp]="--order --context --node --scenario --variant --json"
    [oracle]="--seed --kernel --cpus --nodes -o --program --topology --root --verbose"
    [lessons]="--scenarios"
    [explore]="--bound --max --json -o --variant --kernel --model --seed"
)

for cmd in $commands; do
    sl "$cmd" --help
    check "$cmd --help exits 0" [ "$status" -eq 0 ]
    check "$cmd --help writes nothing to stderr" [ ! -s "$TMP/err" ]
    cp "$TMP/out" "$TMP/help-$cmd"
    sl help "$cmd"
    check "slublab help $cmd prints what $cmd --help prints" cmp -s "$TMP/out" "$TMP/help-$cmd"
    # the words around the options: the command's entry of server/cli/help.txt
    check "slublab help gives $cmd a summary" grep -qE "^  $cmd +[a-z]" "$TMP/help"
    desc=$(awk '/^$/ { n++; next } n == 1 { print; exit }' "$TMP/help-$cmd")
    check "$cmd --help has a description" grep -q "^[^ ]" <<<"$desc"
    # the option lines: "  --name ARG   help" or "  -o ARG   help" (not -h, --help)
    sed -nE 's/^  (-[a-z]|--[a-z][a-z-]*)( [^ ]+)?( {2,}.*)?$/\1\2/p' "$TMP/help-$cmd" >"$TMP/items"
    listed=$(cut -d' ' -f1 "$TMP/items")
    check "$cmd --help lists options" [ -n "$listed" ]
    check "$cmd --help lists -h, --help" grep -q '^  -h, --help ' "$TMP/help-$cmd"
    # every option of the usage line has its own line
    usage=$(sed '/^$/q' "$TMP/help-$cmd" | grep -oE '(^|[[(| ])-{1,2}[a-z][a-z-]*' | sed 's/^[[(| ]//')
    for opt in $usage; do
        check "$cmd: $opt of the usage line is described" grep -qx -- "$opt" <<<"$listed"
    done
    for opt in ${documented[$cmd]:-}; do
        check "$cmd --help still lists $opt" grep -qx -- "$opt" <<<"$listed"
    done
    check "$cmd has a list of its documented options here" [ -n "${documented[$cmd]:-}" ]
    # every listed option is one the parser knows, with or without a value as listed
    while read -r opt arg; do
        if [ -n "$arg" ]; then
            sl "$cmd" "$opt"
            check "$cmd $opt takes a value ($arg)" grep -qF "option $opt needs a value" "$TMP/err"
        else
            sl "$cmd" "$opt=1"
            check "$cmd $opt is a flag" grep -qF "option $opt takes no value" "$TMP/err"
        fi
        check "$cmd $opt alone is a usage error (exit $status)" [ "$status" -eq 2 ]
    done <"$TMP/items"
    sl "$cmd" --no-such-option
    check "$cmd --no-such-option exits 2" [ "$status" -eq 2 ]
    check "$cmd --no-such-option names it" grep -qF 'unknown option "--no-such-option"' "$TMP/err"
done

finish
