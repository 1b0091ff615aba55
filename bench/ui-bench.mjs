// Browser benchmark of the web UI (run by hand; it measures, it never fails):
//   node bench/ui-bench.mjs [--seconds 10] [--loads 20] [--before BIN] [--first-only]
// with SLUBLAB_BIN naming the program (default build/slublab) and
// SLUBLAB_BIN_BEFORE (or --before) another build to run in turn with it.
//  1. the first drawn state (the page's debug.firstDrawMs: navigation start
//     to the first render() that drew a state) of `/` (the default scenario)
//     and of `/?scenario=maple-prefill-kfree-rcu` (the largest shipped one),
//     --loads times each: cold (a new browser context each load, the HTTP
//     cache off) and warm (one context, the page reloaded, the cache on; a
//     first load fills it and is not counted: it also builds the page's run,
//     so the cold loads that follow are not its first); median, p95, worst, and the
//     JavaScript transferred before the first state (compressed bytes on the
//     wire).  With a program before, the two alternate load by load and the
//     ratios after/before are printed.  Then where a cold and a warm load's
//     time goes: the medians of when the page's answer, the last script, the
//     first API request and the last API answer before the draw arrived and
//     when the UI's module began to run, and the API requests before the
//     draw one after another (round trips); with --first-only, nothing more.
//     The page runs nothing of the bench's while it loads (firstDraw());
//  2. frames per second (requestAnimationFrame callbacks) over --seconds of
//     autoplay at 1400x900 with more than 5,000 objects on screen, at the
//     default speed (animated moves) and at 32 steps per second;
//  3. the JavaScript the page fetches besides Chart.js: to its first drawn
//     state, and once every tab and view has been opened.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startServer, startBrowser, openPage, ROOT, CHROMIUM_ARGS } from '../tests/browser/helpers.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const SECONDS = Number(arg('seconds', 10)), LOADS = Number(arg('loads', 20));
const AFTER = process.env.SLUBLAB_BIN || join(ROOT, 'build/slublab');
const BEFORE = arg('before', process.env.SLUBLAB_BIN_BEFORE || '');
const PAGES = ['/', '/?scenario=maple-prefill-kfree-rcu'];

function jsFiles(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? jsFiles(p) : p.endsWith('.js') ? [p] : [];
  });
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
// the nearest-rank percentile
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]; };

/**
 * Load @url in @page (reload when @reload) to its first drawn state: the
 * page's firstDrawMs, and from the Resource Timing entries the JavaScript
 * transferred before it and when its requests started and ended.
 */
async function firstDraw(page, url, reload) {
  // Waiting runs nothing in the page while it loads: no selector engine
  // (page.waitForSelector() puts Playwright's script into the page, some
  // 20 ms of its main thread, in the middle of the load), only a bare
  // DevTools evaluation of one expression every 20 ms.
  const cdp = await page.context().newCDPSession(page);
  try {
    const ask = async (expr) => (await cdp.send('Runtime.evaluate', { expression: expr, returnByValue: true })
      .catch(() => ({ result: { value: null } }))).result.value;
    const before = reload ? await ask('performance.timeOrigin') : null;
    if (reload) await page.reload({ waitUntil: 'commit' }); else await page.goto(url, { waitUntil: 'commit' });
    const ready = `performance.timeOrigin !== ${before} && document.body?.dataset.ready === '1'`;
    for (const t0 = Date.now(); !(await ask(ready));) {
      if (Date.now() - t0 > 30000) throw new Error(`${url ?? 'reload'}: no first state in 30 s`);
      await new Promise((ok) => { setTimeout(ok, 20); });
    }
  } finally { await cdp.detach(); }
  return page.evaluate(() => {
    const draw = window.__slublab.firstDrawMs;
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource').filter((r) => r.startTime < draw);
    const js = res.filter((r) => new URL(r.name).pathname.endsWith('.js'));
    const apis = res.filter((r) => new URL(r.name).pathname.startsWith('/api/') && r.responseEnd <= draw)
      .sort((a, b) => a.startTime - b.startTime);
    // round trips: API requests each started after the one before it answered
    let trips = 0, end = -1;
    for (const r of apis) if (r.startTime >= end) { trips++; end = r.responseEnd; } else end = Math.min(end, r.responseEnd);
    return {
      draw, jsBytes: js.reduce((a, r) => a + r.transferSize, 0), jsFiles: js.filter((r) => r.transferSize > 0).length,
      html: nav.responseEnd, scripts: Math.max(0, ...js.map((r) => r.responseEnd)), main: draw - window.__slublab.bootMs,
      apiStart: apis.length ? apis[0].startTime : NaN, apiEnd: Math.max(0, ...apis.map((r) => r.responseEnd)), trips,
    };
  });
}

/** A cold load: a new context (an empty cache), the cache off besides. */
async function coldLoad(browser, url) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    return await firstDraw(page, url, false);
  } finally { await ctx.close(); }
}

/** The first drawn state, cold and warm, of each page, on the programs of @bins in turn. */
async function firstDraws(bins) {
  const servers = [];
  for (const b of bins) { process.env.SLUBLAB_BIN = b.bin; servers.push(await startServer()); }
  process.env.SLUBLAB_BIN = AFTER;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const got = {}; // got[page][mode][bin name] = [loads]
  try {
    for (const path of PAGES) {
      got[path] = { cold: {}, warm: {} };
      const warm = [];
      for (const [k, b] of bins.entries()) {
        got[path].cold[b.name] = []; got[path].warm[b.name] = [];
        const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
        const page = await ctx.newPage();
        await firstDraw(page, servers[k].url + path, false); // fills the cache
        warm.push({ ctx, page });
      }
      for (let i = 0; i < LOADS; i++) {
        for (const [k, b] of bins.entries()) {
          got[path].cold[b.name].push(await coldLoad(browser, servers[k].url + path));
          got[path].warm[b.name].push(await firstDraw(warm[k].page, null, true));
        }
      }
      for (const w of warm) await w.ctx.close();
    }
  } finally {
    await browser.close();
    for (const s of servers) await s.stop();
  }
  return got;
}

/** The first-draw tables of @got (firstDraws()) for the programs @bins. */
function printFirstDraws(got, bins) {
  const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : '-');
  console.log(`First drawn state: ${LOADS} loads of each page, cold (a new context, the cache off) and warm (a reload, the cache on)` +
    `${bins.length > 1 ? ', the programs alternating load by load' : ''}; ms since navigation start.`);
  console.log('');
  console.log('| page | load | program | median ms | p95 ms | worst ms | JS transferred before the first state | API round trips before it |');
  console.log('|---|---|---|---:|---:|---:|---:|---:|');
  for (const path of PAGES) {
    for (const mode of ['cold', 'warm']) {
      for (const b of bins) {
        const xs = got[path][mode][b.name], d = xs.map((x) => x.draw);
        const js = median(xs.map((x) => x.jsBytes)), files = median(xs.map((x) => x.jsFiles));
        console.log(`| \`${path}\` | ${mode} | ${b.name} | ${f0(median(d))} | ${f0(pct(d, 95))} | ${f0(Math.max(...d))} | ` +
          `${(js / 1024).toFixed(1)} KiB in ${files} files | ${median(xs.map((x) => x.trips))} |`);
      }
    }
  }
  if (bins.length > 1) {
    console.log('');
    console.log('| page | load | median after/before | p95 after/before |');
    console.log('|---|---|---:|---:|');
    for (const path of PAGES) {
      for (const mode of ['cold', 'warm']) {
        const [a, b] = [bins[0], bins[1]].map((x) => got[path][mode][x.name].map((y) => y.draw));
        console.log(`| \`${path}\` | ${mode} | ${(median(a) / median(b)).toFixed(2)} | ${(pct(a, 95) / pct(b, 95)).toFixed(2)} |`);
      }
    }
  }
  console.log('');
  console.log('Where a load\'s time goes (medians, ms since navigation start): the page\'s answer, the last script loaded ' +
    'before the first state, the first API request sent, the UI\'s module starting to run, the last API answer before the draw, the draw.');
  console.log('');
  console.log('| page | load | program | page answered | scripts loaded | first API request | module runs | last API answer | first drawn state |');
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|');
  for (const path of PAGES) {
    for (const mode of ['cold', 'warm']) {
      for (const b of bins) {
        const xs = got[path][mode][b.name], m = (k) => f0(median(xs.map((x) => x[k])));
        console.log(`| \`${path}\` | ${mode} | ${b.name} | ${m('html')} | ${m('scripts')} | ${m('apiStart')} | ${m('main')} | ${m('apiEnd')} | ${m('draw')} |`);
      }
    }
  }
  console.log('');
}

const SCENARIO = {
  format: 1, name: 'bench-5000', title: 'Benchmark: 5,000 objects on screen',
  machine: { cpus: 2, nodes: 1, mem_mb_per_node: 64 },
  caches: [{ name: 'B8', object_size: 8 }],
  ops: [
    { op: 'alloc_bulk', cpu: 0, cache: 'B8', count: 5000, name: 'b' },
    { op: 'repeat', times: 3000, ops: [{ op: 'alloc', cpu: 0, cache: 'B8', name: 'x' }, { op: 'free', cpu: 0, name: 'x' }] },
  ],
};

// 1. the first drawn state, this program first
const bins = [{ name: 'this build', bin: AFTER }, ...(BEFORE ? [{ name: 'before', bin: BEFORE }] : [])];
printFirstDraws(await firstDraws(bins), bins);
if (process.argv.includes('--first-only')) process.exit(0);

const server = await startServer();
const browser = await startBrowser();
try {
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
