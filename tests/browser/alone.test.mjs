// Browser tests of a student alone with the course (docs/lessons.md): a
// plain visit's way in, the way on from a lesson's last slide, the
// glossary and the slides' links into it, predict mode that keeps the
// scenario's story back, one score per lesson, a lesson's question that
// stays open, `b` with no breakpoint, exercises whose examples the lab
// accepts and whose attempt opens clean, and the slide as a sheet on a phone.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/alone.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, api, waitAt, model, press, labFixture } from './helpers.mjs';

let browser, base;
labFixture((f) => ({ browser, base } = f));

const ready = (page) => page.waitForSelector('body[data-ready="1"]');
const applied = (page, k) => page.waitForSelector(`#lesson[data-applied="${k}"]`, { timeout: 20000 });

test('a plain visit offers the course: lesson 01 in one click, the menu names it, the last slide leads on', async (t) => {
  const { lessons } = await api(base, '/api/lessons');
  const page = await openPage(browser.ctx, `${base}/`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await ready(page);
    await page.waitForSelector('#course-start:not([hidden]) #course-start-first');
    assert.match(await page.textContent('#course-start-first'), new RegExp(lessons[0].title));
    assert.match(await page.textContent('#course-start'), /\(\d+ min\)/, 'how long each lesson takes');
    await page.click('#course-start-first');
    await applied(page, 1);
    assert.match(await page.textContent('#lesson-head'), new RegExp(lessons[0].title));
    assert.equal(await page.isHidden('#course-start'), true, 'the way in steps aside once a lesson is open');
    assert.equal(await page.$eval('#course-select', (s) => s.options[0].textContent), `Lesson 1: ${lessons[0].title}`);
    // the last slide: the next lesson, one click on
    await page.goto(`${base}/?lesson=${lessons[0].id}&slide=${lessons[0].slides}`);
    await applied(page, lessons[0].slides);
    assert.equal(await page.textContent('#lesson-where'), 'The end of the lesson.');
    await page.waitForSelector('#lesson-next-lesson');
    await page.click('#lesson-next-lesson');
    await applied(page, 1);
    assert.match(await page.textContent('#lesson-head'), new RegExp(lessons[1].title));
    // the barn's lesson ends with its exercises
    const barn = lessons.find((l) => l.id === '03-the-barn');
    await page.goto(`${base}/?lesson=${barn.id}&slide=${barn.slides}`);
    await applied(page, barn.slides);
    await page.waitForSelector('#lesson-onward [data-exercise="barn-get"]');
    await page.click('#lesson-onward [data-exercise="barn-get"]');
    await page.waitForSelector('#exercise:not([hidden])');
    assert.match(await page.textContent('#ex-title'), /barn/);
    // a page that names a session is not offered the course
    const { id } = await model(page);
    await page.goto(`${base}/?session=${id}`);
    await ready(page);
    await page.waitForTimeout(300);
    assert.equal(await page.isHidden('#course-start'), true);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

// the terms every lesson and view leans on (issue: a student alone with the lessons)
const TERMS = ['sheaf', 'main sheaf', 'spare sheaf', 'barn', 'partial list', 'freelist', 'in flight', 'rcu_free sheaf', 'pending RCU',
  'prefilled sheaf', 'other places', 'order', 'min_partial', 'MAX_FULL_SHEAVES', 'remote_node_defrag_ratio', 'notable event',
  'REFILL_NONBLOCKING', 'partial sheaf', 'object_size', 'slab_size', 'objs_per_slab', 'free pointer'];

test('the glossary holds every term, reached from the header and from a slide\'s words', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?lesson=01-object-and-slab`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await applied(page, 1);
    await page.click('#glossary-open');
    await page.waitForSelector('#glossary[open]');
    const terms = await page.$$eval('#glossary-list dt', (dts) => dts.map((d) => d.textContent));
    for (const x of TERMS) assert.ok(terms.includes(x), `the glossary has "${x}"`);
    const from = await page.$$eval('#glossary-list dd .gl-from', (xs) => xs.length);
    assert.equal(from, terms.length, 'every term says where in the kernel it comes from');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#glossary:not([open])', { state: 'attached' });
    // slide 1 uses "barn" and "partial list" before any lesson explains them: each is a link
    for (const id of ['barn', 'partial-list', 'sheaf']) assert.ok(await page.$(`#lesson-text button.term[data-term="${id}"]`), `slide 1 links ${id}`);
    assert.ok((await page.getAttribute('#lesson-text button.term[data-term="barn"]', 'title')).length > 20, 'hover shows the words');
    await page.click('#lesson-text button.term[data-term="partial-list"]');
    await page.waitForSelector('#glossary[open] #gl-partial-list.gl-now');
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('predict mode keeps the scenario\'s story back; the score lasts the lesson; a lesson\'s question stays open', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?predict=1`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await ready(page);
    const info = await page.evaluate(() => window.__slublab.player.get().session.info.scenario.description);
    assert.ok(info.length > 20);
    await page.waitForSelector('#teaching');
    assert.equal((await page.textContent('#teaching')).includes(info), false, 'the story is not on screen in predict mode');
    assert.equal((await page.textContent('body')).includes(info), false, 'nor anywhere on the page');
    await press(page, 'q');
    await page.waitForFunction((d) => document.getElementById('teaching').textContent === d, info);

    // lesson 01: slide 2 asks in one scenario, slide 7 in another; the score counts both
    await page.goto(`${base}/?lesson=01-object-and-slab&slide=2`);
    await applied(page, 2);
    await page.waitForSelector('#q-choices .q-pick');
    // stepping back and forth again: the question is open again
    await press(page, 'ArrowLeft');
    await page.waitForSelector('#question[hidden]', { state: 'attached' });
    await press(page, 'ArrowRight');
    await page.waitForSelector('#q-choices .q-pick', { timeout: 5000 });
    await press(page, '1');
    await page.waitForSelector('#q-result');
    await page.waitForFunction(() => /\/1 right/.test(document.getElementById('score').textContent));
    const first = await page.textContent('#score');
    // at 1440x900 the score keeps the step counter on the buttons' row
    const row = await page.evaluate(() => ['#position', '#play', '#score'].map((q) => document.querySelector(q).getBoundingClientRect()).map((r) => [r.top, r.bottom]));
    assert.ok(row[0][0] < row[1][1] && row[0][1] > row[1][0], `the counter (${row[0].map(Math.round)}) on the buttons' row (${row[1].map(Math.round)}) beside the score`);
    for (let k = 3; k <= 7; k++) { await page.click('#lesson-next'); await applied(page, k); }
    await page.waitForSelector('#q-choices .q-pick');
    assert.equal(await page.textContent('#score'), first, 'another scenario, the same lesson: the score is kept');
    await press(page, '1');
    await page.waitForFunction(() => /\/2 right/.test(document.getElementById('score').textContent));
    // the course's score, kept in this browser, on the way in
    await page.goto(`${base}/`);
    await page.waitForSelector('#course-score');
    assert.match(await page.textContent('#course-score'), /\/2 right/);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('b with no breakpoint says so', async (t) => {
  const page = await openPage(browser.ctx, `${base}/`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await ready(page);
    await press(page, 'b');
    await page.waitForFunction(() => /No breakpoint is set/.test(document.getElementById('banner').textContent));
    assert.equal(await page.isVisible('#banner'), true);
  });
  await page.close();
});

/** The JSON objects written in @text ({...}, braces balanced). */
function jsonIn(text) {
  const out = [];
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) {
    let depth = 0, j = i, str = false;
    for (; j < text.length; j++) {
      const c = text[j];
      if (str) { if (c === '\\') j++; else if (c === '"') str = false; continue; }
      if (c === '"') str = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) break;
    }
    if (depth !== 0 || j >= text.length) continue;
    const s = text.slice(i, j + 1);
    if (/^\{\s*"/.test(s)) { out.push(s); i = j; }
  }
  return out;
}

test('every exercise\'s examples parse and run; the text says what counts; the attempt opens clean', async (t) => {
  const { exercises } = await api(base, '/api/exercises');
  let seen = 0;
  for (const x of exercises) {
    const ex = await api(base, `/api/exercises/${x.id}`);
    const ops = [];
    for (const text of [ex.task, ...(ex.hints ?? [])]) {
      for (const s of jsonIn(text)) {
        let op;
        assert.doesNotThrow(() => { op = JSON.parse(s); }, `${x.id}: ${s}`);
        if (op.op) ops.push(op);
        seen++;
      }
    }
    if (!ops.length) continue;
    const r = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scenario: { ...ex.preset, ops: [...ex.preset.ops, ...ops] } }) });
    assert.ok(r.ok, `${x.id}: the lab runs its examples: ${r.status} ${await r.text()}`);
  }
  assert.ok(seen >= 6, `${seen} examples`);

  const page = await openPage(browser.ctx, `${base}/?lesson=03-the-barn&slide=8`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await applied(page, 8);
    assert.ok((await page.evaluate(() => window.__slublab.player.get().breakpoints.length)) > 0, 'the slide sets a breakpoint');
    // from the lesson, the menu's exercise: the slide's breakpoint is still in the player
    await page.selectOption('#course-select', 'exercise:barn-get');
    await page.waitForSelector('#exercise:not([hidden]) #ex-max');
    assert.doesNotMatch(await page.textContent('#ex-max'), /"count"/);
    const ex = await api(base, '/api/exercises/barn-get');
    await page.fill('#scenario-text', JSON.stringify({ ...ex.preset, ops: ex.solution }));
    await page.click('#ex-check');
    await page.waitForSelector('#ex-verdict');
    await page.click('#ex-run');
    await waitAt(page, 0, 10000);
    assert.equal(await page.isHidden('#lesson'), true);
    assert.equal(await page.evaluate(() => window.__slublab.player.get().breakpoints.length), 0, 'no breakpoint left over');
  });
  await page.close();
});

test('on a phone the slide is a sheet over the picture, both on screen', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?lesson=01-object-and-slab&slide=3`, { width: 390, height: 844 });
  await shotOnFailure(t, page, async () => {
    await applied(page, 3);
    await page.waitForTimeout(300);
    const sheet = await page.$eval('#sheet', (el) => el.getBoundingClientRect().toJSON());
    assert.ok(sheet.top >= 0 && sheet.bottom <= 844 + 1 && sheet.height > 100, `the slide on screen: ${JSON.stringify(sheet)}`);
    // the picture above the sheet once scrolled to
    await page.$eval('#picture', (el) => el.scrollIntoView({ block: 'start' }));
    const pic = await page.$eval('#picture', (el) => el.getBoundingClientRect().toJSON());
    const sheet2 = await page.$eval('#sheet', (el) => el.getBoundingClientRect().toJSON());
    assert.ok(pic.top < sheet2.top - 150, `the picture shows above the sheet: ${pic.top} vs ${sheet2.top}`);
    assert.ok(sheet2.top >= 0 && sheet2.bottom <= 845, 'the sheet stays');
    await page.screenshot({ path: 'test-output/alone-phone.png' });
  });
  await page.close();
});

/** Whether the page's spotlight is on screen, not covered (on a phone: above the slide's sheet): true, or why not. */
/**
 * Polls spotSeen() in the page (a function, not a string: the page's CSP
 * forbids eval) until it says true or @ms pass.
 */
async function waitSpot(page, ms) {
  for (const end = Date.now() + ms; Date.now() < end; await page.waitForTimeout(100))
    if ((await page.evaluate(spotSeen)) === true) return true;
  return false;
}

function spotSeen() {
  const el = document.querySelector('.spot');
  if (!el) return 'no spotlight';
  const r = el.getBoundingClientRect();
  const sheet = document.getElementById('sheet');
  const room = getComputedStyle(sheet).position === 'fixed' ? sheet.getBoundingClientRect().top : innerHeight;
  const what = `${el.tagName}[${el.id || el.getAttribute('data-spot') || ''}] at ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)} (room ${Math.round(room)})`;
  if (r.bottom < 4 || r.top > room - 8 || r.right < 4 || r.left > innerWidth - 4) return `out of view: ${what}`;
  const x = Math.min(Math.max(r.left + Math.min(r.width / 2, 30), 2), innerWidth - 2);
  const y = Math.min(Math.max(r.top + Math.min(r.height / 2, 10), 2), room - 2);
  const hit = document.elementFromPoint(x, y);
  return hit && (el.contains(hit) || hit.contains(el)) ? true : `covered by ${hit?.tagName}#${hit?.id}: ${what}`;
}

/**
 * Beside the spotlight, the slide's own title, wherever the window can hold
 * both: scrolling to a spotlit tab must not take the slide's words away.
 */
function slideSeen() {
  const spot = document.querySelector('.spot').getBoundingClientRect();
  const title = document.getElementById('lesson-slide-title').getBoundingClientRect();
  if (spot.top + Math.min(spot.height, 40) - title.top > innerHeight) return true; // cannot hold both
  return title.top >= 0 && title.bottom <= innerHeight ? true
    : `the slide's title out of view at ${Math.round(title.top)} (the spotlight at ${Math.round(spot.top)})`;
}

for (const vp of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
  test(`every slide of every lesson shows its spotlight in view at ${vp.width}x${vp.height}`, async (t) => {
    const { lessons } = await api(base, '/api/lessons');
    const page = await openPage(browser.ctx, null, vp);
    await shotOnFailure(t, page, async () => {
      for (const l of lessons) {
        await page.goto(`${base}/?lesson=${l.id}`);
        for (let k = 1; k <= l.slides; k++) {
          if (k > 1) await page.click('#lesson-next');
          await applied(page, k);
          await waitSpot(page, 8000);
          assert.equal(await page.evaluate(spotSeen), true, `${l.id} slide ${k}`);
          if (vp.width > 400) assert.equal(await page.evaluate(slideSeen), true, `${l.id} slide ${k}`);
        }
      }
      assert.deepEqual(page.errors, []);
    });
    await page.close();
  });
}

test('after End, Back to this slide\'s step returns to it; on a phone, Show brings the slide\'s counters back into view', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?lesson=03-the-barn&slide=4`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await applied(page, 4);
    await waitAt(page, 70, 10000);
    assert.equal(await page.isHidden('#lesson-back'), true, 'at the slide\'s step: no way back needed');
    await press(page, 'End');
    await page.waitForSelector('#lesson-back:not([hidden])');
    await page.click('#lesson-back');
    await waitAt(page, 70, 10000);
    await page.waitForSelector('#lesson-back[hidden]', { state: 'attached' });
    // a phone, a slide about the counters: scrolled away, one tap brings them back above the sheet
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/?lesson=03-the-barn&slide=9`);
    await applied(page, 9);
    assert.equal(await waitSpot(page, 8000), true, 'the slide\'s counters in view');
    assert.equal(await page.textContent('#lesson-show'), 'Show Counters');
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.notEqual(await page.evaluate(spotSeen), true, 'scrolled away');
    await page.click('#lesson-show');
    assert.equal(await waitSpot(page, 5000), true, 'Show brings them back');
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('one object, one identity: a reused object is "the same object as o0"; no misleading names; the free pointer at its offset', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?lesson=02-fast-paths-and-sheaves&slide=3`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    // lesson 02, "the same object again": o1 pops the object o0 was
    await applied(page, 3);
    await waitAt(page, 14, 10000);
    await page.waitForFunction(() => /o1 is the same object as o0/.test(document.getElementById('narration').textContent), null, { timeout: 5000 });
    // the caller's pocket names what it holds, with its address
    await page.waitForFunction(() => [...document.querySelectorAll('#lab-view svg.topo .caller text')].some((x) => /^o1 …[0-9a-f]{5}$/.test(x.textContent)));
    await page.click('#lab-view svg.topo .caller .held');
    await page.waitForSelector('#tab-inspect dl.kv');
    const kv = await page.textContent('#tab-inspect dl.kv');
    assert.match(kv, /same object as\s*o0: freed, then handed out again as o1/);
    // no name reads as a place or a path: "first" (the freelist's head) or "remote" (CPU 1's own object)
    for (const [lesson, slide] of [['02-fast-paths-and-sheaves', 3], ['02-fast-paths-and-sheaves', 7], ['01-object-and-slab', 5]]) {
      await page.goto(`${base}/?lesson=${lesson}&slide=${slide}`);
      await applied(page, slide);
      await page.waitForTimeout(300);
      const names = await page.evaluate(() => Object.values(window.__slublab.player.get().cur?.names ?? {}));
      assert.deepEqual(names.filter((n) => /^(first|remote|head|next)$/.test(n)), [], `${lesson} slide ${slide}: ${names}`);
      assert.doesNotMatch(await page.textContent('#narration'), /\(remote\)|\(first\)/);
    }
    // lesson 01, slide 4: the slab's free pointers sit at offset 32 of their objects, as the text says
    await page.goto(`${base}/?lesson=01-object-and-slab&slide=4`);
    await applied(page, 4);
    assert.match(await page.textContent('#lesson-text'), /offset 32/);
    await page.evaluate(() => {
      const st = window.__slublab.player.get().cur.state;
      window.__slublab.player.select({ kind: 'slab', id: st.slabs[0].addr, slab: st.slabs[0].addr });
    });
    await page.click('#tabbtn-inspect');
    await page.waitForSelector('#hexdump tr.fpnote');
    assert.match(await page.textContent('#tab-inspect .dump p'), /at offset 32 of each free object/);
    const notes = await page.$$eval('#hexdump tr.fpnote', (rs) => rs.map((r) => r.textContent));
    assert.ok(notes.length >= 4, notes.join('\n'));
    for (const n of notes) assert.match(n, /fp of \S+ at \+32:/, n);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('the picture\'s labels and the timeline\'s marks link the glossary: hover words, a click or Enter opens it there, the keys go on', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?lesson=03-the-barn&slide=4`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await applied(page, 4);
    await waitAt(page, 70, 10000);
    const want = { barn: 'barn', 'partial-list': 'partial list', 'in-flight': 'in flight', prefilled: 'prefilled sheaf', 'rcu-pending': 'pending RCU',
      other: 'other places', main: 'main sheaf', spare: 'spare sheaf', 'rcu-free': 'rcu_free sheaf' };
    for (const [id, term] of Object.entries(want)) {
      const title = await page.$eval(`#picture svg.topo text.term-link[data-term="${id}"] > title`, (x) => x.textContent).catch(() => '');
      assert.ok(title.startsWith(`${term}: `) && title.length > term.length + 30, `the picture's ${id} label shows the glossary's words on hover: "${title}"`);
    }
    const marks = await page.getAttribute('#marks-term', 'title');
    assert.match(marks ?? '', /^notable event: /, 'the timeline\'s marks say what they are');
    assert.match(await page.getAttribute('#controls .markers .mark', 'title'), /notable event/);
    // a click opens the glossary at the term; Esc closes it
    await page.click('#picture svg.topo text.term-link[data-term="barn"]');
    await page.waitForSelector('#glossary[open] #gl-barn.gl-now');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#glossary:not([open])', { state: 'attached' });
    assert.equal(await model(page).then((m) => m.selection), null, 'the click was the glossary\'s, not a selection of the barn');
    await page.click('#marks-term');
    await page.waitForSelector('#glossary[open] #gl-notable.gl-now');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#glossary:not([open])', { state: 'attached' });
    // the keyboard: focus a label, Enter opens it, Esc gives the focus back, → still steps
    await page.focus('#picture svg.topo text.term-link[data-term="partial-list"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#glossary[open] #gl-partial-list.gl-now');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#glossary:not([open])', { state: 'attached' });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-term')), 'partial-list', 'the focus is back on the label');
    const at = (await model(page)).at;
    await page.keyboard.press('ArrowRight');
    await waitAt(page, at + 1);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('an event\'s moves are listed where lesson 01 points at them: the order the fresh slab handed its objects out', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?lesson=01-object-and-slab&slide=6`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await applied(page, 6);
    assert.match(await page.textContent('#lesson-text'), /This step/);
    await page.waitForSelector('#event-moves.spot');
    const moves = await page.textContent('#event-moves');
    assert.match(moves, /8 objects: slab S0 → sheaf #\d+ \(in flight\): …00e00, …00800, …00200, /);
    assert.equal(await waitSpot(page, 5000), true, 'the moves list is in view');
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('lesson 13 in predict mode: the race is on screen and keeps its steps to come back; the slide names the objects as the screen does', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?lesson=13-races&slide=3&predict=1`, { width: 1440, height: 900 });
  await shotOnFailure(t, page, async () => {
    await applied(page, 3);
    assert.equal(await waitSpot(page, 8000), true, 'the race panel is the slide\'s spotlight, in view');
    assert.ok(await page.isVisible('#lesson-text'), 'with the slide\'s text');
    // "What will A's cmpxchg find?": no ✗ and no retry on screen before the answer
    await page.waitForSelector('#race .race-kept');
    assert.equal(await page.$$eval('#race .race-step.next', (x) => x.length), 0, 'no step to come is drawn');
    assert.doesNotMatch(await page.textContent('#race table'), /✗/);
    await press(page, 'q');
    await page.waitForSelector('#race .race-step.next');
    assert.match(await page.textContent('#race table'), /cmpxchg ✗/, 'predict mode off: the whole schedule');
    // the last slide speaks of the objects by the names the narration and the picture use
    await page.goto(`${base}/?lesson=13-races&slide=11`);
    await applied(page, 11);
    await page.waitForTimeout(300);
    const names = await page.evaluate(() => Object.values(window.__slublab.player.get().cur?.names ?? {}));
    const said = (await page.textContent('#lesson-text')).match(/\b[a-z]\d\b/g) ?? [];
    assert.ok(said.length >= 2, said.join());
    for (const n of said) assert.ok(names.includes(n), `"${n}" is a name on screen (${names})`);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
