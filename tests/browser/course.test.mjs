// Browser tests of the course (docs/lessons.md): predict mode on a shipped
// scenario (a wrong answer, a right one, the score kept), the followers'
// answers tallied for the presenter, a lesson played slide by slide to its
// end, and an exercise solved in the scenario editor after two attempts
// that fail (the goal not met; too many operations).  The lesson and the
// exercise are this file's own, in a temporary lessons directory.  And the
// offline copy: its events keep their records, and predict mode asks there.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/course.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { openPage, shotOnFailure, api, waitAt, model, press, labFixture, startBrowser } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'slublab-lessons-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SLIDES = [
  { title: 'Two sheaves per CPU', text: 'Each CPU keeps a **main** sheaf and a spare.\n\nStep forward and watch `main` <b>fill</b>.', scenario: 'spare-and-barn', at: 0 },
  { title: 'Main is empty', text: 'What does the first allocation do?', at: 1, ask: true },
  { title: 'Counting refills', text: 'The counters show the refills.', at: 12, tab: 'counters', breakpoints: ['barn_put_fail', 'counter:alloc_slab'] },
  { title: 'A fresh slab', text: 'Another scenario: a **fresh** slab.', scenario: 'fresh-slab-fill', at: 2 },
];
const PRESET = { format: 1, name: 'exercise-two-slabs', seed: 1, machine: { cpus: 2, nodes: 1, mem_mb_per_node: 64 }, caches: [{ name: 'B', object_size: 4096 }], ops: [] };
const allocs = (n) => [{ op: 'repeat', times: n, ops: [{ op: 'alloc', cpu: 0, cache: 'B', name: 'o{i}' }] }];
const EXERCISE = {
  format: 1, id: 'two-slabs', title: 'Make the cache take a second slab', task: 'Allocate from cache B on CPU 0 until it needs a second slab.',
  max_ops: 16, preset: PRESET, goal: [{ metric: 'alloc_slab', op: '>=', value: 2 }],
  hints: ['Allocate on CPU 0.', 'A slab holds eight objects; a sheaf four.', 'Sixteen allocations do it.'], solution: allocs(16),
};
function writeCourse() {
  mkdirSync(join(dir, 'exercises'), { recursive: true });
  writeFileSync(join(dir, '01-sheaves.json'), JSON.stringify({ format: 1, id: '01-sheaves', title: 'Sheaves, a first look', minutes: 5, summary: 'Main and spare.', slides: SLIDES }));
  writeFileSync(join(dir, 'exercises/two-slabs.json'), JSON.stringify(EXERCISE));
  return ['--lessons', dir];
}

let browser, base;
labFixture((f) => ({ browser, base } = f), { serverArgs: writeCourse });

async function lab(path, ctx = browser.ctx) {
  const page = await openPage(ctx, base + path);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

/** The question the page holds open (the position), or null. */
const question = (page) => page.evaluate(() => window.__slublab.player.get().question);

/**
 * The events of session @id where predict mode stops, by seq: those that
 * carry a branch record but for points texts.json marks "often" (with
 * @all, every event with a record).
 */
async function branchEvents(id, { all = false } = {}) {
  TEXTS ??= await api(base, '/data/texts.json');
  const s = await api(base, `/api/sessions/${id}`);
  const r = await api(base, `/api/sessions/${id}/events?from=0&to=${s.events}`);
  return r.events.filter((e) => e.branches?.length && (all || TEXTS.questions?.[e.branches[0].point]?.often !== true));
}

/** @text with the placeholders {cpu}, {node} and {cache} of event @e of session @id filled. */
async function fillIn(text, id, e) {
  const st = await api(base, `/api/sessions/${id}/state?at=${e.seq}`);
  const cache = st.state.caches.find((c) => c.id === e.cache)?.name ?? '';
  return text.replaceAll('{cpu}', String(e.cpu)).replaceAll('{node}', String(e.node)).replaceAll('{cache}', cache);
}
/** The words texts.json gives a choice (filled in for event @e), or its name as words. */
let TEXTS = null;
async function choiceText(id, e, arm) {
  TEXTS ??= await api(base, '/data/texts.json');
  const t = TEXTS.questions?.[e.branches[0].point]?.arms?.[arm]?.text;
  return t ? fillIn(t, id, e) : arm.replace(/_/g, ' ');
}
async function whyNotText(id, e, arm) {
  TEXTS ??= await api(base, '/data/texts.json');
  const when = TEXTS.questions?.[e.branches[0].point]?.arms?.[arm]?.when;
  return when ? `It happens when ${(await fillIn(when, id, e)).replace(/[.\s]+$/, '')}; here it did not.` : 'Here the kernel did not take it.';
}

/** Step forward until a question opens (at most @max presses); its position. */
async function stepToQuestion(page, max = 10) {
  for (let i = 0; i < max; i++) {
    const at = (await model(page)).at;
    await press(page, 'ArrowRight');
    await page.waitForFunction((a) => { const m = window.__slublab.player.get(); return m.question !== null || m.at !== a; }, at);
    if ((await question(page)) !== null) break;
  }
  await page.waitForSelector('#question:not([hidden]) .q-pick');
  return question(page);
}

test('predict mode: stepping stops before a branch record; a wrong answer, then a right one, and the score', async (t) => {
  const page = await lab('/?scenario=spare-and-barn&predict=1');
  await shotOnFailure(t, page, async () => {
    await page.waitForFunction(() => window.__slublab.player.get().allEvents);
    assert.equal(await page.getAttribute('#predict', 'aria-pressed'), 'true');
    const { id } = await model(page);
    const recs = await branchEvents(id);
    assert.ok(recs.length >= 2, 'the scenario records branches');
    const [e1, e2] = recs;

    // the first question: at the first recorded event, before it is shown
    assert.equal(await stepToQuestion(page), e1.seq);
    assert.equal((await model(page)).at, e1.seq, 'the step waits for the answer');
    const b1 = e1.branches[0];
    const arms = await page.$$eval('#q-choices > li', (lis) => lis.map((li) => li.dataset.arm));
    assert.deepEqual(arms, b1.arms, 'the choices are the recorded arms');
    const texts = await page.$$eval('#q-choices .q-pick', (bs) => bs.map((b) => b.textContent));
    assert.deepEqual(texts, await Promise.all(b1.arms.map(async (a, i) => `${i + 1}. ${await choiceText(id, e1, a)}`)));
    assert.equal(await page.getAttribute('#q-ask', 'aria-labelledby'), 'q-title');
    // the prompt: texts.json's for the point with its placeholders filled, or the point's name
    TEXTS ??= await api(base, '/data/texts.json');
    const tpl = TEXTS.questions?.[b1.point]?.prompt;
    const prompt = await page.textContent('#q-prompt');
    if (tpl) {
      assert.equal(prompt, await fillIn(tpl, id, e1));
    } else {
      assert.equal(prompt, `What happens next at ${b1.point.replace(/_/g, ' ')}?`);
    }
    assert.equal(await page.getAttribute('#q-status', 'aria-live'), 'polite');

    // a wrong answer, by its key
    const wrong = b1.arms.findIndex((a) => a !== b1.taken);
    await page.keyboard.press(String(wrong + 1));
    await waitAt(page, e1.seq + 1);
    await page.waitForSelector('#question.revealed');
    assert.match(await page.textContent('#q-status'), /^Not this time: the kernel took "/);
    assert.equal(await page.getAttribute('#q-answer-choices > li.wrong', 'data-arm'), b1.arms[wrong]);
    assert.equal(await page.getAttribute('#q-answer-choices > li.right', 'data-arm'), b1.taken);
    for (const arm of b1.arms.filter((a) => a !== b1.taken)) {
      assert.equal(await page.textContent(`#q-answer-choices > li[data-arm="${arm}"] .q-why`), await whyNotText(id, e1, arm), arm);
    }
    assert.equal(await page.textContent('#score'), '0/1 right');

    // the next record: a right answer, by a click
    assert.equal(await stepToQuestion(page), e2.seq);
    const b2 = e2.branches[0];
    await page.click(`#q-choices > li[data-arm="${b2.taken}"] button`);
    await waitAt(page, e2.seq + 1);
    await page.waitForSelector('#question.revealed');
    assert.match(await page.textContent('#q-status'), /^Right: /);
    assert.equal(await page.textContent('#score'), '1/2 right');
    const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('slublab.score')));
    assert.equal(kept[id].right, 1);
    assert.equal(kept[id].asked, 2);

    // moving away closes the answer; back and forward again does not ask the same question twice
    await page.evaluate((at) => window.__slublab.player.seek(at), e2.seq);
    await waitAt(page, e2.seq);
    await page.waitForSelector('#question', { state: 'hidden' });
    await press(page, 'ArrowRight');
    await waitAt(page, e2.seq + 1);
    assert.equal(await question(page), null);

    // predict mode off (the q key): stepping goes through records
    await press(page, 'q');
    await page.waitForSelector('#predict[aria-pressed="false"]');
    const e3 = recs.find((e) => e.seq > e2.seq + 1);
    await page.evaluate((at) => window.__slublab.player.seek(at), e3.seq);
    await waitAt(page, e3.seq);
    await press(page, 'ArrowRight');
    await waitAt(page, e3.seq + 1);
    assert.equal(await question(page), null);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('predict mode: play and run-to-breakpoint stop before a record too', async (t) => {
  const page = await lab('/?scenario=spare-and-barn&predict=1');
  await shotOnFailure(t, page, async () => {
    await page.waitForFunction(() => window.__slublab.player.get().allEvents);
    const recs = await branchEvents((await model(page)).id);
    // play: stops where the first record's question is asked
    await press(page, ' ');
    await page.waitForFunction(() => { const m = window.__slublab.player.get(); return !m.playing && m.question !== null; });
    assert.equal(await question(page), recs[0].seq);
    assert.equal((await model(page)).at, recs[0].seq);
    // passed unanswered (Skip): then run to a breakpoint further on stops at the next record first
    await page.click('#q-skip');
    await waitAt(page, recs[0].seq + 1);
    await page.evaluate(() => window.__slublab.player.seek(0));
    await waitAt(page, 0);
    await page.check('#bp-new_slab');
    const bp = await api(base, `/api/sessions/${(await model(page)).id}/search?fn=new_slab&from=0`);
    const next = recs.find((e) => e.seq !== recs[0].seq && e.seq < bp.at);
    assert.ok(next, 'a record before the breakpoint');
    await press(page, 'b');
    await page.waitForFunction((q) => window.__slublab.player.get().question === q, next.seq);
    assert.equal((await model(page)).at, next.seq);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('presenter and followers: two followers answer, the presenter sees the tally and reveals by stepping', async (t) => {
  const presenter = await lab('/?scenario=spare-and-barn&presenter=1&predict=1');
  const other = await startBrowser();
  const pages = [presenter];
  try {
    await shotOnFailure(t, presenter, async () => {
      await presenter.waitForFunction(() => /\?lecture=\w+&predict=1$/.test(document.querySelector('#follow-url')?.textContent ?? ''));
      const link = await presenter.textContent('#follow-url');
      const f1 = await lab(link.replace(/^https?:\/\/[^/]+/, '')), f2 = await lab(link.replace(/^https?:\/\/[^/]+/, ''), other.ctx);
      pages.push(f1, f2);
      for (const f of [f1, f2]) await f.waitForFunction(() => window.__slublab.player.get().following);
      await presenter.waitForFunction(() => window.__slublab.player.get().allEvents);
      const { id } = await model(presenter);
      const [e1] = await branchEvents(id);
      const b = e1.branches[0];

      // the presenter stops on the question; the followers get it where the presenter stands
      assert.equal(await stepToQuestion(presenter), e1.seq);
      for (const f of [f1, f2]) {
        await f.waitForSelector('#question:not([hidden]) .q-pick', { timeout: 8000 });
        assert.equal(await question(f), e1.seq);
      }
      const right = b.arms.indexOf(b.taken), wrong = b.arms.findIndex((a) => a !== b.taken);
      await f1.keyboard.press(String(right + 1));
      await f2.keyboard.press(String(wrong + 1));
      for (const f of [f1, f2]) await f.waitForFunction(() => /Answer sent/.test(document.querySelector('#q-status')?.textContent ?? ''));
      assert.equal((await model(f1)).at, e1.seq, 'a follower does not step by answering');

      // the tally: one answer on each arm chosen, two in all
      await presenter.waitForFunction(() => /^2 answers/.test(document.querySelector('#q-choices-total')?.textContent ?? ''), null, { timeout: 8000 });
      const tally = await presenter.$$eval('#q-choices > li', (lis) => Object.fromEntries(lis.map((li) => [li.dataset.arm, li.querySelector('.q-tally')?.textContent.trim()])));
      for (const arm of b.arms) assert.equal(tally[arm], arm === b.taken || arm === b.arms[wrong] ? '1' : '0', arm);
      const widths = await presenter.$$eval('#q-choices .q-bar', (bs) => bs.map((x) => x.style.width));
      assert.equal(widths[right], '50%');

      // a follower changes its mind: its answer replaces the earlier one
      await f2.keyboard.press(String(right + 1));
      await presenter.waitForFunction((arm) => document.querySelector(`#q-choices > li[data-arm="${arm}"] .q-tally`)?.textContent.trim() === '2', b.taken, { timeout: 8000 });
      assert.match(await presenter.textContent('#q-choices-total'), /^2 answers/);
      await f2.keyboard.press(String(wrong + 1));
      await presenter.waitForFunction((arm) => document.querySelector(`#q-choices > li[data-arm="${arm}"] .q-tally`)?.textContent.trim() === '1', b.taken, { timeout: 8000 });

      // the presenter's step reveals, on every screen
      await press(presenter, 'ArrowRight');
      await waitAt(presenter, e1.seq + 1);
      await presenter.waitForSelector('#question.revealed');
      for (const f of [f1, f2]) { await waitAt(f, e1.seq + 1, 8000); await f.waitForSelector('#question.revealed'); }
      assert.match(await f1.textContent('#q-status'), /^Right: /);
      assert.match(await f2.textContent('#q-status'), /^Not this time/);
      assert.equal(await f1.textContent('#score'), '1/1 right');
      assert.equal(await f2.textContent('#score'), '0/1 right');
      for (const p of pages) assert.deepEqual(p.errors, []);
    });
  } finally {
    for (const p of pages) await p.close();
    await other.stop();
  }
});

test('a lesson: the menu lists it, Next plays it to its end, and the URL resumes it', async (t) => {
  const page = await lab('/?scenario=spare-and-barn');
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('#course-select option[value="lesson:01-sheaves"]', { state: 'attached' });
    await page.selectOption('#course-select', 'lesson:01-sheaves');
    const slide = async (k) => {
      await page.waitForSelector(`#lesson[data-applied="${k}"]`);
      assert.equal(await page.getAttribute('#lesson-progress', 'aria-valuenow'), String(k));
      assert.equal(await page.getAttribute('#lesson-progress', 'aria-valuemax'), String(SLIDES.length));
      assert.equal(await page.getAttribute('#lesson-progress', 'role'), 'progressbar');
      assert.equal(await page.textContent('#lesson-slide-title'), SLIDES[k - 1].title);
      assert.equal(await page.textContent('#lesson-head'), `Lesson: Sheaves, a first look · slide ${k} of ${SLIDES.length}`);
      await waitAt(page, SLIDES[k - 1].at);
      // the kernel source of the slide's step, whatever tab the slide shows (none at the start)
      if (SLIDES[k - 1].at > 0) await page.waitForSelector('#lesson-source:not([hidden]) a[href^="https://elixir.bootlin.com/linux/"]');
      else assert.equal(await page.isHidden('#lesson-source'), true);
    };
    await slide(1);
    assert.equal((await model(page)).scenario, 'spare-and-barn');
    // the markup is built as DOM: bold, code, and HTML left as text
    assert.equal(await page.$$eval('#lesson-text p', (ps) => ps.length), 2);
    assert.equal(await page.textContent('#lesson-text strong'), 'main');
    assert.equal(await page.textContent('#lesson-text code'), 'main');
    assert.equal(await page.$('#lesson-text b'), null);
    assert.match(await page.textContent('#lesson-text'), /<b>fill<\/b>/);
    assert.equal(await page.isDisabled('#lesson-prev'), true);
    const first = (await model(page)).id;

    // an ask slide opens its question, predict mode or not
    await page.click('#lesson-next');
    await slide(2);
    assert.equal(await page.getAttribute('#predict', 'aria-pressed'), 'false');
    await page.waitForSelector('#question:not([hidden]) .q-pick');
    assert.equal(await question(page), 1);
    const rec = (await branchEvents(first, { all: true })).find((e) => e.seq === 1).branches[0];
    assert.deepEqual(await page.$$eval('#q-choices > li', (lis) => lis.map((li) => li.dataset.arm)), rec.arms);
    assert.equal((await model(page)).id, first, 'the same scenario keeps its session');

    // the key ] moves on: a tab and breakpoints
    await press(page, ']');
    await slide(3);
    assert.equal(await page.isHidden('#question'), true);
    assert.equal(await page.getAttribute('#tabbtn-counters', 'aria-selected'), 'true');
    assert.equal(await page.$$eval('#bp-list li', (lis) => lis.length), 2);
    assert.equal(await page.isChecked('#bp-barn_put_fail'), true);

    // another scenario: a session of its own
    await page.click('#lesson-next');
    await slide(4);
    const m = await model(page);
    assert.equal(m.scenario, 'fresh-slab-fill');
    assert.notEqual(m.id, first);
    assert.equal(await page.isDisabled('#lesson-next'), true);
    assert.equal(await page.textContent('#lesson-where'), 'The end of the lesson.');
    await page.waitForFunction(() => location.search === '?lesson=01-sheaves&slide=4');

    // [ goes back, and the same scenario's session again
    await press(page, '[');
    await slide(3);
    assert.equal((await model(page)).scenario, 'spare-and-barn');
    await page.waitForFunction(() => location.search === '?lesson=01-sheaves&slide=3');
    assert.deepEqual(page.errors, []);
  });
  await page.close();

  // a permalink to a slide resumes there
  const again = await lab('/?lesson=01-sheaves&slide=2');
  await shotOnFailure(t, again, async () => {
    await again.waitForSelector('#lesson[data-applied="2"]');
    await waitAt(again, 1);
    assert.equal(await again.textContent('#lesson-slide-title'), SLIDES[1].title);
    await again.waitForSelector('#question:not([hidden]) .q-pick');
    assert.deepEqual(again.errors, []);
  });
  await again.close();
});

test('an exercise: hints one by one, an attempt that misses the goal, one with too many operations, and a solution', async (t) => {
  const page = await lab('/?exercise=two-slabs');
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('#exercise:not([hidden])');
    assert.equal(await page.isHidden('#lab-view'), true);
    assert.equal(await page.textContent('#ex-title'), `Exercise: ${EXERCISE.title}`);
    assert.match(await page.textContent('#ex-max'), /at most 16 operations/);
    await page.waitForFunction(() => document.querySelector('#scenario-text')?.value.includes('exercise-two-slabs'));
    assert.deepEqual(JSON.parse(await page.inputValue('#scenario-text')), PRESET);

    // the hint ladder
    assert.equal(await page.$$eval('#ex-hints li', (l) => l.length), 0);
    await page.click('#ex-hint');
    await page.click('#ex-hint');
    assert.deepEqual(await page.$$eval('#ex-hints li', (l) => l.map((x) => x.textContent)), EXERCISE.hints.slice(0, 2));
    await page.click('#ex-hint');
    assert.equal(await page.isDisabled('#ex-hint'), true);

    const attempt = async (ops) => {
      await page.fill('#scenario-text', JSON.stringify({ ...PRESET, ops }, null, 2));
      await page.evaluate(() => { const r = document.querySelector('#ex-result'); r.replaceChildren(); });
      await page.click('#ex-check');
      await page.waitForSelector('#ex-verdict');
      return page.textContent('#ex-result');
    };
    let said = await attempt(allocs(8));
    assert.match(said, /✗ Not yet: the goal is not met/);
    assert.match(said, /alloc_slab >= 2: not met \(seen 1\)/);
    assert.match(said, /8 operations added; at most 16 allowed: within the limit/);
    said = await attempt(allocs(17));
    assert.match(said, /✗ Not yet: the goal is met, but with too many operations/);
    assert.match(said, /alloc_slab >= 2: met \(seen 3\)/);
    assert.match(said, /17 operations added; at most 16 allowed: too many/);
    assert.deepEqual(await page.evaluate(() => localStorage.getItem('slublab.solved')), null);
    said = await attempt(EXERCISE.solution);
    assert.match(said, /✓ Solved/);
    assert.match(await page.textContent('#ex-title'), /✓ solved/);
    assert.deepEqual(await page.evaluate(() => JSON.parse(localStorage.getItem('slublab.solved'))), ['two-slabs']);
    assert.match(await page.textContent('#course-select option[value="exercise:two-slabs"]'), /^✓ /);
    await page.waitForFunction(() => location.search === '?exercise=two-slabs');

    // the attempt opens in the lab
    await page.click('#ex-run');
    await page.waitForSelector('#lab-view:not([hidden])');
    await page.waitForFunction(() => window.__slublab.player.get().ops === 17);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('the offline copy keeps the branch records, and predict mode asks from them', async (t) => {
  const { id } = await api(base, '/api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ scenario: 'spare-and-barn' }) });
  const html = await (await fetch(`${base}/api/sessions/${id}/export.html?at=0`)).text();
  // the data document: gzip-compressed JSON in base64 (docs/export.md)
  const packed = /<script[^>]*id="slublab-data"[^>]*>([\s\S]*?)<\/script>/.exec(html)[1];
  const data = JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8'));
  const recs = (await branchEvents(id, { all: true })).map((e) => [e.seq, e.branches]);
  assert.ok(recs.length > 0);
  assert.deepEqual(data.events.filter((e) => e.branches?.length).map((e) => [e.seq, e.branches]), recs, 'every record, as the server sends it');
  const stops = (await branchEvents(id)).map((e) => [e.seq, e.branches]);
  const d = mkdtempSync(join(tmpdir(), 'slublab-offline-'));
  const file = join(d, 'copy.html');
  writeFileSync(file, html);
  const off = await openPage(browser.ctx);
  const remote = [];
  await off.route('**/*', (r) => {
    const u = r.request().url();
    if (/^(file|blob|data):/.test(u)) return r.continue();
    remote.push(u);
    return r.abort();
  });
  try {
    await shotOnFailure(t, off, async () => {
      await off.goto(pathToFileURL(file).href);
      await off.waitForSelector('body[data-ready="1"]');
      await off.waitForFunction(() => window.__slublab.player.get().allEvents);
      await press(off, 'q');
      await off.waitForSelector('#predict[aria-pressed="true"]');
      const [seq, [b]] = stops[0];
      assert.equal(await stepToQuestion(off), seq);
      await off.keyboard.press(String(b.arms.indexOf(b.taken) + 1));
      await waitAt(off, seq + 1);
      await off.waitForSelector('#question.revealed');
      assert.match(await off.textContent('#q-result'), /^Right: /);
      assert.equal(await off.textContent('#score'), '1/1 right');
      assert.deepEqual(remote, [], 'nothing was fetched from the network');
      assert.deepEqual(off.errors, []);
    });
  } finally {
    await off.close();
    rmSync(d, { recursive: true, force: true });
  }
});
