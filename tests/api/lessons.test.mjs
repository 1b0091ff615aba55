// tests/api/lessons.test.mjs: the course served from disk (docs/api.md,
// "Lessons and exercises"): a temporary lessons directory given with
// --lessons holds a valid lesson and an invalid one, a valid exercise and
// an invalid one; the lists show the valid ones only, a GET of an invalid
// one says why (422), ids that try paths are not found.  And a session's
// expectations as the replay that built it evaluated them ("expects"),
// also once the server restarted and rebuilt it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { api, isError, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
const lessons = path.join(dir, 'course');
let srv;

const lesson = {
  format: 1, id: '01-first', title: 'The first allocation', minutes: 5,
  summary: 'What the first allocation does.',
  slides: [
    { title: 'Before', text: 'Nothing yet.', scenario: 'default', at: 0 },
    { title: 'Guess', text: 'What happens next?', at: 1, ask: true },
    { title: 'After', text: 'A sheaf.', at: 4, ask: true, tab: 'counters' },
  ],
};
const exercise = {
  format: 1, id: 'fill', title: 'Fill a slab', task: 'Allocate until a second slab is made.',
  max_ops: 70,
  preset: { format: 1, name: 'exercise-fill', machine: { cpus: 1 }, caches: [{ name: 'A', object_size: 64 }], ops: [] },
  goal: [{ metric: 'A.slabs', op: '>=', value: 2 }],
  hints: ['Allocate.', 'Allocate more than one slab holds.', 'Allocate 65.'],
  solution: [{ op: 'repeat', times: 65, ops: [{ op: 'alloc', cpu: 0, cache: 'A', name: 'o{i}' }] }],
};

before(async () => {
  fs.mkdirSync(path.join(lessons, 'exercises'), { recursive: true });
  const put = (f, d) => fs.writeFileSync(path.join(lessons, f), typeof d === 'string' ? d : JSON.stringify(d, null, 1));
  put('01-first.json', lesson);
  put('02-long.json', { ...lesson, id: '02-long', minutes: 45 });
  put('03-wrongid.json', { ...lesson, id: 'something-else' });
  put('exercises/fill.json', exercise);
  put('exercises/nohints.json', { ...exercise, id: 'nohints', hints: [] });
  put('exercises/garbage.json', '{"format": 1,');
  put('Not An Id.json', lesson);
  srv = await start({ dir, args: ['--lessons', lessons] });
});

after(async () => {
  if (srv) await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('lessons', () => {
  test('the list: the valid lessons, sorted, with slides and questions counted', async () => {
    const r = await api(srv.url, 'GET', '/api/lessons');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /application\/json/);
    assert.deepEqual(r.json, {
      lessons: [{ id: '01-first', title: lesson.title, minutes: 5, summary: lesson.summary, slides: 3, questions: 2 }],
    });
  });

  test('a lesson: the file', async () => {
    const r = await api(srv.url, 'GET', '/api/lessons/01-first');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, lesson);
  });

  test('an invalid lesson: 422 with the reason, and the server said so at start', async () => {
    let r = await api(srv.url, 'GET', '/api/lessons/02-long');
    assert.equal(r.status, 422);
    assert.ok(isError(r, 'unprocessable'));
    assert.match(r.json.error.message, /minutes: expected an integer from 5 to 15/);
    r = await api(srv.url, 'GET', '/api/lessons/03-wrongid');
    assert.equal(r.status, 422);
    assert.match(r.json.error.message, /id: "something-else" is not the file's name/);
    assert.match(srv.stderr(), /skipping .*02-long\.json: minutes/);
    assert.match(srv.stderr(), /skipping 1 file of .* whose names are not ids/);
  });

  test('unknown ids and path tricks: 404', async () => {
    for (const id of ['99-none', 'Not%20An%20Id', '..%2F01-first', '..', '%2E%2E', '01-first.json', 'x'.repeat(300)]) {
      const r = await api(srv.url, 'GET', `/api/lessons/${id}`);
      assert.equal(r.status, 404, id);
      assert.ok(isError(r, 'not_found'), id);
    }
    const r = await api(srv.url, 'GET', '/api/lessons/..%2F..%2Fetc%2Fpasswd');
    assert.ok(r.status === 404, `${r.status}`);
  });

  test('writes are not allowed', async () => {
    const r = await api(srv.url, 'POST', '/api/lessons/01-first', { body: {} });
    assert.equal(r.status, 405);
  });
});

describe('the lessons directory', () => {
  test('by default lessons/ beside the scenarios directory', async () => {
    const root = tmpdir();
    try {
      fs.mkdirSync(path.join(root, 'lab', 'scenarios'), { recursive: true });
      fs.mkdirSync(path.join(root, 'lab', 'lessons', 'exercises'), { recursive: true });
      fs.copyFileSync('scenarios/default.json', path.join(root, 'lab', 'scenarios', 'default.json'));
      fs.writeFileSync(path.join(root, 'lab', 'lessons', '01-first.json'), JSON.stringify(lesson));
      fs.writeFileSync(path.join(root, 'lab', 'lessons', 'exercises', 'fill.json'), JSON.stringify(exercise));
      const other = await start({ dir: root, args: ['--scenarios', path.join(root, 'lab', 'scenarios/')] });
      try {
        const l = await api(other.url, 'GET', '/api/lessons');
        assert.deepEqual(l.json.lessons.map((x) => x.id), ['01-first']);
        const e = await api(other.url, 'GET', '/api/exercises');
        assert.deepEqual(e.json.exercises.map((x) => x.id), ['fill']);
      } finally {
        await other.stop();
      }
      // no lessons directory at all: empty lists, and the server runs
      const bare = await start({ dir: root, args: ['--lessons', path.join(root, 'none')] });
      try {
        assert.deepEqual((await api(bare.url, 'GET', '/api/lessons')).json, { lessons: [] });
        assert.deepEqual((await api(bare.url, 'GET', '/api/exercises')).json, { exercises: [] });
      } finally {
        await bare.stop();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('exercises', () => {
  test('the list: id, title, max_ops and the number of hints', async () => {
    const r = await api(srv.url, 'GET', '/api/exercises');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { exercises: [{ id: 'fill', title: exercise.title, max_ops: 70, hints: 3 }] });
  });

  test('an exercise: the whole file, solution included', async () => {
    const r = await api(srv.url, 'GET', '/api/exercises/fill');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, exercise);
  });

  test('invalid ones: 422 with the reason', async () => {
    let r = await api(srv.url, 'GET', '/api/exercises/nohints');
    assert.equal(r.status, 422);
    assert.match(r.json.error.message, /hints: needs at least 1 item/);
    r = await api(srv.url, 'GET', '/api/exercises/garbage');
    assert.equal(r.status, 422);
    assert.match(r.json.error.message, /not JSON/);
    r = await api(srv.url, 'GET', '/api/exercises/01-first');
    assert.equal(r.status, 404);
  });

  test('an attempt as the UI makes it: the preset, the solution, the goal at the end', async () => {
    const scenario = { ...exercise.preset, ops: exercise.solution, expect: exercise.goal.map((g) => ({ ...g, at: 'end' })) };
    const r = await api(srv.url, 'POST', '/api/sessions', { body: { scenario } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.expects, [
      { at: 'end', metric: 'A.slabs', op: '>=', value: 2, ok: true, seen: 2, message: null },
    ]);
    const p = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: exercise.preset } });
    assert.equal(p.status, 201, p.text);
    assert.deepEqual(p.json.expects, []);
    assert.equal(r.json.ops - p.json.ops, 65); /* the solution's operations, as max_ops counts them */
  });
});

describe('a session\'s expectations', () => {
  const scenario = {
    format: 1, name: 'expects', machine: { cpus: 1 },
    caches: [{ name: 'A', object_size: 64 }],
    ops: [
      { op: 'alloc', cpu: 0, cache: 'A', name: 'x' },
      { op: 'mark', name: 'one' },
      { op: 'alloc', cpu: 0, cache: 'A', name: 'y' },
    ],
    expect: [
      { at: 'one', metric: 'A.slabs', op: '==', value: 1 },
      { at: 'end', metric: 'A.slabs', op: '>=', value: 5 },
    ],
  };
  const want = [
    { at: 'one', metric: 'A.slabs', op: '==', value: 1, ok: true, seen: 1, message: null },
    { at: 'end', metric: 'A.slabs', op: '>=', value: 5, ok: false, seen: 1, message: 'A.slabs was 1 at end, expected >= 5' },
  ];

  test('in POST and GET, and the same after a restart', async () => {
    const c = await api(srv.url, 'POST', '/api/sessions', { body: { scenario } });
    assert.equal(c.status, 201, c.text);
    assert.deepEqual(c.json.expects, want);
    let g = await api(srv.url, 'GET', `/api/sessions/${c.json.id}`);
    assert.equal(g.status, 200);
    assert.deepEqual(g.json.expects, want);

    await srv.stop();
    srv = await start({ dir, db: srv.db, args: ['--lessons', lessons] });
    g = await api(srv.url, 'GET', `/api/sessions/${c.json.id}`);
    assert.equal(g.status, 200, g.text);
    assert.deepEqual(g.json.expects, want);
  });

  test('a mark never reached, a scenario without expectations', async () => {
    const s = {
      ...scenario, name: 'unreached',
      ops: [{ op: 'repeat', times: 0, ops: [{ op: 'mark', name: 'never' }] }],
      expect: [{ at: 'never', metric: 'alloc_fastpath', op: '==', value: 0 }],
    };
    let r = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: s } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.expects, [{
      at: 'never', metric: 'alloc_fastpath', op: '==', value: 0, ok: false, seen: null,
      message: 'the mark "never" was never reached',
    }]);
    r = await api(srv.url, 'POST', '/api/sessions', { body: { scenario: { ...scenario, name: 'none', expect: undefined } } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.expects, []);
  });
});
