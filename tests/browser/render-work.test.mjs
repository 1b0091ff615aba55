// Browser test of what a step costs the page (web/js/main.js render(), the
// views it calls): counted in DOM changes, not in time.  A render with
// nothing new changes nothing in the document; a step forward keeps the
// caches table's rows and buttons and the transport's controls (their
// numbers and words change in place), and adds no element there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, labFixture, waitAt } from './helpers.mjs';

let browser, base;
labFixture((f) => ({ browser, base } = f));

const SCENARIO = 'maple-prefill-kfree-rcu'; // the largest shipped scenario

/** Resolve once the page has gone @quietMs without a DOM change (answers arriving, a first draw). */
const quiet = (page, quietMs = 400) => page.evaluate((ms) => new Promise((ok, fail) => {
  let timer = setTimeout(done, ms);
  const give = setTimeout(() => { mo.disconnect(); fail(new Error('the page never went quiet')); }, 15000);
  const mo = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, ms); });
  function done() { mo.disconnect(); clearTimeout(give); ok(); }
  mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}), quietMs);

/**
 * Run @act in the page (a string of code), wait for position @at (if
 * given) and two frames more; the DOM changes meanwhile under each of
 * @sels: records in all, elements added, and what they were.
 */
const changes = (page, sels, act, at = null) => page.evaluate(async ([ss, code, want]) => {
  const where = (n) => (n.nodeType === 1 ? n : n.parentElement);
  const name = (el) => (el ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}` : '?');
  const watch = ss.map((s) => {
    const recs = [];
    const mo = new MutationObserver((rs) => recs.push(...rs));
    mo.observe(/** @type {Node} */ (document.querySelector(s)), { subtree: true, childList: true, attributes: true, characterData: true });
    return { recs, mo };
  });
  // eslint-disable-next-line no-new-func
  await new Function(`return (async () => { ${code} })()`)();
  const t0 = performance.now();
  while (want !== null && document.body.dataset.at !== String(want) && performance.now() - t0 < 10000) await new Promise((ok) => setTimeout(ok, 5));
  for (let i = 0; i < 2; i++) await new Promise((ok) => requestAnimationFrame(() => ok()));
  await new Promise((ok) => setTimeout(ok, 50));
  return watch.map(({ recs, mo }) => {
    recs.push(...mo.takeRecords());
    mo.disconnect();
    return {
      records: recs.length,
      added: recs.reduce((n, r) => n + [...r.addedNodes].filter((x) => x.nodeType === 1).length, 0),
      what: [...new Set(recs.map((r) => `${r.type}${r.attributeName ? `[${r.attributeName}]` : ''} in ${name(where(r.target))}`))].slice(0, 12),
    };
  });
}, [sels, act, at]);

test('a render with nothing new changes nothing in the page', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?scenario=${SCENARIO}`, { width: 1400, height: 900 });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await waitAt(page, 3);
    await quiet(page);
    // the player tells the page to render, with the same model: every view runs, none writes
    const [c] = await changes(page, ['body'], 'window.__slublab.player.emit();');
    assert.equal(c.records, 0, `a render of the same state changed the page: ${c.what.join('; ')}`);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a step keeps the caches table and the transport, changing their numbers in place', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?scenario=${SCENARIO}`, { width: 1400, height: 900 });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]');
    // from a step where the run's cache exists (the first events create it)
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    await waitAt(page, 4);
    await quiet(page);
    let moved = 0;
    for (let at = 5; at <= 16; at++) {
      const before = await page.evaluate(() => document.querySelector('#cache-table tbody').textContent);
      const key = 'document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));';
      const [cachesC, controlsC] = await changes(page, ['#caches', '#controls'], key, at);
      await quiet(page, 150);
      const after = await page.evaluate(() => document.querySelector('#cache-table tbody').textContent);
      if (after !== before) moved++;
      assert.equal(cachesC.added, 0, `step to ${at} rebuilt the caches table: ${cachesC.what.join('; ')}`);
      assert.equal(controlsC.added, 0, `step to ${at} rebuilt the transport: ${controlsC.what.join('; ')}`);
    }
    // the steps did change the table's numbers (so the check above saw updates, not nothing)
    assert.ok(moved > 0, 'no step changed the caches table');
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});

test('a render with no markers to place reads no layout for them (no forced layout mid-render)', async (t) => {
  const page = await openPage(browser.ctx, `${base}/?scenario=${SCENARIO}`, { width: 1400, height: 900 });
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]');
    await quiet(page);
    // a run whose markers are not in yet (the first draw, before the events arrive): none shown
    const reads = await page.evaluate(async () => {
      const marks = /** @type {HTMLElement} */ (document.querySelector('#controls .markers'));
      let n = 0;
      for (const k of ['clientWidth', 'offsetWidth', 'offsetHeight']) {
        const get = Object.getOwnPropertyDescriptor(k === 'clientWidth' ? Element.prototype : HTMLElement.prototype, k).get;
        Object.defineProperty(marks, k, { configurable: true, get() { n++; return get.call(this); } });
      }
      const p = window.__slublab.player;
      p.get().markers = [];
      for (let i = 0; i < 3; i++) {
        p.emit();
        await new Promise((ok) => { requestAnimationFrame(() => ok()); });
      }
      return { n, shown: marks.children.length };
    });
    assert.equal(reads.shown, 0);
    assert.equal(reads.n, 0, 'the timeline measured its empty marker track');
  });
  await page.close();
});
