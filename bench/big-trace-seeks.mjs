// bench/big-trace-seeks.mjs BIN DB [SERVE ARGS...]: serve DB, open its
// session (the server replays its op log and keeps checkpoint images in the
// database: timed), then SEEKS (default 1,000) GETs of the state at random
// positions and as many steps (position + 1 from a random start); then
// restart the server on the same database, open the session again (from
// the stored images: timed) and seek as many random positions again.
// Prints "open | seek p50 / p99 | step p50 / p99 | server RSS | images |
// reopen | seek after p50 / p99 | server RSS after" (ms, MiB: the servers'
// peak resident memory, VmHWM) for bench/big-trace.sh.  With AFTER_STEP=1,
// each seek of the first server is followed by a step (its position + 1,
// timed apart) and "| first step after a seek p50 / p99" is added.
import { readFileSync } from 'node:fs';
import { getOk, requester, startServer } from './serve.mjs';

const [bin, db, ...extra] = process.argv.slice(2);
const n = Number(process.env.SEEKS || 1000);
const q = (a, p) => a.sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))].toFixed(1);
let rnd = 12345;
const random = (k) => { rnd = (rnd * 1103515245 + 12345) % 2147483648; return rnd % k; };
const afterStep = process.env.AFTER_STEP === '1';
const hwm = (pid) => Math.round(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1] / 1024);

// One server's life: open, seeks, steps (when @steps); what it measured.
async function serve(steps) {
  const { proc: srv, url } = await startServer(bin, ['--db', db, ...extra]);
  const request = requester(url, 1);
  const get = (p) => getOk(request, p);
  try {
    const list = JSON.parse((await get('/api/sessions?limit=1')).text);
    const id = list.sessions[0].id;
    const open = await get(`/api/sessions/${id}`);
    const info = JSON.parse(open.text);
    const seek = [], first = [];
    for (let i = 0; i < n; i++) {
      const at = random(info.events + (afterStep ? 0 : 1));
      seek.push((await get(`/api/sessions/${id}/state?at=${at}`)).ms);
      if (steps && afterStep) first.push((await get(`/api/sessions/${id}/state?at=${at + 1}`)).ms);
    }
    const step = [];
    if (steps) {
      let at = random(info.events - n);
      for (let i = 0; i < n; i++) step.push((await get(`/api/sessions/${id}/state?at=${++at}`)).ms);
    }
    const after = JSON.parse((await get(`/api/sessions/${id}`)).text).checkpoints;
    return { open: open.ms, seek, first, step, rss: hwm(srv.pid), ck: info.checkpoints, after };
  } finally {
    srv.kill('SIGTERM');
    await new Promise((res) => srv.on('exit', res));
  }
}

const one = await serve(true);
const two = await serve(false);
console.log(`${(one.open / 1000).toFixed(2)} s | ${q(one.seek, 0.5)} / ${q(one.seek, 0.99)} ms | ` +
  `${q(one.step, 0.5)} / ${q(one.step, 0.99)} ms | ${one.rss} MiB | ${one.after.stored} | ` +
  `${(two.open / 1000).toFixed(2)} s (${two.ck.build_replayed} ops replayed) | ` +
  `${q(two.seek, 0.5)} / ${q(two.seek, 0.99)} ms (${two.after.loaded} loads) | ${two.rss} MiB` +
  (afterStep ? ` | ${q(one.first, 0.5)} / ${q(one.first, 0.99)} ms` : ''));
