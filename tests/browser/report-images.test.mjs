// scripts/report-images: the report of a shipped scenario at two positions,
// with PNG pictures of the lab beside it (valid PNGs of a plausible size that
// differ between the positions, linked from the report's Images section);
// a comparison with the compare view; bad input refused with status 2 and
// nothing written; the script's server gone when it ends.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startServer, api } from './helpers.mjs';

const SCRIPT = join(ROOT, 'scripts/report-images.mjs');
let dir;
before(() => { dir = mkdtempSync(join(tmpdir(), 'slublab-report-images-')); });
after(() => { rmSync(dir, { recursive: true, force: true }); });

function run(args, env = {}) {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120000 });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

/** Width and height from a PNG's IHDR chunk (after checking the signature). */
function pngSize(file) {
  const b = readFileSync(file);
  assert.ok(b.length > 1000, `${file}: ${b.length} bytes is too small for a picture`);
  assert.deepEqual([...b.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${file}: PNG signature`);
  assert.equal(b.subarray(12, 16).toString('latin1'), 'IHDR', `${file}: first chunk`);
  return { w: b.readUInt32BE(16), h: b.readUInt32BE(20), bytes: b };
}

/** The server the script started (it says so) answers no more. */
async function assertServerGone(stderr) {
  const m = /server (http:\/\/\S+)/.exec(stderr);
  assert.ok(m, `the script names its server: ${stderr}`);
  await assert.rejects(fetch(`${m[1]}/api/version`), 'the server is stopped when the script ends');
}

test('a report at two positions: PNGs of the main view and the counters chart, linked, and different', async () => {
  const shots = {};
  for (const at of [30, 200]) {
    const out = join(dir, `fs${at}.md`);
    const r = run(['scenarios/free-storm.json', '--at', String(at), '-o', out]);
    assert.equal(r.status, 0, r.stderr);
    await assertServerGone(r.stderr);
    const md = readFileSync(out, 'utf8');
    assert.match(md, new RegExp(`^# slublab report: free-storm at step ${at} of (\\d+)\\n`));
    const end = /at step \d+ of (\d+)/.exec(md)[1];
    assert.ok(md.includes(`](fs${at}-objects.svg)`), 'the program\'s chart is still linked');
    const images = md.slice(md.indexOf('\n## Images\n'));
    assert.ok(md.indexOf('\n## Images\n') > 0, 'an Images section');
    assert.match(images, new RegExp(`!\\[[^\\]]*free-storm at step ${at} of ${end}, after \\w+[^\\]]* on CPU \\d\\]\\(fs${at}-main\\.png\\)`));
    assert.match(images, new RegExp(`!\\[The counters chart of free-storm[^\\]]*cursor at step ${at}[^\\]]*\\]\\(fs${at}-counters\\.png\\)`));
    assert.ok(!images.includes('compare.png'), 'no compare picture without --compare');
    shots[at] = {};
    for (const kind of ['main', 'counters']) {
      const s = pngSize(join(dir, `fs${at}-${kind}.png`));
      assert.ok(s.w >= 200 && s.w <= 4000 && s.h >= 100 && s.h <= 4000, `${kind}: ${s.w}x${s.h}`);
      shots[at][kind] = s;
    }
    assert.ok(shots[at].main.w * shots[at].main.h > shots[at].counters.w * shots[at].counters.h, 'the main view is the larger picture');
  }
  for (const kind of ['main', 'counters']) {
    assert.notDeepEqual(shots[30][kind].bytes, shots[200][kind].bytes, `${kind}: the picture reflects the state at the position`);
  }
});

test('a comparison: the compare view\'s picture beside the cover-letter report', async () => {
  const out = join(dir, 'dfl.md');
  const r = run(['scenarios/fresh-slab-fill.json', '--compare=DEFERRED_FREELIST', '--at', '5', '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  await assertServerGone(r.stderr);
  const md = readFileSync(out, 'utf8');
  assert.match(md, /^# slublab comparison: fresh-slab-fill, cache A\n/);
  assert.match(md, /!\[[^\]]*fresh-slab-fill \(patched run: DEFERRED_FREELIST after\) at step 5 of \d+[^\]]*\]\(dfl-main\.png\)/);
  assert.match(md, /!\[The compare view at the end of both runs: fresh-slab-fill, cache A: DEFERRED_FREELIST=before \(baseline\) vs DEFERRED_FREELIST=after \(patched\)\]\(dfl-compare\.png\)/);
  const cmp = pngSize(join(dir, 'dfl-compare.png'));
  const main = pngSize(join(dir, 'dfl-main.png'));
  assert.ok(cmp.w >= 800 && cmp.h >= 300, `compare: ${cmp.w}x${cmp.h}`);
  assert.ok(cmp.w > main.w, 'the compare view shows both runs side by side');
});

test('bad input: status 2, a message, nothing written', () => {
  const out = join(dir, 'bad.md');
  const cases = [
    [['scenarios/no-such-scenario.json', '-o', out], {}, /no such scenario file: scenarios\/no-such-scenario\.json/],
    [['scenarios/free-storm.json', '--at', 'x', '-o', out], {}, /--at must be a position/],
    [['scenarios/free-storm.json', '--at', '-3', '-o', out], {}, /--at must be a position/],
    [['scenarios/free-storm.json', '--at', '99999', '-o', out], {}, /beyond the end/],
    [['scenarios/free-storm.json'], {}, /-o OUT\.md is required/],
    [['scenarios/free-storm.json', '-o', join(dir, 'bad.txt')], {}, /must be a \.md file/],
    [['scenarios/free-storm.json', '--compare', '-o', out], {}, /--compare needs one of --variant NAME or --model A,B/],
    [['scenarios/free-storm.json', '--compare=NO_SUCH_VARIANT', '-o', out], {}, /slublab compare refused: .*NO_SUCH_VARIANT/],
    [['scenarios/free-storm.json', '-o', out], { CHROMIUM: join(dir, 'no-chromium') }, /no Chromium at .*no-chromium/],
  ];
  for (const [args, env, want] of cases) {
    const r = run(args, env);
    assert.equal(r.status, 2, `${args.join(' ')}: status ${r.status}: ${r.stderr}`);
    assert.match(r.stderr, want, args.join(' '));
    assert.ok(!/server http/.test(r.stderr), `${args.join(' ')}: no server is started for bad input`);
  }
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('bad')), [], 'nothing written');
  assert.ok(!existsSync(out));
});

test('a browser that does not start: status 2, the report kept without pictures, the server stopped', async () => {
  const out = join(dir, 'nobrowser.md');
  const r = run(['scenarios/free-storm.json', '--at', '3', '-o', out], { CHROMIUM: '/bin/false' });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /cannot start Chromium at \/bin\/false/);
  assert.match(r.stderr, /nobrowser\.md is written without its Images section/);
  await assertServerGone(r.stderr);
  const md = readFileSync(out, 'utf8');
  assert.match(md, /^# slublab report: free-storm at step 3 of/);
  assert.ok(!md.includes('## Images'));
  assert.ok(!existsSync(join(dir, 'nobrowser-main.png')));
});

test('interrupted: status 130, its server stopped, its temporary database removed', async () => {
  const out = join(dir, 'int.md');
  const proc = spawn(process.execPath, [SCRIPT, 'scenarios/free-storm.json', '--at', '30', '-o', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no server line: ${stderr}`)), 20000);
    proc.stderr.on('data', (d) => { stderr += d; if (/server http/.test(stderr)) { clearTimeout(timer); ok(); } });
  });
  // the script makes a session and starts Chromium next: stop it in the middle
  const dbDirs = () => readdirSync(tmpdir()).filter((f) => f.startsWith('slublab-report-'));
  const mine = dbDirs();
  proc.kill('SIGTERM');
  const status = await new Promise((ok) => proc.on('exit', (c) => ok(c)));
  assert.equal(status, 130, stderr);
  await assertServerGone(stderr);
  const left = dbDirs();
  // other runs may be going on: only those that existed while ours ran can be ours
  assert.ok(mine.length >= 1, 'the script made its temporary directory');
  assert.ok(mine.some((d) => !left.includes(d)), `a temporary directory of the script was removed: ${mine} / ${left}`);
});

test('a running server: the session\'s report.md and its chart, the pictures of that session at the step', async () => {
  const server = await startServer();
  try {
    const { id } = await api(server.url, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: 'remote-free' }) });
    const out = join(dir, 'srv.md');
    const r = spawnSync(process.execPath, [SCRIPT, '--server', server.url, '--session', id, '--at', '12', '-o', out], { cwd: ROOT, encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!/server http/.test(r.stderr), 'no server of its own');
    const md = readFileSync(out, 'utf8');
    assert.equal(md.slice(0, md.indexOf('\n## Images\n')), await (await fetch(`${server.url}/api/sessions/${id}/report.md?at=12`)).text());
    const svg = /\]\((report-[^)]+-objects\.svg)\)/.exec(md)[1];
    assert.match(readFileSync(join(dir, svg), 'utf8'), /^<svg xmlns=/);
    assert.match(md, /!\[[^\]]*remote-free at step 12 of \d+, after \w+[^\]]*\]\(srv-main\.png\)/);
    assert.ok(pngSize(join(dir, 'srv-main.png')).w >= 200);
    const bad = spawnSync(process.execPath, [SCRIPT, '--server', server.url, '--session', 'nosuchsession', '-o', join(dir, 'srvbad.md')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /no session nosuchsession at http/);
    assert.ok(!existsSync(join(dir, 'srvbad.md')));
    // the server it used is still there
    assert.equal((await fetch(`${server.url}/api/sessions/${id}`)).status, 200);
  } finally {
    await server.stop();
  }
});
