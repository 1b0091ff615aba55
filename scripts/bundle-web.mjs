#!/usr/bin/env node
// The page users get: web/ bundled by esbuild into one directory the server
// serves as it is (docs/deploy.md, "The page").
//
//   node scripts/bundle-web.mjs OUT [ESBUILD_DIR] [CHARTJS]
//
// OUT gets a whole web root: index.html pointing at the bundle, assets/
// (the bundle's entry and the chunks of the views loaded on first use,
// minified, and Chart.js, every name content-hashed: the server sends them
// `immutable`; the stylesheet too), css/app.css minified, data/, favicon.svg and
// offline/loader.js (the HTML export's) as they are.  Every text file gets
// a .gz and a .br beside it (node's zlib), which the server sends by
// Accept-Encoding.  OUT/.manifest.json (not served: a hidden name) lists
// what the page loads before its first state and the sizes of every file,
// which tests/js/bundle.test.mjs holds to its budget.
//
// ESBUILD_DIR is the npm package esbuild (default node_modules/esbuild),
// CHARTJS chart.umd.js (default node_modules/chart.js/dist/chart.umd.js).
// The modules in web/js stay the development page: `slublab serve --web web`.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [outArg, esbuildDir = join(ROOT, 'node_modules/esbuild'),
  chartjs = join(ROOT, 'node_modules/chart.js/dist/chart.umd.js')] = process.argv.slice(2);
if (!outArg) {
  console.error('usage: bundle-web.mjs OUT [ESBUILD_DIR] [CHARTJS]');
  process.exit(2);
}
// Written beside OUT, then put in its place, so a server serving OUT
// never sees it half written.
const final = resolve(outArg), out = `${final}.new`;
const web = join(ROOT, 'web');
const esbuild = (await import(pathToFileURL(join(esbuildDir, 'lib/main.js')).href)).default;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

// Chart.js as it is, under a hashed name; the bundle's vendor.js loads it
// from there the first time a chart is shown.
const chart = readFileSync(chartjs);
const chartName = `chart.umd-${createHash('sha256').update(chart).digest('hex').slice(0, 10)}.js`;
writeFileSync(join(out, 'assets', chartName), chart);

const built = await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: [join(web, 'js/main.js')],
  bundle: true, splitting: true, format: 'esm', minify: true, target: 'es2022',
  outdir: join(out, 'assets'), entryNames: '[name]-[hash]', chunkNames: '[name]-[hash]',
  define: { SLUBLAB_CHART_URL: JSON.stringify(`assets/${chartName}`) },
  metafile: true, logLevel: 'warning',
});
// early.js, the classic script that sends the first requests while the
// bundle loads: minified on its own, before the first state like the entry.
const early = await esbuild.build({
  absWorkingDir: ROOT, entryPoints: [join(web, 'early.js')], bundle: false, minify: true, target: 'es2022',
  outdir: join(out, 'assets'), entryNames: '[name]-[hash]', metafile: true, logLevel: 'warning',
});
const css = await esbuild.build({
  absWorkingDir: ROOT, entryPoints: [join(web, 'css/app.css')], bundle: false, minify: true,
  outfile: join(out, 'css/app.css'), logLevel: 'warning',
});
if (built.errors.length || early.errors.length || css.errors.length) process.exit(1);

// What loads before the first state: the entry and what it imports
// statically (each once); import() chunks load on first use.
const outputs = built.metafile.outputs;
const rel = (p) => relative(out, resolve(ROOT, p)).split('\\').join('/');
const entry = Object.keys(outputs).find((p) => outputs[p].entryPoint === 'web/js/main.js');
const first = [];
(function walk(p) {
  if (first.includes(rel(p))) return;
  first.push(rel(p));
  for (const i of outputs[p].imports) if (i.kind === 'import-statement') walk(i.path);
})(entry);
const earlyName = rel(Object.keys(early.metafile.outputs)[0]);
first.push(earlyName);

for (const f of ['favicon.svg', 'data', 'offline']) cpSync(join(web, f), join(out, f), { recursive: true });
// The page links the stylesheet under a hashed name too (sent `immutable`,
// so a page loaded again waits for no revalidation before its modules run);
// css/app.css stays for the HTML export, which inlines it.
const cssText = readFileSync(join(out, 'css/app.css'));
const cssName = `assets/app-${createHash('sha256').update(cssText).digest('hex').slice(0, 10)}.css`;
writeFileSync(join(out, cssName), cssText);

// index.html: the module scripts and preloads of the development page
// give way to the bundle's entry and its static chunks.
let html = readFileSync(join(web, 'index.html'), 'utf8');
// early.js stays above the stylesheet: a classic script after one waits
// for it to load before it runs, and its requests with it.
const tags = [`<script type="module" src="${first[0]}"></script>`,
  ...first.slice(1, -1).map((f) => `<link rel="modulepreload" href="${f}">`)].join('\n');
html = html.replace(/<script type="module" src="js\/main\.js"><\/script>\n/, `${tags}\n`)
  .replace('<script src="early.js"></script>', `<script src="${earlyName}"></script>`)
  .replace(/<link rel="modulepreload" href="js\/[^"]+">\n/g, '')
  .replace(/<script src="\/vendor\/chart\.umd\.js"[^>]*><\/script>\n/, '')
  .replace('<link rel="stylesheet" href="css/app.css">', `<link rel="stylesheet" href="${cssName}">`);
if (!html.includes(first[0]) || !html.includes(earlyName) || !html.includes(cssName) || /src="js\//.test(html)) {
  console.error('bundle-web: web/index.html no longer has the script tags this script replaces');
  process.exit(1);
}
writeFileSync(join(out, 'index.html'), html);

// Precompress every text file; write the manifest.
const sizes = {};
(function compress(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { compress(p); continue; }
    if (!/\.(js|css|html|json|svg)$/.test(name)) continue;
    const raw = readFileSync(p);
    const gz = gzipSync(raw, { level: 9 });
    const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    writeFileSync(`${p}.gz`, gz);
    writeFileSync(`${p}.br`, br);
    sizes[relative(out, p).split('\\').join('/')] = { raw: raw.length, gzip: gz.length, br: br.length };
  }
})(out);
writeFileSync(join(out, '.manifest.json'), `${JSON.stringify({ entry: first[0], first, chart: `assets/${chartName}`, sizes }, null, 1)}\n`);
rmSync(`${final}.old`, { recursive: true, force: true });
if (existsSync(final)) renameSync(final, `${final}.old`);
renameSync(out, final);
rmSync(`${final}.old`, { recursive: true, force: true });
const sum = (k) => first.reduce((s, f) => s + sizes[f][k], 0);
console.log(`bundle-web: ${final}: ${first.length} files before the first state, ${sum('raw')} bytes, ${sum('gzip')} gzip, ${sum('br')} br`);
