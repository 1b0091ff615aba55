// Browser benchmark of the web UI (run by hand; it measures, it never fails):
//   node bench/ui-bench.mjs [--seconds 10] [--loads 5]
// with SLUBLAB_BIN naming the program (default build/slublab).
//  1. time from navigation start to the first drawn state of `/`
//     (the default scenario), median of --loads fresh page loads;
//  2. frames per second (requestAnimationFrame callbacks) over --seconds of
//     autoplay at 1400x900 with more than 5,000 objects on screen, at the
//     default speed (animated moves) and at 32 steps per second;
//  3. the JavaScript the page fetches besides Chart.js: to its first drawn
//     state, and once every tab and view has been opened.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startServer, startBrowser, openPage, ROOT } from '../tests/browser/helpers.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : def; };
const SECONDS = arg('seconds', 10), LOADS = arg('loads', 5);

function jsFiles(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? jsFiles(p) : p.endsWith('.js') ? [p] : [];
  });
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const SCENARIO = {
  format: 1, name: 'bench-5000', title: 'Benchmark: 5,000 objects on screen',
  machine: { cpus: 2, nodes: 1, mem_mb_per_node: 64 },
  caches: [{ name: 'B8', object_size: 8 }],
  ops: [
    { op: 'alloc_bulk', cpu: 0, cache: 'B8', count: 5000, name: 'b' },
    { op: 'repeat', times: 3000, ops: [{ op: 'alloc', cpu: 0, cache: 'B8', name: 'x' }, { op: 'free', cpu: 0, name: 'x' }] },
  ],
};

const server = await startServer();
const browser = await startBrowser();
try {
  // 1. first drawn state
  const loads = [];
  for (let i = 0; i < LOADS; i++) {
    const page = await openPage(browser.ctx, null, { width: 1400, height: 900 });
    await page.goto(server.url + '/');
    await page.waitForSelector('body[data-ready="1"]');
    loads.push(await page.evaluate(() => window.__slublab.firstDrawMs));
    await page.close();
  }

  // 2. autoplay frames
  const r = await fetch(server.url + '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: SCENARIO }) });
  const s = await r.json();
  if (!r.ok) throw new Error(JSON.stringify(s));
  const start = 1 + 1 + 20; // after the create and the bulk allocation's events, roughly
  const fps = {};
  let onScreen = 0;
  for (const speed of [4, 32]) {
    const page = await openPage(browser.ctx, null, { width: 1400, height: 900 });
    await page.goto(`${server.url}/?session=${s.id}&at=${start}`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.evaluate((sp) => window.__slublab.player.setSpeed(sp), speed);
    await page.evaluate(() => window.__slublab.player.seek(window.__slublab.player.get().end - 2000));
    await page.waitForTimeout(500);
    onScreen = await page.evaluate(() => {
      const sc = window.__slublab.picture.scenes();
      const c = document.querySelector('#picture canvas.slabmap');
      const h = c.clientHeight, k = window.__slublab.picture.slabmap.view.k;
      let n = 0;
      for (const r of sc.grid.slabs) if (!r.collapsed && (r.y + r.h) * k <= h) n += sc.view.codes.get(r.addr).length;
      return n;
    });
    const res = await page.evaluate(async (secs) => {
      const p = window.__slublab.player;
      const at0 = p.get().at;
      p.play();
      let frames = 0, worst = 0, last = performance.now();
      const t0 = last;
      await new Promise((done) => {
        const f = (now) => {
          frames++;
          worst = Math.max(worst, now - last);
          last = now;
          if (now - t0 < secs * 1000) requestAnimationFrame(f); else done();
        };
        requestAnimationFrame(f);
      });
      p.pause();
      return { fps: frames / ((last - t0) / 1000), worstFrameMs: worst, steps: p.get().at - at0 };
    }, SECONDS);
    fps[speed] = res;
    if (page.errors.length) console.error('console errors:', page.errors);
    await page.close();
  }

  // 3. JavaScript shipped besides Chart.js: what the page fetches to its first
  // drawn state, then after opening every tab and view (the rest load on demand).
  const page = await openPage(browser.ctx, null, { width: 1400, height: 900 });
  const got = new Map();
  page.on('response', async (res) => {
    const u = new URL(res.url());
    if (u.pathname.endsWith('.js') && !u.pathname.startsWith('/vendor/')) got.set(u.pathname, (await res.body()).length);
  });
  await page.goto(server.url + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForTimeout(300);
  const initial = [...got.values()].reduce((a, b) => a + b, 0), initialFiles = got.size;
  for (const t of ['counters', 'inspect', 'table', 'share']) await page.click(`#tabbtn-${t}`);
  await page.locator('details:has(#ops) > summary').click();
  await page.click('#viewbtn-scenario');
  await page.click('#viewbtn-compare');
  await page.waitForSelector('#cmp-table tbody tr');
  await page.waitForTimeout(300);
  const loaded = [...got.values()].reduce((a, b) => a + b, 0);
  await page.close();
  const files = jsFiles(join(ROOT, 'web/js'));
  const all = Buffer.concat(files.map((f) => readFileSync(f)));
  const chart = statSync(join(ROOT, 'node_modules/chart.js/dist/chart.umd.js')).size;
  const notLoaded = files.map((f) => f.slice(join(ROOT, 'web').length)).filter((f) => !got.has(f));

  console.log(`first drawn state of /: median ${median(loads).toFixed(0)} ms (${loads.map((x) => x.toFixed(0)).join(', ')} ms over ${LOADS} loads)`);
  console.log(`objects on screen during autoplay: ${onScreen}`);
  for (const [sp, x] of Object.entries(fps)) {
    console.log(`autoplay at ${sp} steps/s for ${SECONDS} s: ${x.fps.toFixed(1)} frames/s, worst frame ${x.worstFrameMs.toFixed(0)} ms, ${x.steps} steps`);
  }
  console.log(`JavaScript fetched to the first drawn state: ${initialFiles} files, ${initial} bytes (${(initial / 1024).toFixed(1)} KiB)`);
  console.log(`JavaScript fetched after opening every tab and view: ${got.size} files, ${loaded} bytes (${(loaded / 1024).toFixed(1)} KiB)`);
  console.log(`web/js on disk: ${files.length} files, ${all.length} bytes, ${gzipSync(all).length} gzipped (never fetched: ${notLoaded.join(', ') || 'none'}); Chart.js: ${chart} bytes`);
} finally {
  await browser.stop();
  await server.stop();
}
