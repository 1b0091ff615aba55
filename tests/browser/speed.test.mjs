// Browser test of the honest speed menu (web/js/state.js playedSpeed(),
// views/timeline.js): playing, the page shows the speed it actually plays
// at, and a speed it does not reach is taken out of the menu; with 30
// followers on the presenter's session, the menu's top speed is one the
// player reaches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, api, labFixture, LONG_RUN, OUT } from './helpers.mjs';
import { nodeFollower } from './followers.mjs';
import { join } from 'node:path';

let browser, base;
labFixture((f) => ({ browser, base } = f));

const JSON_POST = { method: 'POST', headers: { 'Content-Type': 'application/json' } };
const player = (page) => page.evaluate(() => {
  const m = window.__slublab.player.get();
  return { speed: m.speed, limit: m.speedLimit, rate: m.playRate, playing: m.playing };
});

test('playing shows the speed it plays at, and offers no speed it does not reach', async (t) => {
  const s = await api(base, '/api/sessions', { ...JSON_POST, body: JSON.stringify({ scenario: LONG_RUN }) });
  const page = await openPage(browser.ctx, `${base}/?session=${s.id}&at=0`, { width: 1280, height: 720 });
  await shotOnFailure(t, page, async () => {
    await page.waitForSelector('body[data-ready="1"]');
    for (let i = 0; i < 5; i++) await page.click('#speed-up');
    assert.equal((await player(page)).speed, 128);
    // the label is drawn on the next frame, after the model changed
    await page.waitForFunction(() => document.querySelector('#speed-out').textContent === '128 steps/s', null, { timeout: 5000 });
    await page.click('#play');
    // a whole window measured, and shown: the rate played at, of the speed asked
    await page.waitForFunction(() => {
      const p = window.__slublab.player.get();
      return p.playRate !== null && document.querySelector('#speed-out').textContent === `${Math.round(p.playRate)} of ${p.speed} steps/s`;
    }, null, { timeout: 15000 });
    const m = await player(page);
    await page.screenshot({ path: join(OUT, 'speed-playing.png'), clip: { x: 0, y: 0, width: 1280, height: 160 } });
    if (m.limit < 128) {
      // a speed not reached went: the setting is the fastest reached, and + offers nothing faster
      assert.equal(m.speed, m.limit);
      await page.waitForSelector('#speed-up[aria-disabled="true"]', { timeout: 5000 });
      await page.click('#speed-up', { force: true }); // clickable, and does nothing
      // nothing faster than the limit read above; the player may have measured
      // a slower window meanwhile and lowered both again
      const after = await player(page);
      assert.ok(after.speed <= m.limit, `+ went past the limit: ${after.speed} of ${m.limit}`);
      assert.equal(after.speed, after.limit);
    } else {
      assert.ok(m.rate >= 0.9 * 128, `128 kept, so reached: ${m.rate}`);
    }
    // paused: the setting alone (drawn on the next frame)
    await page.click('#play');
    await page.waitForFunction(() => /^\d+(\.\d+)? steps\/s$/.test(document.querySelector('#speed-out').textContent), null, { timeout: 5000 });
  });
  await page.close();
});

test('a presenter with 30 followers: the menu\'s top speed is one the player reaches', async (t) => {
  const s = await api(base, '/api/sessions', { ...JSON_POST, body: JSON.stringify({ scenario: LONG_RUN }) });
  const page = await browser.ctx.newPage();
  await page.setViewportSize({ width: 1280, height: 720 });
  // the page finds the session's write token as if it had made it: it publishes its moves
  await page.addInitScript(([id, token]) => localStorage.setItem('slublab.tokens', JSON.stringify({ [id]: token })), [s.id, s.token]);
  await page.goto(`${base}/?session=${s.id}&at=0`);
  const followers = Array.from({ length: 30 }, () =>
    nodeFollower(`${base}/api/sessions/${s.id}/follow`, (d) => `${base}/api/sessions/${d.session}/state?at=${d.at}`));
  try {
    await shotOnFailure(t, page, async () => {
      await page.waitForSelector('body[data-ready="1"]');
      const opened = Date.now() + 10000;
      while (followers.some((f) => f.shown < 0 && !f.error) && Date.now() < opened) await new Promise((ok) => setTimeout(ok, 50));
      assert.deepEqual(followers.filter((f) => f.error).map((f) => String(f.error)), [], 'every follower attached');
      for (let i = 0; i < 5; i++) await page.click('#speed-up');
      assert.equal((await player(page)).speed, 128);
      await page.click('#play');
      // settled: a whole window measured at the menu's top speed, and reached
      const seen = [];
      let m;
      for (const until = Date.now() + 30000; Date.now() < until;) {
        await page.waitForTimeout(250);
        m = await player(page);
        if (m.rate !== null) seen.push(`${Math.round(m.rate)} of ${m.speed}`);
        if (m.rate !== null && m.speed === m.limit && m.rate >= 0.9 * m.speed) break;
      }
      const moved = followers.filter((f) => f.shown > 0).length;
      t.diagnostic(`30 followers (${moved} moved): measured ${[...new Set(seen)].join(', ')} steps/s; ` +
        `the menu's top speed ${m.limit}, played at ${m.rate === null ? '?' : m.rate.toFixed(1)} steps/s`);
      assert.ok(m.playing, 'still playing');
      assert.equal(m.speed, m.limit, 'playing at the menu\'s top speed');
      assert.ok(m.rate !== null && m.rate >= 0.9 * m.limit, `the top speed ${m.limit} reached: ${m.rate}`);
      assert.ok(moved >= 25, `the followers moved with the presenter: ${moved} of 30`);
      if (m.limit < 128) await page.waitForSelector('#speed-up[aria-disabled="true"]', { timeout: 5000 });
      await page.screenshot({ path: join(OUT, 'speed-30-followers.png'), clip: { x: 0, y: 0, width: 1280, height: 160 } });
      await page.click('#play');
    });
  } finally {
    for (const f of followers) f.stop();
    await page.close();
  }
});
