#!/usr/bin/env bash
# tests/cli/install.sh: `cmake --install` into a temporary prefix, then the
# installed program serves the lab from another directory (docs/deploy.md,
# Installing; server/base/datadir.h).
#
# Run by ctest in the release tree only, from the repository root, with
# SLUBLAB_BUILD_DIR naming the build tree and CMAKE the cmake that made it.
# The installed index.html gets a marker line, so the page served is known
# to come from the prefix found beside the executable: not from the source
# tree, nor from a copy installed elsewhere on the machine.
. "$(dirname "$0")/lib.bash"

build=${SLUBLAB_BUILD_DIR:?SLUBLAB_BUILD_DIR names the build tree}
prefix=$TMP/prefix
data=$prefix/share/slublab
chartjs=node_modules/chart.js/dist/chart.umd.js
marker="<!-- installed by tests/cli/install.sh $$ -->"

if ! "${CMAKE:-cmake}" --install "$build" --prefix "$prefix" >"$TMP/install.log" 2>&1; then
    bad "cmake --install failed"
    sed 's/^/  /' "$TMP/install.log" | tail -5
    finish
    exit
fi
ok

check "bin/slublab installed" test -x "$prefix/bin/slublab"
check "share/slublab/web/index.html" cmp -s web/index.html "$data/web/index.html"
check "every file of web/ installed" diff -rq web "$data/web"
check "share/slublab/scenarios: every shipped scenario" \
    diff -q <(cd scenarios && ls ./*.json) <(cd "$data/scenarios" && ls ./*.json)
check "share/slublab/lessons, exercises too" \
    diff -rq lessons "$data/lessons"
if [ -f "$chartjs" ]; then
    check "share/slublab/vendor/chart.umd.js" cmp -s "$chartjs" "$data/vendor/chart.umd.js"
else
    skip "no $chartjs at build time: nothing to install in vendor/"
fi
# The page served: the bundle when the build tree has one (scripts/bundle-web.mjs)
page=$data/web
if [ -f "$build/web/.manifest.json" ]; then
    page=$data/bundle
    check "share/slublab/bundle: the build tree's bundle" \
        diff -rq -x .manifest.json "$build/web" "$data/bundle"
else
    skip "no bundle in $build: the page is web/'s modules"
fi
echo "$marker" >>"$page/index.html"

# The installed program, started from a directory with nothing of the lab in it.
mkdir -p "$TMP/elsewhere"
(cd "$TMP/elsewhere" && exec "$prefix/bin/slublab" serve --port 0 --db lab.db --quiet) \
    >"$TMP/serve.out" 2>"$TMP/err" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$TMP"' EXIT
url=
for _ in $(seq 1 300); do
    url=$(grep -o 'http://[^ ]*/' "$TMP/serve.out" 2>/dev/null | head -n 1)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then
    bad "the installed slublab serve did not start"
    finish
    exit
fi
ok

# get PATH OUT: GET url PATH into OUT; fails unless the status is 200.
get() { curl -sS -f -o "$2" "${url%/}$1" 2>>"$TMP/err"; }

check "GET / answers" get / "$TMP/page"
check "GET / is the installed page" grep -qF "$marker" "$TMP/page"
if [ "$page" = "$data/web" ]; then
    check "GET /js/main.js" get /js/main.js "$TMP/main.js"
    check "GET /js/main.js is web/js/main.js" cmp -s web/js/main.js "$TMP/main.js"
else
    # every script and preload the page names is there, as installed
    loaded=$(grep -oE '<(script [^>]*src|link rel="modulepreload" href)="[^"]+"' "$TMP/page" |
        sed -E 's/.*="([^"]+)"$/\1/')
    check "the page loads the bundle's entry" grep -qE '^assets/main-[A-Z0-9]+\.js$' <<<"$loaded"
    for f in $loaded; do
        check "GET /$f is the installed file" sh -c 'curl -sS -f -o "$1" "$2" && cmp -s "$1" "$3"' \
            sh "$TMP/f" "${url%/}/$f" "$page/$f"
    done
    check "GET /css/app.css" get /css/app.css "$TMP/app.css"
    check "the entry sent brotli-compressed, immutable" sh -c \
        'curl -sS -f -D - -o /dev/null -H "Accept-Encoding: br" "$1" | tr -d "\r" |
         grep -qi "^content-encoding: br" && curl -sS -f -I "$1" | grep -qi "immutable"' \
        sh "${url%/}/$(grep -E '^assets/main-' <<<"$loaded")"
fi

# what the UI does: list the scenarios, open one
check "GET /api/scenarios" get /api/scenarios "$TMP/scenarios"
check "the scenarios are listed" grep -q '"name":"default"' "$TMP/scenarios"
check "GET /api/scenarios/default" get /api/scenarios/default "$TMP/scenario"
check "the scenario is there" grep -q '"name":"default"' "$TMP/scenario"
check "POST /api/sessions opens it" \
    curl -sS -f -o "$TMP/session" -H 'Content-Type: application/json' \
    -d '{"scenario":"default"}' "${url%/}/api/sessions"
check "the session has events" grep -Eq '"events":[1-9]' "$TMP/session"
check "GET /api/lessons" get /api/lessons "$TMP/lessons"
check "the lessons are listed" grep -q '"01-object-and-slab"' "$TMP/lessons"

if [ -f "$chartjs" ]; then
    check "GET /vendor/chart.umd.js" get /vendor/chart.umd.js "$TMP/chart.js"
    check "Chart.js served is node_modules'" cmp -s "$chartjs" "$TMP/chart.js"
else
    skip "no Chart.js to serve"
fi
finish
