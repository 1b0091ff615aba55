// The static lab's module under node (run by hand; it measures, it never
// fails): the CPU time of its start and of the largest shipped scenario's
// session, for each static folder named (`slublab export-static DIR`; name
// an earlier build's folder beside this one's to compare them in one run):
//   node --expose-gc bench/static-api.mjs DIR [DIR...] [--runs 3]
// For each folder, in one process: --runs fresh instances of its
// slublab-api.wasm through web/js/static/api.js, each opened over its
// files.json (init), then creating a session of the scenario (create),
// then 40 states at positions spread over it (state, per request).  The
// first instance is the one a page gets (its code not yet optimized);
// the least of the runs is the module's own cost.  CPU time of the
// process (user), so that other work on the machine counts less.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApi } from '../web/js/static/api.js';

const ROOT = join(fileURLToPath(import.meta.url), '../..');
const args = process.argv.slice(2);
const ri = args.indexOf('--runs');
const RUNS = ri >= 0 ? Number(args.splice(ri, 2)[1]) : 3;
if (!args.length) {
  process.stderr.write('usage: node --expose-gc bench/static-api.mjs DIR [DIR...] [--runs 3]\n');
  process.exit(2);
}
const SCENARIO = process.env.SCENARIO || readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.json'))
  .map((f) => [f.slice(0, -5), statSync(join(ROOT, 'scenarios', f)).size]).sort((a, b) => b[1] - a[1])[0][0];
const enc = new TextEncoder(), dec = new TextDecoder();
const cpu = () => process.cpuUsage().user / 1000;

for (const dir of args) {
  const texts = JSON.parse(readFileSync(join(dir, 'static/files.json'), 'utf8'));
  const files = new Map(Object.entries(texts).map(([p, t]) => [p, enc.encode(t)]));
  const module = await WebAssembly.compile(readFileSync(join(dir, 'static/slublab-api.wasm')));
  const r = { init: [], create: [], state: [] };
  for (let i = 0; i < RUNS; i++) {
    let c = cpu();
    const api = await openApi(module, files);
    r.init.push(cpu() - c);
    c = cpu();
    const a = api.call('POST', '/api/sessions', { body: JSON.stringify({ scenario: SCENARIO }) });
    r.create.push(cpu() - c);
    if (a.status !== 201) throw new Error(`${dir}: creating ${SCENARIO}: ${a.status} ${dec.decode(a.body)}`);
    const s = JSON.parse(dec.decode(a.body));
    c = cpu();
    for (let k = 0; k < 40; k++) api.call('GET', `/api/sessions/${s.id}/state?at=${Math.floor((k * 0.618 % 1) * s.events)}`);
    r.state.push((cpu() - c) / 40);
    globalThis.gc?.();
  }
  const f = (k) => `${k} ${r[k][0].toFixed(1)} / ${Math.min(...r[k]).toFixed(1)} ms`;
  console.log(`${dir}: ${SCENARIO}, CPU first / least of ${RUNS}: ${f('init')}, ${f('create')}, ${f('state')}`);
}
