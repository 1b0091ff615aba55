// The Share tab's kernel-file downloads: /proc/slabinfo and the
// /sys/kernel/slab tar of the step the lab shows, the same bytes the
// export route answers for that step.
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
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
