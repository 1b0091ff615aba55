// Browser tests of the overview strip (web/js/views/overview.js): drawn
// from GET /api/sessions/ID/overview over the whole run, a drag zooms in
// (the server answers a finer level), a click goes to that step, and the
// keyboard does both (arrows, Enter, +, -, 0) without stepping the player.
// Run: SLUBLAB_BIN=build/slublab node --test tests/browser/overview.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, api, model, inkedPixels, labFixture, LONG_RUN } from './helpers.mjs';

let browser, base;
labFixture((f) => ({ browser, base } = f));

const JSON_POST = { method: 'POST', headers: { 'Content-Type': 'application/json' } };

const strip = async (page) => page.evaluate(() => {
  const el = document.getElementById('overview');
  return { hidden: el.hidden, from: Number(el.dataset.from), to: Number(el.dataset.to), width: Number(el.dataset.width), level: Number(el.dataset.level) };
});

test('the overview strip: drawn over the whole run, a drag zooms to a finer level, a click seeks, keys too', async (t) => {
  const s = await api(base, '/api/sessions', { ...JSON_POST, body: JSON.stringify({ scenario: LONG_RUN }) });
  const info = await api(base, `/api/sessions/${s.id}`);
  assert.ok(info.events > 15000, `a long run: ${info.events} events`);
  const page = await openPage(browser.ctx, `${base}/?session=${s.id}&at=0`, { width: 1280, height: 900 });
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]');
    await page.waitForSelector('#overview[data-level]:not([hidden])');
    const whole = await strip(page);
    assert.equal(whole.from, 0);
    assert.equal(whole.to, info.events);
    assert.ok(whole.width > 1, `the whole run is drawn in buckets of ${whole.width} events`);
    assert.ok(await inkedPixels(page, '#overview-strip') > 2000, 'the tracks are drawn');

    // drag across a tenth of the strip: a finer level answers that range
    const box = await page.locator('#overview-strip').boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.3, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.35, y, { steps: 4 });
    await page.mouse.move(box.x + box.width * 0.4, y, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction((w) => Number(document.getElementById('overview').dataset.width) < w, whole.width);
    const zoomed = await strip(page);
    assert.ok(zoomed.level < whole.level, `level ${zoomed.level} < ${whole.level}`);
    const lo = info.events * 0.3, hi = info.events * 0.4;
    assert.ok(zoomed.from <= lo + whole.width && zoomed.from >= lo - 2 * whole.width, `from ${zoomed.from} near ${lo}`);
    assert.ok(zoomed.to >= hi - whole.width && zoomed.to <= hi + 2 * whole.width, `to ${zoomed.to} near ${hi}`);
    assert.match(await page.textContent('#overview-info'), /^steps \d+–\d+ of \d+/);
    assert.equal((await model(page)).at, 0, 'a drag does not move the player');

    // a click goes to the step under the pointer, inside the zoomed range
    await page.mouse.click(box.x + box.width * 0.5, y);
    await page.waitForFunction(() => window.__slublab.player.get().at > 0);
    const at = (await model(page)).at;
    const want = zoomed.from + 0.5 * (zoomed.to - zoomed.from);
    assert.ok(Math.abs(at - want) <= (zoomed.to - zoomed.from) / 50 + 2, `went to ${at}, about ${want}`);

    // the keyboard: 0 shows the whole run again, arrows move the cursor, Enter goes there
    await page.focus('#overview-strip');
    await page.keyboard.press('0');
    await page.waitForFunction((w) => Number(document.getElementById('overview').dataset.width) === w, whole.width);
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal((await model(page)).at, at, 'arrows on the strip do not step the player');
    await page.keyboard.press('Enter');
    await page.waitForFunction((w) => window.__slublab.player.get().at === 11 * w, whole.width);
    // + zooms in around the cursor, - back out
    await page.keyboard.press('+');
    await page.waitForFunction((w) => Number(document.getElementById('overview').dataset.width) < w, whole.width);
    await page.keyboard.press('-');
    await page.waitForFunction((w) => Number(document.getElementById('overview').dataset.width) === w, whole.width);
    assert.deepEqual(page.errors, []);
  });
  await page.close();
});
