// bench/state-wire.mjs BEFORE AFTER DB [SERVE ARGS...]: the state on the
// wire, two builds side by side in one run (docs/benchmarks.md, "The state
// on the wire").  Each build serves its own copy of DB (a session stored by
// `slublab replay --db`, e.g. from bench/big-trace.sh); both open it, then
// SEEKS (default 1,000) GETs of the state at the same random positions and
// as many steps (GET state?at=N&by=event&dir=next from a random start),
// asked of the two servers in turn, alternating which goes first.  Prints
// per build: p50 / p99 of seeks and steps (ms), the answers' mean size, and
// the ratios before / after, and each server's peak resident memory.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOk, requester, startServer } from './serve.mjs';

const [before, after, db, ...extra] = process.argv.slice(2);
const n = Number(process.env.SEEKS || 1000);
const dir = mkdtempSync(join(tmpdir(), 'slublab-wire-'));
const q = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))];
let rnd = 12345;
const random = (k) => { rnd = (rnd * 1103515245 + 12345) % 2147483648; return rnd % k; };

const sides = [];
try {
  for (const [name, bin] of [['before', before], ['after', after]]) {
    const copy = join(dir, `${name}.db`);
    copyFileSync(db, copy);
    const { proc, url } = await startServer(bin, ['--db', copy, ...extra]);
    const request = requester(url, 1);
    const side = { name, proc, get: (p) => getOk(request, p), seek: [], step: [], seekBytes: 0, stepBytes: 0 };
    sides.push(side);
    const list = JSON.parse((await side.get('/api/sessions?limit=1')).text);
    side.id = list.sessions[0].id;
    const open = await side.get(`/api/sessions/${side.id}`);
    side.open = open.ms;
    side.events = JSON.parse(open.text).events;
  }
  const events = sides[0].events;
  const both = async (i, path, kind) => {
    for (const side of i % 2 ? [...sides].reverse() : sides) {
      const r = await side.get(path(side));
      side[kind].push(r.ms);
      side[`${kind}Bytes`] += r.text.length;
    }
  };
  for (let i = 0; i < n; i++) {
    const at = random(events + 1);
    await both(i, (s) => `/api/sessions/${s.id}/state?at=${at}`, 'seek');
  }
  let at = random(events - n);
  for (let i = 0; i < n; i++, at++) await both(i, (s) => `/api/sessions/${s.id}/state?at=${at}&by=event&dir=next`, 'step');
  const fmt = (v) => v.toFixed(1);
  for (const s of sides) s.hwm = Math.round(readFileSync(`/proc/${s.proc.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1] / 1024);
  console.log(`${events} events, ${n} seeks and ${n} steps per build`);
  console.log('| build | open | seek p50 / p99 | step p50 / p99 | seek answer | step answer | server RSS |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const s of sides)
    console.log(`| ${s.name} | ${(s.open / 1000).toFixed(2)} s | ${fmt(q(s.seek, 0.5))} / ${fmt(q(s.seek, 0.99))} ms | ${fmt(q(s.step, 0.5))} / ${fmt(q(s.step, 0.99))} ms | ${Math.round(s.seekBytes / n / 1024)} KiB | ${Math.round(s.stepBytes / n / 1024)} KiB | ${s.hwm} MiB |`);
  const [b, a] = sides;
  const r = (x, y) => (x / y).toFixed(1);
  console.log(`| before / after | | ${r(q(b.seek, 0.5), q(a.seek, 0.5))}x / ${r(q(b.seek, 0.99), q(a.seek, 0.99))}x | ${r(q(b.step, 0.5), q(a.step, 0.5))}x / ${r(q(b.step, 0.99), q(a.step, 0.99))}x | ${r(b.seekBytes, a.seekBytes)}x | ${r(b.stepBytes, a.stepBytes)}x | |`);
} finally {
  for (const s of sides) s.proc.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
