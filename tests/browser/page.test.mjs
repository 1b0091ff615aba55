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
  const js = [], reading = [];
  // a response's sizes and headers come after its event: settled() waits for those read so far
  page.on('requestfinished', (req) => {
    if (!/\.js$/.test(new URL(req.url()).pathname)) return;
    reading.push((async () => {
      const res = await req.response();
      js.push({ path: new URL(req.url()).pathname, wire: (await req.sizes()).responseBodySize,
        encoding: await res.headerValue('content-encoding'), cache: await res.headerValue('cache-control') });
    })());
  });
  // ... and, its event being sent after the page has used the script, for one more in up to 5 s when @want names it
  const settled = async (want = () => true) => {
    for (const end = Date.now() + 5000; ; await new Promise((ok) => setTimeout(ok, 50))) {
      await Promise.all(reading);
      if (want() || Date.now() > end) return;
    }
  };
  await page.goto(url + '/?scenario=free-storm');
  await page.waitForFunction(() => window.__slublab?.firstDrawMs != null, null, { timeout: 15000 });
  await settled();
  const first = [...js];
  return { browser, page, js, first, settled };
}

/** Show the counters tab; resolves once Chart.js has drawn the chart. */
async function showChart(page) {
  await page.click('#tabbtn-counters');
  await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.querySelector('#chart')), null, { timeout: 15000 });
}

test('the bundle: JavaScript within its budget before the first state, Chart.js on the first chart', async (t) => {
  const server = await startServer();
  const { browser, page, js, first, settled } = await coldPage(server.url);
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
      await settled(() => js.some((r) => /chart/.test(r.path)));
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
  const { browser, page, js, first, settled } = await coldPage(server.url);
  try {
    await shotOnFailure(t, page, async () => {
      assert.equal(await page.getAttribute('script[type=module]', 'src'), 'js/main.js');
      assert.ok(first.some((r) => r.path === '/js/main.js') && !js.some((r) => /chart/.test(r.path)));
      await page.waitForSelector('#picture svg, #picture canvas');
      await showChart(page);
      await settled(() => js.some((r) => r.path === '/vendor/chart.umd.js'));
      assert.ok(js.some((r) => r.path === '/vendor/chart.umd.js'), JSON.stringify(js.map((r) => r.path)));
      assert.deepEqual(page.errors, []);
    });
  } finally {
    await browser.stop();
    await server.stop();
  }
});
