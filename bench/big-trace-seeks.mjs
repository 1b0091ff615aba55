// bench/big-trace-seeks.mjs BIN DB: serve DB, then 1,000 GETs of the state at
// random positions and 1,000 steps (position + 1 from a random start) on its
// session; prints "seek p50 / p99 | step p50 / p99" in ms (bench/big-trace.sh).
import { requester, startServer } from './serve.mjs';

const [bin, db] = process.argv.slice(2);
const { proc: srv, url } = await startServer(bin, ['--db', db]);
const request = requester(url, 1);
const get = async (p) => {
  const r = await request('GET', p);
  if (r.status !== 200) throw new Error(`${p}: ${r.status} ${r.text.slice(0, 200)}`);
  return r;
};
const q = (a, p) => a.sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))].toFixed(1);
let rnd = 12345;
const random = (n) => { rnd = (rnd * 1103515245 + 12345) % 2147483648; return rnd % n; };
try {
  const list = JSON.parse((await get('/api/sessions?limit=1')).text);
  const id = list.sessions[0].id;
  const events = JSON.parse((await get(`/api/sessions/${id}`)).text).events;
  const seek = [];
  for (let i = 0; i < 1000; i++) seek.push((await get(`/api/sessions/${id}/state?at=${random(events + 1)}`)).ms);
  const step = [];
  let at = random(events - 1000);
  for (let i = 0; i < 1000; i++) step.push((await get(`/api/sessions/${id}/state?at=${++at}`)).ms);
  console.log(`${q(seek, 0.5)} / ${q(seek, 0.99)} ms | ${q(step, 0.5)} / ${q(step, 0.99)} ms`);
} finally {
  srv.kill('SIGTERM');
}
