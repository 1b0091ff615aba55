// The lab on a projector and on small screens, and its accessibility:
// where the picture starts at 1440x900, 1024x768 and 390x844, the presenter
// view's text sizes at 1280x720, labels that do not overlap, nothing drawn
// over anything else, and an axe-core audit of the lab, a large scenario,
// the compare view and the presenter view (no serious or critical
// violations), and the race view at the three sizes (with its own audit).
// docs/img/screen-*.png are written when missing or when
// SLUBLAB_UPDATE_SCREENSHOTS=1 (docs/teaching.md shows them).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';
import { startServer, openPage, shotOnFailure, waitAt, press, CHROMIUM_ARGS, ROOT, OUT, LONG_RUN } from './helpers.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * Chromium as helpers.mjs starts it, but bypassing the page's
 * Content-Security-Policy: Playwright's addScriptTag() injects axe-core
 * as an inline script, which `default-src 'self'` would block.
 */
async function startBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'slublab-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 }, bypassCSP: true,
  });
  return { ctx, async stop() { await ctx.close(); rmSync(profile, { recursive: true, force: true }); } };
}

// a lesson of this file's own, for the lesson slide's screenshot
const lessons = mkdtempSync(join(tmpdir(), 'slublab-lessons-'));
writeFileSync(join(lessons, '01-barn.json'), JSON.stringify({
  format: 1, id: '01-barn', title: 'The barn: where full and empty sheaves wait', minutes: 10,
  summary: 'What a CPU does when its sheaves are full or empty.',
  slides: [
    { title: 'Two sheaves per CPU', scenario: 'spare-and-barn', at: 0,
      text: 'Each CPU keeps a **main** sheaf and a **spare**. Allocations pop objects from `main`; frees push them back.\n\nStep forward (→) and watch CPU 0 allocate: its `main` is empty, so the kernel must find a full sheaf somewhere.' },
    { title: 'A refill from a new slab', at: 6, tab: 'explain', select: 'sheaf:3',
      text: 'The barn had no full sheaf (`barn_get_fail`), so an empty sheaf is **refilled** from the node\'s slabs. There are none yet: `new_slab` asks the page allocator for 8 pages.\n\nThe refill takes four objects of the fresh slab into the sheaf; the slab keeps the rest.' },
    { title: 'What happens next?', at: 14, ask: true, text: 'Main is empty again. Predict what the kernel does.' },
  ],
}));
after(() => rmSync(lessons, { recursive: true, force: true }));

let server, browser, base;
before(async () => {
  server = await startServer(['--lessons', lessons]);
  base = server.url;
  browser = await startBrowser();
  mkdirSync(OUT, { recursive: true });
});
after(async () => {
  await browser?.stop();
  await server?.stop();
});

async function lab(path, viewport) {
  const page = await openPage(browser.ctx, base + path, viewport);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

async function shot(page, name) {
  const file = join(ROOT, 'docs/img', name);
  await page.screenshot({ path: join(OUT, name) });
  if (!existsSync(file) || process.env.SLUBLAB_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: file });
}

/** The box of @sel in page coordinates (scrolled to the top). */
async function box(page, sel) {
  return page.evaluate((s) => {
    const el = document.querySelector(s);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height };
  }, sel);
}

/** Rendered size (px) of the texts in @root's SVG structures: the smallest (and the smallest in the CPU boxes), and the lines that overlap. */
async function svgTexts(page, root) {
  return page.evaluate((r) => {
    const out = { min: Infinity, cpuMin: Infinity, overlaps: [], clipped: [] };
    for (const svg of document.querySelectorAll(`${r} svg.topo`)) {
      const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim());
      const boxes = texts.map((t) => ({ t: t.textContent, b: t.getBoundingClientRect(), fs: parseFloat(getComputedStyle(t).fontSize), k: svg.getScreenCTM().a, cpu: !!t.closest('g.cpu') }));
      for (const x of boxes) out.min = Math.min(out.min, x.fs * x.k);
      for (const x of boxes) if (x.cpu) out.cpuMin = Math.min(out.cpuMin, x.fs * x.k);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i].b, b = boxes[j].b;
          const ix = Math.min(a.right, b.right) - Math.max(a.left, b.left), iy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          // on one line, words closer than 2 px run together ("0246810")
          if (ix > -2 && iy > 2) out.overlaps.push(`${boxes[i].t} / ${boxes[j].t}`);
        }
      }
      // a text wider than the box it labels (the group's first rect) is clipped by its neighbours
      for (const t of texts) {
        const rect = t.parentNode.querySelector(':scope > rect');
        if (!rect || t.closest('g.node') && t.parentNode.classList.contains('node')) continue;
        const a = t.getBoundingClientRect(), b = rect.getBoundingClientRect();
        if (a.left >= b.left - 1 && a.left < b.right && a.right > b.right + 1 && a.top >= b.top && a.bottom <= b.bottom + 1) out.clipped.push(t.textContent);
      }
    }
    return out;
  }, root);
}

/** Boxes of @sels that overlap another of them (label boxes, side panels). */
function overlapping(boxes) {
  const out = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (!a || !b || !a.w || !b.w) continue;
      if (Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1) out.push([i, j]);
    }
  }
  return out;
}

async function stepTo(page, n) {
  await press(page, 'ArrowRight', n);
  await waitAt(page, n);
  await page.waitForTimeout(600);
}

test('1024x768: the picture starts within the first screen, above the breakpoints and the keys', async (t) => {
  const page = await lab('/?scenario=spare-and-barn', { width: 1024, height: 768 });
  await shotOnFailure(t, page, async () => {
    await stepTo(page, 6);
    const pic = await box(page, '#lab-view svg.topo');
    assert.ok(pic.y < 768 - 200, `the picture starts at y=${pic.y}`);
    assert.ok(pic.y < (await box(page, '#breakpoints')).y, 'the picture comes before the breakpoints');
    assert.equal(overlapping([await box(page, '#picture'), await box(page, '.left'), await box(page, '.right')]).length, 0);
    const tx = await svgTexts(page, '#lab-view');
    assert.deepEqual(tx.overlaps, [], 'no labels overlap');
    await shot(page, 'screen-1024x768.png');
  });
  await page.close();
});

test('1440x900: the normal view shows the picture, the sentence and the explanation on the first screen', async (t) => {
  const page = await lab('/?scenario=spare-and-barn', { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await stepTo(page, 6);
    const pic = await box(page, '#lab-view svg.topo');
    assert.ok(pic.y < 400, `the picture starts at y=${pic.y}`);
    const tx = await svgTexts(page, '#lab-view');
    assert.deepEqual(tx.overlaps, [], 'no labels overlap');
    assert.deepEqual(tx.clipped, [], 'no label runs out of its box');
    await shot(page, 'screen-1440x900.png');
  });
  await page.close();
});

test('1440x900: a long run with the overview strip over the whole run, then zoomed by a drag', async (t) => {
  const r = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ scenario: LONG_RUN }) });
  const s = await r.json();
  const page = await lab(`/?session=${s.id}&at=7000`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('#overview[data-level]:not([hidden])');
    const strip = await box(page, '#overview-strip');
    const pic = await box(page, '#lab-view svg.topo');
    assert.ok(strip.y + strip.h <= pic.y, 'the strip is above the picture');
    assert.ok(pic.y < 500, `the picture starts at y=${pic.y}`);
    await page.waitForTimeout(400);
    await shot(page, 'screen-overview.png');
    // zoomed: drag over a fifth of it
    const w0 = Number(await page.getAttribute('#overview', 'data-width'));
    await page.mouse.move(strip.x + strip.w * 0.3, strip.y + strip.h / 2);
    await page.mouse.down();
    await page.mouse.move(strip.x + strip.w * 0.5, strip.y + strip.h / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction((w) => Number(document.getElementById('overview').dataset.width) < w, w0);
    await page.waitForTimeout(300);
    await shot(page, 'screen-overview-zoomed.png');
  });
  await page.close();
});

test('390x844: the picture starts on the first screen, nothing clipped or wider than the phone', async (t) => {
  const page = await lab('/?scenario=spare-and-barn', { width: 390, height: 844 });
  await shotOnFailure(t, page, async () => {
    await stepTo(page, 6);
    const pic = await box(page, '#lab-view svg.topo');
    assert.ok(pic.y < 844 - 200, `the picture starts at y=${pic.y}`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 390, 'no sideways scrolling');
    const tx = await svgTexts(page, '#lab-view');
    assert.deepEqual(tx.overlaps, [], 'no labels overlap');
    assert.deepEqual(tx.clipped, [], 'no label runs out of its box (the caller boxes)');
    await shot(page, 'screen-390x844.png');
    // presenter view on a phone: the sentence keeps a readable width
    await page.click('#presenter');
    await page.waitForTimeout(500);
    const n = await box(page, '#narration');
    assert.ok(n.w >= 300, `the sentence is ${n.w}px wide`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 390, 'no sideways scrolling in presenter view');
    const px = await svgTexts(page, '#lab-view');
    assert.deepEqual([px.overlaps, px.clipped], [[], []], 'presenter view on a phone: no labels overlap or run out of their boxes');
  });
  await page.close();
});

/** The structure's box on screen (not scrolled: where the presenter sees it). */
async function onScreen(page, sel) {
  return page.evaluate((s) => { const r = document.querySelector(s).getBoundingClientRect(); return { top: r.top, bottom: r.bottom, h: r.height }; }, sel);
}

test('presenter view at 1920x1080: the whole structure on the screen, labels at least 24 px', async (t) => {
  const page = await lab('/?scenario=spare-and-barn', { width: 1920, height: 1080 });
  await shotOnFailure(t, page, async () => {
    await page.click('#presenter');
    await stepTo(page, 6);
    const tx = await svgTexts(page, '#lab-view');
    assert.ok(tx.min >= 24, `the picture's smallest label is ${tx.min.toFixed(1)}px`);
    assert.deepEqual(tx.overlaps, [], 'no labels overlap');
    const pic = await onScreen(page, '#lab-view svg.topo');
    assert.ok(pic.top >= 0 && pic.bottom <= 1080, `the structure is on the screen: ${JSON.stringify(pic)}`);
  });
  await page.close();
});

test('presenter view at 1280x720: the whole structure on the screen as large as fits, sentence and code outline on the first screen', async (t) => {
  const page = await lab('/?scenario=spare-and-barn', { width: 1280, height: 720 });
  await shotOnFailure(t, page, async () => {
    await page.click('#presenter');
    await stepTo(page, 6);
    // the whole structure fits the screen's height (it was 1150 px tall, two thirds below the fold)
    const pic = await onScreen(page, '#lab-view svg.topo');
    assert.ok(pic.top >= 0 && pic.bottom <= 720, `the structure is on the screen: ${JSON.stringify(pic)}`);
    assert.ok(pic.bottom >= 720 - 60, `it takes the screen's height: ${JSON.stringify(pic)}`);
    const tx = await svgTexts(page, '#lab-view');
    // 24 px labels need 870 px for this structure: docs/teaching.md says what fits 720
    assert.ok(tx.min >= 14, `the picture's smallest label is ${tx.min.toFixed(1)}px`);
    assert.deepEqual(tx.overlaps, [], 'no labels overlap');
    const n = await box(page, '#narration'), code = await box(page, '#code-panel li');
    assert.ok(n.y + n.h <= 720, 'the sentence is on the first screen');
    assert.ok(code && code.y + 30 <= 720, `the code outline starts at y=${code?.y}`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 1280, 'no sideways scrolling');
    // the page fits the projector; the picture scrolls to what the step touched (here the in-flight sheaf)
    assert.ok(await page.evaluate(() => document.documentElement.scrollHeight) <= 721, 'the page does not scroll');
    const seen = await page.evaluate(() => [...document.querySelectorAll('#lab-view svg.topo .touched')].map((e) => {
      const r = e.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight;
    }));
    assert.ok(seen.length > 0 && seen.every(Boolean), `what the step touched is on screen: ${seen}`);
    await shot(page, 'screen-presenter-1280x720.png');
  });
  await page.close();
});

test('presenter view at 1024x768: "kmem_cache_alloc" is not clipped', async (t) => {
  const page = await lab('/?scenario=spare-and-barn', { width: 1024, height: 768 });
  await shotOnFailure(t, page, async () => {
    await page.click('#presenter');
    await stepTo(page, 6);
    const over = await page.evaluate(() => [...document.querySelectorAll('#narration, #tab-explain, #tab-explain *')]
      .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible' || e.getBoundingClientRect().right > innerWidth + 1)
      .map((e) => e.id || e.className || e.tagName));
    assert.deepEqual(over, [], 'no text runs off the right edge');
    // the structure fits the screen here too, drawn larger than the normal view
    const tx = await svgTexts(page, '#lab-view');
    assert.ok(tx.min >= 13, `the picture's smallest label is ${tx.min.toFixed(1)}px`);
    const pic = await onScreen(page, '#lab-view svg.topo');
    assert.ok(pic.top >= 0 && pic.bottom <= 768, `the structure is on the screen: ${JSON.stringify(pic)}`);
  });
  await page.close();
});

for (const [w, hgt] of [[1440, 900], [390, 844]]) {
  test(`compare view at ${w}x${hgt}: the table beside or under the pictures, never over them; node labels apart`, async (t) => {
    const page = await lab('/?scenario=maple-prefill-kfree-rcu', { width: w, height: hgt });
    await shotOnFailure(t, page, async () => {
      await page.click('#viewbtn-compare');
      await page.waitForSelector('#cmp-table tbody tr');
      await page.click('#cmp-fwd');
      await page.waitForTimeout(1200);
      const sides = await page.$$eval('#compare-view section.side', (xs) => xs.map((s) => { const r = s.getBoundingClientRect(); return { x: r.left, y: r.top + scrollY, w: r.width, h: r.height }; }));
      const table = await box(page, '#cmp-table');
      assert.deepEqual(overlapping([...sides, table]), [], 'the sides and the table do not overlap');
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= w, 'no sideways scrolling');
      const tx = await svgTexts(page, '#compare-view');
      assert.deepEqual(tx.overlaps, [], 'no labels overlap');
      assert.deepEqual(tx.clipped, [], 'no label runs out of its box ("partial 0" into "pages")');
      // eight CPUs a side: the small CPU boxes' words stay readable
      assert.ok(tx.cpuMin >= 11, `the CPU boxes' smallest label is ${tx.cpuMin.toFixed(1)}px`);
      if (w === 1440) await shot(page, 'screen-compare-1440x900.png');
    });
    await page.close();
  });
}

test('the course at 1440x900: a lesson slide and a question, with no accessibility violations', async (t) => {
  const page = await lab('/?lesson=01-barn&slide=2', { width: 1440, height: 900 });
  const found = {};
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('#lesson[data-applied="2"]');
    await waitAt(page, 6);
    await page.waitForTimeout(800);
    // the slide above the picture, and the picture still on the first screen
    const slide = await box(page, '#lesson'), pic = await box(page, '#lab-view svg.topo');
    assert.ok(slide.y + slide.h <= pic.y, 'the slide does not cover the picture');
    assert.ok(pic.y < 900 - 300, `the picture starts at y=${pic.y}`);
    await shot(page, 'screen-lesson-slide.png');
    found.lesson = await audit(page);
    // an ask slide: the question over the lab, answered wrong, then the next one
    await page.click('#lesson-next');
    await page.waitForSelector('#lesson[data-applied="3"]');
    await page.waitForSelector('#question:not([hidden]) .q-pick');
    await page.waitForTimeout(800); // the picture's moves done
    found.question = await audit(page);
    const { at, b } = await page.evaluate(() => { const m = window.__slublab.player.get(); return { at: m.at, b: m.events.get(m.at).branches[0] }; });
    await page.keyboard.press(String(b.arms.findIndex((a) => a !== b.taken) + 1));
    await waitAt(page, at + 1);
    await page.waitForSelector('#question.revealed');
    await page.evaluate(() => window.__slublab.player.setPredict(true));
    await press(page, 'ArrowRight');
    await page.waitForSelector('#q-answer + #q-ask .q-pick');
    await page.waitForTimeout(800);
    const q = await box(page, '#question'), pic2 = await box(page, '#lab-view svg.topo');
    assert.ok(q.y + q.h <= pic2.y, 'the question does not cover the picture');
    await shot(page, 'screen-question.png');
    found.answer = await audit(page);
    assert.deepEqual(found, { lesson: [], question: [], answer: [] });
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

/** Rules kept whatever their impact: the compare view once skipped a heading level and had no main landmark. */
const KEPT = new Set(['heading-order', 'landmark-one-main', 'region']);

/** axe-core on the page as it stands: the serious and critical violations, and those of KEPT. */
async function audit(page) {
  await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical' || KEPT.has(v.id))
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(', ')}`);
}

test('axe-core: the lab, a large scenario, the compare view and the presenter view have no serious or critical violations', async (t) => {
  const page = await lab('/?scenario=spare-and-barn', { width: 1440, height: 900 });
  const found = {};
  await shotOnFailure(t, page, async () => {
    await stepTo(page, 6);
    found.lab = await audit(page);
    await page.click('#presenter');
    await page.waitForTimeout(400);
    found.presenter = await audit(page);
    const big = await lab('/?scenario=maple-prefill-kfree-rcu', { width: 1440, height: 900 });
    await press(big, 'End');
    await big.waitForFunction(() => { const m = window.__slublab.player.get(); return m.at === m.end && m.cur; }, null, { timeout: 20000 });
    await big.waitForTimeout(800);
    found.large = await audit(big);
    await big.click('#viewbtn-compare');
    await big.waitForSelector('#cmp-table tbody tr');
    await big.click('#cmp-fwd');
    await big.waitForTimeout(1200);
    found.compare = await audit(big);
    await big.close();
    assert.deepEqual(found, { lab: [], presenter: [], large: [], compare: [] });
  });
  await page.close();
});

for (const [w, hgt] of [[1440, 900], [1024, 768], [390, 844]]) {
  test(`the race view at ${w}x${hgt}: lanes, words and the schedule's chips on the page, nothing wider than the screen, no accessibility violations`, async (t) => {
    const page = await lab('/?scenario=race-irq-alloc', { width: w, height: hgt });
    await shotOnFailure(t, page, async () => {
      await page.waitForSelector('#race:not([hidden]) .race-step.lost');
      // the failed cmpxchg: the step the view is about
      const seq = await page.$eval('#race-lanes .race-step.lost', (b) => Number(b.dataset.seq));
      await page.click(`#race-lanes .race-step[data-seq="${seq}"]`);
      await waitAt(page, seq + 1);
      await page.waitForSelector('[data-counter="cmpxchg_double_cpu_fail"].bumped');
      await page.waitForTimeout(600);
      const race = await box(page, '#race'), lanes = await box(page, '#race-lanes');
      assert.ok(race.y < hgt - 200, `the race view starts on the first screen (y=${race.y})`);
      assert.ok(lanes.x + lanes.w <= w, 'the lanes scroll inside their box');
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= w, 'no sideways scrolling');
      // the current step is in view inside the lanes' box
      const cur = await box(page, '#race-lanes .race-step.current');
      assert.ok(cur.x >= lanes.x - 1 && cur.x + cur.w <= lanes.x + lanes.w + 1, `the current step at x=${cur.x} in ${lanes.x}..${lanes.x + lanes.w}`);
      if (w === 1440) await shot(page, 'screen-race.png');
      if (w === 390) await shot(page, 'screen-race-390x844.png');
      assert.deepEqual(await audit(page), []);
      assert.deepEqual(page.errors, []);
    });
    await page.close();
  });
}

test('the lecture hall: free-storm after 30 steps at 1920x1080, 1366x768 and 1280x720 (presenter, projector theme, normal); axe with the projector theme and the keys overlay', async (t) => {
  const found = {};
  for (const [w, h, presenter, name] of [[1920, 1080, true, 'screen-presenter-1920x1080.png'], [1280, 720, true, 'screen-presenter-free-storm-1280x720.png'],
    [1366, 768, true, 'screen-presenter-free-storm-1366x768.png'], [1280, 720, false, 'screen-1280x720.png']]) {
    const page = await lab(`/?scenario=free-storm${presenter ? '&presenter=1' : ''}`, { width: w, height: h });
    await shotOnFailure(t, page, async () => {
      await stepTo(page, 30);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), w, 'no sideways scrolling');
      await shot(page, name);
      if (presenter && w === 1280) {
        await page.click('#theme');
        await page.waitForSelector('html.projector');
        await page.waitForTimeout(300);
        await shot(page, 'screen-presenter-projector-1280x720.png');
        found.projector = await audit(page);
        await press(page, '?');
        await page.waitForSelector('#keys-help[open]');
        found.keys = await audit(page);
        await page.keyboard.press('Escape');
        await page.click('#theme'); // the choice is kept: back to normal for the pages after
      }
    });
    await page.close();
  }
  assert.deepEqual(found, { projector: [], keys: [] });
});
