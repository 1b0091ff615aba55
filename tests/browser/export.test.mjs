// The Share tab's downloads of the step the lab shows: /proc/slabinfo and
// the /sys/kernel/slab tar (the same bytes the export route answers for
// that step), the Markdown report and its chart; the compare view's report;
// the offline HTML copy, opened from file:// with the network blocked, of a
// short session and of a long one (its states stored as deltas).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, startBrowser, openPage, shotOnFailure, waitAt, model, press, LONG_RUN } from './helpers.mjs';

let server, browser;

before(async () => {
  server = await startServer();
  browser = await startBrowser();
});
after(async () => {
  await browser?.stop();
  await server?.stop();
});

test('share tab: download /proc/slabinfo and the sysfs tar of the current step', async (t) => {
  const page = await openPage(browser.ctx, `${server.url}/?scenario=free-storm`);
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    await press(page, 'ArrowRight', 30);
    await waitAt(page, 30);
    const m = await model(page);
    await page.click('#tabbtn-share');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-slabinfo')]);
    assert.equal(dl.suggestedFilename(), `slabinfo-${m.id}-30`);
    const text = readFileSync(await dl.path(), 'utf8');
    const want = await (await fetch(`${server.url}/api/sessions/${m.id}/export?format=slabinfo&at=30`)).text();
    assert.equal(text, want);
    assert.match(text, /^slabinfo - version: 2\.1\n# name /);
    // the last step differs from step 30
    const end = await (await fetch(`${server.url}/api/sessions/${m.id}/export?format=slabinfo`)).text();
    assert.notEqual(text, end, 'the download is of the shown step, not the end');
    const [tar] = await Promise.all([page.waitForEvent('download'), page.click('#export-sysfs')]);
    assert.equal(tar.suggestedFilename(), `slab-${m.id}-30.tar`);
    const bytes = readFileSync(await tar.path());
    assert.equal(bytes.subarray(257, 262).toString('latin1'), 'ustar');
    assert.equal(bytes.subarray(0, 5).toString('latin1'), 'slab/');
    // the Markdown report of the step and its chart, named to sit side by side
    const [md] = await Promise.all([page.waitForEvent('download'), page.click('#report-md')]);
    assert.equal(md.suggestedFilename(), `report-${m.id}-30.md`);
    const report = readFileSync(await md.path(), 'utf8');
    assert.match(report, /^# slublab report: free-storm at step 30 of \d+\n/);
    assert.ok(report.includes(`](report-${m.id}-30-objects.svg)`));
    const [svg] = await Promise.all([page.waitForEvent('download'), page.click('#report-svg')]);
    assert.equal(svg.suggestedFilename(), `report-${m.id}-30-objects.svg`);
    assert.match(readFileSync(await svg.path(), 'utf8'), /^<svg xmlns=/);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('compare view: the Markdown report of the comparison', async (t) => {
  const page = await openPage(browser.ctx, `${server.url}/?scenario=fresh-slab-fill`);
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr');
    const [md] = await Promise.all([page.waitForEvent('download'), page.click('#cmp-md')]);
    assert.equal(md.suggestedFilename(), 'compare-fresh-slab-fill.md');
    const text = readFileSync(await md.path(), 'utf8');
    assert.match(text, /^# slublab comparison: fresh-slab-fill, cache A\n/);
    assert.match(text, /\nengine_freeptr_reads +60 +0 +-60 +-100\.0%\n/);
    const [svg] = await Promise.all([page.waitForEvent('download'), page.click('#cmp-svg')]);
    assert.equal(svg.suggestedFilename(), 'compare-fresh-slab-fill-counters.svg');
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('offline copy: one HTML file opens from file:// with no network and steps through the session', async (t) => {
  const page = await openPage(browser.ctx, `${server.url}/?scenario=free-storm`);
  await page.waitForSelector('body[data-ready="1"]');
  const dir = mkdtempSync(join(tmpdir(), 'slublab-offline-'));
  let off = null;
  await shotOnFailure(t, page, async () => {
    await press(page, 'ArrowRight', 40);
    await waitAt(page, 40);
    const m = await model(page);
    await page.click('#tabbtn-share');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-html')]);
    assert.equal(dl.suggestedFilename(), `slublab-${m.id}.html`);
    const file = join(dir, 'copy.html');
    copyFileSync(await dl.path(), file);
    const html = readFileSync(file, 'utf8');
    assert.ok(!/<script[^>]+src=/.test(html), 'no external script');
    assert.ok(!/<link[^>]+href=/.test(html), 'no external stylesheet');
    assert.ok(html.includes('Chart.js'), 'Chart.js is inlined');
    // the network off (the browser's offline mode), and any request but file:,
    // blob: and data: aborted and recorded
    await browser.ctx.setOffline(true);
    off = await browser.ctx.newPage();
    const errors = [], remote = [];
    off.on('pageerror', (e) => errors.push(e.message));
    off.on('console', (c) => { if (c.type() === 'error') errors.push(c.text()); });
    await off.route('**/*', (r) => {
      const u = r.request().url();
      if (u.startsWith('file:') || u.startsWith('blob:') || u.startsWith('data:')) return r.continue();
      remote.push(u);
      return r.abort();
    });
    await off.goto(pathToFileURL(file).href);
    await off.waitForSelector('body[data-ready="1"]');
    await waitAt(off, 40);
    const state = async (at) => (await fetch(`${server.url}/api/sessions/${m.id}/state?at=${at}`)).json();
    const scrub = () => off.getAttribute('#scrubber', 'aria-valuetext');
    const serverText = await page.getAttribute('#scrubber', 'aria-valuetext');
    assert.equal(await scrub(), serverText, 'the copy opens at the step it was made at');
    await press(off, 'ArrowRight', 3);
    await waitAt(off, 43);
    const s43 = await state(43);
    assert.match(await scrub(), new RegExp(`^step 43 of \\d+: ${s43.event.fn} ${s43.event.label}`));
    await press(off, 'ArrowLeft', 10);
    await waitAt(off, 33);
    const s33 = await state(33);
    assert.match(await scrub(), new RegExp(`^step 33 of \\d+: ${s33.event.fn} ${s33.event.label}`));
    // the state table shows the engine's numbers at that step
    await off.keyboard.press('End');
    const end = (await model(page)).end;
    await waitAt(off, end);
    const last = await state(end);
    const cache = last.state.caches.find((c) => c.alive);
    await off.click('#tabbtn-table');
    const want = `Cache ${cache.name}: ${cache.slabs} slabs, ${cache.objects} of ${cache.total_objects} objects in use`;
    await off.waitForFunction((w) => document.querySelector('#tab-table')?.textContent.includes(w), want);
    // the code panel links the kernel source lines from the embedded table
    await off.click('#tabbtn-explain');
    await off.waitForSelector('#code-panel .source-lines a');
    assert.match(await off.getAttribute('#code-panel .source-lines a', 'href'),
      /^https:\/\/elixir\.bootlin\.com\/linux\/v7\.3\.\d+\/source\/mm\/[\w.]+#L\d+$/);
    // the counters chart draws from the embedded events (Chart.js inlined)
    await off.click('#tabbtn-counters');
    await off.waitForSelector('#tab-counters canvas');
    // only what works offline is offered: the kernel as text, no Compare or editor, the
    // Share tab's exports made in the page
    assert.equal(await off.$eval('#kernel-select', (x) => x.selectedOptions[0]?.textContent), 'Linux 7.3');
    assert.equal(await off.isHidden('#viewbtn-compare'), true);
    assert.equal(await off.isHidden('#viewbtn-scenario'), true);
    await off.click('#tabbtn-share');
    await off.waitForSelector('#offline-note');
    assert.equal(await off.$$eval('#tab-share button', (bs) => bs.map((b) => b.id).join()), 'png-export,export-slabinfo');
    const [slab] = await Promise.all([off.waitForEvent('download'), off.click('#export-slabinfo')]);
    const text = readFileSync(await slab.path(), 'utf8');
    assert.match(text, /^slabinfo - version: 2\.1\n/);
    const row = text.split('\n').find((l) => l.startsWith(`${cache.name} `));
    assert.match(row, new RegExp(`^${cache.name} +${cache.objects} +${cache.total_objects} +${cache.slab_size} `), 'the step\'s slabinfo, as the server writes it');
    assert.deepEqual(remote, [], 'nothing was fetched from the network');
    assert.deepEqual(errors, []);
  });
  await browser.ctx.setOffline(false);
  await off?.close();
  await page.close();
  rmSync(dir, { recursive: true, force: true });
});

test('offline copy of a long session (states as deltas, whole every 2000): opens from file://, steps and seeks as the server answers', async (t) => {
  const s = await (await fetch(`${server.url}/api/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ scenario: LONG_RUN }) })).json();
  const end = s.events;
  assert.ok(end > 15000, `${end} events`);
  const at = 4001; // past two whole states
  const r = await fetch(`${server.url}/api/sessions/${s.id}/export.html?at=${at}`);
  assert.equal(r.status, 200);
  const html = await r.text();
  assert.ok(html.length < 8 << 20, `${html.length} bytes for ${end} events`);
  const dir = mkdtempSync(join(tmpdir(), 'slublab-offline-'));
  const file = join(dir, 'long.html');
  writeFileSync(file, html);
  const off = await openPage(browser.ctx);
  const remote = [];
  await off.route('**/*', (rt) => {
    const u = rt.request().url();
    if (/^(file|blob|data):/.test(u)) return rt.continue();
    remote.push(u);
    return rt.abort();
  });
  const state = async (n) => (await fetch(`${server.url}/api/sessions/${s.id}/state?at=${n}`)).json();
  // what the page shows of the state: the slab and object counts of the cache, and the step's event
  const shown = () => off.evaluate(() => {
    const m = window.__slublab.player.get();
    const c = m.cur.state.caches.find((x) => x.alive);
    return { at: m.at, slabs: c.slabs, objects: c.objects, fn: m.cur.event?.fn, label: m.cur.event?.label, names: Object.keys(m.cur.names).length };
  });
  const expect = async (n) => {
    const st = await state(n);
    const c = st.state.caches.find((x) => x.alive);
    return { at: n, slabs: c.slabs, objects: c.objects, fn: st.event?.fn, label: st.event?.label, names: Object.keys(st.names).length };
  };
  try {
    await shotOnFailure(t, off, async () => {
      await off.goto(pathToFileURL(file).href);
      await off.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
      await waitAt(off, at);
      assert.deepEqual(await shown(), await expect(at));
      // step back across the whole state at 4000, and forward again
      await press(off, 'ArrowLeft', 3);
      await waitAt(off, at - 3);
      assert.deepEqual(await shown(), await expect(at - 3));
      await press(off, 'ArrowRight', 5);
      await waitAt(off, at + 2);
      assert.deepEqual(await shown(), await expect(at + 2));
      // far seeks: the end, and back into the middle of a run of deltas
      await press(off, 'End');
      await waitAt(off, end);
      assert.deepEqual(await shown(), await expect(end));
      await off.evaluate(() => window.__slublab.player.seek(12345));
      await waitAt(off, 12345);
      assert.deepEqual(await shown(), await expect(12345));
      // the overview strip draws there too, from the embedded events
      await off.waitForSelector('#overview[data-level]:not([hidden])');
      assert.deepEqual(remote, [], 'nothing was fetched from the network');
      assert.deepEqual(off.errors, []);
    });
  } finally {
    await off.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
