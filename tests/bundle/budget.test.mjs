// tests/bundle/budget.test.mjs: the bundle (scripts/bundle-web.mjs, built
// into web/ of the build tree) keeps its promises: the JavaScript the page
// loads before its first state stays within its budget, compressed; Chart.js
// is not part of it; every text file has its .gz and .br beside it, each
// the file itself; the hashed names are the contents' own.
// Run by ctest (web_bundle) when the build tree has a bundle; SLUBLAB_BUILD_DIR
// names the tree.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

// JavaScript before the first state, gzip-compressed (what every browser takes).
const FIRST_STATE_BUDGET = 100 * 1024;

const out = join(resolve(process.env.SLUBLAB_BUILD_DIR ?? 'build'), 'web');
const manifest = JSON.parse(readFileSync(join(out, '.manifest.json'), 'utf8'));

test(`JavaScript before the first state: at most ${FIRST_STATE_BUDGET} bytes gzip-compressed`, () => {
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  // what index.html loads is what the manifest says loads first, and no more
  const loaded = [...html.matchAll(/<(?:script[^>]+src|link rel="modulepreload" href)="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(loaded.sort(), [...manifest.first].sort());
  assert.ok(!loaded.some((f) => /chart/i.test(f)), 'Chart.js waits for the first chart');
  const bytes = manifest.first.reduce((sum, f) => sum + statSync(join(out, `${f}.gz`)).size, 0);
  console.log(`# ${manifest.first.length} files, ${bytes} bytes gzip (budget ${FIRST_STATE_BUDGET})`);
  assert.ok(bytes <= FIRST_STATE_BUDGET, `${bytes} bytes gzip before the first state, over the budget of ${FIRST_STATE_BUDGET}`);
});

test('every text file has a .gz and a .br of itself beside it', () => {
  let n = 0;
  (function walk(dir) {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) { walk(p); continue; }
      if (!/\.(js|css|html|json|svg)$/.test(name) || name.startsWith('.')) continue;
      const raw = readFileSync(p);
      assert.ok(gunzipSync(readFileSync(`${p}.gz`)).equals(raw), `${p}.gz`);
      assert.ok(brotliDecompressSync(readFileSync(`${p}.br`)).equals(raw), `${p}.br`);
      n++;
    }
  })(out);
  assert.ok(n > 10);
});

test('the files under assets/ are named by their contents', () => {
  // esbuild names the chunks by their contents' hash; Chart.js's name is its sha256
  const names = readdirSync(join(out, 'assets')).filter((f) => f.endsWith('.js'));
  assert.ok(names.every((f) => /-[A-Z0-9]{8}\.js$|^chart\.umd-[0-9a-f]{10}\.js$/.test(f)), names.join(' '));
  const chart = readFileSync(join(out, manifest.chart));
  assert.equal(manifest.chart, `assets/chart.umd-${createHash('sha256').update(chart).digest('hex').slice(0, 10)}.js`);
  assert.ok(!existsSync(join(out, 'js')), 'no development modules in the bundle');
});
