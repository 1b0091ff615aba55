// bench/classroom.mjs: a class on one server.  N students each open the
// same scenario (their own session, as the UI does) and then, every 2 s
// with a random phase, seek their session to a random step; the server's
// resident memory is sampled throughout.
//
//   node bench/classroom.mjs [--bin build/slublab] [--students 300]
//        [--seconds 60] [--scenario maple-prefill-kfree-rcu] [--distinct]
//        [--period MS] [--db DB | --url URL --pids PID,...] [--label TEXT]
//        [-- SERVER ARGS...]
//
// With --distinct each student asks for another seed, so no two sessions
// have the same inputs and none can share a run: the class as it costs
// without shared timelines, to compare with the default (one run for all).
// --period is each student's time between two seeks (2000 ms, a class;
// 0: each seeks again as soon as it has its answer, which measures how
// many the servers can serve).  --db gives the server it starts that
// database (a PostgreSQL URL, say) instead of a new SQLite file; --url
// starts none and sends the class to URL (servers behind a proxy, run by
// bench/several-servers.sh), sampling the memory of the processes --pids
// names.
//
// Prints one Markdown row: inputs (or --label), students, sessions made,
// seeks, seeks/s, p50, p99, errors, peak RSS of each server.  Loopback
// only; the loops are bounded by the student count and the duration.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { requester, startServer } from './serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const BIN = path.resolve(opt('--bin', process.env.SLUBLAB_BIN || 'build/slublab'));
const STUDENTS = Number(opt('--students', 300));
const SECONDS = Number(opt('--seconds', 60));
const SCENARIO = opt('--scenario', 'maple-prefill-kfree-rcu');
const DISTINCT = args.includes('--distinct');
const PERIOD = Number(opt('--period', 2000));
const LABEL = opt('--label', null);
const URL_ = opt('--url', null);
const extra = args.includes('--') ? args.slice(args.indexOf('--') + 1) : [];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slublab-classroom-'));
let srv = null, url, pids;
if (URL_) {
  url = new URL(URL_);
  pids = opt('--pids', '').split(',').filter(Boolean).map(Number);
} else {
  ({ proc: srv, url } = await startServer(BIN, ['--db', opt('--db', path.join(dir, 'lab.db')), ...extra]));
  pids = [srv.pid];
}
const request = requester(url, 64);

const peak = pids.map(() => 0);
const sampler = setInterval(() => {
  pids.forEach((pid, i) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      peak[i] = Math.max(peak[i], Number(m[1]) / 1024);
    } catch { /* gone */ }
  });
}, 200);

// every student opens the scenario: 8 at a time
const sessions = [];
let createErrors = 0;
for (let i = 0; i < STUDENTS; i += 8) {
  const batch = await Promise.all(Array.from({ length: Math.min(8, STUDENTS - i) }, (_, k) => request('POST', '/api/sessions', DISTINCT ? { scenario: SCENARIO, seed: 1000 + i + k } : { scenario: SCENARIO })));
  for (const r of batch) {
    if (r.status === 201) sessions.push(JSON.parse(r.text));
    else createErrors++;
  }
}

// then each seeks every 2 s, at a random phase, for SECONDS
const lat = [];
let errors = 0;
const end = Date.now() + SECONDS * 1000;
await Promise.all(sessions.map(async (s) => {
  await new Promise((r) => setTimeout(r, Math.random() * Math.min(PERIOD, 2000)));
  while (Date.now() < end) {
    const at = Math.floor(Math.random() * (s.events + 1));
    const r = await request('GET', `/api/sessions/${s.id}/state?at=${at}`);
    if (r.status === 200) lat.push(r.ms);
    else errors++;
    if (PERIOD) await new Promise((res) => setTimeout(res, PERIOD));
  }
}));
clearInterval(sampler);
if (srv) {
  srv.kill('SIGTERM');
  await new Promise((r) => srv.on('exit', r));
}
fs.rmSync(dir, { recursive: true, force: true });

lat.sort((a, b) => a - b);
const q = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : NaN);
console.log('| inputs | students | sessions | seeks | seeks/s | p50 | p99 | errors | peak RSS |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
console.log(`| ${LABEL ?? (DISTINCT ? 'a seed each' : 'the same')} | ${STUDENTS} | ${sessions.length} | ${lat.length} | ${(lat.length / SECONDS).toFixed(0)} | ${q(0.5).toFixed(1)} ms | ${q(0.99).toFixed(1)} ms | ${errors + createErrors} | ${peak.map((x) => `${x.toFixed(0)} MiB`).join(' + ')} |`);
