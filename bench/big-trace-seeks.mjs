// bench/big-trace-seeks.mjs BIN DB [SERVE ARGS...]: serve DB, open its
// session (the server replays its op log: timed), then SEEKS (default 1,000)
// GETs of the state at random positions and as many steps (position + 1 from
// a random start); prints "open | seek p50 / p99 | step p50 / p99 | server
// RSS" (ms, MiB: the server's peak resident memory, VmHWM) for
// bench/big-trace.sh.
import { readFileSync } from 'node:fs';
import { getOk, requester, startServer } from './serve.mjs';

const [bin, db, ...extra] = process.argv.slice(2);
const n = Number(process.env.SEEKS || 1000);
const { proc: srv, url } = await startServer(bin, ['--db', db, ...extra]);
const request = requester(url, 1);
const get = (p) => getOk(request, p);
const q = (a, p) => a.sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))].toFixed(1);
let rnd = 12345;
const random = (k) => { rnd = (rnd * 1103515245 + 12345) % 2147483648; return rnd % k; };
try {
  const list = JSON.parse((await get('/api/sessions?limit=1')).text);
  const id = list.sessions[0].id;
  const open = await get(`/api/sessions/${id}`);
  const events = JSON.parse(open.text).events;
  const seek = [];
  for (let i = 0; i < n; i++) seek.push((await get(`/api/sessions/${id}/state?at=${random(events + 1)}`)).ms);
  const step = [];
  let at = random(events - n);
  for (let i = 0; i < n; i++) step.push((await get(`/api/sessions/${id}/state?at=${++at}`)).ms);
  const hwm = readFileSync(`/proc/${srv.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1];
  console.log(`${(open.ms / 1000).toFixed(2)} s | ${q(seek, 0.5)} / ${q(seek, 0.99)} ms | ${q(step, 0.5)} / ${q(step, 0.99)} ms | ${Math.round(hwm / 1024)} MiB`);
} finally {
  srv.kill('SIGTERM');
}
