// bench/pg-follow.mjs: how long a presenter's step on server A takes to
// reach a follower on server B when both share one PostgreSQL store
// (LISTEN/NOTIFY, docs/deploy.md), beside a follower on A itself.
//
//   node bench/pg-follow.mjs POSTGRESQL_URL [--bin build/slublab] [--steps 100] [--every 200]
//
// POSTGRESQL_URL names an empty database (bench/several-servers.sh makes
// one).  The presenter steps its session --steps times, one step every
// --every ms; a step's latency, for each follower, is from the moment the
// step is sent to the moment the follower's message with its position
// arrives.  Prints one Markdown row per follower: p50, p90, p99, max.
import path from 'node:path';

import { requester, startServer } from './serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const DB = args[0];
if (!DB || !/^postgres(ql)?:\/\//.test(DB)) {
  console.error('usage: node bench/pg-follow.mjs POSTGRESQL_URL [--bin B] [--steps N] [--every MS]');
  process.exit(2);
}
const BIN = path.resolve(opt('--bin', process.env.SLUBLAB_BIN || 'build/slublab'));
const STEPS = Number(opt('--steps', 100));
const EVERY = Number(opt('--every', 200));

const a = await startServer(BIN, ['--db', DB]);
const b = await startServer(BIN, ['--db', DB]);
const reqA = requester(a.url, 4);
const s = JSON.parse((await reqA('POST', '/api/sessions', { scenario: 'free-storm' })).text);

/** Follow session s on @url: arrival[at] = the first time a message with position at came. */
async function follow(url) {
  const arrival = new Map();
  const ctl = new AbortController();
  const r = await fetch(new URL(`/api/sessions/${s.id}/follow`, url), { signal: ctl.signal });
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  (async () => {
    for (;;) {
      let c;
      try { c = await reader.read(); } catch { return; }
      if (c.done) return;
      buf += dec.decode(c.value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const m = /^data: (.*)$/m.exec(buf.slice(0, i));
        buf = buf.slice(i + 2);
        if (m) {
          const at = JSON.parse(m[1]).at;
          if (!arrival.has(at)) arrival.set(at, performance.now());
        }
      }
    }
  })();
  return { arrival, close: () => ctl.abort() };
}

const onA = await follow(a.url), onB = await follow(b.url);
await new Promise((r) => setTimeout(r, 500));
const sent = new Map();
let last = s.position;
for (let i = 0; i < STEPS; i++) {
  let to = 1 + ((i * 7) % s.events);
  if (to === last) to = to === s.events ? 1 : to + 1;
  onA.arrival.delete(to);
  onB.arrival.delete(to);
  const t0 = performance.now();
  const r = await reqA('POST', `/api/sessions/${s.id}/step`, { to, state: false }, s.token);
  if (r.status !== 200) throw new Error(`step: ${r.status} ${r.text}`);
  sent.set(i, { to, t0 });
  await new Promise((res) => setTimeout(res, EVERY));
  for (const f of [onA, onB]) if (!f.arrival.has(to)) f.arrival.set(to, Infinity);
  sent.get(i).a = onA.arrival.get(to) - t0;
  sent.get(i).b = onB.arrival.get(to) - t0;
  last = to;
}
onA.close();
onB.close();
a.proc.kill('SIGTERM');
b.proc.kill('SIGTERM');

const row = (label, key) => {
  const xs = [...sent.values()].map((x) => x[key]).sort((p, q) => p - q);
  const q = (p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const f = (x) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : `> ${EVERY} ms`);
  console.log(`| ${label} | ${xs.length} | ${f(q(0.5))} | ${f(q(0.9))} | ${f(q(0.99))} | ${f(xs.at(-1))} |`);
};
console.log('| follower | steps | p50 | p90 | p99 | max |');
console.log('|---|---:|---:|---:|---:|---:|');
row('on A, the presenter\'s server', 'a');
row('on B, another server (NOTIFY)', 'b');
