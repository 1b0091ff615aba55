// Browser benchmark of the static lab (run by hand; it measures, it never
// fails): `slublab export-static` into a folder served by a plain static
// server (tests/browser/static-folder.mjs), in Debian's Chromium:
//   node bench/static-lab.mjs [--loads 5] [--steps 300]
// with SLUBLAB_BIN naming the program (default build/slublab).
//  1. cold first drawn state: navigation start to the first drawn state
//     (window.__slublab.firstDrawMs), each load in a new browser profile
//     (nothing cached, the wasm compiled afresh), of `/` (the default
//     scenario) and of the largest shipped scenario; median and worst;
//  2. step: --steps presses of → on the largest scenario, each timed in the
//     page from the key's dispatch to the page showing the next position
//     (body[data-at]) and the frame after it; median, p99 and worst.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, openPage, ROOT } from '../tests/browser/helpers.mjs';
import { staticLab } from '../tests/browser/static-folder.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : def; };
const LOADS = arg('loads', 5), STEPS = arg('steps', 300);
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const fmt = (xs) => `median ${pct(xs, 0.5).toFixed(1)} ms, p99 ${pct(xs, 0.99).toFixed(1)} ms, worst ${Math.max(...xs).toFixed(1)} ms`;

// the largest shipped scenario, by file size
const largest = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.json'))
  .map((f) => [f.slice(0, -5), statSync(join(ROOT, 'scenarios', f)).size]).sort((a, b) => b[1] - a[1])[0][0];
const SCENARIO = process.env.SCENARIO || 'maple-prefill-kfree-rcu';

const lab = await staticLab();
try {
  for (const path of ['/', `/?scenario=${SCENARIO}`]) {
    const loads = [];
    for (let i = 0; i < LOADS; i++) {
      const browser = await startBrowser();
      const page = await openPage(browser.ctx, null, { width: 1400, height: 900 });
      await page.goto(lab.url + path);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
      loads.push(await page.evaluate(() => window.__slublab.firstDrawMs));
      await browser.stop();
    }
    console.log(`cold first drawn state of ${path}: ${fmt(loads)} (${LOADS} loads, a new profile each)`);
  }

  const browser = await startBrowser();
  const page = await openPage(browser.ctx, null, { width: 1400, height: 900 });
  await page.goto(`${lab.url}/?scenario=${SCENARIO}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const times = await page.evaluate(async (n) => {
    const out = [];
    const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
    for (let i = 0; i < n; i++) {
      const want = String(Number(document.body.dataset.at) + 1);
      const t0 = performance.now();
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      while (document.body.dataset.at !== want) await frame();
      await frame();
      out.push(performance.now() - t0);
    }
    return out;
  }, STEPS);
  console.log(`step → on ${SCENARIO} (${STEPS} steps from 0): ${fmt(times)}`);
  console.log(`(the largest shipped scenario file is ${largest})`);
  await browser.stop();
} finally {
  await lab.stop();
}
