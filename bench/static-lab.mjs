// Browser benchmark of the static lab against the native one (run by hand;
// it measures, it never fails), in Debian's Chromium, side by side in one
// run: the static lab (`slublab export-static` into a folder served by a
// plain static server, tests/browser/static-folder.mjs), the same page from
// `slublab serve`, and with --before DIR a static folder exported by an
// earlier build (served the same way):
//   node bench/static-lab.mjs [--loads 10] [--steps 300] [--before DIR]
// with SLUBLAB_BIN naming the program (default build/slublab).
//  1. cold first drawn state: navigation start to the first drawn state
//     (window.__slublab.firstDrawMs), each load in a new browser profile
//     (nothing cached, the wasm compiled afresh), of `/` (the default
//     scenario) and of the largest shipped scenario; median, p95 and worst;
//     the labs' loads taken in turn, so that the machine's load weighs on
//     each alike;
//  2. step: --steps presses of → from position 0 of the largest scenario,
//     the picture's animation off (prefers-reduced-motion, which the page
//     honours), each key at a random point of a frame (0-16 ms after a
//     paint), each timed from the key's dispatch to the new state drawn:
//     the page's render of the new position (body[data-at]) and the paint
//     of that frame (a task queued from the frame runs after it); and, the
//     key's dispatch to the new state in the DOM (render() done).  A step
//     whose work ends within a frame is shown at the next
//     paint; the wait for that paint (up to 16.7 ms at 60 Hz, wherever in
//     the frame the key came) is the display's, not the lab's.  So the
//     goal's figure is the lab's work: from the key to the player holding
//     the new state (the key's handler, the /api answer), plus render()
//     itself (window.__slublab.renderStart to its end); the wait between
//     (render() runs at the next animation frame) is left out.  Counted
//     apart: the time spent waiting for /api answers, and render()'s own,
//     alone and from its frame's start (what ran in the frame before it).
// The last lines give the static lab's figures over the native ones.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, startServer, openPage, ROOT } from '../tests/browser/helpers.mjs';
import { staticLab, serveFolder } from '../tests/browser/static-folder.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const LOADS = Number(arg('loads', 10)), STEPS = Number(arg('steps', 300)), BEFORE = arg('before', null);
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const fmt = (xs, p = 0.99) => `median ${pct(xs, 0.5).toFixed(1)} ms, p${Math.round(p * 100)} ${pct(xs, p).toFixed(1)} ms, worst ${Math.max(...xs).toFixed(1)} ms`;

// the largest shipped scenario, by file size
const SCENARIO = process.env.SCENARIO || readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.json'))
  .map((f) => [f.slice(0, -5), statSync(join(ROOT, 'scenarios', f)).size]).sort((a, b) => b[1] - a[1])[0][0];

/** Open @url in a page of @ctx, animation off; resolves once its first state is drawn. */
async function open(ctx, url) {
  const page = await openPage(ctx, null, { width: 1400, height: 900 });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  return page;
}

const MARKS = ['compiled', 'instantiated', 'opened'];

/**
 * One cold first drawn state of @path from @base, in a new profile; with,
 * for the static lab, when its Worker had the module compiled,
 * instantiated and the API opened (web/js/static/api.js's marks), since
 * the page's navigation start: { draw, marks: {name: ms} }.
 */
async function firstDraw(base, path) {
  const marks = {};
  const browser = await startBrowser();
  try {
    const page = await open(browser.ctx, base + path);
    const [draw, origin] = await page.evaluate(() => [window.__slublab.firstDrawMs, performance.timeOrigin]);
    for (const w of page.workers()) {
      const got = await w.evaluate(() => [performance.timeOrigin,
        performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])]);
      for (const [name, t] of got[1]) {
        const k = name.replace(/^slublab-api:/, '');
        if (MARKS.includes(k)) marks[k] = t + got[0] - origin;
      }
    }
    return { draw, marks };
  } finally {
    await browser.stop();
  }
}

/** @steps presses of → on the largest scenario: [{ ms, apiMs }] per step. */
async function steps(base) {
  const browser = await startBrowser();
  try {
    const page = await open(browser.ctx, `${base}/?scenario=${SCENARIO}`);
    return await page.evaluate(async (n) => {
      // the time the page spends waiting for /api answers (the static lab's
      // fetch() is boot.js's, so this wraps whichever the page has)
      let inApi = 0;
      const fetch0 = window.fetch;
      window.fetch = async (...a) => {
        const t = performance.now();
        try { return await fetch0(...a); } finally { inApi += performance.now() - t; }
      };
      const afterPaint = () => new Promise((ok) => { const c = new MessageChannel(); c.port1.onmessage = () => ok(); c.port2.postMessage(0); });
      const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
      let rendered = 0, frameStart = 0, ready = 0, wantAt = -1;
      // the moment the player has the new state (it tells the page to render on the next frame)
      const player = window.__slublab.player;
      const unsub = player.subscribe(() => {
        const m = player.get();
        if (!ready && m.at === wantAt && m.cur?.at === wantAt) ready = performance.now();
      });
      const drawn = (want) => new Promise((ok) => {
        const mo = new MutationObserver(() => {
          if (document.body.dataset.at !== want) return;
          mo.disconnect();
          // render() ran in this frame's callbacks: a task queued now runs once it is painted
          rendered = performance.now();
          frameStart = Number(document.timeline.currentTime);
          afterPaint().then(ok);
        });
        mo.observe(document.body, { attributes: true, attributeFilter: ['data-at'] });
      });
      const out = [];
      for (let i = 0; i < n; i++) {
        // a key comes at any point of a frame: after a paint, wait 0 to 16 ms
        await frame();
        await afterPaint();
        await new Promise((ok) => setTimeout(ok, Math.random() * 16));
        const want = String(Number(document.body.dataset.at) + 1);
        const shown = drawn(want);
        inApi = 0;
        ready = 0;
        wantAt = Number(want);
        const t0 = performance.now();
        document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
        await shown;
        // the lab's work: from the key to the state in hand, then render() itself (the wait between is for the frame)
        // (a build before renderStart was kept: from the frame's start)
        const rs = window.__slublab.renderStart;
        const own = rendered - (rs === undefined ? frameStart : rs);
        const workMs = (ready || rendered - own) - t0 + own;
        out.push({ ms: performance.now() - t0, doneMs: rendered - t0, workMs, apiMs: inApi, renderMs: rendered - frameStart, ownMs: own });
      }
      window.fetch = fetch0;
      unsub();
      return out;
    }, STEPS);
  } finally {
    await browser.stop();
  }
}

const labs = [];
const lab = await staticLab();
const native = await startServer();
const before = BEFORE ? await serveFolder(BEFORE) : null;
try {
  if (before) labs.push({ name: 'static, before', url: before.url });
  labs.push({ name: 'static', url: lab.url }, { name: 'native', url: native.url });
  const r = {};
  const PATHS = ['/', `/?scenario=${SCENARIO}`];
  for (const l of labs) r[l.name] = { first: Object.fromEntries(PATHS.map((p) => [p, []])), marks: Object.fromEntries(PATHS.map((p) => [p, []])), step: null };
  // the loads of every lab in turn, so that the machine's load, which
  // drifts over a run, weighs on each alike
  for (let i = 0; i < LOADS; i++) {
    for (const l of labs) {
      for (const path of PATHS) {
        const { draw, marks } = await firstDraw(l.url, path);
        r[l.name].first[path].push(draw);
        if (marks.opened !== undefined) r[l.name].marks[path].push(marks);
      }
    }
  }
  for (const l of labs) {
    for (const path of PATHS) {
      console.log(`${l.name}: cold first drawn state of ${path}: ${fmt(r[l.name].first[path], 0.95)} (${LOADS} loads, a new profile each)`);
      const ms = r[l.name].marks[path];
      if (ms.length)
        console.log(`${l.name}:   in the Worker, median since navigation start: ` +
          MARKS.map((k) => `${k} ${pct(ms.map((x) => x[k] ?? NaN), 0.5).toFixed(0)} ms`).join(', '));
    }
  }
  for (const l of labs) {
    const st = await steps(l.url);
    r[l.name].step = st;
    console.log(`${l.name}: step → on ${SCENARIO} (${STEPS} steps from 0, animation off), the lab's work (the goal's figure): ${fmt(st.map((s) => s.workMs))}`);
    console.log(`${l.name}:   key to new state in the DOM (with the wait for the frame that renders it): ${fmt(st.map((s) => s.doneMs))}`);
    console.log(`${l.name}:   key to that state painted (with the wait for the next frame and its paint): ${fmt(st.map((s) => s.ms))}`);
    console.log(`${l.name}:   of which waiting for /api: ${fmt(st.map((s) => s.apiMs))}`);
    console.log(`${l.name}:   of which render() itself: ${fmt(st.map((s) => s.ownMs))}; from its frame's start: ${fmt(st.map((s) => s.renderMs))}`);
  }
  const ratio = (f) => (f(r.static) / f(r.native)).toFixed(2);
  const both = (f) => `static ${f(r.static).toFixed(1)} ms, native ${f(r.native).toFixed(1)} ms, ratio ${ratio(f)}x`;
  for (const path of ['/', `/?scenario=${SCENARIO}`]) {
    console.log(`static / native, first drawn state of ${path}: median ${both((x) => pct(x.first[path], 0.5))}; ` +
      `p95 ${both((x) => pct(x.first[path], 0.95))}`);
  }
  for (const [what, k] of [['the lab\'s work', 'workMs'], ['key to new state in the DOM', 'doneMs'], ['key to state painted', 'ms']]) {
    console.log(`static / native, step, ${what}: median ${both((x) => pct(x.step.map((s) => s[k]), 0.5))}; ` +
      `p99 ${both((x) => pct(x.step.map((s) => s[k]), 0.99))}`);
  }
  console.log('The goal (a step within 16 ms) is read on "the lab\'s work": the key\'s handling and the wait for the state, ' +
    'then render() in its frame. Work that ends within a frame is shown at the next paint; the waits for the frame ' +
    'that renders it and for its paint (up to 16.7 ms each at 60 Hz) are the display\'s, not the lab\'s.');
} finally {
  await before?.stop();
  await native.stop();
  await lab.stop();
}
