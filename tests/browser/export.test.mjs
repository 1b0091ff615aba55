// The Share tab's downloads of the step the lab shows: /proc/slabinfo and
// the /sys/kernel/slab tar (the same bytes the export route answers for
// that step), the Markdown report and its chart; the compare view's report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startServer, startBrowser, openPage, shotOnFailure, waitAt, model, press } from './helpers.mjs';

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
