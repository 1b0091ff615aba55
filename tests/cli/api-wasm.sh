#!/usr/bin/env bash
# The API in WebAssembly answers as the server does: tests/wasm/api-compare.mjs
# sends the same requests (a session created, stepped both ways, states,
# seeks, the overview, lessons, a comparison, a snapshot and its export; the
# shipped kernel trace fixtures uploaded and replayed, their sessions'
# events and states at several positions) to
# `slublab serve --db mem: --stored-checkpoint-ops 0` and to
# build/wasm/slublab-api.wasm through the static lab's own WASI host
# (web/js/static/), and compares the answers
# byte for byte (docs/wasm.md).  Skipped where scripts/build left the wasm
# out (no toolchain or zlib source: scripts/setup --test).
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
wasm=${SLUBLAB_API_WASM:-${SLUBLAB_BUILD_DIR:-$(dirname "$BIN")}/wasm/slublab-api.wasm}
cd "$root"

if [ ! -f "$wasm" ]; then
    skip "no $wasm (scripts/build builds it when the toolchain is installed)"
elif ! command -v node >/dev/null; then
    skip "no node to run $wasm"
else
    if timeout 300 node --no-warnings tests/wasm/api-compare.mjs "$BIN" "$wasm" >"$TMP/out" 2>&1; then
        ok
    else
        bad "the wasm API's answers differ from the server's"
        grep -v '^ok ' "$TMP/out" | head -20
    fi
fi
finish
