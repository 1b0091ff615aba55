// tests/api/lib.mjs: start a real `slublab serve` for the API tests.
//
// Not a test (node --test runs only *.test.mjs).  The server binds
// 127.0.0.1 port 0 with a temporary database; its first stdout line names
// the URL.  SLUBLAB_BIN (set by ctest) names the program; without it,
// build/slublab.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';

export const BIN = process.env.SLUBLAB_BIN || path.resolve('build/slublab');

// SLUBLAB_TEST_PG: the URL of a PostgreSQL server's "postgres" database
// (tests/pg/cluster.sh prints one).  When set, every server a test starts
// without naming its database gets a new PostgreSQL database there instead
// of a SQLite file: the same tests, run against the other store.
export const PG = process.env.SLUBLAB_TEST_PG || '';
let pgCount = 0;

export const isPg = (db) => /^postgres(ql)?:\/\//.test(db);

// A new, empty database for a server: a PostgreSQL one when PG is set, else
// the file @name in @dir.
export function freshDb(dir, name = 'test') {
  if (!PG) return path.join(dir, `${name}.db`);
  const db = `t_${process.pid}_${++pgCount}_${name.replace(/\W/g, '_')}`;
  execFileSync('psql', [PG, '-qAt', '-c', `CREATE DATABASE ${db}`]);
  return PG.replace(/\/postgres$/, `/${db}`);
}

export function tmpdir(prefix = 'slublab-api-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// A server for the tests of one file: started before them in a temporary
// directory, stopped after, the directory removed.  Returns {dir, srv}: srv
// is set once started (a test may set another, which is then stopped).
export function serverFixture(opts = {}) {
  const fx = { dir: tmpdir(), srv: null };
  before(async () => {
    fx.srv = await start({ dir: fx.dir, ...opts });
  });
  after(async () => {
    if (fx.srv) await fx.srv.stop();
    fs.rmSync(fx.dir, { recursive: true, force: true });
  });
  return fx;
}

// Start a server; resolves to {url, proc, db, stop(), kill()}.
export async function start({ db, args = [], dir } = {}) {
  dir = dir || tmpdir();
  db = db || freshDb(dir);
  const proc = spawn(BIN, ['serve', '--port', '0', '--db', db, '--quiet', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL from the server; stderr: ${stderr}`)), 20000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/(http:\/\/[^\s]+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ''));
      }
    });
    // 'close', not 'exit': it comes after stderr is drained, so the message is whole.
    proc.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it listened; stderr: ${stderr}`));
    });
  });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    url, proc, db, dir,
    stderr: () => stderr,
    async stop() {
      proc.kill('SIGTERM');
      return exited;
    },
    async kill() {
      proc.kill('SIGKILL');
      return exited;
    },
    exited,
  };
}

// fetch JSON: resolves to {status, headers, text, json}.
export async function api(url, method, p, { body, token, raw, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let b;
  if (raw !== undefined) {
    b = raw;
    // the server takes JSON bodies only as application/json; a test of
    // another type says so in headers
    if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
  }
  else if (body !== undefined) {
    b = JSON.stringify(body);
    h['content-type'] = 'application/json';
  }
  let r;
  try {
    r = await fetch(url + p, { method, headers: h, body: b });
  } catch (e) {
    // A kept-alive connection the server closed as idle (--timeout) just as
    // the request went out: retry a GET once, as browsers do.
    if (method !== 'GET') throw e;
    r = await fetch(url + p, { method, headers: h, body: b });
  }
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  return { status: r.status, headers: r.headers, text, json };
}

// Send raw bytes on a fresh connection; resolves to the response text
// (what arrived before the server closed or @ms passed).
export function raw(url, bytes, ms = 3000) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const sock = net.connect(Number(u.port), u.hostname);
    let data = '';
    const done = () => { sock.destroy(); resolve(data); };
    const timer = setTimeout(done, ms);
    sock.on('data', (d) => { data += d.toString('latin1'); });
    sock.on('error', () => { clearTimeout(timer); resolve(data); });
    sock.on('close', () => { clearTimeout(timer); resolve(data); });
    sock.on('connect', () => sock.write(bytes));
  });
}

export function statusOf(response) {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(response);
  return m ? Number(m[1]) : 0;
}

// Run @sql on a server's database (sqlite3 or psql), its output trimmed.
export function sqlite(db, sql) {
  if (isPg(db)) return execFileSync('psql', [db, '-qAt', '-c', sql], { encoding: 'utf8' }).trim();
  return execFileSync('sqlite3', [db, sql], { encoding: 'utf8' }).trim();
}

// The schema version a server's database is at.
export function schemaVersion(db) {
  return sqlite(db, isPg(db) ? 'SELECT version FROM slublab_schema' : 'PRAGMA user_version');
}

// An SQL expression for "@days days ago" in the store's time format.
export function daysAgo(db, days) {
  return isPg(db)
    ? `to_char((clock_timestamp() - interval '${days} days') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-${days} days')`;
}

// Create a session; returns {id, token, ...}.
export async function session(url, body = { scenario: 'default' }) {
  const r = await api(url, 'POST', '/api/sessions', { body });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return r.json;
}

// The error body every failure has.
export function isError(r, code) {
  return r.json && r.json.error && typeof r.json.error.message === 'string' &&
    (code === undefined || r.json.error.code === code);
}

/**
 * Read the event stream @path of the server at @url; next(pred) resolves to
 * the first message's data (parsed) matching pred, seen holds them all.
 */
export async function followStream(url, path) {
  const ctl = new AbortController();
  const r = await fetch(url + path, { signal: ctl.signal });
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const seen = [];
  return {
    r, seen,
    close: () => ctl.abort(),
    async next(pred, ms = 5000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const hit = seen.find(pred);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`no such message in ${JSON.stringify(seen)}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended after ${JSON.stringify(seen)}`);
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const m = /^data: (.*)$/m.exec(buf.slice(0, i));
          buf = buf.slice(i + 2);
          if (m) seen.push(JSON.parse(m[1]));
        }
      }
    },
  };
}
