// bench/offline-copy.mjs [WAVES]: the offline copy of a long session
// (docs/benchmarks.md, "Offline copy of a long session").  Builds a session
// of WAVES (default 326: 200,882 events) waves of 300 allocations and frees
// of named objects on two caches and two CPUs, times GET .../export.html
// (wall, and the server's CPU from /proc), then opens the file from file://
// in headless Chromium with every other request aborted and times the first
// state, End, a seek and 20 steps.  Prints one Markdown table row.
// SLUBLAB_BIN names the program (default build/slublab).
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { requester, startServer } from './serve.mjs';

const waves = Number(process.argv[2] || 326);
const bin = process.env.SLUBLAB_BIN || 'build/slublab';
const inner = [];
for (let i = 0; i < 150; i++) inner.push({ op: 'alloc', cpu: 0, cache: 'A', name: `a${i}` }, { op: 'alloc', cpu: 1, cache: 'B', name: `b${i}` });
for (let i = 0; i < 150; i++) inner.push({ op: 'free', cpu: 1, name: `a${i}` }, { op: 'free', cpu: 0, name: `b${i}` });
const scenario = { format: 1, name: 'big-export', title: 'waves of allocations and frees on two CPUs',
  machine: { cpus: 2, nodes: 1, mem_mb_per_node: 64 },
  caches: [{ name: 'A', object_size: 256 }, { name: 'B', object_size: 64 }],
  ops: [{ op: 'repeat', times: waves, ops: inner }] };

const dir = mkdtempSync(join(tmpdir(), 'slublab-offline-bench-'));
const { proc: srv, url } = await startServer(bin, ['--db', join(dir, 'b.db')]);
const request = requester(url, 1);
const cpu = () => { const f = readFileSync(`/proc/${srv.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
let browser = null;
try {
  const s = JSON.parse((await request('POST', '/api/sessions', { scenario })).text);
  const c0 = cpu();
  const r = await request('GET', `/api/sessions/${s.id}/export.html`);
  if (r.status !== 200) throw new Error(`export: ${r.status} ${r.text.slice(0, 200)}`);
  const serverCpu = (cpu() - c0) / 1000;
  const hwm = Number(readFileSync(`/proc/${srv.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1]);
  const file = join(dir, 'copy.html');
  writeFileSync(file, r.text);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();
  await page.route('**/*', (rt) => (/^(file|blob|data):/.test(rt.request().url()) ? rt.continue() : rt.abort()));
  const t0 = Date.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 600000 });
  const open = Date.now() - t0;
  const at = (n) => page.waitForFunction((k) => { const m = window.__slublab.player.get(); return m.at === k && m.cur; }, n, { timeout: 120000 });
  let t = Date.now();
  await page.keyboard.press('End');
  await at(s.events);
  const end = Date.now() - t;
  t = Date.now();
  const mid = Math.floor(s.events * 0.6) + 7;
  await page.evaluate((k) => window.__slublab.player.seek(k), mid);
  await at(mid);
  const seek = Date.now() - t;
  const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
  const mb = (b) => (b / 1e6).toFixed(1);
  console.log(`| ${s.events} | ${mb(r.text.length)} MB | ${(r.ms / 1000).toFixed(1)} s | ${serverCpu.toFixed(1)} s | ${Math.round(hwm / 1024)} MiB | ${(open / 1000).toFixed(1)} s | ${(end / 1000).toFixed(2)} s | ${(seek / 1000).toFixed(2)} s | ${Math.round(heap / 1048576)} MiB |`);
} finally {
  await browser?.close();
  srv.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
