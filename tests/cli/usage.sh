#!/usr/bin/env bash
# tests/cli/usage.sh: --version, help, --help of every subcommand, and the
# exit status 2 of every kind of usage error.  $1 is the slublab program.
. "$(dirname "$0")/lib.bash"

version=$(sed -n 's/^#define SIM_VERSION "\(.*\)"/\1/p' "$(dirname "$0")/../../engine/slub.h")
sl --version
check "--version exits 0" [ "$status" -eq 0 ]
check "--version prints 'slublab $version'" [ "$(cat "$TMP/out")" = "slublab $version" ]

for args in "help" "--help" "-h"; do
    sl $args
    check "'$args' exits 0" [ "$status" -eq 0 ]
    check "'$args' lists run and compare" grep -q '^  run ' "$TMP/out"
    check "'$args' lists compare" grep -q '^  compare ' "$TMP/out"
done

for cmd in run compare; do
    for args in "$cmd --help" "$cmd -h" "help $cmd"; do
        sl $args
        check "'$args' exits 0" [ "$status" -eq 0 ]
        check "'$args' prints the usage of $cmd" grep -q "^usage: slublab $cmd " "$TMP/out"
        check "'$args' writes nothing to stderr" [ ! -s "$TMP/err" ]
    done
done

cat >"$TMP/ok.json" <<'JSON'
{"format": 1, "name": "ok", "caches": [{"name": "A", "object_size": 64}],
 "ops": [{"op": "alloc", "cpu": 0, "cache": "A", "name": "x"}]}
JSON

# Usage errors: exit 2 and a message on stderr.
usage_error() {
    local want=$1
    shift
    sl "$@"
    check "'$*' exits 2" [ "$status" -eq 2 ]
    check "'$*' says \"$want\"" grep -qF -- "$want" "$TMP/err"
}
usage_error "" # no command at all: the usage goes to stderr
usage_error 'unknown command "frobnicate"' frobnicate
usage_error 'unknown command "frobnicate"' help frobnicate
usage_error "which scenario file" run
usage_error 'unknown option "--frob"' run "$TMP/ok.json" --frob
usage_error "needs a value" run "$TMP/ok.json" --seed
usage_error "non-negative integer" run "$TMP/ok.json" --seed=-3
usage_error 'unknown variant "NOPE"' run "$TMP/ok.json" --variant NOPE=after
usage_error "neither before nor after" run "$TMP/ok.json" --variant DEFERRED_FREELIST=sideways
usage_error 'unknown model "slab"' run "$TMP/ok.json" --model slab
usage_error "exclude each other" run "$TMP/ok.json" --json --events
usage_error "one scenario file at a time" run "$TMP/ok.json" "$TMP/ok.json"
usage_error "cannot open" run "$TMP/missing.json"
usage_error "which scenario file" compare
usage_error "exactly one of --variant, --kernel and --model" compare "$TMP/ok.json"
usage_error "exactly one of --variant, --kernel and --model" compare "$TMP/ok.json" --variant X --model a,b
usage_error "wants NAME or NAME=A,B" compare "$TMP/ok.json" --variant DEFERRED_FREELIST=after
usage_error 'no cache named "Z"' compare "$TMP/ok.json" --variant DEFERRED_FREELIST --cache Z

# The same file runs when the arguments are right, options before or after it.
sl run --seed=3 "$TMP/ok.json" --variant=BARN_REFILL=before
check "run with options around the file exits 0" [ "$status" -eq 0 ]
check "--variant is applied" grep -q 'BARN_REFILL=before' "$TMP/out"
check "--seed is applied" grep -q 'seed 3' "$TMP/out"

finish
