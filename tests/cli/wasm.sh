#!/usr/bin/env bash
# The engine in WebAssembly gives what the native program gives: every
# shipped scenario, run by build/wasm/slublab-run.wasm under node's WASI
# (tests/wasm/wasi-run.mjs, one process per run), prints byte for byte the
# native program's --events, text, --json and --snapshot output, with the
# same exit status (docs/wasm.md).  Skipped where scripts/build left the
# wasm out (no toolchain: scripts/setup --test).
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
wasm=${SLUBLAB_WASM:-${SLUBLAB_BUILD_DIR:-$(dirname "$BIN")}/wasm/slublab-run.wasm}
cd "$root"

wrun() {
    timeout 120 node --no-warnings tests/wasm/wasi-run.mjs "$wasm" "$@" >"$TMP/wout" 2>"$TMP/werr"
    wstatus=$?
}

if [ ! -f "$wasm" ]; then
    skip "no $wasm (scripts/build builds it when the toolchain is installed)"
elif ! command -v node >/dev/null; then
    skip "no node to run $wasm"
else
    for f in scenarios/*.json; do
        name=$(basename "$f" .json)
        for mode in --events "" --json --snapshot; do
            sl run "$f" ${mode:+"$mode"}
            wrun run "$f" ${mode:+"$mode"}
            if [ "$wstatus" -ne "$status" ]; then
                bad "$name ${mode:-text}: wasm exited $wstatus, native $status"
                sed 's/^/  wasm stderr: /' "$TMP/werr" | head -3
            elif ! cmp -s "$TMP/out" "$TMP/wout"; then
                bad "$name ${mode:-text}: wasm output differs from native"
                diff "$TMP/out" "$TMP/wout" | head -4 | cut -c1-200
            else
                ok
            fi
        done
    done
    # setjmp/longjmp (the engine's out-of-memory and fault paths, which no
    # shipped scenario takes) through wasm/sjlj.c
    wrun_sjlj() { timeout 60 node --no-warnings tests/wasm/wasi-run.mjs "$(dirname "$wasm")/sjlj-check.wasm"; }
    check "setjmp/longjmp in wasm: wasm/sjlj-check.c" test "$(wrun_sjlj)" = "ok 1 2 3 7"
fi
finish
