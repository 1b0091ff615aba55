// Browser tests of how the page loads (scripts/bundle-web.mjs,
// web/js/vendor.js): the bundle, cold, transfers at most its budget of
// JavaScript before the first state and loads Chart.js only when the first
// chart is shown, compressed and immutable; the development modules
// (serve --web web) still draw the lab and its chart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shotOnFailure, startServer, startBrowser } from './helpers.mjs';

const BUDGET = 100 * 1024; // JavaScript before the first state, as transferred (tests/bundle/budget.test.mjs)

/** Open @url in a fresh browser (nothing cached); the JS responses as they come, with their sizes on the wire. */
async function coldPage(url) {
  const browser = await startBrowser();
  const page = await openPage(browser.ctx);
  const js = [];
  page.on('requestfinished', async (req) => {
    if (!/\.js$/.test(new URL(req.url()).pathname)) return;
    const res = await req.response();
    js.push({ path: new URL(req.url()).pathname, wire: (await req.sizes()).responseBodySize,
      encoding: await res.headerValue('content-encoding'), cache: await res.headerValue('cache-control') });
  });
  await page.goto(url + '/?scenario=free-storm');
  await page.waitForFunction(() => window.__slublab?.firstDrawMs != null, null, { timeout: 15000 });
  const first = [...js];
  return { browser, page, js, first };
}

/** Show the counters tab; resolves once Chart.js has drawn the chart. */
async function showChart(page) {
  await page.click('#tabbtn-counters');
  await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.querySelector('#chart')), null, { timeout: 15000 });
}

test('the bundle: JavaScript within its budget before the first state, Chart.js on the first chart', async (t) => {
  const server = await startServer();
  const { browser, page, js, first } = await coldPage(server.url);
  try {
    await shotOnFailure(t, page, async () => {
      const entry = await page.getAttribute('script[type=module]', 'src');
      if (!/^assets\/main-/.test(entry)) {
        t.skip('the server serves the modules: no bundle in this build tree');
        return;
      }
      const bytes = first.reduce((s, r) => s + r.wire, 0);
      t.diagnostic(`${first.length} JavaScript files, ${bytes} bytes on the wire before the first state`);
      assert.ok(bytes <= BUDGET, `${bytes} bytes of JavaScript before the first state (budget ${BUDGET})`);
      assert.ok(first.every((r) => r.path.startsWith('/assets/') && r.encoding === 'br' && /immutable/.test(r.cache)),
        JSON.stringify(first));
      assert.ok(!js.some((r) => /chart/.test(r.path)), 'no Chart.js before a chart is shown');
      await showChart(page);
      const chart = js.find((r) => /^\/assets\/chart\.umd-\w+\.js$/.test(r.path));
      assert.ok(chart && chart.encoding === 'br', JSON.stringify(js));
      assert.deepEqual(page.errors, []);
    });
  } finally {
    await browser.stop();
    await server.stop();
  }
});

test('the modules (serve --web web) draw the lab and its chart', async (t) => {
  const server = await startServer(['--web', 'web']);
  const { browser, page, js, first } = await coldPage(server.url);
  try {
    await shotOnFailure(t, page, async () => {
      assert.equal(await page.getAttribute('script[type=module]', 'src'), 'js/main.js');
      assert.ok(first.some((r) => r.path === '/js/main.js') && !js.some((r) => /chart/.test(r.path)));
      await page.waitForSelector('#picture svg, #picture canvas');
      await showChart(page);
      assert.ok(js.some((r) => r.path === '/vendor/chart.umd.js'));
      assert.deepEqual(page.errors, []);
    });
  } finally {
    await browser.stop();
    await server.stop();
  }
});
