// The static lab (`slublab export-static DIR`, docs/teaching.md): the folder
// is served by a plain static file server (node's http, here; no slublab
// process runs) and Chromium opens a scenario, steps forward and back,
// seeks, answers a lesson's question, compares two variants and saves and
// exports a snapshot, every /api/ request answered in the page by the
// server's routes in WebAssembly; the offline HTML copy it writes opens
// from file:// and steps; a snapshot's JSON is imported back; breakpoints,
// predict mode, an exercise, the scenario editor and the race lab work; a
// kernel trace opened there is replayed in the Worker with the UI's
// progress, and one past the lab's cap is refused with it.  And the
// folder's wasm and JavaScript,
// compressed with brotli (quality 11, as scripts/bundle-web.mjs does), stay
// within the budget of 400 KiB.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/static-lab.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { startBrowser, openPage, shotOnFailure, waitAt, model, press, ROOT } from './helpers.mjs';
import { staticLab } from './static-folder.mjs';

const BUDGET = 400 * 1024; // bytes of wasm plus JavaScript, brotli-compressed

let lab, dir, url, browser;

before(async () => {
  lab = await staticLab();
  ({ dir, url } = lab);
  browser = await startBrowser();
});
after(async () => {
  await browser?.stop();
  await lab?.stop();
});

test('the exported folder is the lab, served by a plain static server', async (t) => {
  // GitHub Pages serves .manifest.json (the HTML export reads it) only beside a .nojekyll
  assert.ok(existsSync(`${dir}/.nojekyll`), 'export-static writes .nojekyll');
  const page = await openPage(browser.ctx, `${url}/?scenario=barn-refill`);
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    const m = await model(page);
    assert.equal(m.scenario, 'barn-refill');
    assert.ok(m.end > 20, `${m.end} events`);
    // step forward and back
    await press(page, 'ArrowRight', 5);
    await waitAt(page, 5);
    await press(page, 'ArrowLeft', 2);
    await waitAt(page, 3);
    // seek: the end, then the start
    await press(page, 'End');
    await waitAt(page, m.end);
    await press(page, 'Home');
    await waitAt(page, 0);
    // the state the page shows is the wasm's answer for it
    const state = await page.evaluate((id) => fetch(`/api/sessions/${id}/state?at=0`).then((r) => r.json()), m.id);
    assert.equal(state.at, 0);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a lesson asks its question and takes an answer', async (t) => {
  const page = await openPage(browser.ctx, `${url}/?lesson=03-the-barn`);
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    const lesson = await page.evaluate(() => fetch('/api/lessons/03-the-barn').then((r) => r.json()));
    const ask = lesson.slides.findIndex((s) => s.ask);
    assert.ok(ask >= 0, 'the lesson has a question');
    for (let k = 1; k <= ask; k++) {
      await page.waitForSelector(`#lesson[data-applied="${k}"]`, { timeout: 20000 });
      await page.click('#lesson-next');
    }
    await page.waitForSelector('#question:not([hidden]) #q-choices .q-pick', { timeout: 20000 });
    await page.click('#q-choices .q-pick');
    await page.waitForFunction(() => (document.querySelector('#q-result')?.textContent ?? '').length > 0);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('compare two variants, and a snapshot saved and exported', async (t) => {
  const page = await openPage(browser.ctx, `${url}/?scenario=default`);
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    await press(page, 'ArrowRight', 7);
    await waitAt(page, 7);
    // a snapshot of step 7, and its export
    await page.click('#tabbtn-share');
    await page.fill('#snap-title', 'static at seven');
    await page.click('#snap-save');
    await page.waitForFunction(() => /Saved snapshot/.test(document.querySelector('#snap-msg').textContent));
    const id = /Saved snapshot (\S+) /.exec(await page.textContent('#snap-msg'))[1];
    const exported = await page.evaluate((s) => fetch(`/api/snapshots/${s}/export`).then((r) => r.json()), id);
    assert.equal(exported.format, 'slublab-snapshot');
    assert.equal(exported.position, 7);
    assert.equal(exported.title, 'static at seven');
    // published, it is listed in this browser only, and the message says so
    await page.check(`#snap-pub-${id}`);
    await page.waitForFunction(() => /Published/.test(document.querySelector('#snap-msg').textContent));
    assert.match(await page.textContent('#snap-msg'), /this browser's list of recent snapshots/);
    // kept in this browser: after a reload, its link opens at its step
    const again = await openPage(browser.ctx, `${url}/?snapshot=${id}`);
    await again.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    await waitAt(again, 7);
    assert.deepEqual(again.errors, []);
    await again.close();
    // compare DEFERRED_FREELIST before and after
    await page.click('#viewbtn-compare');
    await page.waitForSelector('#cmp-table tbody tr', { timeout: 60000 });
    await page.selectOption('#cmp-scenario', 'default');
    await page.selectOption('#cmp-axis', 'variant:DEFERRED_FREELIST');
    await page.click('#cmp-run');
    await page.waitForFunction(() => (document.querySelector('#cmp-caption')?.textContent ?? '').includes('DEFERRED_FREELIST'));
    await page.waitForFunction(() => /^operation 0 of \d+$/.test(document.querySelector('#cmp-pos')?.textContent ?? ''));
    const sides = await page.$$eval('#compare-view section.side', (xs) => xs.length);
    assert.equal(sides, 2);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('the offline HTML copy, written in the page, opens from file:// and steps', async (t) => {
  const page = await openPage(browser.ctx, `${url}/?scenario=free-storm`);
  const tmp = mkdtempSync(join(tmpdir(), 'slublab-static-offline-'));
  let off = null;
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    await press(page, 'ArrowRight', 10);
    await waitAt(page, 10);
    const m = await model(page);
    await page.click('#tabbtn-share');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-html')]);
    assert.equal(dl.suggestedFilename(), `slublab-${m.id}.html`);
    const file = join(tmp, 'copy.html');
    copyFileSync(await dl.path(), file);
    const html = readFileSync(file, 'utf8');
    assert.ok(!/<script[^>]+src=/.test(html), 'no external script (nor static/boot.js)');
    assert.ok(html.includes('Chart.js'), 'Chart.js is inlined');
    // only file:, blob: and data: answer
    off = await browser.ctx.newPage();
    const errors = [], remote = [];
    off.on('pageerror', (e) => errors.push(e.message));
    await off.route('**/*', (r) => {
      const u = r.request().url();
      if (/^(file|blob|data):/.test(u)) return r.continue();
      remote.push(u);
      return r.abort();
    });
    await off.goto(pathToFileURL(file).href);
    await off.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    await waitAt(off, 10);
    await press(off, 'ArrowRight', 3);
    await waitAt(off, 13);
    await press(off, 'ArrowLeft', 5);
    await waitAt(off, 8);
    assert.deepEqual(errors, []);
    assert.deepEqual(remote, []);
    assert.deepEqual(page.errors, []);
  });
  await off?.close();
  await page.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('a snapshot imported back; breakpoints, predict mode, an exercise, the scenario editor, the race lab', async (t) => {
  const page = await openPage(browser.ctx, `${url}/?scenario=default`);
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    // a snapshot's JSON, as the server exports it, imported back from a file
    await press(page, 'ArrowRight', 4);
    await waitAt(page, 4);
    await page.click('#tabbtn-share');
    await page.fill('#snap-title', 'to import');
    await page.click('#snap-save');
    await page.waitForFunction(() => /Saved snapshot/.test(document.querySelector('#snap-msg').textContent));
    const saved = /Saved snapshot (\S+) /.exec(await page.textContent('#snap-msg'))[1];
    const json = await page.evaluate((s) => fetch(`/api/snapshots/${s}/export`).then((r) => r.text()), saved);
    await press(page, 'Home');
    await waitAt(page, 0);
    await page.setInputFiles('#snap-import', { name: 'snap.json', mimeType: 'application/json', buffer: Buffer.from(json) });
    await page.waitForFunction(() => /Imported as snapshot/.test(document.querySelector('#snap-msg').textContent));
    await waitAt(page, 4);

    // the scenario editor: your own scenario, run
    await page.click('#viewbtn-scenario');
    await page.waitForFunction(() => /"name": "default"/.test(document.querySelector('#scenario-text')?.value ?? ''));
    const mine = { format: 1, name: 'mine', caches: [{ name: 'A', object_size: 64 }], ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'x' }] };
    await page.fill('#scenario-text', JSON.stringify(mine));
    await page.click('#sc-run');
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'mine');

    // the race lab: a schedule run
    await page.goto(`${url}/?scenario=race-irq-alloc`);
    await page.waitForSelector('#race:not([hidden]) .race-table', { timeout: 30000 });
    const before = (await model(page)).id;
    await page.click('#race-run');
    await page.waitForFunction((id) => { const m = window.__slublab.player.get(); return m.session?.id !== id && !m.busy && m.allEvents; }, before);
    await page.waitForSelector('#race:not([hidden]) .race-table');

    // a lesson's slide sets breakpoints; b runs to the next one
    await page.goto(`${url}/?lesson=03-the-barn&slide=8`);
    await page.waitForSelector('#lesson[data-applied="8"]', { timeout: 30000 });
    assert.ok((await page.evaluate(() => window.__slublab.player.get().breakpoints.length)) > 0, 'the slide sets a breakpoint');
    await press(page, 'Home');
    await waitAt(page, 0);
    await press(page, 'b');
    await page.waitForFunction(() => window.__slublab.player.get().at > 0);
    // an exercise: the solution gets the checker's ✓
    await page.selectOption('#course-select', 'exercise:barn-get');
    await page.waitForSelector('#exercise:not([hidden]) #ex-max');
    const ex = await page.evaluate(() => fetch('/api/exercises/barn-get').then((r) => r.json()));
    await page.fill('#scenario-text', JSON.stringify({ ...ex.preset, ops: [...ex.preset.ops, ...ex.solution] }));
    await page.click('#ex-check');
    await page.waitForSelector('#ex-verdict.ex-solved', { timeout: 20000 });
    assert.match(await page.textContent('#ex-verdict'), /^✓ Solved/);

    // predict mode: the scenario's story kept back until q
    await page.goto(`${url}/?scenario=default&predict=1`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    const info = await page.evaluate(() => window.__slublab.player.get().session.info.scenario.description);
    await page.waitForSelector('#teaching');
    assert.equal((await page.textContent('#teaching')).includes(info), false, 'the story is not on screen in predict mode');
    await press(page, 'q');
    await page.waitForFunction((d) => document.getElementById('teaching').textContent === d, info);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('what needs a server says so, and how to start one', async (t) => {
  const page = await openPage(browser.ctx, `${url}/`);
  await shotOnFailure(t, page, async () => {
    const r = await page.evaluate(() => fetch('/api/lectures', { method: 'POST', body: '{}' }).then(async (x) => ({ status: x.status, body: await x.json() })));
    assert.equal(r.status, 501);
    assert.equal(r.body.error.code, 'needs_server');
    assert.match(r.body.error.message, /slublab serve/);
    // the offline HTML copy is written in the page: of no session, the server's 404
    const html = await page.evaluate(() => fetch('/api/sessions/x/export.html').then((x) => x.status));
    assert.equal(html, 404);
    // the presenter view offers no follow link that could not work
    await page.goto(`${url}/?scenario=default`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    // snapshots: links open in this browser only, and how to hand one on
    await page.click('#tabbtn-share');
    assert.match(await page.textContent('#snap-where'), /link opens in this browser only.*export its JSON.*scripts\/run serve/);
    await page.click('#presenter');
    await page.waitForSelector('#follow-none');
    assert.match(await page.textContent('#follow-none'), /cannot follow.*scripts\/run serve/);
    assert.match(await page.textContent('#follow-none'), /class tally/);
    assert.equal(await page.$('#follow-url'), null);
    // links made elsewhere: a lecture, a session to follow, someone's snapshot
    for (const [q, said] of [['lecture=abc', /^Lectures .*need a slublab server.*scripts\/run serve/],
      ['follow=abc', /^no such session\. .*to follow one, needs a slublab server.*scripts\/run serve/],
      ['snapshot=abc', /^no such snapshot\. .*import the snapshot's exported JSON.*scripts\/run serve/]]) {
      await page.goto(`${url}/?${q}`);
      await page.waitForFunction(() => (document.getElementById('banner')?.textContent ?? '').length > 0, null, { timeout: 30000 });
      assert.match(await page.evaluate(() => window.__slublab.player.get().error), said, q);
      assert.equal(await page.isVisible('#banner'), true, q);
    }
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a kernel trace opened in the static lab: replayed in the Worker, then stepped', async (t) => {
  const page = await openPage(browser.ctx, `${url}/`);
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    // the phases the dialog goes through, as the server's jobs show them
    await page.evaluate(() => {
      window.phases = [];
      const st = document.querySelector('#trace-status');
      new MutationObserver(() => window.phases.push(st.dataset.phase)).observe(st, { attributes: true, childList: true });
    });
    const sawProgress = page.waitForSelector('#trace-progress:not([hidden])', { timeout: 30000 });
    await page.setInputFiles('#trace-file', join(ROOT, 'tests/data/kmem-trace-slice.txt.gz'));
    await sawProgress;
    await page.waitForFunction(() => window.__slublab.player.get().session?.info?.scenario?.name === 'kernel-trace',
      null, { timeout: 60000 });
    await page.waitForSelector('#trace-progress', { state: 'hidden' }); // the progress ended
    const phases = await page.evaluate(() => window.phases);
    assert.ok(phases.includes('uploading') && phases.includes('replaying'), `phases seen: ${phases}`);
    assert.match(await page.textContent('#trace-status'), /kmem-trace-slice\.txt\.gz: 1488 events replayed/);
    assert.match(await page.textContent('#trace-report pre'), /1500 lines: 1488 kmem events/);
    const m = await model(page);
    assert.equal(m.scenario, 'kernel-trace');
    assert.ok(m.end > 1488, `the session has the replay's events (${m.end})`);
    await press(page, 'ArrowRight', 3);
    await waitAt(page, 3);
    await press(page, 'End');
    await waitAt(page, m.end);
    assert.match(await page.textContent('#caches'), /task_struct/);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a trace past the static lab\'s cap is refused, naming the cap and the server', async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'slublab-static-trace-'));
  const big = join(tmp, 'big.txt.gz');
  writeFileSync(big, gzipSync(Buffer.alloc(65 << 20, 10))); // 65 MiB of text, 65 KiB of gzip
  const page = await openPage(browser.ctx, `${url}/`);
  try {
    await shotOnFailure(t, page, async () => {
      await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
      await page.setInputFiles('#trace-file', big);
      await page.waitForFunction(() => document.querySelector('#trace-status')?.classList.contains('err'), null, { timeout: 60000 });
      const said = await page.textContent('#trace-status');
      assert.match(said, /^The trace could not be opened: the lab in this browser tab replays traces up to 64 MiB \(after gunzip\)/);
      assert.match(said, /scripts\/run serve \(or slublab serve\)/);
      assert.deepEqual(page.errors, []);
    });
  } finally {
    await page.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the folder\'s wasm and JavaScript fit in 400 KiB, brotli-compressed', () => {
  let total = 0;
  const sizes = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(m?js|wasm)$/.test(e.name)) {
        const raw = readFileSync(p);
        const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }).length;
        total += br;
        sizes.push(`${p.slice(dir.length + 1)} ${br}`);
      }
    }
  };
  walk(dir);
  assert.ok(sizes.some((s) => s.startsWith('static/slublab-api.wasm')), 'the module is there');
  assert.ok(total <= BUDGET, `wasm + JavaScript: ${total} bytes brotli, over ${BUDGET}:\n${sizes.join('\n')}`);
  console.log(`static lab: wasm + JavaScript ${total} bytes brotli (${(total / 1024).toFixed(1)} KiB of ${BUDGET / 1024})`);
});
