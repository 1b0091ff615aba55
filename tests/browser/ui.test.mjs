// Browser tests of the web UI: the real server, Debian's Chromium through
// playwright-core.  Run: node --test tests/browser/  (ctest runs it too).
// Failures leave screenshots in test-output/; the README's screenshots are
// written to docs/img/ when missing or when SLUBLAB_UPDATE_SCREENSHOTS=1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, shotOnFailure, api, waitAt, model, press, inkedPixels, ROOT, OUT, labFixture } from './helpers.mjs';
import { narrate, learnSlabNames } from '../../web/js/format.js';
import { contrast } from '../js/contrast.mjs';
import { setTexts } from '../../web/js/texts.js';
import { statementLine } from '../../web/js/sourcelines.js';

setTexts(JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url))));
const sourceLines = JSON.parse(readFileSync(new URL('../../web/data/source-lines.json', import.meta.url)));

/** The code panel's source lines and links match the table for session
 * @id's release (for a model without a release: every release that has @fn),
 * at the line of the statement of the event at step @at when the table
 * has one (its label's anchor or its counter's stat()), else the whole function. */
async function checkSourceLink(page, id, fn, at) {
  const info = await api(base, `/api/sessions/${id}`);
  const { event } = await api(base, `/api/sessions/${id}/state?at=${at}`);
  assert.equal(event.fn, fn);
  const k = info.settings.kernel;
  const rels = (k ? [k] : Object.keys(sourceLines.releases).filter((r) => fn in sourceLines.releases[r].functions))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).map((r) => sourceLines.releases[r]);
  assert.ok(rels.length && rels.every((r) => r && fn in r.functions), `${fn} is in the table for ${k ?? 'some release'}`);
  const links = page.locator('#code-panel .source-lines a');
  await links.first().waitFor();
  assert.deepEqual(await links.evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.textContent])),
    rels.map((r) => {
      const row = r.functions[fn];
      const line = statementLine(row, event);
      assert.ok(line > row.start && line <= row.end, `${fn} ${event.label} has a statement in ${r.version}`);
      return [`https://elixir.bootlin.com/linux/v${r.version}/source/${row.file}#L${line}`,
        `${row.file}:${line} in ${fn}() (${row.start}-${row.end}), Linux ${r.version}`];
    }));
  return k;
}

let server, browser, base;
labFixture((f) => ({ server, browser, base } = f));

/** The body of a narrated sentence, after "CPU n call:". */
const body = (s) => s.replace(/^CPU \d+[^:]*: /, '');

async function lab(t, path = '/') {
  const page = await openPage(browser.ctx, base + path);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

function noErrors(page) {
  assert.deepEqual(page.errors, [], 'the console has no errors');
}

/** Save a README screenshot when it is missing or asked for. */
async function readmeShot(page, name) {
  const file = join(ROOT, 'docs/img', name);
  await page.screenshot({ path: join(OUT, name) });
  if (!existsSync(file) || process.env.SLUBLAB_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(join(ROOT, 'docs/img'), { recursive: true });
    await page.screenshot({ path: file });
  }
}

test('/ opens the default scenario, draws its first state, and steps with the keyboard', async (t) => {
  const page = await lab(t);
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    assert.equal(m.scenario, 'default');
    assert.equal(m.at, 0);
    assert.equal(await page.textContent('#narration'), 'The start: nothing has happened yet.');
    // the first state: two CPUs and the page allocator are drawn
    assert.equal(await page.locator('#picture svg.topo g.cpu').count(), 2);
    assert.ok(await page.locator('#picture svg.topo rect.order').count() === 11);
    const timing = await page.evaluate(() => window.__slublab.firstDrawMs);
    assert.ok(timing > 0 && timing < 5000, `first draw in ${timing} ms`);
    await press(page, 'ArrowRight', 12);
    await waitAt(page, 12);
    await page.waitForTimeout(700); // let the animation end
    assert.ok(await inkedPixels(page, '#picture canvas.slabmap') > 500, 'the slab map has cells drawn');
    const st = await api(base, `/api/sessions/${m.id}/state?at=12`);
    learnSlabNames(st.state);
    assert.equal(body(await page.textContent('#narration')), body(narrate(st.event, { names: st.names })));
    assert.match(await page.getAttribute('#scrubber', 'aria-valuetext'), /^step 12 of 35: alloc_from_pcs fastpath on CPU 0$/);
    await page.click('#tabbtn-explain');
    assert.match(await page.textContent('#code-panel'), /alloc_from_pcs\(\)/);
    assert.match(await page.textContent('#code-panel li[aria-current="step"]'), /Pop the top object/);
    assert.equal(await checkSourceLink(page, m.id, 'alloc_from_pcs', 12), '7.3');
    noErrors(page);
  });
  await page.close();
});

test('every shipped scenario: narration and state table match the engine, and stepping back finds the same state', async (t) => {
  const { scenarios } = await api(base, '/api/scenarios');
  assert.ok(scenarios.length >= 7);
  const page = await lab(t);
  await shotOnFailure(t, page, async () => {
    await page.click('#tabbtn-table');
    for (const sc of scenarios) {
      const before = (await model(page)).id;
      await page.selectOption('#scenario-select', sc.name);
      await page.waitForFunction((id) => window.__slublab.player.get().session?.id !== id && window.__slublab.player.get().cur, before);
      const m = await model(page);
      assert.equal(m.scenario, sc.name);
      const n = Math.min(m.end, 9);
      await press(page, 'ArrowRight', n);
      await waitAt(page, n);
      const st = await api(base, `/api/sessions/${m.id}/state?at=${n}`);
      // the sentence
      const pagesOf = (a) => { const sl = st.state.slabs.find((x) => x.addr === a); return sl ? 2 ** sl.order : null; };
      learnSlabNames(st.state); // the slabs' names, as the page learns them from the states it shows
      assert.equal(body(await page.textContent('#narration')), body(narrate(st.event, { pagesOf, cacheName: st.state.caches.find((c) => c.id === st.event.cache)?.name, nameCache: st.state.caches.length > 1, names: st.names })), `${sc.name} step ${n}`);
      // the table against the engine's state
      const cache = st.state.caches.find((c) => c.id === m.cacheId) ?? st.state.caches[0];
      const slabRows = await page.$$eval('#t-slabs tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
      const slabs = st.state.slabs.filter((s) => s.cache === cache.id);
      if (slabs.length) {
        assert.deepEqual(slabRows.map((r) => [r[0], Number(r[3]), Number(r[4]), Number(r[5])]),
          slabs.map((s) => [s.addr, s.inuse, s.objects, s.freelist.length]), `${sc.name}: slabs`);
      }
      const cpuRows = await page.$$eval('#t-cpus tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
      const sh = (x) => (x ? `#${x.id} ${x.size}/${x.capacity}` : 'none');
      assert.deepEqual(cpuRows, cache.cpus.map((c) => [String(c.cpu), sh(c.main), sh(c.spare), sh(c.rcu_free)]), `${sc.name}: CPUs`);
      const zoneRow = await page.$$eval('#t-pages tbody tr', (rows) => [...rows[0].children].map((c) => Number(c.textContent)));
      assert.deepEqual(zoneRow, [0, st.state.zones[0].free_pages, ...st.state.zones[0].nr_free]);
      // step forward and back: the same state
      const table = await page.innerHTML('#tab-table');
      const fwd = Math.min(3, m.end - n);
      await press(page, 'ArrowRight', fwd);
      await waitAt(page, n + fwd);
      await press(page, 'ArrowLeft', fwd);
      await waitAt(page, n);
      assert.equal(await page.innerHTML('#tab-table'), table, `${sc.name}: back at step ${n}`);
    }
    noErrors(page);
  });
  await page.close();
});

test('Shift+arrows step by operation, Home and End jump', async (t) => {
  const page = await lab(t);
  await shotOnFailure(t, page, async () => {
    await press(page, 'Shift+ArrowRight');
    await waitAt(page, 1); // operation 0 is the cache's creation: one event
    await press(page, 'Shift+ArrowRight');
    await waitAt(page, 11); // the first allocation: ten events
    await press(page, 'Shift+ArrowLeft');
    await waitAt(page, 1);
    await press(page, 'End');
    await waitAt(page, 35);
    await press(page, 'Home');
    await waitAt(page, 0);
    noErrors(page);
  });
  await page.close();
});

test('breakpoints: run to "a slab is discarded", and play until barn_put_fail increases', async (t) => {
  const page = await lab(t, '/?scenario=shrink');
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    const want = await api(base, `/api/sessions/${m.id}/search?fn=discard_slab&from=0`);
    assert.ok(want.found);
    await page.check('#bp-discard');
    await press(page, 'b');
    await waitAt(page, want.at);
    assert.match(await page.textContent('#narration'), /page allocator/);
    assert.match(await page.textContent('#banner'), /breakpoint: a slab is discarded/);
    assert.equal(await page.locator('#bp-list li.hit').count(), 1);

    // playing stops at a counter breakpoint
    await page.uncheck('#bp-discard');
    await page.selectOption('#scenario-select', 'free-storm');
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'free-storm' && window.__slublab.player.get().cur);
    const fs = await model(page);
    const hit = await api(base, `/api/sessions/${fs.id}/search?counter=barn_put_fail&from=0`);
    await page.selectOption('#bp-counter', 'barn_put_fail');
    await page.click('#bp-add-counter');
    for (let i = 0; i < 5; i++) await page.click('#speed-up'); // 128 steps per second
    await page.evaluate((at) => window.__slublab.player.seek(at), hit.at - 20);
    await waitAt(page, hit.at - 20);
    await press(page, ' ');
    await page.waitForFunction(() => !window.__slublab.player.get().playing, null, { timeout: 15000 });
    assert.equal((await model(page)).at, hit.at);
    assert.match(await page.textContent('#narration'), /barn_put_fail/);
    await page.waitForTimeout(300);
    await readmeShot(page, 'main-view.png');
    noErrors(page);
  });
  await page.close();
});

test('the inspector: an object, its history and the slab bytes with decoded free pointers', async (t) => {
  const page = await lab(t, '/?scenario=default');
  await shotOnFailure(t, page, async () => {
    await press(page, 'ArrowRight', 20);
    await waitAt(page, 20);
    const m = await model(page);
    const st = await api(base, `/api/sessions/${m.id}/state?at=20`);
    const slab = st.state.slabs[0];
    const free = slab.freelist[0];
    const pt = await page.evaluate((a) => window.__slublab.picture.cellClientPoint(a), free);
    assert.ok(pt, 'the free object has a cell');
    await page.mouse.click(pt.x, pt.y);
    await page.waitForSelector('#tab-inspect h3');
    assert.equal(await page.textContent('#tab-inspect h3'), `Object ${free}`);
    assert.match(await page.textContent('#tab-inspect'), /free, on its slab's freelist/);
    assert.match(await page.textContent('#tab-inspect'), /freelist position0 \(0 is the head\)/);
    await page.waitForSelector('#hexdump');
    const note = await page.textContent('#hexdump tr.fpnote');
    const fp = await api(base, `/api/sessions/${m.id}/state?at=20&bytes=${slab.addr}`);
    const first = fp.slab.freeptrs.find((f) => f.object === free);
    assert.ok(note.includes(first.stored), 'the stored word is shown');
    assert.ok(note.includes(first.decoded.slice(-5)), 'and what it decodes to');
    assert.ok(await page.locator('#tab-inspect ol.history li').count() >= 1, 'events that moved it');
    // a sheaf from the structure
    await page.click('#picture svg.topo g.sheaf[data-sheaf="3"]');
    await page.waitForFunction(() => document.querySelector('#tab-inspect h3')?.textContent === 'Sheaf #3');
    noErrors(page);
  });
  await page.close();
});

test('interactive: an operation at the end extends the session; one at an earlier step forks', async (t) => {
  const page = await lab(t, '/?scenario=default');
  await shotOnFailure(t, page, async () => {
    const m0 = await model(page);
    await press(page, 'End');
    await waitAt(page, m0.end);
    await page.locator('details:has(#ops) > summary').click();
    await page.selectOption('#op-kind', 'alloc');
    await page.selectOption('#op-cpu', '1');
    await page.click('#op-run');
    await page.waitForFunction((end) => { const m = window.__slublab.player.get(); return m.end > end && m.at === m.end && !m.playing; }, m0.end, { timeout: 10000 });
    const m1 = await model(page);
    assert.equal(m1.id, m0.id, 'same session, extended');
    assert.equal(m1.at, m1.end, 'played the new events');
    const info = await api(base, `/api/sessions/${m1.id}`);
    assert.equal(info.events, m1.end);
    // free a chosen object from the inspector, at an earlier step: a fork
    await page.evaluate(() => window.__slublab.player.seek(20));
    await waitAt(page, 20);
    const st = await api(base, `/api/sessions/${m1.id}/state?at=20`);
    const main = st.state.sheaves.find((s) => s.place.type === 'main' && s.place.cpu === 0);
    const slab = st.state.slabs[0];
    const held = new Set([...main.objects, ...slab.freelist]);
    let user = null;
    for (let i = 0; i < slab.objects && !user; i++) {
      const a = '0x' + (BigInt(slab.addr) + BigInt(i * 64)).toString(16);
      if (!held.has(a)) user = a;
    }
    const pt = await page.evaluate((a) => window.__slublab.picture.cellClientPoint(a), user);
    await page.mouse.click(pt.x, pt.y);
    await page.waitForSelector('#free-object');
    await page.click('#free-object');
    await page.waitForFunction((id) => window.__slublab.player.get().session?.id !== id && !window.__slublab.player.get().playing, m1.id, { timeout: 10000 });
    const m2 = await model(page);
    assert.notEqual(m2.id, m1.id);
    assert.equal(m2.parent, m1.id);
    const ev = await api(base, `/api/sessions/${m2.id}/events?from=${m2.end - 1}&to=${m2.end}`);
    assert.ok(ev.events.length === 1);
    noErrors(page);
  });
  await page.close();
});

test('compare view: two runs side by side, stepped together, with the cover-letter table', async (t) => {
  const page = await lab(t, '/?scenario=fresh-slab-fill');
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr');
    const want = await api(base, '/api/compare?scenario=fresh-slab-fill&variant=DEFERRED_FREELIST');
    const row = want.rows.find((r) => r.metric === 'engine_freeptr_writes');
    const cells = await page.$$eval('#cmp-table tr[data-metric="engine_freeptr_writes"] td', (tds) => tds.map((x) => x.textContent));
    assert.deepEqual(cells, [String(row.baseline), String(row.patched), `${row.change_pct > 0 ? '+' : ''}${row.change_pct.toFixed(1)}%`]);
    await page.click('#cmp-fwd');
    await page.click('#cmp-fwd');
    await page.waitForFunction(() => /operation 2 of/.test(document.querySelector('#cmp-pos')?.textContent ?? ''));
    await page.waitForFunction(() => document.querySelector('#cmp-say-0').textContent.length > 10 && document.querySelector('#cmp-say-1').textContent.length > 10);
    await page.waitForTimeout(700);
    const left = await page.textContent('#cmp-say-0'), right = await page.textContent('#cmp-say-1');
    assert.match(left, /^CPU 0 kmem_cache_alloc: /);
    assert.match(right, /^CPU 0 kmem_cache_alloc: /);
    assert.ok(await inkedPixels(page, '#compare-view .side:nth-child(1) canvas.slabmap') > 200);
    assert.ok(await inkedPixels(page, '#compare-view .side:nth-child(2) canvas.slabmap') > 200);
    await readmeShot(page, 'compare-view.png');
    noErrors(page);
  });
  await page.close();
});

test('snapshots: save with a note, reopen a permalink, export and re-import (with a version warning), PNG', async (t) => {
  const page = await lab(t, '/?scenario=default');
  await shotOnFailure(t, page, async () => {
    await press(page, 'ArrowRight', 7);
    await waitAt(page, 7);
    const m = await model(page);
    await page.click('#tabbtn-share');
    // the view link: session, step and cache; made in the Share tab, it reopens the lab's Explain tab
    await page.click('#view-copy');
    const viewUrl = await page.inputValue('#permalink');
    assert.match(viewUrl, new RegExp(`session=${m.id}&at=7&cache=0$`));
    const p2 = await openPage(browser.ctx, viewUrl);
    await p2.waitForSelector('body[data-ready="1"]');
    await waitAt(p2, 7);
    assert.equal(await p2.getAttribute('#tabbtn-explain', 'aria-selected'), 'true');
    noErrors(p2);
    await p2.close();
    // a snapshot with title and note
    await page.fill('#snap-title', 'refill in flight');
    await page.fill('#snap-note', 'sixty objects ride in a sheaf');
    await page.click('#snap-save');
    await page.waitForFunction(() => /Saved snapshot/.test(document.querySelector('#snap-msg').textContent));
    await page.click('#snap-copy');
    const snapUrl = await page.inputValue('#permalink');
    assert.match(snapUrl, /\?.*snapshot=[a-z0-9]{8}/);
    const p3 = await openPage(browser.ctx, snapUrl);
    await p3.waitForSelector('body[data-ready="1"]');
    await waitAt(p3, 7);
    assert.match(await p3.textContent('#snap-banner'), /refill in flight.*sixty objects ride in a sheaf/);
    noErrors(p3);
    await p3.close();
    // export, then import a copy that claims another engine version
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#snap-export')]);
    const text = readFileSync(await dl.path(), 'utf8');
    const snap = JSON.parse(text);
    assert.equal(snap.format, 'slublab-snapshot');
    assert.equal(snap.position, 7);
    snap.engine = '0.0.9';
    const file = join(OUT, 'snapshot-old-engine.json');
    writeFileSync(file, JSON.stringify(snap));
    await page.setInputFiles('#snap-import', file);
    await page.waitForFunction(() => /another|engine 0\.0\.9/.test(document.querySelector('#snap-msg').textContent) && /Imported/.test(document.querySelector('#snap-msg').textContent));
    assert.match(await page.textContent('#snap-msg'), /comes from engine 0\.0\.9/);
    await page.waitForFunction(() => /Warning/.test(document.querySelector('#snap-banner')?.textContent ?? ''));
    assert.equal((await model(page)).at, 7);
    // the view as PNG
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('#png-export')]);
    const bytes = readFileSync(await png.path());
    assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.ok(bytes.length > 2000);
    noErrors(page);
  });
  await page.close();
});

test('counters: chart with a cursor that jumps, table with meanings, CSV', async (t) => {
  const page = await lab(t, '/?scenario=free-storm');
  await shotOnFailure(t, page, async () => {
    await page.click('#tabbtn-counters');
    await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.querySelector('#chart')));
    const box = await page.locator('#chart').boundingBox();
    const area = await page.evaluate(() => { const c = window.Chart.getChart(document.querySelector('#chart')); return c.chartArea; });
    await page.mouse.click(box.x + (area.left + area.right) / 2, box.y + (area.top + area.bottom) / 2);
    await page.waitForFunction(() => window.__slublab.player.get().at > 50);
    const at = (await model(page)).at;
    assert.ok(at > 80 && at < 180, `jumped to ${at}`);
    assert.equal(await page.getAttribute('#counter-table abbr >> nth=0', 'title'), 'An object was taken from a CPU sheaf: the allocation fast path.');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#csv-table')]);
    const csv = readFileSync(await dl.path(), 'utf8');
    assert.match(csv, /^counter,value,C0,C1\nalloc_fastpath,\d+,\d+,0\n/);
    const [dl2] = await Promise.all([page.waitForEvent('download'), page.click('#csv-series')]);
    assert.match(readFileSync(await dl2.path(), 'utf8'), /^position,alloc_fastpath,free_fastpath,alloc_slab,barn_put_fail/);
    noErrors(page);
  });
  await page.close();
});

test('your own scenario: errors by operation and key, then it runs', async (t) => {
  const page = await lab(t);
  page.allow.push(/status of 400/);
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-scenario');
    // the editor starts from the session's shipped scenario
    await page.waitForFunction(() => /"name": "default"/.test(document.querySelector('#scenario-text')?.value ?? ''));
    const bad = { format: 1, name: 'mine', caches: [{ name: 'A', object_size: 64 }],
      ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'x' }, { op: 'free', cpux: 0, name: 'x' }] };
    await page.fill('#scenario-text', JSON.stringify(bad, null, 2));
    await page.click('#sc-run');
    await page.waitForSelector('#sc-errors .err');
    assert.match(await page.textContent('#sc-errors'), /operation ops\[1\], key "cpux"/);
    await page.click('#sc-show');
    const sel = await page.evaluate(() => { const x = document.querySelector('#scenario-text'); return x.value.slice(x.selectionStart, x.selectionEnd); });
    assert.equal(sel, '"cpux"');
    bad.ops[1] = { op: 'free', cpu: 0, name: 'x' };
    await page.fill('#scenario-text', JSON.stringify(bad));
    await page.click('#sc-run');
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'mine');
    await page.waitForSelector('#viewbtn-lab[aria-pressed="true"]');
    assert.equal(await page.isHidden('#scenario-view'), true);
    noErrors(page);
  });
  await page.close();
});

test('presenter view at 1280x720: text sizes and contrast; a follower tracks it and forks', async (t) => {
  const page = await lab(t, '/?scenario=spare-and-barn');
  await page.setViewportSize({ width: 1280, height: 720 });
  await shotOnFailure(t, page, async () => {
    await page.click('#presenter');
    await press(page, 'ArrowRight', 5);
    await waitAt(page, 5);
    const sizes = await page.evaluate(() => {
      const px = (sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize);
      const col = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
      return { narration: px('#narration'), teaching: px('#teaching'), code: px('#code-panel li'), fg: col('#narration', 'color'), bg: col('#narration', 'backgroundColor'),
        tfg: col('#teaching', 'color'), body: col('html', 'backgroundColor') };
    });
    assert.ok(sizes.narration >= 28, `narration ${sizes.narration}px`);
    assert.ok(sizes.teaching >= 24 && sizes.code >= 24, `body text ${sizes.teaching}px, ${sizes.code}px`);
    const hex = (rgb) => '#' + rgb.match(/\d+/g).slice(0, 3).map((x) => Number(x).toString(16).padStart(2, '0')).join('');
    assert.ok(contrast(hex(sizes.fg), hex(sizes.bg)) >= 7, 'narration contrast');
    assert.ok(contrast(hex(sizes.tfg), hex(sizes.body)) >= 7, 'body text contrast');
    await page.screenshot({ path: join(OUT, 'presenter-1280x720.png') });
    // a student follows
    const url = await page.getAttribute('#follow-url', 'href');
    const student = await openPage(browser.ctx, url);
    await student.waitForSelector('body[data-ready="1"]');
    await waitAt(student, 5);
    await press(page, 'ArrowRight', 3);
    await waitAt(page, 8);
    await waitAt(student, 8, 8000);
    assert.match(await student.textContent('#banner'), /Following the presenter/);
    const presenterId = (await model(page)).id;
    await student.click('#explore');
    await student.waitForFunction((id) => window.__slublab.player.get().session?.id !== id, presenterId);
    const sm = await model(student);
    assert.equal(sm.following, null);
    assert.equal(sm.at, 8);
    await press(student, 'ArrowRight');
    await waitAt(student, 9);
    await page.waitForTimeout(300);
    assert.equal((await model(page)).at, 8, 'the presenter did not move');
    noErrors(student);
    await student.close();
    noErrors(page);
  });
  await page.close();
});

test('accessibility basics: labelled controls, live line, table view, legend glyphs', async (t) => {
  const page = await lab(t, '/?scenario=default');
  await shotOnFailure(t, page, async () => {
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('button, input, select, textarea')]
      .filter((el) => !el.closest('[hidden]'))
      .filter((el) => {
        const name = (el.getAttribute('aria-label') || el.textContent || '').trim();
        const byLabel = el.id && document.querySelector(`label[for="${el.id}"]`);
        return !name && !byLabel && !el.closest('label') && el.type !== 'hidden';
      }).map((el) => el.outerHTML.slice(0, 80)));
    assert.deepEqual(unlabelled, []);
    assert.equal(await page.getAttribute('#narration', 'aria-live'), 'polite');
    assert.equal(await page.getAttribute('#picture canvas.slabmap', 'role'), 'img');
    assert.ok((await page.locator('.legend li').count()) >= 10);
    assert.ok(statSync(join(ROOT, 'web/js/format.js')).size > 0);
    noErrors(page);
  });
  await page.close();
});

test('legacy model: each CPU draws its cpu slab, lockless freelist and CPU partial list', async (t) => {
  const page = await lab(t, '/?scenario=legacy-cpu-partial-drain');
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    assert.equal(m.scenario, 'legacy-cpu-partial-drain');
    // step through every event: each move finds its anchors, nothing throws
    await press(page, 'End');
    await waitAt(page, m.end);
    await page.waitForTimeout(700);
    const st = await api(base, `/api/sessions/${m.id}/state?at=${m.end}`);
    const cache = st.state.caches[0];
    const [c0, c1] = cache.cpus.map((c) => c.cpu_slab);
    assert.equal(c0.freelist.length, 7);
    assert.equal(c1.slab, null);
    assert.equal(c1.partial.length, 1);
    // the structure: no sheaves, a cpu slab per CPU, CPU 1's partial list holds one slab
    assert.equal(await page.locator('#picture svg.topo g.cpuslab').count(), 2);
    assert.equal(await page.locator('#picture svg.topo g.sheaf').count(), 0);
    // no barn and no prefilled sheaves before sheaves: the boxes say so instead of showing zeros
    assert.equal(await page.locator('#picture svg.topo g.barn').count(), 0);
    assert.match(await page.textContent('#picture svg.topo g.nobarn'), /no barn/);
    assert.match(await page.textContent('#picture svg.topo g.hold[data-hold="prefill"]'), /prefilled.*none/);
    // breakpoints, the counter list and the chart offer only what a legacy kernel counts
    assert.equal(await page.isVisible('#bp-barn_put_fail'), false);
    assert.equal(await page.isVisible('#bp-cpu_partial_drain'), true);
    const offered = await page.$$eval('#bp-counter option', (os) => os.filter((o) => !o.hidden).map((o) => o.value));
    assert.ok(offered.includes('cpu_partial_drain') && !offered.includes('barn_get'), offered.join(' '));
    assert.deepEqual(await page.evaluate(() => window.__slublab.player.get().chartCounters),
      ['alloc_fastpath', 'free_fastpath', 'alloc_slab', 'cpu_partial_drain']);
    assert.match(await page.getAttribute('#picture svg.topo g.cpuslab[data-cpuslab="0"]', 'aria-label'),
      /^CPU 0 cpu slab .+: 7 of 8 objects on its lockless freelist, tid \d+$/);
    assert.match(await page.textContent('#picture svg.topo g.cpupartial[data-cpupartial="1"]'), /partial 1\/2/);
    assert.equal(await page.locator('#picture svg.topo [aria-label^="CPU 1 partial slab"]').count(), 1);
    assert.ok(await inkedPixels(page, '#picture canvas.slabmap') > 200, 'the slab map has cells drawn');
    await page.screenshot({ path: join(OUT, 'legacy-view.png') });
    // the table view: the per-CPU slab rows match the engine
    await page.click('#tabbtn-table');
    await page.waitForSelector('#t-cpuslabs tbody tr');
    const rows = await page.$$eval('#t-cpuslabs tbody tr', (trs) => trs.map((r) => [...r.children].map((c) => c.textContent)));
    assert.deepEqual(rows, cache.cpus.map((c) => [String(c.cpu), c.cpu_slab.slab ?? 'none', String(c.cpu_slab.freelist.length),
      String(c.cpu_slab.tid), c.cpu_slab.partial.join(' ') || 'empty']));
    // the narration of the drain
    let drain = -1;
    for (let at = 1; at <= m.end; at++) {
      const s = await api(base, `/api/sessions/${m.id}/state?at=${at}`);
      if (s.event?.fn === 'put_cpu_partial' && s.event.label === 'drain') { drain = at; break; }
    }
    assert.ok(drain > 0, 'the scenario drains the CPU partial list');
    await page.evaluate((at) => window.__slublab.player.seek(at), drain);
    await waitAt(page, drain);
    assert.match(await page.textContent('#narration'), /^CPU 1 kmem_cache_free: the CPU partial list is full, so all of it is detached/);
    await page.click('#tabbtn-explain');
    assert.match(await page.textContent('#code-panel'), /put_cpu_partial\(\)/);
    assert.match(await page.textContent('#code-panel li[aria-current="step"]'), /Already cpu_partial_slabs slabs/);
    assert.equal(await checkSourceLink(page, m.id, 'put_cpu_partial', drain), null); // a model: 6.1 and 6.12
    noErrors(page);
  });
  await page.close();
});

test('hybrid model (6.18): a cache with sheaves draws its sheaves and its cpu slab, a plain cache only the cpu slab', async (t) => {
  const page = await lab(t, '/?scenario=hybrid-6.18-maple');
  await shotOnFailure(t, page, async () => {
    const m = await model(page);
    assert.equal(m.scenario, 'hybrid-6.18-maple');
    // the step after CPU 1's GFP_KERNEL allocation refilled a sheaf: both layers are in use on CPU 1
    let at = -1;
    for (let k = 1; k <= m.end; k++) {
      const s = await api(base, `/api/sessions/${m.id}/state?at=${k}`);
      if (s.event?.fn === 'alloc_from_pcs' && s.event.label === 'fastpath' && s.event.cpu === 1) { at = k; break; }
    }
    assert.ok(at > 0, 'CPU 1 allocates from its main sheaf');
    await page.evaluate((k) => window.__slublab.player.seek(k), at);
    await waitAt(page, at);
    const st = await api(base, `/api/sessions/${m.id}/state?at=${at}`);
    const maple = st.state.caches.find((c) => c.name === 'maple_node');
    assert.equal(maple.sheaf_capacity, 32);
    assert.ok(maple.cpus[1].cpu_slab.slab, 'CPU 1 has a cpu slab');
    assert.equal(maple.cpus[1].main.size, 31);
    await page.evaluate((id) => window.__slublab.player.setCache(id), maple.id);
    await page.waitForTimeout(400);
    // both per-CPU structures: three sheaf stacks and a cpu slab with its partial list per CPU
    assert.equal(await page.locator('#picture svg.topo g.cpuslab').count(), 2);
    assert.equal(await page.locator('#picture svg.topo g.cpupartial').count(), 2);
    assert.match(await page.getAttribute('#picture svg.topo g.cpuslab[data-cpuslab="1"]', 'aria-label'),
      /^CPU 1 cpu slab .+ objects on its lockless freelist, tid \d+$/);
    assert.equal(await page.locator('#picture svg.topo [aria-label^="CPU 1 main sheaf"]').count(), 1);
    assert.match(await page.getAttribute('#picture svg.topo [aria-label^="CPU 1 main sheaf"]', 'aria-label'), /31 of 32 objects/);
    // the barn is drawn (the cache has sheaves), not the "no barn" box
    assert.equal(await page.locator('#picture svg.topo g.barn').count(), 1);
    assert.equal(await page.locator('#picture svg.topo g.nobarn').count(), 0);
    // the boxes do not overlap: each CPU's cpu slab sits under its sheaves, inside the CPU box
    const boxes = await page.$$eval('#picture svg.topo g.cpu', (gs) => gs.map((g) => {
      const r = g.querySelector('rect.box').getBBox();
      const slab = g.querySelector('g.cpuslab rect').getBBox();
      const sheaves = [...g.querySelectorAll('g.sheaf rect, rect.none')].map((x) => x.getBBox());
      return { box: [r.y, r.y + r.height], slab: [slab.y, slab.y + slab.height],
        sheafBottom: Math.max(...sheaves.map((b) => b.y + b.height)) };
    }));
    for (const b of boxes) {
      assert.ok(b.slab[0] > b.sheafBottom, `cpu slab under the sheaves: ${JSON.stringify(b)}`);
      assert.ok(b.slab[1] <= b.box[1], `cpu slab inside the CPU box: ${JSON.stringify(b)}`);
    }
    await page.screenshot({ path: join(OUT, 'hybrid-view.png') });
    // the table view lists both
    await page.click('#tabbtn-table');
    await page.waitForSelector('#t-cpuslabs tbody tr');
    assert.equal(await page.locator('#t-cpuslabs tbody tr').count(), 2);
    assert.match(await page.textContent('#t-cpus tbody'), /31\/32/);
    // the plain cache: a cpu slab, no sheaves, no barn
    const plain = st.state.caches.find((c) => c.name === 'kmalloc-64');
    await page.evaluate((id) => window.__slublab.player.setCache(id), plain.id);
    await page.waitForTimeout(400);
    assert.equal(await page.locator('#picture svg.topo g.cpuslab').count(), 2);
    assert.equal(await page.locator('#picture svg.topo [aria-label*=" main sheaf"]').count(), 0);
    assert.equal(await page.locator('#picture svg.topo g.nobarn').count(), 1);
    noErrors(page);
  });
  await page.close();
});

test('compare view across models: a legacy and a sheaves kernel side by side, n/a for counters a kernel lacks', async (t) => {
  const page = await lab(t, '/?scenario=legacy-vs-sheaves');
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr');
    await page.selectOption('#cmp-scenario', 'legacy-vs-sheaves');
    await page.selectOption('#cmp-axis', 'model:legacy,sheaves');
    await page.click('#cmp-run');
    await page.waitForFunction(() => /model=legacy \(baseline\) vs model=sheaves/.test(document.querySelector('#cmp-caption')?.textContent ?? ''));
    await page.waitForSelector('#cmp-table tr[data-metric="free_frozen"]');
    const want = await api(base, '/api/compare?scenario=legacy-vs-sheaves&model=legacy,sheaves');
    const cells = async (metric) => page.$$eval(`#cmp-table tr[data-metric="${metric}"] td`, (tds) => tds.map((x) => x.textContent));
    const ff = want.rows.find((r) => r.metric === 'free_frozen');
    assert.equal(ff.in_patched, false);
    assert.deepEqual(await cells('free_frozen'), [String(ff.baseline), 'n/a', 'n/a']);
    const sr = want.rows.find((r) => r.metric === 'sheaf_refill');
    assert.deepEqual((await cells('sheaf_refill')).slice(0, 2), ['n/a', String(sr.patched)]);
    const fs = want.rows.find((r) => r.metric === 'free_slowpath');
    assert.deepEqual((await cells('free_slowpath')).slice(0, 2), [String(fs.baseline), String(fs.patched)]);
    // the legacy side draws cpu slabs, the sheaves side draws sheaves
    await page.click('#cmp-end');
    await page.waitForFunction(() => /^operation (\d+) of \1$/.test(document.querySelector('#cmp-pos')?.textContent ?? ''));
    await page.waitForTimeout(700);
    assert.equal(await page.locator('#compare-view .side:nth-child(1) svg.topo g.cpuslab').count(), 2);
    assert.equal(await page.locator('#compare-view .side:nth-child(2) svg.topo g.cpuslab').count(), 0);
    assert.ok(await page.locator('#compare-view .side:nth-child(2) svg.topo g.sheaf').count() >= 2);
    noErrors(page);
  });
  await page.close();
});
