// bench/serve.mjs: what the Node benchmarks share: start `slublab serve` on
// a free port and time requests to it over kept-alive connections.
import { spawn } from 'node:child_process';
import http from 'node:http';

/** Start BIN serve with @args; resolves to { proc, url } once it listens. */
export async function startServer(bin, args) {
  const proc = spawn(bin, ['serve', '--port', '0', '--quiet', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/(http:\/\/[^\s]+)/);
      if (m) resolve(new URL(m[1]));
    });
    proc.on('exit', (code) => reject(new Error(`the server exited (${code})`)));
  });
  return { proc, url };
}

/** A timer of requests to @url over at most @sockets kept-alive connections:
 * request(method, path, body, token) resolves to { status, text, ms }, status 0 on
 * a connection error; @token (optional) is sent as the write token. */
export function requester(url, sockets) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return (method, p, body, token) => new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const data = body ? JSON.stringify(body) : null;
    const headers = data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {};
    if (token) headers.authorization = `Bearer ${token}`;
    const req = http.request({
      host: url.hostname, port: url.port, path: p, method, agent, headers,
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, text, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.on('error', () => resolve({ status: 0, text: '', ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    if (data) req.write(data);
    req.end();
  });
}

/** GET @p through @request (a requester()), throwing on any answer but 200. */
export async function getOk(request, p) {
  const r = await request('GET', p);
  if (r.status !== 200) throw new Error(`${p}: ${r.status} ${r.text.slice(0, 200)}`);
  return r;
}
