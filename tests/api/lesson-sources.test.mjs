// Every slide of every lesson shows a step, and the lesson panel links the
// kernel source of that step (web/js/views/lesson.js, a lookup of
// web/js/sourcelines.js in web/data/source-lines.json): the engine's event
// at the slide's position, in the slide's scenario, release and variants
// (as the lesson player runs it), resolves to at least one reference with a
// link, and a link to lines of a tabled release points inside the
// function's range.  The one exception: a step of the lab's own event that
// no kernel code does (user_write, the caller's stray write), where the
// panel says so.  Run: SLUBLAB_BIN=build/slublab node --test tests/api/lesson-sources.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { BIN } from './lib.mjs';
import { slideRun } from '../../web/js/course.js';
import { setSourceLines, sourceRefs } from '../../web/js/sourcelines.js';

const ROOT = new URL('../../', import.meta.url);
const table = JSON.parse(readFileSync(new URL('web/data/source-lines.json', ROOT), 'utf8'));
setSourceLines(table);

/** The events and the release of one run of a slide's scenario. */
const runs = new Map();
function events(run) {
  if (!runs.has(run.key)) {
    const args = ['run', `scenarios/${run.scenario}.json`, '--events'];
    if (run.kernel) args.push('--kernel', run.kernel);
    for (const [k, v] of Object.entries(run.variants ?? {})) args.push('--variant', `${k}=${v}`);
    // exit status 1: an expect of the scenario failed, which is not this test's business
    const p = spawnSync(BIN, args, { cwd: ROOT, maxBuffer: 1 << 28, encoding: 'utf8' });
    assert.ok(p.status === 0 || p.status === 1, `slublab ${args.join(' ')}: ${p.status} ${p.stderr}`);
    const lines = p.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    const summary = lines.pop().summary;
    runs.set(run.key, { events: lines, kernel: summary.kernel ?? null });
  }
  return runs.get(run.key);
}

test('every slide of every lesson has a step whose kernel source is linked', () => {
  const dir = new URL('lessons/', ROOT);
  let slides = 0;
  const missing = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
    const lesson = JSON.parse(readFileSync(new URL(f, dir), 'utf8'));
    lesson.slides.forEach((s, i) => {
      const run = slideRun(lesson, i + 1);
      assert.ok(run && s.at > 0, `${f} slide ${i + 1} shows a step`);
      const r = events(run);
      const e = r.events[s.at - 1];
      assert.ok(e, `${f} slide ${i + 1}: ${run.scenario} has a step ${s.at}`);
      const refs = sourceRefs(e.fn, r.kernel, e);
      slides++;
      const noKernelCode = table.engine_only.includes(e.fn) && !(e.fn in table.stand_in);
      if (noKernelCode) assert.deepEqual(refs.map((x) => x.kind), ['lab'], `${f} slide ${i + 1}: ${e.fn}`);
      else if (!refs.some((x) => 'url' in x)) missing.push(`${f} slide ${i + 1} (${run.scenario} step ${s.at}: ${e.fn} ${e.label}, Linux ${r.kernel}): ${refs.map((x) => x.text).join(' · ') || 'nothing'}`);
      for (const x of refs) {
        if (!('line' in x)) continue;
        const row = table.releases[x.release].functions[x.fn];
        assert.ok(x.line >= row.start && x.line <= row.end, `${f} slide ${i + 1}: line ${x.line} in ${x.fn} ${row.start}-${row.end}`);
        assert.ok(x.url.endsWith(`#L${x.line}`));
      }
    });
  }
  assert.deepEqual(missing, [], 'slides whose step has no source link');
  assert.ok(slides >= 90, `${slides} slides`);
});
