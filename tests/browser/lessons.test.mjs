// Browser tests of the shipped course (lessons/*.json, docs/teaching.md):
// every lesson the server lists is opened and played to its end with Next,
// and every slide is checked where it lands: the progress bar, the step
// (and on a slide naming a scenario, that scenario), the tab, and on an
// ask slide the question, whose choices are the arms the event records.
// Every exercise opens above the editor with its preset.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/lessons.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, api, waitAt, model, labFixture } from './helpers.mjs';

let browser, base;
labFixture((f) => ({ browser, base } = f));

test('every lesson plays to its end, each slide where it says', async (t) => {
  const { lessons } = await api(base, '/api/lessons');
  assert.ok(lessons.length >= 12, `${lessons.length} lessons`);
  const page = await openPage(browser.ctx);
  await shotOnFailure(t, page, async () => {
    for (const l of lessons) {
      const lesson = await api(base, `/api/lessons/${l.id}`);
      assert.equal(lesson.slides.length, l.slides, l.id);
      await page.goto(`${base}/?lesson=${l.id}`);
      await page.waitForSelector('body[data-ready="1"]');
      let scenario = null;
      for (let k = 1; k <= lesson.slides.length; k++) {
        const s = lesson.slides[k - 1];
        const where = `${l.id} slide ${k}`;
        if (k > 1) await page.click('#lesson-next');
        await page.waitForSelector(`#lesson[data-applied="${k}"]`, { timeout: 20000 });
        assert.equal(await page.getAttribute('#lesson-progress', 'aria-valuenow'), String(k), where);
        assert.equal(await page.textContent('#lesson-slide-title'), s.title, where);
        assert.equal(await page.textContent('#lesson-where'), k === lesson.slides.length ? 'The end of the lesson.' : '', where);
        if (s.at != null) await waitAt(page, s.at, 10000);
        scenario = s.scenario ?? scenario;
        assert.equal((await model(page)).scenario, scenario, where);
        if (s.tab) assert.equal(await page.getAttribute(`#tabbtn-${s.tab}`, 'aria-selected'), 'true', where);
        if (s.ask) {
          await page.waitForSelector('#question:not([hidden]) #q-choices .q-pick', { timeout: 10000 });
          const rec = await page.evaluate(() => { const m = window.__slublab.player.get(); return m.events.get(m.question)?.branches?.[0] ?? null; });
          assert.ok(rec, `${where}: the asked event carries a branch record`);
          assert.deepEqual(await page.$$eval('#q-choices > li', (lis) => lis.map((li) => li.dataset.arm)), rec.arms, where);
          assert.doesNotMatch(await page.textContent('#q-ask'), /[{}]/, `${where}: every placeholder filled`);
        }
      }
      assert.equal(await page.isDisabled('#lesson-next'), true, l.id);
      assert.deepEqual(page.errors, [], l.id);
    }
  });
  await page.close();
});

test('every exercise opens above the editor with its preset', async (t) => {
  const { exercises } = await api(base, '/api/exercises');
  assert.ok(exercises.length >= 8, `${exercises.length} exercises`);
  const page = await openPage(browser.ctx);
  await shotOnFailure(t, page, async () => {
    for (const x of exercises) {
      const ex = await api(base, `/api/exercises/${x.id}`);
      await page.goto(`${base}/?exercise=${x.id}`);
      await page.waitForSelector('#exercise:not([hidden])');
      assert.equal(await page.textContent('#ex-title'), `Exercise: ${ex.title}`);
      await page.waitForFunction((name) => document.querySelector('#scenario-text')?.value.includes(name), ex.preset.name);
      assert.deepEqual(JSON.parse(await page.inputValue('#scenario-text')), ex.preset, x.id);
      assert.deepEqual(page.errors, [], x.id);
    }
  });
  await page.close();
});
