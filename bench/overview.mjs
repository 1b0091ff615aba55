// bench/overview.mjs BIN DB [SERVE ARGS...]: serve DB and time GET
// /api/sessions/ID/overview of its newest session, answered from the
// summaries the store keeps (the session is not built): N (default 50)
// requests of the whole run in 1,000 buckets, N in 4,096, and N of a random
// tenth of the run in 1,000 (a brush's zoom).  Prints "events | whole 1000
// p50 / max | whole 4096 p50 / max | zoom p50 / max | bytes | source" (ms)
// for bench/overview.sh.  With --build it first opens the session (the
// server replays it) and times the same from memory.
import { getOk, requester, startServer } from './serve.mjs';

const args = process.argv.slice(2);
const build = args.includes('--build');
const [bin, db, ...extra] = args.filter((a) => a !== '--build');
const n = Number(process.env.REQUESTS || 50);
const { proc: srv, url } = await startServer(bin, ['--db', db, ...extra]);
const request = requester(url, 1);
const get = (p) => getOk(request, p);
const stats = (a) => {
  a.sort((x, y) => x - y);
  return `${a[Math.floor(a.length / 2)].toFixed(1)} / ${a[a.length - 1].toFixed(1)} ms`;
};
let rnd = 4242;
const random = (k) => { rnd = (rnd * 1103515245 + 12345) % 2147483648; return rnd % k; };
try {
  const id = JSON.parse((await get('/api/sessions?limit=1')).text).sessions[0].id;
  if (build) await get(`/api/sessions/${id}`);
  const first = await get(`/api/sessions/${id}/overview?buckets=1000`);
  const o = JSON.parse(first.text);
  const times = { whole: [], fine: [], zoom: [] };
  for (let i = 0; i < n; i++) times.whole.push((await get(`/api/sessions/${id}/overview?buckets=1000`)).ms);
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const r = await get(`/api/sessions/${id}/overview?buckets=4096`);
    bytes = r.text.length;
    times.fine.push(r.ms);
  }
  for (let i = 0; i < n; i++) {
    const a = random(Math.max(1, o.events - Math.floor(o.events / 10)));
    times.zoom.push((await get(`/api/sessions/${id}/overview?from=${a}&to=${a + Math.floor(o.events / 10)}&buckets=1000`)).ms);
  }
  console.log(`${o.events} | ${stats(times.whole)} | ${stats(times.fine)} | ${stats(times.zoom)} | ${bytes} | ${o.source}`);
} finally {
  srv.kill('SIGTERM');
}
