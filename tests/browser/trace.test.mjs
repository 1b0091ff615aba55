// Browser test of "Open a kernel trace": a small slice of a real kmem trace
// (tests/data) is uploaded from the header's control, its progress shown,
// and the replay opens as a session the lab steps through; a large
// synthetic trace shows its phases in order, the session build with a
// growing share; a machine's /proc/slabinfo picked with a trace gives its
// caches that geometry; a file that is no trace shows the server's reason
// and the replay report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthTrace } from '../js/synth-trace.mjs';
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

test('a trace picked with the machine\'s /proc/slabinfo: its caches take that geometry', async (t) => {
  const page = await openPage(browser.ctx, base + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    assert.match(await page.getAttribute('#trace-open-btn', 'title'), /with it the machine's \/proc\/slabinfo/);
    // both files in the one dialog, the slabinfo second: told apart by its header
    await page.setInputFiles('#trace-file', [SLICE, join(ROOT, 'tests/data/proc-slabinfo.txt')]);
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'kernel-trace',
      null, { timeout: 60000 });
    await page.waitForSelector('#trace-report:not([hidden])');
    assert.match(await page.textContent('#trace-status'), /^kmem-trace-slice\.txt\.gz \(caches from proc-slabinfo\.txt\): 1488 events replayed/);
    // slabinfo's task_struct: 5824 bytes, 8 pages a slab (order 3)
    assert.match(await page.textContent('#trace-report pre'), /^task_struct +\d+ +\d+ +\d+ +3 +5824 +5824$/m);
    assert.deepEqual(page.errors, [], 'the console has no errors');
  });
  await page.close();
});

test('open a kernel trace: upload, progress, then the replay as a session', async (t) => {
  const page = await openPage(browser.ctx, base + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    assert.equal(await page.textContent('#trace-open-btn'), 'Open a kernel trace');
    assert.ok(await page.isHidden('#pic-kernel'), 'a scenario says nothing of a guessed release');
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
    // the release it ran on, said to be guessed: the slice has no "# kernel:" line
    assert.match(await page.textContent('#trace-status'), /1488 events replayed on Linux 7\.3 \(guessed: the trace names no kernel/);
    // ... and beside the picture, where it is read, not only in the header's status
    await page.waitForSelector('#pic-kernel:not([hidden])');
    assert.match(await page.textContent('#pic-kernel'), /^Release guessed: the trace names no kernel, so it is replayed on Linux 7\.3, the newest release modelled/);
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
    // the session opened again by its address says it too
    const again = await openPage(browser.ctx, `${base}/?session=${m.id}`);
    await again.waitForSelector('#pic-kernel:not([hidden])');
    assert.match(await again.textContent('#pic-kernel'), /^Release guessed: /);
    await again.close();
  });
  await page.close();
});

test('open a kernel trace: the dialog names each phase in order, building with its share', async (t) => {
  const page = await openPage(browser.ctx, base + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    // every status the dialog shows, in order, with the phase it names
    await page.evaluate(() => {
      const status = document.querySelector('#trace-status');
      const bar = document.querySelector('#trace-progress');
      window.__traceSeen = [];
      new MutationObserver(() => window.__traceSeen.push({
        phase: status.dataset.phase ?? '', text: status.textContent, label: bar.getAttribute('aria-label'),
      })).observe(status, { childList: true, characterData: true, subtree: true, attributes: true });
    });
    const big = join(dir, 'big-trace.txt.gz');
    writeFileSync(big, synthTrace(100000)); // 200k events: the session's build lasts several polls
    await page.setInputFiles('#trace-file', big);
    await page.waitForFunction(() => /events replayed/.test(document.querySelector('#trace-status').textContent),
      null, { timeout: 240000 });
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'kernel-trace',
      null, { timeout: 60000 });
    const seen = await page.evaluate(() => window.__traceSeen);
    // the phases come in their order; building may pass between two polls
    // (what each phase says is tests/js/trace.test.mjs's)
    const order = ['uploading', 'replaying', 'building'];
    const phases = seen.map((x) => x.phase).filter(Boolean);
    assert.ok(phases.includes('uploading') || phases.includes('replaying'), `an upload or replay label is shown: ${JSON.stringify(seen.slice(0, 5))}`);
    for (let i = 1; i < phases.length; i++) {
      assert.ok(order.indexOf(phases[i]) >= order.indexOf(phases[i - 1]), `phase ${phases[i]} after ${phases[i - 1]}`);
    }
    let prev = -1;
    for (const s of seen.filter((x) => x.phase === 'building')) {
      const m = /^Building the session: (\d+)% \((\d+) of (\d+) operations\)$/.exec(s.text);
      assert.ok(m, s.text);
      assert.ok(Number(m[2]) <= Number(m[3]));
      assert.ok(Number(m[1]) >= prev, `the share grows: ${prev} then ${m[1]}`);
      prev = Number(m[1]);
      assert.equal(s.label, 'Session building progress');
    }
    assert.match(seen[seen.length - 1].text, /big-trace\.txt\.gz: 200000 events replayed/);
    await page.waitForSelector('#trace-progress', { state: 'hidden' });
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

test('a trace on its way says what it holds, and Cancel deletes it: no session is opened', async (t) => {
  const page = await openPage(browser.ctx, base + '/');
  await page.waitForSelector('body[data-ready="1"]');
  await shotOnFailure(t, page, async () => {
    assert.match(await page.getAttribute('#trace-open-btn', 'title'), /names of the tasks that ran and the kernel's call sites/);
    const file = join(dir, 'cancel.txt');
    writeFileSync(file, synthTrace(200000));
    const before = (await api(base, '/api/sessions?limit=1')).total;
    await page.setInputFiles('#trace-file', file);
    await page.waitForSelector('#trace-cancel:not([hidden])', { timeout: 30000 });
    assert.match(await page.textContent('#trace-note'), /call sites/);
    assert.ok(await page.isVisible('#trace-note'), 'the note shows while the trace is on its way');
    await page.click('#trace-cancel');
    await page.waitForFunction(() => /cancelled|deleted|no trace/.test(document.querySelector('#trace-status').textContent), null, { timeout: 30000 });
    await page.waitForSelector('#trace-cancel', { state: 'hidden' });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await api(base, '/api/sessions?limit=1')).total, before, 'no session was made');
    assert.notEqual(await page.evaluate(() => window.__slublab.player.get().session?.info?.scenario?.name), 'kernel-trace');
  });
  await page.close();
});
