// What slublab's code, UI and docs cite: kernel functions and slublab's own
// docs, never a design document users do not have.  The check is the
// issue's grep, `grep -rniE '\bspec(ification)?\b|"spec"'`, over engine/,
// server/, web/, docs/ and README.md, plus section numbers of the kind such
// a document has ("section 13.2", "(1.4 P6)").  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEXT = /\.(c|h|js|mjs|json|md|html|css|sh|txt)$/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (TEXT.test(name)) yield p;
  }
}

const PATTERNS = [
  /\bspec(ification)?\b/i,
  /"spec"/i,
  /\bsection \d+\.\d+/i,
  /\(\d+\.\d+ P\d+\)/,
  /\bdesign \d+\.\d+/i,
];

test('engine, server, web, docs and the README cite no design document', () => {
  const hits = [];
  let n = 0;
  const all = ['engine', 'server', 'web', 'docs'].flatMap((d) => [...files(join(ROOT, d))]);
  for (const p of [...all, join(ROOT, 'README.md')]) {
    n++;
    readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
      for (const re of PATTERNS) if (re.test(line)) hits.push(`${relative(ROOT, p)}:${i + 1}: ${line.trim().slice(0, 100)}`);
    });
  }
  assert.ok(n > 100, `${n} files read`);
  assert.deepEqual(hits, []);
});

test('the outlines carry no design section keys', () => {
  const outlines = JSON.parse(readFileSync(join(ROOT, 'web/data/texts.json'), 'utf8')).outlines;
  for (const [fn, o] of Object.entries(outlines)) assert.deepEqual(Object.keys(o).sort(), ['at', 'file', 'steps'], fn);
});
