// tests/api/answers.test.mjs: followers' answers to a lecture's questions
// (docs/api.md, "Answers"): no token to answer, a voter's later answer
// replaces its earlier one, the tally only with the lecture's token, bad
// bodies are 400s with a message, an unknown lecture a 404, memory bounded
// (voters per question, questions per lecture), and a client that floods
// gets 429s at the default --answer-rate while the server goes on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { api, isError, isPg, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv; // --answer-rate 0: the tests that are not about the rate
let limited; // the default rate

before(async () => {
  srv = await start({ dir, args: ['--answer-rate', '0'] });
  limited = await start({ dir: tmpdir() });
});

after(async () => {
  if (srv) await srv.stop();
  if (limited) await limited.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function lecture(url) {
  const r = await api(url, 'POST', '/api/lectures', { body: {} });
  assert.equal(r.status, 201, r.text);
  return r.json;
}
const answer = (url, id, body) => api(url, 'POST', `/api/lectures/${id}/answers`, { body });
const tally = (url, id, at, token) => api(url, 'GET', `/api/lectures/${id}/answers?at=${at}`, { token });

describe('answers', () => {
  test('answer without a token, tally with the lecture\'s', async () => {
    const l = await lecture(srv.url);
    let r = await answer(srv.url, l.id, { at: 12, choice: 'refill', voter: 'voter-one' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { at: 12, choice: 'refill' });
    r = await answer(srv.url, l.id, { at: 12, choice: 'barn_full', voter: 'voter-two' });
    assert.equal(r.status, 200, r.text);
    r = await answer(srv.url, l.id, { at: 12, choice: 'refill', voter: 'voter-three' });
    r = await answer(srv.url, l.id, { at: 13, choice: 'swap_spare', voter: 'voter-one' });
    r = await tally(srv.url, l.id, 12, l.token);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { at: 12, counts: { barn_full: 1, refill: 2 }, total: 3 });
    r = await tally(srv.url, l.id, 13, l.token);
    assert.deepEqual(r.json, { at: 13, counts: { swap_spare: 1 }, total: 1 });
    r = await tally(srv.url, l.id, 14, l.token);
    assert.deepEqual(r.json, { at: 14, counts: {}, total: 0 });
  });

  test('a voter\'s later answer replaces its earlier one', async () => {
    const l = await lecture(srv.url);
    await answer(srv.url, l.id, { at: 3, choice: 'refill', voter: 'voter-one' });
    await answer(srv.url, l.id, { at: 3, choice: 'no_refill', voter: 'voter-one' });
    const r = await tally(srv.url, l.id, 3, l.token);
    assert.deepEqual(r.json, { at: 3, counts: { no_refill: 1 }, total: 1 });
  });

  test('the tally needs the lecture\'s token: 403 without, 403 with another\'s', async () => {
    const l = await lecture(srv.url), m = await lecture(srv.url);
    await answer(srv.url, l.id, { at: 1, choice: 'keep', voter: 'voter-one' });
    let r = await tally(srv.url, l.id, 1);
    assert.equal(r.status, 403);
    assert.ok(isError(r, 'forbidden'));
    assert.match(r.json.error.message, /token/);
    r = await tally(srv.url, l.id, 1, m.token);
    assert.equal(r.status, 403);
    r = await tally(srv.url, l.id, 1, 'f'.repeat(32));
    assert.equal(r.status, 403);
  });

  test('an unknown lecture: 404 to answer and to tally', async () => {
    const l = await lecture(srv.url);
    for (const id of ['aaaaaaaaaa', 'nope', '..']) {
      let r = await answer(srv.url, id, { at: 1, choice: 'keep', voter: 'voter-one' });
      assert.equal(r.status, 404, id);
      assert.ok(isError(r, 'not_found'));
      r = await tally(srv.url, id, 1, l.token);
      assert.equal(r.status, 404, id);
    }
  });

  test('bad bodies and queries: 400 with what is wrong', async () => {
    const l = await lecture(srv.url);
    const cases = [
      [{ choice: 'keep', voter: 'voter-one' }, /"at": missing/],
      [{ at: -1, choice: 'keep', voter: 'voter-one' }, /"at": expected an integer/],
      [{ at: 1.5, choice: 'keep', voter: 'voter-one' }, /"at": expected an integer/],
      [{ at: '1', choice: 'keep', voter: 'voter-one' }, /"at": expected an integer/],
      [{ at: 1, voter: 'voter-one' }, /"choice": missing/],
      [{ at: 1, choice: 'Keep', voter: 'voter-one' }, /"choice": expected an arm's name/],
      [{ at: 1, choice: '', voter: 'voter-one' }, /"choice": expected/],
      [{ at: 1, choice: 'a'.repeat(41), voter: 'voter-one' }, /"choice": expected/],
      [{ at: 1, choice: 7, voter: 'voter-one' }, /"choice": expected/],
      [{ at: 1, choice: 'keep' }, /"voter": missing/],
      [{ at: 1, choice: 'keep', voter: 'short' }, /"voter": expected 8 to 64/],
      [{ at: 1, choice: 'keep', voter: 'x'.repeat(65) }, /"voter": expected/],
      [{ at: 1, choice: 'keep', voter: 'voter one!' }, /"voter": expected/],
      [{ at: 1, choice: 'keep', voter: 'voter-one', extra: 1 }, /extra/],
      [[1, 2], /expected an object/],
      ['keep', /expected an object/],
    ];
    for (const [body, why] of cases) {
      const r = await answer(srv.url, l.id, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(isError(r, 'bad_request'), r.text);
      assert.match(r.json.error.message, why, JSON.stringify(body));
    }
    let r = await api(srv.url, 'POST', `/api/lectures/${l.id}/answers`, { raw: '{"at": 1,' });
    assert.equal(r.status, 400);
    r = await api(srv.url, 'POST', `/api/lectures/${l.id}/answers`, { raw: '' });
    assert.equal(r.status, 400);
    r = await api(srv.url, 'GET', `/api/lectures/${l.id}/answers`, { token: l.token });
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /"at"/);
    r = await api(srv.url, 'GET', `/api/lectures/${l.id}/answers?at=x`, { token: l.token });
    assert.equal(r.status, 400);
    r = await tally(srv.url, l.id, 1, l.token);
    assert.deepEqual(r.json, { at: 1, counts: {}, total: 0 }, 'nothing was recorded');
    assert.equal((await api(srv.url, 'GET', '/api/health')).status, 200);
  });

  test('bounded: 4096 voters a question, 64 questions a lecture', async () => {
    const l = await lecture(srv.url);
    const many = async (n, fn) => {
      const out = [];
      for (let i = 0; i < n; i += 64) {
        const batch = [];
        for (let k = i; k < Math.min(n, i + 64); k++) batch.push(fn(k));
        out.push(...(await Promise.all(batch)));
      }
      return out;
    };
    const rs = await many(4096, (k) => answer(srv.url, l.id, { at: 5, choice: k % 2 ? 'odd' : 'even', voter: `voter-${String(k).padStart(4, '0')}` }));
    assert.ok(rs.every((r) => r.status === 200));
    let r = await answer(srv.url, l.id, { at: 5, choice: 'odd', voter: 'voter-late' });
    assert.equal(r.status, 409);
    assert.match(r.json.error.message, /4096 answers/);
    r = await answer(srv.url, l.id, { at: 5, choice: 'odd', voter: 'voter-0000' });
    assert.equal(r.status, 200, 'a voter already counted may still change its answer');
    r = await tally(srv.url, l.id, 5, l.token);
    assert.deepEqual(r.json, { at: 5, counts: { even: 2047, odd: 2049 }, total: 4096 });

    // 64 more questions: question 5, answered longest ago, is forgotten from
    // memory; a server on a shared store counts from the store's rows, kept a day
    await many(64, (k) => answer(srv.url, l.id, { at: 100 + k, choice: 'keep', voter: 'voter-one' }));
    r = await tally(srv.url, l.id, 5, l.token);
    if (isPg(srv.db)) assert.deepEqual(r.json, { at: 5, counts: { even: 2047, odd: 2049 }, total: 4096 });
    else assert.deepEqual(r.json, { at: 5, counts: {}, total: 0 });
    r = await tally(srv.url, l.id, 100, l.token);
    assert.deepEqual(r.json, { at: 100, counts: { keep: 1 }, total: 1 });
  });
});

describe('the answer rate', () => {
  test('flooding from one address: 429 beyond 10 a second, then answers again', async () => {
    const l = await lecture(limited.url);
    const t0 = Date.now();
    const rs = await Promise.all(Array.from({ length: 60 }, (_, k) =>
      answer(limited.url, l.id, { at: 1, choice: 'keep', voter: `voter-${String(k).padStart(4, '0')}` })));
    const windows = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1;
    const ok = rs.filter((r) => r.status === 200).length;
    const limitedOnes = rs.filter((r) => r.status === 429);
    assert.ok(ok >= 1 && ok <= 10 * windows, `${ok} answers passed in ${windows} seconds`);
    assert.equal(ok + limitedOnes.length, 60);
    assert.ok(isError(limitedOnes[0], 'rate_limited'));
    assert.match(limitedOnes[0].json.error.message, /at most 10 answers a second/);
    assert.equal(limitedOnes[0].headers.get('retry-after'), '1');
    await new Promise((res) => setTimeout(res, 1100));
    const r = await answer(limited.url, l.id, { at: 1, choice: 'keep', voter: 'voter-after' });
    assert.equal(r.status, 200);
    const t = await tally(limited.url, l.id, 1, l.token);
    assert.equal(t.json.total, ok + 1);
    assert.equal((await api(limited.url, 'GET', '/api/health')).status, 200);
  });
});
