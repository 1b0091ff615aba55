// tests/api/answers.test.mjs: followers' answers to a lecture's questions
// (docs/api.md, "Answers"): a follower joins and gets a token, answers with
// it (one answer per token per question, a later one replacing it), only
// with an arm the question offers, the tally only with the lecture's token
// and counted out of the followers, bad bodies are 400s with a message, an
// unknown lecture a 404, memory bounded (voters per question, questions
// per lecture), and a client that floods gets 429s at --answer-rate (per
// address; 10 here, the default's hall of 300 is tests/api/hall.test.mjs)
// and at two a second per token.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { api, isError, isPg, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv; // --answer-rate 0 --join-rate 0: the tests that are not about the rates
let limited; // --answer-rate 10

before(async () => {
  srv = await start({ dir, args: ['--answer-rate', '0', '--join-rate', '0'] });
  limited = await start({ dir: tmpdir(), args: ['--answer-rate', '10'] });
});

after(async () => {
  if (srv) await srv.stop();
  if (limited) await limited.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The questions of free-storm: position → the arms its branch record offers. */
const questions = new Map();
/** A lecture showing a free-storm session: {id, token, session}. */
async function lecture(url) {
  const s = await api(url, 'POST', '/api/sessions', { body: { scenario: 'free-storm' } });
  assert.equal(s.status, 201, s.text);
  if (!questions.size) {
    const e = await api(url, 'GET', `/api/sessions/${s.json.id}/events?from=0&to=300`);
    for (const x of e.json.events) if (x.branches?.length) questions.set(x.seq, x.branches[0].arms);
  }
  const r = await api(url, 'POST', '/api/lectures', { body: { session: s.json.id } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}
/** A follower joins lecture @id: its token. */
async function join(url, id) {
  const r = await api(url, 'POST', `/api/lectures/${id}/followers`, { body: {} });
  assert.equal(r.status, 201, r.text);
  assert.match(r.json.token, /^[a-z2-7]{16}\.[0-9a-f]{32}$/);
  return r.json.token;
}
const answer = (url, id, body) => api(url, 'POST', `/api/lectures/${id}/answers`, { body });
const tally = (url, id, at, token) => api(url, 'GET', `/api/lectures/${id}/answers?at=${at}`, { token });
// free-storm's first questions (tests/api checks them below): at 1 the barn, at 2 a refill, at 3 a new slab
const Q1 = 1, Q2 = 2, Q3 = 3;

describe('answers', () => {
  test('free-storm asks at 1, 2 and 3 (the questions these tests answer)', async () => {
    await lecture(srv.url);
    assert.deepEqual(questions.get(Q1), ['swap_spare', 'barn_full', 'barn_empty']);
    assert.deepEqual(questions.get(Q2), ['refill', 'no_refill']);
    assert.deepEqual(questions.get(Q3), ['partial', 'other_node', 'new_slab']);
    assert.ok(questions.size >= 70, `${questions.size} questions`);
  });

  test('answer with a follower\'s token, tally with the lecture\'s, out of the followers', async () => {
    const l = await lecture(srv.url);
    const [one, two, three] = [await join(srv.url, l.id), await join(srv.url, l.id), await join(srv.url, l.id)];
    let r = await answer(srv.url, l.id, { at: Q1, choice: 'barn_empty', token: one });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { at: Q1, choice: 'barn_empty' });
    r = await answer(srv.url, l.id, { at: Q1, choice: 'barn_full', token: two });
    assert.equal(r.status, 200, r.text);
    r = await answer(srv.url, l.id, { at: Q1, choice: 'barn_empty', token: three });
    assert.equal(r.status, 200, r.text);
    r = await answer(srv.url, l.id, { at: Q2, choice: 'refill', token: one });
    assert.equal(r.status, 200, r.text);
    r = await tally(srv.url, l.id, Q1, l.token);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { at: Q1, counts: { barn_empty: 2, barn_full: 1 }, total: 3, followers: 0 });
    r = await tally(srv.url, l.id, Q2, l.token);
    assert.deepEqual(r.json, { at: Q2, counts: { refill: 1 }, total: 1, followers: 0 });
    r = await tally(srv.url, l.id, Q3, l.token);
    assert.deepEqual(r.json, { at: Q3, counts: {}, total: 0, followers: 0 });
  });

  test('one answer per token: a later one replaces it; made-up voter ids count nothing', async () => {
    const l = await lecture(srv.url);
    const one = await join(srv.url, l.id);
    await answer(srv.url, l.id, { at: Q2, choice: 'refill', token: one });
    await new Promise((res) => setTimeout(res, 1100)); // two a second per token
    await answer(srv.url, l.id, { at: Q2, choice: 'no_refill', token: one });
    let r = await tally(srv.url, l.id, Q2, l.token);
    assert.deepEqual(r.json, { at: Q2, counts: { no_refill: 1 }, total: 1, followers: 0 });
    // before: ten posts with made-up voter ids were ten answers
    for (let k = 0; k < 10; k++) {
      r = await answer(srv.url, l.id, { at: Q1, choice: 'barn_full', voter: `made-up-${k}-${Math.random().toString(36).slice(2)}` });
      assert.equal(r.status, 400, r.text);
    }
    for (let k = 0; k < 10; k++) {
      r = await answer(srv.url, l.id, { at: Q1, choice: 'barn_full', token: `${'a'.repeat(16)}.${String(k).padStart(32, '0')}` });
      assert.equal(r.status, 403, r.text);
      assert.ok(isError(r, 'forbidden'));
    }
    r = await tally(srv.url, l.id, Q1, l.token);
    assert.deepEqual(r.json, { at: Q1, counts: {}, total: 0, followers: 0 });
    // a token of another lecture is no token here
    const m = await lecture(srv.url);
    r = await answer(srv.url, l.id, { at: Q1, choice: 'barn_full', token: await join(srv.url, m.id) });
    assert.equal(r.status, 403, r.text);
  });

  test('only an arm the question offers: anything else is a 400', async () => {
    const l = await lecture(srv.url);
    for (const [at, choice] of [[Q1, 'made_up_arm'], [Q1, 'refill'], [Q2, 'barn_full']]) {
      const r = await answer(srv.url, l.id, { at, choice, token: await join(srv.url, l.id) });
      assert.equal(r.status, 400, `${at} ${choice}: ${r.text}`);
      assert.match(r.json.error.message, /not an answer the question/);
    }
    const none = [...Array(260).keys()].find((x) => x > 0 && !questions.has(x));
    const r = await answer(srv.url, l.id, { at: none, choice: 'refill', token: await join(srv.url, l.id) });
    assert.equal(r.status, 400, `no question at ${none}: ${r.text}`);
    assert.deepEqual((await tally(srv.url, l.id, Q1, l.token)).json, { at: Q1, counts: {}, total: 0, followers: 0 });
  });

  test('the tally needs the lecture\'s token: 403 without, 403 with another\'s or a follower\'s', async () => {
    const l = await lecture(srv.url), m = await lecture(srv.url);
    const one = await join(srv.url, l.id);
    await answer(srv.url, l.id, { at: Q1, choice: 'barn_full', token: one });
    let r = await tally(srv.url, l.id, Q1);
    assert.equal(r.status, 403);
    assert.ok(isError(r, 'forbidden'));
    assert.match(r.json.error.message, /token/);
    r = await tally(srv.url, l.id, Q1, m.token);
    assert.equal(r.status, 403);
    r = await tally(srv.url, l.id, Q1, 'f'.repeat(32));
    assert.equal(r.status, 403);
    r = await tally(srv.url, l.id, Q1, one);
    assert.equal(r.status, 403);
  });

  test('an unknown lecture: 404 to join, to answer and to tally', async () => {
    const l = await lecture(srv.url);
    const one = await join(srv.url, l.id);
    for (const id of ['aaaaaaaaaa', 'nope', '..']) {
      let r = await answer(srv.url, id, { at: Q1, choice: 'barn_full', token: one });
      assert.equal(r.status, 404, id);
      assert.ok(isError(r, 'not_found'));
      r = await tally(srv.url, id, Q1, l.token);
      assert.equal(r.status, 404, id);
      r = await api(srv.url, 'POST', `/api/lectures/${id}/followers`, { body: {} });
      assert.equal(r.status, 404, id);
    }
  });

  test('bad bodies and queries: 400 with what is wrong', async () => {
    const l = await lecture(srv.url);
    const token = await join(srv.url, l.id);
    const cases = [
      [{ choice: 'barn_full', token }, /"at": missing/],
      [{ at: -1, choice: 'barn_full', token }, /"at": expected an integer/],
      [{ at: 1.5, choice: 'barn_full', token }, /"at": expected an integer/],
      [{ at: '1', choice: 'barn_full', token }, /"at": expected an integer/],
      [{ at: Q1, token }, /"choice": missing/],
      [{ at: Q1, choice: 'Keep', token }, /"choice": expected an arm's name/],
      [{ at: Q1, choice: '', token }, /"choice": expected/],
      [{ at: Q1, choice: 'a'.repeat(41), token }, /"choice": expected/],
      [{ at: Q1, choice: 7, token }, /"choice": expected/],
      [{ at: Q1, choice: 'barn_full' }, /"token": missing/],
      [{ at: Q1, choice: 'barn_full', token: 'short' }, /"token": expected the follower's token/],
      [{ at: Q1, choice: 'barn_full', token: 'x'.repeat(65) }, /"token": expected/],
      [{ at: Q1, choice: 'barn_full', token: 'voter one!' }, /"token": expected/],
      [{ at: Q1, choice: 'barn_full', token, voter: 'voter-one' }, /voter/],
      [{ at: Q1, choice: 'barn_full', token, extra: 1 }, /extra/],
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
    r = await tally(srv.url, l.id, Q1, l.token);
    assert.deepEqual(r.json, { at: Q1, counts: {}, total: 0, followers: 0 }, 'nothing was recorded');
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
    const tokens = await many(4097, () => join(srv.url, l.id));
    const rs = await many(4096, (k) => answer(srv.url, l.id, { at: Q2, choice: k % 2 ? 'no_refill' : 'refill', token: tokens[k] }));
    assert.ok(rs.every((r) => r.status === 200), rs.find((r) => r.status !== 200)?.text);
    let r = await answer(srv.url, l.id, { at: Q2, choice: 'refill', token: tokens[4096] });
    assert.equal(r.status, 409);
    assert.match(r.json.error.message, /4096 answers/);
    r = await answer(srv.url, l.id, { at: Q2, choice: 'no_refill', token: tokens[2] });
    assert.equal(r.status, 200, 'a voter already counted may still change its answer');
    r = await tally(srv.url, l.id, Q2, l.token);
    assert.deepEqual(r.json, { at: Q2, counts: { no_refill: 2049, refill: 2047 }, total: 4096, followers: 0 });

    // 64 more questions: question Q2, answered longest ago, is forgotten from
    // memory; a server on a shared store counts from the store's rows, kept a day
    const more = [...questions.keys()].filter((x) => x > Q3).slice(0, 64);
    assert.equal(more.length, 64);
    await many(64, (k) => answer(srv.url, l.id, { at: more[k], choice: questions.get(more[k])[0], token: tokens[k] }));
    r = await tally(srv.url, l.id, Q2, l.token);
    if (isPg(srv.db)) assert.deepEqual(r.json, { at: Q2, counts: { no_refill: 2049, refill: 2047 }, total: 4096, followers: 0 });
    else assert.deepEqual(r.json, { at: Q2, counts: {}, total: 0, followers: 0 });
    r = await tally(srv.url, l.id, more[0], l.token);
    assert.deepEqual(r.json, { at: more[0], counts: { [questions.get(more[0])[0]]: 1 }, total: 1, followers: 0 });
  });
});

describe('the answer rate', () => {
  test('flooding from one address: 429 beyond 10 a second, then answers again', async () => {
    const l = await lecture(limited.url);
    const tokens = await Promise.all(Array.from({ length: 61 }, () => join(limited.url, l.id)));
    const t0 = Date.now();
    const rs = await Promise.all(Array.from({ length: 60 }, (_, k) =>
      answer(limited.url, l.id, { at: Q1, choice: 'barn_full', token: tokens[k] })));
    const windows = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1;
    const ok = rs.filter((r) => r.status === 200).length;
    const limitedOnes = rs.filter((r) => r.status === 429);
    assert.ok(ok >= 1 && ok <= 10 * windows, `${ok} answers passed in ${windows} seconds`);
    assert.equal(ok + limitedOnes.length, 60);
    assert.ok(isError(limitedOnes[0], 'rate_limited'));
    assert.match(limitedOnes[0].json.error.message, /at most 10 answers a second/);
    assert.equal(limitedOnes[0].headers.get('retry-after'), '1');
    await new Promise((res) => setTimeout(res, 1100));
    const r = await answer(limited.url, l.id, { at: Q1, choice: 'barn_full', token: tokens[60] });
    assert.equal(r.status, 200);
    const t = await tally(limited.url, l.id, Q1, l.token);
    assert.equal(t.json.total, ok + 1);
    assert.equal((await api(limited.url, 'GET', '/api/health')).status, 200);
  });

  test('one token: at most two answers a second, and one answer in the tally', async () => {
    const l = await lecture(srv.url);
    const one = await join(srv.url, l.id);
    const t0 = Date.now();
    const rs = await Promise.all(Array.from({ length: 10 }, (_, k) =>
      answer(srv.url, l.id, { at: Q3, choice: questions.get(Q3)[k % 3], token: one })));
    const windows = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1;
    const ok = rs.filter((r) => r.status === 200).length;
    assert.ok(ok >= 1 && ok <= 2 * windows, `${ok} answers passed in ${windows} seconds`);
    const limitedOnes = rs.filter((r) => r.status === 429);
    assert.equal(ok + limitedOnes.length, 10);
    assert.match(limitedOnes[0].json.error.message, /one follower may send at most 2 answers a second/);
    assert.equal((await tally(srv.url, l.id, Q3, l.token)).json.total, 1);
  });
});
