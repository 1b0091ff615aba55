// bench/follow-lag.mjs [ROUNDS] [FOLLOWERS]: how far behind a presenter
// playing at 16 steps a second its followers stay (docs/benchmarks.md,
// "Followers of a presenter"), all on one address (loopback: a lecture
// hall behind one NAT) at the server's default limits.  The set-up of
// tests/browser/follow.test.mjs: the real server (build/slublab or
// SLUBLAB_BIN), a presenter page on order-fallback in Debian's Chromium,
// 3 follower pages and FOLLOWERS - 3 node followers (default 300 in all:
// the event stream and the state fetch a page makes, in a worker thread per
// CPU), all opened before
// the presenter plays 10 s.  A follower's lag at a moment is how long ago
// the presenter first showed a later step than the one the follower shows
// (0 while it shows the presenter's step); its worst lag is the largest
// over the 10 s but the first second.
//
// Prints a Markdown table, a row per round and server: the steps the
// presenter reached, its moves (POST .../step) that failed or were
// refused, the node followers' state fetches (p50, p99, failed: those
// they made, which a message that carries the state spares them; a server
// that sends states in the stream leaves only each one's first, all 297 at
// once when they open), the
// server's CPU over the 10 s (percent of one CPU, every thread) and its
// follow thread's (named slublab-follow: 0 for a server that does not name
// it), the share of the time their threads' event loops were busy (near 100 % the
// followers are late themselves: what they measure is their own delay as
// much as the server's), the presenter's worst lag behind its own page
// counting the moves the server answered ("moved": the page publishes its
// position at most every 100 ms), the node followers' worst lags counting
// the position the stream announced rather than the state shown ("heard":
// median and p99), the worst lags' median, p90, p99 and maximum, and how
// many followers stayed within 1 s.
//
// Then, per round, where one move's time goes, hop by hop (median and p99
// over every step the presenter showed and every node follower): "publish"
// from the presenter's page showing a step to its move's request leaving
// (a step skipped while a move was in flight counts until the next move
// leaves), "move" the request until its answer (the server noticed), "stream"
// from the answer to the node follower hearing a position at or past it,
// "show" from hearing it to showing a state at or past it (0 when the
// message carried the state; otherwise the state fetch), and "in stream"
// the share of the states the followers showed that the stream carried.  With SLUBLAB_BIN_BEFORE set, each round runs that program too,
// the two alternating (before first in odd rounds, after first in even);
// SLUBLAB_SERVE_ARGS adds options to both servers (to try other limits).
// Run: node bench/follow-lag.mjs 3 300
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

import { startServer, startBrowser, openPage } from '../tests/browser/helpers.mjs';
import { trail, nodeFollower } from '../tests/browser/followers.mjs';

// A worker thread holds its share of the node followers, so that their
// fetches and Playwright's round trips do not wait for one event loop:
// 'ready' once each has its first state, their trails and times on 'stop'.
if (!isMainThread) {
  const { url, id, n } = workerData;
  const nodes = [];
  for (let i = 0; i < n; i++) nodes.push(nodeFollower(`${url}/api/sessions/${id}/follow`, (d) => `${url}/api/sessions/${d.session}/state?at=${d.at}`));
  const opened = Date.now() + 10000;
  while (nodes.some((f) => f.shown < 0 && !f.error) && Date.now() < opened) await new Promise((ok) => setTimeout(ok, 50));
  parentPort.postMessage('ready');
  const elu0 = performance.eventLoopUtilization();
  parentPort.once('message', () => {
    const busy = performance.eventLoopUtilization(elu0).utilization;
    for (const f of nodes) f.stop();
    parentPort.postMessage({ busy, nodes: nodes.map((f) => ({ trail: f.trail, heard: f.heard, times: f.times, inline: f.inline, error: f.error ? String(f.error) : null })) });
  });
}

const ROUNDS = Number(process.argv[2] ?? 3);
const FOLLOWERS = Number(process.argv[3] ?? 300);
const PLAY_MS = 10000, PAGES = 3, SPEED = 16;
const NODES = Math.max(0, FOLLOWERS - PAGES);
const THREADS = Math.max(1, availableParallelism());
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;

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

/** CPU seconds process @pid has used so far, and those of its thread named slublab-follow (0 when none). */
function cpuOf(pid) {
  const secs = (stat) => {
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[14 - 3]) + Number(f[15 - 3])) / CLK_TCK; // utime, stime
  };
  let hub = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === 'slublab-follow') hub = secs(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
    } catch { /* the thread ended */ }
  }
  return { all: secs(readFileSync(`/proc/${pid}/stat`, 'utf8')), hub };
}

/** The first entry of @tr ([time, at, ...], in time order) at or after @time with at >= @at, or undefined. */
function firstAt(tr, at, time = -Infinity) {
  return tr.find((e) => e[0] >= time && e[1] >= at);
}

/**
 * Where each step's time went (see the head of this file): for each step
 * the presenter showed (@shown, [time, at]), the moves (@moves, [answered,
 * to, sent]) and the node followers (@nodes).
 */
function hopsOf(shown, moves, nodes) {
  const publish = [], move = [], stream = [], show = [];
  for (const [t, at] of shown) {
    const mv = moves.find((x) => x[2] >= t && x[1] >= at);
    if (!mv) continue;
    publish.push(mv[2] - t);
    move.push(mv[0] - mv[2]);
    for (const f of nodes) {
      if (f.error) continue;
      const h = firstAt(f.heard, at, mv[0] - 5); // the clocks of the page and node may differ by a little
      const s = h && firstAt(f.trail, at, h[0]);
      if (!h || !s) continue;
      stream.push(Math.max(0, h[0] - mv[0]));
      show.push(s[0] - h[0]);
    }
  }
  const inline = nodes.reduce((a, f) => a + (f.inline || 0), 0);
  const states = nodes.reduce((a, f) => a + f.trail.length - 1, 0);
  return { publish, move, stream, show, inline: states ? inline / Math.max(states, inline) : 0 };
}

const hops = [];

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x) => (Number.isFinite(x) ? String(Math.round(x)) : 'never');

/** One round on program @bin: the table's row. */
async function round(name, bin, k) {
  process.env.SLUBLAB_BIN = bin;
  const server = await startServer((process.env.SLUBLAB_SERVE_ARGS || '').split(' ').filter(Boolean));
  const browser = await startBrowser();
  const open = async (path) => {
    const page = await openPage(browser.ctx, server.url + path);
    await page.waitForSelector('body[data-ready="1"]');
    return page;
  };
  try {
    const presenter = await open('/?scenario=order-fallback&presenter=1');
    const moves = { sent: 0, dropped: 0, trail: [] };
    presenter.on('requestfinished', async (req) => {
      if (!/\/step$/.test(req.url())) return;
      moves.sent++;
      const res = await req.response();
      if (!res || res.status() !== 200) moves.dropped++;
      else {
        // when the server answered the move: from then on followers may hear it
        const tm = req.timing();
        moves.trail.push([tm.startTime + tm.responseEnd, JSON.parse(req.postData()).to, tm.startTime]);
      }
    });
    presenter.on('requestfailed', (req) => {
      if (/\/step$/.test(req.url())) { moves.sent++; moves.dropped++; }
    });
    const id = await presenter.evaluate(() => window.__slublab.player.get().session.id);
    const pages = [];
    for (let i = 0; i < PAGES; i++) pages.push(await open(`/?follow=${id}`));
    for (const p of pages) await trail(p);
    const workers = [];
    for (let w = 0, left = NODES; w < THREADS; w++) {
      const n = Math.ceil(left / (THREADS - w));
      left -= n;
      workers.push(new Worker(new URL(import.meta.url), { workerData: { url: server.url, id, n } }));
    }
    await Promise.all(workers.map((w) => new Promise((ok) => w.once('message', ok))));
    await trail(presenter);
    // when the presenter's page showed each step, to the millisecond (the trail samples every 50 ms)
    await presenter.evaluate(() => {
      window.__shown = [];
      window.__slublab.player.subscribe((m) => {
        const last = window.__shown[window.__shown.length - 1];
        if (!last || last[1] !== m.at) window.__shown.push([Date.now(), m.at]);
      });
    });
    const start = Date.now(), cpu0 = cpuOf(server.pid);
    await presenter.evaluate((speed) => { const p = window.__slublab.player; p.setSpeed(speed); p.play(); }, SPEED);
    await presenter.waitForTimeout(PLAY_MS);
    const end = Date.now(), cpu1 = cpuOf(server.pid);
    await presenter.evaluate(() => window.__slublab.player.pause());
    await presenter.waitForTimeout(500); // the last move answered
    const pt = await presenter.evaluate(() => window.__trail);
    const shown = await presenter.evaluate(() => window.__shown);
    const lags = [];
    for (const p of pages) lags.push(worstLag(pt, await p.evaluate(() => window.__trail), start + 1000, end));
    const done = await Promise.all(workers.map((w) => new Promise((ok) => { w.once('message', ok); w.postMessage('stop'); })));
    const nodes = done.flatMap((d) => d.nodes);
    // the share of the time the followers' threads were running their code, the most of them: near 100 %
    // they are late themselves, and the lags count their own delay besides the server's
    const busy = Math.max(...done.map((d) => d.busy));
    await Promise.all(workers.map((w) => w.terminate()));
    for (const f of nodes) lags.push(f.error ? Infinity : worstLag(pt, f.trail, start + 1000, end));
    lags.sort((a, b) => a - b);
    // how far behind the stream alone kept the node followers (the position heard, not yet shown)
    moves.trail.sort((a, b) => a[0] - b[0]);
    const moved = worstLag(pt, moves.trail, start + 1000, end);
    const heard = nodes.map((f) => (f.error ? Infinity : worstLag(pt, f.heard, start + 1000, end))).sort((a, b) => a - b);
    const times = nodes.flatMap((f) => f.times).sort((a, b) => a - b);
    const failed = nodes.filter((f) => f.error).length;
    const reached = pt.length ? pt[pt.length - 1][1] : 0;
    for (const p of pages) await p.close();
    await presenter.close();
    hops.push({ name, k, ...hopsOf(shown.filter(([t]) => t >= start + 1000 && t <= end - 1000), moves.trail, nodes) });
    return `| ${name} | ${k} | ${lags.length} | ${reached} | ${moves.sent} | ${moves.dropped} | ` +
      `${times.length} | ${ms(pct(times, 50))} | ${ms(pct(times, 99))} | ${failed} | ` +
      `${((cpu1.all - cpu0.all) / ((end - start) / 1000) * 100).toFixed(0)} | ${((cpu1.hub - cpu0.hub) * 1000).toFixed(0)} | ` +
      `${Math.round(busy * 100)} | ${ms(moved)} | ${ms(pct(heard, 50))} | ${ms(pct(heard, 99))} | ` +
      `${ms(pct(lags, 50))} | ${ms(pct(lags, 90))} | ${ms(pct(lags, 99))} | ${ms(lags[lags.length - 1])} | ` +
      `${lags.filter((x) => x <= 1000).length} |`;
  } finally {
    await browser.stop();
    await server.stop();
  }
}

if (isMainThread) await main();

async function main() {
  const after = process.env.SLUBLAB_BIN || 'build/slublab';
  const before = process.env.SLUBLAB_BIN_BEFORE;
  console.log(`${FOLLOWERS} followers of one presenter playing ${SPEED} steps/s for ${PLAY_MS / 1000} s, ` +
    'all on one address, default limits.');
  console.log('');
  console.log('| server | round | followers | presenter reached step | presenter moves | moves dropped | ' +
    'state fetches | state p50 ms | state p99 ms | followers failed | server CPU % | follow thread CPU ms | follower threads busy % | moved lag ms | heard lag median ms | heard lag p99 ms | ' +
    'lag median ms | lag p90 ms | lag p99 ms | lag max ms | within 1 s |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (let k = 1; k <= ROUNDS; k++) {
    const runs = before ? [['before', before], ['after', after]] : [['this build', after]];
    if (k % 2 === 0) runs.reverse();
    for (const [name, bin] of runs) console.log(await round(name, bin, k));
  }
  console.log('');
  console.log('Where one move\'s time goes, hop by hop (ms, median / p99 over steps and node followers):');
  console.log('');
  console.log('| server | round | publish | move | stream | show | states in stream |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const mp = (xs) => { const v = [...xs].sort((a, b) => a - b); return v.length ? `${ms(pct(v, 50))} / ${ms(pct(v, 99))}` : '-'; };
  for (const h of hops) console.log(`| ${h.name} | ${h.k} | ${mp(h.publish)} | ${mp(h.move)} | ${mp(h.stream)} | ${mp(h.show)} | ${Math.round(h.inline * 100)} % |`);
}
