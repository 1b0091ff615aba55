// The static lab for the browser tests and bench/static-lab.mjs: a folder
// written by `slublab export-static`, served by a plain static file server
// (node's http: files by path, nothing else; no slublab process).
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { ROOT } from './helpers.mjs';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.wasm': 'application/wasm', '.png': 'image/png' };

/** Export the static lab into a new folder and serve it; resolves to {dir, url, stop()}. */
export async function staticLab() {
  const bin = process.env.SLUBLAB_BIN || join(ROOT, 'build/slublab');
  const dir = mkdtempSync(join(tmpdir(), 'slublab-static-'));
  execFileSync(bin, ['export-static', dir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const lab = await serveFolder(dir);
  return { ...lab, async stop() { await lab.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

/** Serve the folder @dir as it is; resolves to {dir, url, stop()} (stop() leaves the folder). */
export async function serveFolder(dir) {
  const http = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    let file = join(dir, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => http.listen(0, '127.0.0.1', ok));
  return {
    dir,
    url: `http://127.0.0.1:${http.address().port}`,
    async stop() {
      await new Promise((ok) => http.close(ok));
    },
  };
}
