// Browser test of "Open a kernel trace": a small slice of a real kmem trace
// (tests/data) is uploaded from the header's control, its progress shown,
// and the replay opens as a session the lab steps through; a file that is
// no trace shows the server's reason and the replay report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, startBrowser, openPage, shotOnFailure, api, model, press, ROOT } from './helpers.mjs';

const SLICE = join(ROOT, 'tests/data/kmem-trace-slice.txt.gz');
let server, browser, base, dir;

before(async () => {
  server = await startServer();
  base = server.url;
  browser = await startBrowser();
  dir = mkdtempSync(join(tmpdir(), 'slublab-trace-ui-'));
});
after(async () => {
  await browser?.stop();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('open a kernel trace: upload, progress, then the replay as a session', async (t) => {
  const page = await openPage(browser.ctx, base + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    assert.equal(await page.textContent('#trace-open-btn'), 'Open a kernel trace');
    // watch the progress bar appear while the job runs
    const sawProgress = page.waitForSelector('#trace-progress:not([hidden])', { timeout: 30000 });
    await page.setInputFiles('#trace-file', SLICE);
    await sawProgress;
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'kernel-trace',
      null, { timeout: 60000 });
    const m = await model(page);
    assert.equal(m.scenario, 'kernel-trace');
    assert.equal(m.at, 0);
    assert.ok(m.end > 1488, `the session has the replay's events (${m.end})`);
    assert.match(await page.textContent('#trace-status'), /kmem-trace-slice\.txt\.gz: 1488 events replayed/);
    await page.waitForSelector('#trace-progress', { state: 'hidden' }); // the bar goes away
    assert.match(await page.textContent('#trace-report pre'), /1500 lines: 1488 kmem events/);
    // the URL names the new session, and the session is the server's
    await page.waitForFunction((id) => location.search.includes(`session=${id}`), m.id);
    const info = await api(base, `/api/sessions/${m.id}`);
    assert.equal(info.scenario.name, 'kernel-trace');
    // it steps like any session, and its caches are the kernel's
    await press(page, 'End');
    await page.waitForFunction((end) => document.body.dataset.at === String(end), m.end);
    assert.match(await page.textContent('#caches'), /task_struct/);
    assert.deepEqual(page.errors, [], 'the console has no errors');
  });
  await page.close();
});

test('open a kernel trace: a file that is no trace says why', async (t) => {
  const page = await openPage(browser.ctx, base + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    const before = await model(page);
    const bad = join(dir, 'notes.txt');
    writeFileSync(bad, 'shopping list\neggs\n');
    await page.setInputFiles('#trace-file', bad);
    await page.waitForFunction(() => /could not be opened/.test(document.querySelector('#trace-status').textContent),
      null, { timeout: 30000 });
    assert.match(await page.textContent('#trace-status'), /no kmem events/);
    assert.ok(await page.locator('#trace-status.err').count() === 1, 'shown as an error');
    assert.match(await page.textContent('#trace-report pre'), /2 +unreadable lines/);
    assert.equal((await model(page)).id, before.id, 'the open session stays');
    assert.equal(await page.getAttribute('#trace-open-btn', 'disabled'), null, 'the button works again');
    assert.deepEqual(page.errors, [], 'the console has no errors');
  });
  await page.close();
});
