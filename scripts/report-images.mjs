#!/usr/bin/env node
// report-images: a Markdown report with pictures of the lab itself.
//
// It writes the report with the slublab program (`slublab report`, or
// `slublab compare --md` for a comparison), then opens the lab's UI in
// headless Chromium (playwright-core, Debian's /usr/bin/chromium; no browser
// is downloaded) at the report's position and saves PNG screenshots beside
// the report: OUT-main.png (the picture of the allocator at that step),
// OUT-counters.png (the counters chart with its cursor at that step) and, for
// a comparison, OUT-compare.png (the compare view at the end of both runs).
// It appends an "## Images" section linking them.  The UI is served by
// `slublab serve` on a free port with a temporary database, stopped and
// removed on every way out; or by a running server (--server URL --session
// ID), whose report.md route then gives the Markdown.  The script only
// drives the program and the UI: every number and picture comes from them.
//
// Exit status: 0 written, 2 bad input (missing file, bad --at, no Chromium,
// a report the program refuses), 1 anything else (the UI failed to show).
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// the launch flags of tests/browser/helpers.mjs
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const USAGE = `usage: scripts/report-images FILE [--at N] -o OUT.md [--variant NAME=VALUE]... [--model MODEL] [--seed N]
       scripts/report-images FILE --compare (--variant NAME | --model A,B) [--cache NAME] [--seed N] [--at N] -o OUT.md
       scripts/report-images --server URL --session ID [--at N] -o OUT.md
  --at N          the position, numbered as for slublab report (default: the end)
  -o OUT.md       the report; its pictures go to OUT-main.png, OUT-counters.png
                  (and OUT-compare.png with --compare) beside it
  --compare[=V]   a comparison report (slublab compare --md) and the compare view;
                  --compare=V is --compare --variant V
  --server URL    use a running server and its session ID instead of a file
  environment: SLUBLAB_BIN (default build/slublab), CHROMIUM (default /usr/bin/chromium)`;

class Usage extends Error {}
const say = (msg) => process.stderr.write(`report-images: ${msg}\n`);

function parseArgs(argv) {
  const o = { variants: [], at: null, compare: false };
  const need = (i, name) => {
    if (i + 1 >= argv.length) throw new Usage(`${name} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (a === '--at') { o.at = need(i, a); i++; }
    else if (a === '-o') { o.out = need(i, a); i++; }
    else if (a === '--variant') { o.variants.push(need(i, a)); i++; }
    else if (a === '--model') { o.model = need(i, a); i++; }
    else if (a === '--seed') { o.seed = need(i, a); i++; }
    else if (a === '--cache') { o.cache = need(i, a); i++; }
    else if (a === '--server') { o.server = need(i, a).replace(/\/+$/, ''); i++; }
    else if (a === '--session') { o.session = need(i, a); i++; }
    else if (a === '--compare') o.compare = true;
    else if (a.startsWith('--compare=')) { o.compare = true; o.variants.push(a.slice(10)); }
    else if (a.startsWith('-')) throw new Usage(`unknown option ${a}`);
    else if (o.file) throw new Usage(`one scenario file only (${o.file}, ${a})`);
    else o.file = a;
  }
  if (!o.out) throw new Usage('-o OUT.md is required');
  if (!o.out.endsWith('.md')) throw new Usage(`the report must be a .md file: ${o.out}`);
  if (o.at !== null) {
    if (!/^\d{1,9}$/.test(o.at)) throw new Usage(`--at must be a position (0, 1, ...): ${o.at}`);
    o.at = Number(o.at);
  }
  if (o.server) {
    if (!o.session) throw new Usage('--server needs --session ID');
    if (o.file) throw new Usage('give a scenario file or --server, not both');
    if (o.compare) throw new Usage('--compare needs a scenario file');
    if (!/^https?:\/\//.test(o.server)) throw new Usage(`--server must be an http:// URL: ${o.server}`);
  } else {
    if (!o.file) throw new Usage('a scenario file is required (or --server URL --session ID)');
    if (!existsSync(o.file) || !statSync(o.file).isFile()) throw new Usage(`no such scenario file: ${o.file}`);
    if (o.session) throw new Usage('--session needs --server URL');
  }
  if (o.compare) {
    const n = o.variants.length + (o.model ? 1 : 0);
    if (n !== 1) throw new Usage('--compare needs one of --variant NAME or --model A,B');
    if (o.model && !/^[^,]+,[^,]+$/.test(o.model)) throw new Usage(`--compare --model needs two models A,B: ${o.model}`);
  }
  const dir = dirname(resolve(o.out));
  if (!existsSync(dir)) throw new Usage(`no such directory for the report: ${dir}`);
  o.bin = process.env.SLUBLAB_BIN || join(ROOT, 'build/slublab');
  if (!o.server) {
    try { accessSync(o.bin, constants.X_OK); } catch { throw new Usage(`no slublab program at ${o.bin}: build it first (or set SLUBLAB_BIN)`); }
  }
  o.chromium = process.env.CHROMIUM || '/usr/bin/chromium';
  try { accessSync(o.chromium, constants.X_OK); } catch { throw new Usage(`no Chromium at ${o.chromium}: install it (apt-get install chromium) or set CHROMIUM`); }
  return o;
}

// ---- the Markdown, from the program or the server
function writeMarkdown(o) {
  const args = o.compare
    ? ['compare', o.file, ...(o.model ? ['--model', o.model] : ['--variant', o.variants[0]]),
      ...(o.cache ? ['--cache', o.cache] : []), ...(o.seed ? ['--seed', o.seed] : []), '--md', '-o', o.out]
    : ['report', o.file, ...(o.at !== null ? ['--at', String(o.at)] : []), '-o', o.out,
      ...o.variants.flatMap((v) => ['--variant', v]), ...(o.model ? ['--model', o.model] : []), ...(o.seed ? ['--seed', o.seed] : [])];
  const r = spawnSync(o.bin, args, { encoding: 'utf8' });
  if (r.status !== 0) {
    const err = (r.stderr || r.error?.message || '').trim();
    throw new Usage(`slublab ${args[0]} refused: ${err}`);
  }
}

async function api(base, path, init) {
  const r = await fetch(base + path, init);
  const text = await r.text();
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${text}`);
  return text;
}

/** Remove a temporary directory, retrying while a closing Chromium still writes to it. */
function removeDir(d) {
  try { rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); }
  catch (err) { say(`cannot remove ${d}: ${err.message}`); }
}

// ---- the server: ours, on a free port with a temporary database
let server = null;
function startServer(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'slublab-report-'));
  const proc = spawn(bin, ['serve', '--port', '0', '--db', join(dir, 'report.db'), '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const me = { proc, dir, url: null, exited: false };
  server = me;
  let log = '';
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start: ${log}`)), 10000);
    const on = (d) => {
      log += d;
      const m = /listening on (http:\/\/[^\s]+?)\/?\s/.exec(log);
      if (m && !me.url) { clearTimeout(timer); me.url = m[1]; ok(m[1]); }
    };
    proc.stdout.on('data', on);
    proc.stderr.on('data', on);
    proc.on('exit', (c) => { me.exited = true; clearTimeout(timer); fail(new Error(`the server exited (${c}): ${log}`)); });
  });
}
async function stopServer() {
  const s = server;
  if (!s) return;
  if (!s.exited) {
    s.proc.kill('SIGTERM');
    await new Promise((ok) => { s.proc.on('exit', ok); setTimeout(() => { s.proc.kill('SIGKILL'); ok(); }, 3000); });
  }
  removeDir(s.dir);
  if (server === s) server = null;
}
let browser = null;
let launching = null; // while Chromium starts
let interrupted = null; // the signal that ends the script
let written = null; // the report, once written
function cleanUpNow() {
  // on a signal or at exit: no time for promises
  if (server && !server.exited) server.proc.kill('SIGKILL');
  if (server) removeDir(server.dir);
  server = null;
}

// ---- the pictures
const readyAt = (page, at) => page.waitForSelector(`body[data-ready="1"][data-at="${at}"]`, { timeout: 20000 });
const settle = (page) => page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));

async function shootLab(ctx, base, id, at, out) {
  const page = await ctx.newPage();
  await page.goto(`${base}/?session=${encodeURIComponent(id)}&at=${at}&tab=counters`);
  await readyAt(page, at);
  await page.waitForSelector('#picture canvas', { timeout: 20000 });
  await page.waitForSelector('#tab-counters .chart-box canvas', { state: 'visible', timeout: 20000 });
  // Chart.js loads when the chart is first shown: wait for it to draw
  await page.waitForFunction(() => window.Chart?.getChart(document.querySelector('#tab-counters .chart-box canvas')), null, { timeout: 20000 });
  await settle(page);
  const error = await page.evaluate(() => window.__slublab.player.get().error);
  if (error) throw new Error(`the UI shows an error: ${error}`);
  await page.locator('#picture').screenshot({ path: `${out}-main.png` });
  await page.locator('#tab-counters .chart-box').screenshot({ path: `${out}-counters.png` });
  await page.close();
}

async function shootCompare(ctx, base, o, name, out) {
  const page = await ctx.newPage();
  await page.goto(`${base}/?scenario=${encodeURIComponent(name)}&view=compare`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await page.waitForSelector(`#cmp-scenario option[value="${name}"]`, { state: 'attached', timeout: 20000 });
  const axis = o.model ? `model:${o.model}` : `variant:${o.variants[0]}`;
  // the form offers the usual pairs; another one is added as an option of the same form
  await page.evaluate((v) => {
    const sel = document.getElementById('cmp-axis');
    if (![...sel.options].some((x) => x.value === v)) sel.append(new Option(v.replace(':', ': '), v));
  }, axis);
  await page.selectOption('#cmp-scenario', name);
  await page.selectOption('#cmp-axis', axis);
  await page.click('#cmp-run');
  await page.waitForFunction(() => {
    const m = document.getElementById('cmp-msg')?.textContent ?? '';
    return /Step both/.test(m) || /Cannot compare/.test(m);
  }, null, { timeout: 30000 });
  const msg = await page.textContent('#cmp-msg');
  if (/Cannot compare/.test(msg)) throw new Error(`the compare view: ${msg}`);
  // the comparison report gives the end state of both runs: step the view there
  await page.evaluate(() => { if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur(); });
  const before = await page.textContent('#cmp-pos');
  await page.keyboard.press('End');
  await page.waitForFunction((b) => document.getElementById('cmp-pos')?.textContent !== b, before, { timeout: 20000 }).catch(() => {});
  await settle(page);
  const caption = (await page.textContent('#cmp-caption')) ?? '';
  await page.locator('#compare-view').screenshot({ path: `${out}-compare.png` });
  await page.close();
  return caption;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const out = o.out.slice(0, -3);
  const stem = basename(out);
  let base = o.server;
  let id = o.session;

  if (!o.server) { writeMarkdown(o); written = o.out; }
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, async () => {
      if (interrupted) return;
      interrupted = sig;
      // close Chromium (playwright-core then removes its profile), then the server
      const b = browser ?? await launching?.catch(() => null);
      await Promise.race([b?.close().catch(() => {}), new Promise((ok) => { setTimeout(ok, 5000); })]);
      cleanUpNow();
      process.exit(130);
    });
  }
  process.on('exit', cleanUpNow);

  try {
    if (!base) {
      base = await startServer(o.bin);
      say(`server ${base}`);
    }
    // the session the lab shows: the scenario with the report's settings
    // (for a comparison, the patched run)
    if (!id) {
      const body = { scenario: JSON.parse(readFileSync(o.file, 'utf8')) };
      if (o.seed) body.seed = Number(o.seed);
      if (o.compare) {
        if (o.model) body.model = o.model.split(',')[1];
        else body.variants = { [o.variants[0]]: 'after' };
      } else {
        if (o.model) body.model = o.model;
        if (o.variants.length) body.variants = Object.fromEntries(o.variants.map((v) => { const [k, x] = v.split('='); return [k, x]; }));
      }
      id = JSON.parse(await api(base, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).id;
    }
    let info;
    try { info = JSON.parse(await api(base, `/api/sessions/${encodeURIComponent(id)}`)); }
    catch (err) { throw o.server ? new Usage(`no session ${id} at ${base}: ${err.message}`) : err; }
    const end = info.events;
    const at = o.at ?? end;
    if (at > end) throw new Usage(`--at ${at} is beyond the end of the session (${end} events)`);
    if (o.server) {
      writeFileSync(o.out, await api(base, `/api/sessions/${encodeURIComponent(id)}/report.md?at=${at}`));
      written = o.out;
      // the chart the report links, under the name it links it by
      const md = readFileSync(o.out, 'utf8');
      const svg = /\]\(([^)\s/]+\.svg)\)/.exec(md);
      if (svg) writeFileSync(join(dirname(o.out), svg[1]), await api(base, `/api/sessions/${encodeURIComponent(id)}/report.svg?at=${at}`));
    }
    const name = info.scenario?.name ?? 'scenario';
    let what = 'before the first event';
    if (at > 0) {
      const ev = JSON.parse(await api(base, `/api/sessions/${encodeURIComponent(id)}/events?from=${at - 1}&to=${at}`)).events?.[0];
      if (ev) what = `after ${ev.fn}${ev.label ? ` (${ev.label})` : ''} on CPU ${ev.cpu}`;
    }
    const runs = o.compare ? ` (patched run: ${o.model ? `model ${o.model.split(',')[1]}` : `${o.variants[0]} after`})` : '';

    const { chromium } = await import('playwright-core');
    // a temporary profile that playwright-core removes, on process exit too
    launching = chromium.launch({ executablePath: o.chromium, headless: true, args: CHROMIUM_ARGS,
      handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
    browser = await launching.catch((err) => {
      throw new Usage(`cannot start Chromium at ${o.chromium}: ${String(err.message).split('\n')[0]}`);
    });
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, reducedMotion: 'reduce' });
    await shootLab(ctx, base, id, at, out);
    const images = [
      [`${stem}-main.png`, `The lab's picture of the allocator: ${name}${runs} at step ${at} of ${end}, ${what}`],
      [`${stem}-counters.png`, `The counters chart of ${name}${runs} over its ${end} steps, the cursor at step ${at} (${what})`],
    ];
    if (o.compare) {
      const shipped = JSON.parse(await api(base, '/api/scenarios')).scenarios.map((x) => x.name);
      if (shipped.includes(name)) {
        const caption = await shootCompare(ctx, base, o, name, out);
        images.push([`${stem}-compare.png`, `The compare view at the end of both runs: ${caption || name}`]);
      } else {
        say(`the compare view runs shipped scenarios only; ${name} is not one, so there is no ${stem}-compare.png`);
      }
    }
    appendFileSync(o.out, '\n## Images\n\nPictures of the lab (the UI of slublab), taken by scripts/report-images.\n\n'
      + images.map(([file, alt]) => `![${alt.replace(/[[\]]/g, '')}](${file})\n`).join('\n'));
    say(`wrote ${o.out} and ${images.map(([f]) => f).join(', ')}`);
  } finally {
    await browser?.close().catch(() => {});
    await stopServer();
  }
}

main().catch((err) => {
  cleanUpNow();
  if (interrupted) {
    say(`stopped by ${interrupted}`);
    process.exit(130);
  }
  if (err instanceof Usage) {
    say(err.message);
    if (written) say(`${written} is written without its Images section`);
    if (/required|unknown option|needs|one scenario file|give a/.test(err.message)) process.stderr.write(USAGE + '\n');
    process.exit(2);
  }
  say(`failed: ${err.stack || err.message}`);
  if (written) say(`${written} is written without its Images section`);
  process.exit(1);
});
