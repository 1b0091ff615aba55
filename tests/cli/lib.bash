# tests/cli/lib.bash: helpers sourced by the tests/cli/*.sh scripts.
#
# Not a test itself (ctest runs only *.sh).  A script sources it with the
# slublab path as $1 and gets: $BIN, a temp dir $TMP removed at exit,
# `sl ARGS...` (runs slublab, output in $TMP/out and $TMP/err, exit status
# in $status), `ok DESC` / `bad DESC`, `check DESC CMD...`, `not CMD...`,
# the json_* helpers below, and `finish`, which prints "N passed, N failed" and sets
# the exit status.

BIN=${1:?usage: $0 path/to/slublab}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0
status=0

ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
    if [ -s "$TMP/err" ]; then sed 's/^/  stderr: /' "$TMP/err" | head -5; fi
}
# check DESC COMMAND...: pass when COMMAND succeeds.
check() {
    local desc=$1
    shift
    if "$@"; then ok; else bad "$desc"; fi
}
# not COMMAND...: succeeds when COMMAND fails (check's "!" cannot be passed on).
not() { ! "$@"; }
sl() {
    "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
}
# JSON helpers: node (scripts/setup installs it), else python3.
#   json_doc FILE     FILE holds one valid JSON document
#   json_lines FILE   every line of FILE is a valid JSON document
#   json_keys FILE    the top-level keys of FILE's document, in order, comma-joined
#   json_len FILE KEY the length of the array under top-level KEY
if command -v node >/dev/null 2>&1; then
    _js() { node -e "const fs = require('fs'); $1" "${@:2}"; }
    json_doc() { _js 'JSON.parse(fs.readFileSync(0, "utf8"))' <"$1" 2>/dev/null; }
    json_lines() {
        _js 'for (const l of fs.readFileSync(0, "utf8").split("\n")) if (l) JSON.parse(l)' <"$1" 2>/dev/null
    }
    json_keys() { _js 'console.log(Object.keys(JSON.parse(fs.readFileSync(0, "utf8"))).join(","))' <"$1"; }
    json_len() { _js 'console.log(JSON.parse(fs.readFileSync(0, "utf8"))[process.argv[1]].length)' "$2" <"$1"; }
else
    json_doc() { python3 -c 'import json,sys; json.load(sys.stdin)' <"$1" 2>/dev/null; }
    json_lines() {
        python3 -c 'import json,sys
for line in sys.stdin: json.loads(line)' <"$1" 2>/dev/null
    }
    json_keys() { python3 -c 'import json,sys; print(",".join(json.load(sys.stdin)))' <"$1"; }
    json_len() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)[sys.argv[1]]))' "$2" <"$1"; }
fi
# skip WHY: a check that cannot run here; counted as skipped, never as passed.
skipped=0
skip() {
    skipped=$((skipped + 1))
    echo "skipped: $*"
}
finish() {
    if [ "$skipped" -gt 0 ]; then
        echo "$passed passed, $failed failed, $skipped skipped"
    else
        echo "$passed passed, $failed failed"
    fi
    # nothing could run here: exit 77, which ctest reports as skipped (not passed)
    if [ "$failed" -eq 0 ] && [ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ]; then exit 77; fi
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}
