// Shared set-up of the browser tests: the real server on a free port with a
// temporary database, Debian's Chromium through playwright-core, and a
// console-error watch.  Failures leave a screenshot in test-output/.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const OUT = join(ROOT, 'test-output');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Start `slublab serve --port 0` (with @args more); resolves to {url, stop}. */
export async function startServer(args = []) {
  const bin = process.env.SLUBLAB_BIN || join(ROOT, 'build/slublab');
  if (!existsSync(bin)) throw new Error(`no slublab program at ${bin}: build it first (or set SLUBLAB_BIN)`);
  const dir = mkdtempSync(join(tmpdir(), 'slublab-ui-'));
  const proc = spawn(bin, ['serve', '--port', '0', '--db', join(dir, 'ui.db'), '--quiet', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start: ${log}`)), 10000);
    const on = (d) => {
      log += d;
      const m = /listening on (http:\/\/[^\s]+?)\/?\s/.exec(log);
      if (m) { clearTimeout(timer); ok(m[1]); }
    };
    proc.stdout.on('data', on);
    proc.stderr.on('data', on);
    proc.on('exit', (c) => fail(new Error(`the server exited (${c}): ${log}`)));
  });
  return {
    url,
    pid: proc.pid,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((ok) => { proc.on('exit', ok); setTimeout(ok, 3000); });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Chromium with a fresh profile; one context shared by the pages of a suite. */
export async function startBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'slublab-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 }, acceptDownloads: true,
  });
  return { ctx, async stop() { await ctx.close(); rmSync(profile, { recursive: true, force: true }); } };
}

/**
 * A page that records console errors and page errors.  @allow lists
 * patterns of errors a test expects (a 400 answer to a bad scenario).
 */
/**
 * A server and a browser for the tests of one file: started before them,
 * stopped after; @set gets { server, browser, base } once both are up (and
 * test-output/ exists for screenshots).  @o.serverArgs: more options for
 * the server, asked for when it starts.
 */
export function labFixture(set, o = {}) {
  const f = {};
  before(async () => {
    f.server = await startServer(o.serverArgs?.() ?? []);
    f.base = f.server.url;
    f.browser = await startBrowser();
    mkdirSync(OUT, { recursive: true });
    set(f);
  });
  after(async () => {
    await f.browser?.stop();
    await f.server?.stop();
  });
}

export async function openPage(ctx, url, viewport) {
  const page = await ctx.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const errors = [];
  page.allow = [];
  page.on('console', (m) => { if (m.type() === 'error' && !page.allow.some((re) => re.test(m.text()))) errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.errors = errors;
  if (url) await page.goto(url);
  return page;
}

/** Run @fn; on failure save a screenshot of @page named after the test, then rethrow. */
export async function shotOnFailure(t, page, fn) {
  try {
    await fn();
  } catch (err) {
    mkdirSync(OUT, { recursive: true });
    const name = t.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80);
    await page.screenshot({ path: join(OUT, `fail-${name}.png`) }).catch(() => {});
    throw err;
  }
}

export async function api(base, path, init) {
  const r = await fetch(base + path, init);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${await r.text()}`);
  return r.status === 204 ? null : r.json();
}

/** Wait until the page shows position @at. */
export async function waitAt(page, at, timeout = 5000) {
  await page.waitForSelector(`body[data-at="${at}"]`, { timeout });
}

/** The player's model in the page (a copy of the plain fields). */
export async function model(page) {
  return page.evaluate(() => {
    const m = window.__slublab.player.get();
    return { at: m.at, end: m.end, ops: m.ops, id: m.session?.id, token: m.session?.token, cacheId: m.cacheId,
      playing: m.playing, following: m.following, selection: m.selection, notice: m.notice, error: m.error,
      scenario: m.session?.info?.scenario?.name, parent: m.session?.info?.parent };
  });
}

/** Press a key with the focus on the page body (not in a form control). */
export async function press(page, key, times = 1) {
  await page.evaluate(() => { if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur(); });
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
}

/** Non-white pixels in a canvas. */
export async function inkedPixels(page, selector) {
  return page.evaluate((sel) => {
    const c = document.querySelector(sel);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) n++;
    return n;
  }, selector);
}

// A run long enough (about 19,000 events) that the overview draws its whole at a coarse level:
// waves of 150 allocations on CPU 0 freed on CPU 1.
export const LONG_RUN = {
  format: 1, name: 'overview-long', title: 'waves of allocations and frees',
  machine: { cpus: 2, nodes: 1, mem_mb_per_node: 64 },
  caches: [{ name: 'A', object_size: 256 }],
  ops: [{ op: 'repeat', times: 60, ops: [
    ...Array.from({ length: 150 }, (_, i) => ({ op: 'alloc', cpu: 0, cache: 'A', name: `o${i}` })),
    ...Array.from({ length: 150 }, (_, i) => ({ op: 'free', cpu: 1, name: `o${i}` })),
  ] }],
};
