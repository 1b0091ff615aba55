// bench/follow-lag.mjs [ROUNDS]: how far behind a presenter playing at 16
// steps a second a hundred followers stay (docs/benchmarks.md, "Followers
// of a presenter").  The set-up of tests/browser/follow.test.mjs: the real
// server (build/slublab or SLUBLAB_BIN), a presenter page on order-fallback
// in Debian's Chromium, 3 follower pages and 97 node followers (the event
// stream and the state fetch a page makes), all opened before the presenter
// plays 10 s.  A follower's lag at a moment is how long ago the presenter
// first showed a later step than the one the follower shows (0 while it
// shows the presenter's step); its worst lag is the largest over the 10 s
// but the first second.  Prints, per round, the worst lags' median, p90,
// p99 and maximum, and how many followers stayed within 1 s.
// Run: node bench/follow-lag.mjs 3
import { startServer, startBrowser, openPage } from '../tests/browser/helpers.mjs';
import { trail, nodeFollower } from '../tests/browser/followers.mjs';

const ROUNDS = Number(process.argv[2] ?? 3);
const PLAY_MS = 10000, PAGES = 3, NODES = 97, SPEED = 16;

/** The first time trail @pt shows a step past @at, or Infinity. */
function firstPast(pt, at) {
  for (const [time, a] of pt) if (a > at) return time;
  return Infinity;
}

/** The worst lag (ms) of follower trail @ft behind presenter trail @pt, every 50 ms in [from, to]. */
function worstLag(pt, ft, from, to) {
  let worst = 0, k = 0, at = 0;
  for (let time = from; time <= to; time += 50) {
    while (k < ft.length && ft[k][0] <= time) at = ft[k++][1];
    const since = firstPast(pt, at);
    if (since <= time) worst = Math.max(worst, time - since);
  }
  return worst;
}

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const server = await startServer();
const browser = await startBrowser();
const open = async (path) => {
  const page = await openPage(browser.ctx, server.url + path);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
};
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const presenter = await open('/?scenario=order-fallback&presenter=1');
    const id = await presenter.evaluate(() => window.__slublab.player.get().session.id);
    const pages = [];
    for (let i = 0; i < PAGES; i++) pages.push(await open(`/?follow=${id}`));
    for (const p of pages) await trail(p);
    const nodes = [];
    for (let i = 0; i < NODES; i++) {
      nodes.push(nodeFollower(`${server.url}/api/sessions/${id}/follow`, (d) => `${server.url}/api/sessions/${d.session}/state?at=${d.at}`));
    }
    const opened = Date.now() + 10000;
    while (nodes.some((f) => f.shown < 0) && Date.now() < opened) await new Promise((ok) => setTimeout(ok, 50));
    await trail(presenter);
    const start = Date.now();
    await presenter.evaluate((speed) => { const p = window.__slublab.player; p.setSpeed(speed); p.play(); }, SPEED);
    await presenter.waitForTimeout(PLAY_MS);
    const end = Date.now();
    await presenter.evaluate(() => window.__slublab.player.pause());
    const pt = await presenter.evaluate(() => window.__trail);
    const lags = [];
    for (const p of pages) lags.push(worstLag(pt, await p.evaluate(() => window.__trail), start + 1000, end));
    for (const f of nodes) { f.stop(); lags.push(f.error ? Infinity : worstLag(pt, f.trail, start + 1000, end)); }
    lags.sort((a, b) => a - b);
    const reached = pt.length ? pt[pt.length - 1][1] : 0;
    console.log(`round ${round}: presenter reached step ${reached} in ${(end - start) / 1000} s; ` +
      `worst lag of ${lags.length} followers: median ${pct(lags, 50)} ms, p90 ${pct(lags, 90)} ms, ` +
      `p99 ${pct(lags, 99)} ms, max ${lags[lags.length - 1]} ms; within 1 s: ${lags.filter((x) => x <= 1000).length}`);
    for (const p of pages) await p.close();
    await presenter.close();
  }
} finally {
  await browser.stop();
  await server.stop();
}
