// bench/big-trace-seeks.mjs BIN DB: serve DB, then 1,000 GETs of the state at
// random positions and 1,000 steps (position + 1 from a random start) on its
// session; prints "seek p50 / p99 | step p50 / p99" in ms (bench/big-trace.sh).
import { spawn } from 'node:child_process';
import http from 'node:http';

const [bin, db] = process.argv.slice(2);
const srv = spawn(bin, ['serve', '--port', '0', '--db', db, '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  srv.stdout.on('data', (d) => {
    out += d;
    const m = out.match(/(http:\/\/[^\s]+)/);
    if (m) resolve(new URL(m[1]));
  });
  srv.on('exit', (c) => reject(new Error(`the server exited (${c})`)));
});
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = (p) => new Promise((resolve, reject) => {
  const t0 = process.hrtime.bigint();
  http.get({ host: url.hostname, port: url.port, path: p, agent }, (res) => {
    let text = '';
    res.on('data', (d) => { text += d; });
    res.on('end', () => (res.statusCode === 200 ? resolve({ text, ms: Number(process.hrtime.bigint() - t0) / 1e6 })
      : reject(new Error(`${p}: ${res.statusCode} ${text.slice(0, 200)}`))));
  }).on('error', reject);
});
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
