// bench/class-seeds.mjs: a class on its own seeds.  Each student opens the
// largest shipped scenario with a seed of its own, so no two sessions share
// a run; the server keeps as many runs as its memory budget holds (and at
// most --max-sessions: 1024 by default, 64 before), the others evicted and
// built again when their student comes back.
//
//   node bench/class-seeds.mjs [ROUNDS] [STUDENTS] [SEQUENTIAL] [SECONDS]
//
// Per server and round, on a new database: STUDENTS (300) open their
// session at once (every request sent together); then for SECONDS (30)
// each, every 2 s at a random phase, seeks its session to a random
// position and steps to the next event (GET .../state?at=N, then N+1:
// what the UI asks); then SEQUENTIAL (100) more students open theirs one
// after another, each then asking for a random position.  Open, seek and
// step latencies are each their own p50/p99; errors count every answer but
// 201/200; peak RSS is sampled every 200 ms, and given for the class of
// STUDENTS (at its end) and for the whole round (with the SEQUENTIAL ones,
// STUDENTS + SEQUENTIAL runs).  With SLUBLAB_BIN_BEFORE set,
// each round runs that program as well, the two alternating (before first
// in odd rounds, after first in even), so both see the same machine.
// SLUBLAB_SERVE_ARGS adds options to both servers.
//
// The floor: the engine's own run of the scenario (`slublab run`, CPU ms
// per run, the median of three groups of five distinct seeds, measured in
// the same run of this bench) and what STUDENTS opens at once need of the
// machine's os.availableParallelism() cores at least, beside the server's
// CPU per student one by one (its open and one state, whatever the server
// did for them, written after the answer too: the table's CPU column).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { requester, startServer } from './serve.mjs';

const ROUNDS = Number(process.argv[2] || 1);
const STUDENTS = Number(process.argv[3] || 300);
const SEQUENTIAL = Number(process.argv[4] || 100);
const SECONDS = Number(process.argv[5] || 30);
const SCENARIO = 'maple-prefill-kfree-rcu';
const EXTRA = (process.env.SLUBLAB_SERVE_ARGS || '').split(' ').filter(Boolean);

const q = (arr, p) => {
  const a = [...arr].sort((x, y) => x - y);
  return a.length ? a[Math.min(a.length - 1, Math.floor(p * a.length))] : NaN;
};
const TICK_MS = 10; // /proc/PID/stat counts in USER_HZ (100) ticks
const cpuMs = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
};
const f = (x) => (Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

async function round(bin) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slublab-class-seeds-'));
  const { proc, url } = await startServer(bin, ['--db', path.join(dir, 'lab.db'), ...EXTRA]);
  const request = requester(url, STUDENTS + 8);
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
      peak = Math.max(peak, Number(m[1]) / 1024);
    } catch { /* gone */ }
  }, 200);
  let errors = 0;
  const open = async (seed) => {
    const r = await request('POST', '/api/sessions', { scenario: SCENARIO, seed });
    if (r.status !== 201) { errors++; return null; }
    return { ...JSON.parse(r.text), ms: r.ms };
  };
  const state = async (s, at) => {
    const r = await request('GET', `/api/sessions/${s.id}/state?at=${at}`);
    if (r.status !== 200) errors++;
    return r.ms;
  };

  // at once
  const t0 = Date.now();
  const opened = (await Promise.all(Array.from({ length: STUDENTS }, (_, i) => open(1000 + i)))).filter(Boolean);
  const allOpenS = (Date.now() - t0) / 1000;
  const openAtOnce = opened.map((s) => s.ms);

  // then they work: a seek and a step every 2 s
  const seeks = [], steps = [];
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(opened.map(async (s) => {
    await new Promise((r) => setTimeout(r, Math.random() * 2000));
    while (Date.now() < end) {
      const at = Math.floor(Math.random() * s.events);
      seeks.push(await state(s, at));
      steps.push(await state(s, at + 1));
      await new Promise((r) => setTimeout(r, 2000));
    }
  }));

  const classPeak = peak;

  // one after another
  const openSeq = [], seqStates = [];
  const cpu0 = cpuMs(proc.pid);
  for (let i = 0; i < SEQUENTIAL; i++) {
    const s = await open(5000 + i);
    if (!s) continue;
    openSeq.push(s.ms);
    seqStates.push(await state(s, Math.floor(Math.random() * s.events)));
  }
  await new Promise((r) => setTimeout(r, 1000)); // what the last one left to do after its answer
  const seqCpu = openSeq.length ? (cpuMs(proc.pid) - cpu0) / openSeq.length : NaN;
  clearInterval(sampler);
  proc.kill('SIGTERM');
  await new Promise((r) => proc.on('exit', r));
  const db = fs.readdirSync(dir).reduce((n, x) => n + fs.statSync(path.join(dir, x)).size, 0);
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    opened: opened.length, allOpenS, openAtOnce, seeks, steps, openSeq, seqStates, seqCpu, errors, classPeak, peak, db,
  };
}

// CPU ms of one `slublab run` of the scenario: the median of three groups of
// five distinct seeds, each group's children's CPU (the shell's `times`) / 5.
function engineRunMs(bin) {
  const scenario = path.join('scenarios', `${SCENARIO}.json`);
  const groups = [];
  for (let g = 0; g < 3; g++) {
    const seeds = Array.from({ length: 5 }, (_, i) => 100 + 5 * g + i).join(' ');
    const r = spawnSync('sh', ['-c',
      `for s in ${seeds}; do "$0" run "$1" --seed $s >/dev/null || exit 1; done; times`, bin, scenario],
    { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${bin} run ${scenario}: ${r.stderr}`);
    // the second line: the children's user and system time, "0m0.150000s 0m0.020000s"
    const t = r.stdout.trim().split('\n').pop().match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/);
    groups.push(((Number(t[1]) * 60 + Number(t[2]) + Number(t[3]) * 60 + Number(t[4])) * 1000) / 5);
  }
  return q(groups, 0.5);
}

const after = path.resolve(process.env.SLUBLAB_BIN || 'build/slublab');
const before = process.env.SLUBLAB_BIN_BEFORE;
console.log(`${STUDENTS} students open \`${SCENARIO}\` at once, each with its own seed, then each seeks to a random ` +
  `position and steps once every 2 s for ${SECONDS} s; then ${SEQUENTIAL} more open one after another. Default ` +
  'server limits, each program\'s own.');
console.log('');
console.log('| server | round | opened | all open s | open p50 ms | open p99 ms | seek p50 ms | seek p99 ms | ' +
  'step p50 ms | step p99 ms | one by one: open p50 ms | open p99 ms | state p50 ms | state p99 ms | CPU ms per student | ' +
  'errors | peak RSS MiB, the class | peak RSS MiB, all | database MiB |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const perStudent = [];
for (let k = 1; k <= ROUNDS; k++) {
  const runs = before ? [['before', path.resolve(before)], ['after', after]] : [['this build', after]];
  if (k % 2 === 0) runs.reverse();
  for (const [name, bin] of runs) {
    const r = await round(bin);
    console.log(`| ${name} | ${k} | ${r.opened} | ${r.allOpenS.toFixed(1)} | ${f(q(r.openAtOnce, 0.5))} | ` +
      `${f(q(r.openAtOnce, 0.99))} | ${f(q(r.seeks, 0.5))} | ${f(q(r.seeks, 0.99))} | ${f(q(r.steps, 0.5))} | ` +
      `${f(q(r.steps, 0.99))} | ${f(q(r.openSeq, 0.5))} | ${f(q(r.openSeq, 0.99))} | ${f(q(r.seqStates, 0.5))} | ` +
      `${f(q(r.seqStates, 0.99))} | ${f(r.seqCpu)} | ${r.errors} | ${r.classPeak.toFixed(0)} | ` +
      `${r.peak.toFixed(0)} | ${(r.db / 1048576).toFixed(0)} |`);
    if (bin === after) perStudent.push(r.seqCpu);
  }
}
const engineMs = engineRunMs(after);
const cores = os.availableParallelism();
const floorS = (STUDENTS * engineMs) / cores / 1000;
const server = q(perStudent, 0.5);
console.log('');
console.log(`Floor: \`slublab run\` of \`${SCENARIO}\` alone takes ${f(engineMs)} ms of CPU (median of three groups of ` +
  `five seeds, measured in this run), so ${STUDENTS} opens at once on this machine's ${cores} cores need at least ` +
  `${STUDENTS} × ${f(engineMs)} ms / ${cores} = ${floorS.toFixed(1)} s before the last one can answer. One by one, ` +
  `the server spends ${f(server)} ms of CPU per student (its open, one state and what the server writes after ` +
  `the answer: the CPU column), ${(server / engineMs).toFixed(1)} times the engine's own run.`);
