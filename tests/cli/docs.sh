#!/usr/bin/env bash
# tests/cli/docs.sh: docs/cli.md shows each command's usage as --help prints
# it: the code block under each "## `slublab CMD`" heading is the usage
# paragraph of `slublab CMD --help`, without its "usage: " (the lines after
# the first one shifted left as far).  $1 is the slublab program.
. "$(dirname "$0")/lib.bash"

doc=$(dirname "$0")/../../docs/cli.md
commands=$(sed -n 's/^## `slublab \([a-z ]*\)`$/\1/p' "$doc")
check "docs/cli.md has a section per command" [ "$(echo "$commands" | wc -l)" -ge 10 ]

while IFS= read -r cmd; do
    awk -v h="## \`slublab $cmd\`" '
        $0 == h { s = 1; next }
        s == 1 && /^```/ { s = 2; next }
        s == 2 && /^```/ { exit }
        s == 2 { print }' "$doc" >"$TMP/doc"
    sl $cmd --help
    sed -n '/^$/q; 1s/^usage: //p; 2,$s/^       //p' "$TMP/out" >"$TMP/usage"
    check "slublab $cmd --help prints a usage" [ -s "$TMP/usage" ]
    if ! cmp -s "$TMP/doc" "$TMP/usage"; then
        diff "$TMP/doc" "$TMP/usage" | sed 's/^/  /'
        bad "docs/cli.md shows the usage of slublab $cmd as --help prints it"
    else
        ok
    fi
done <<<"$commands"

finish
