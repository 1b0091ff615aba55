// Unit tests of web/js/views/kernelmenu.js's kernelChoice (which entry the
// header's Kernel menu shows for a session's settings) and of the compare
// view's query for a kernel axis.
// Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kernelChoice } from '../../web/js/views/kernelmenu.js';
import { compareQuery } from '../../web/js/views/compare.js';

test('a session on a release shows the release', () => {
  assert.deepEqual(kernelChoice({ kernel: '6.12', model: '6.12' }), { value: '6.12', label: '(model)' });
});

test('a session on a model chosen by hand shows the model, no release', () => {
  assert.deepEqual(kernelChoice({ kernel: null, model: 'legacy:ERA_DIRECT_LOAD' }), { value: '', label: '(model legacy:ERA_DIRECT_LOAD)' });
  assert.deepEqual(kernelChoice(undefined), { value: '', label: '(model)' });
});

test('the compare view asks /api/compare for kernel=A,B on a kernel axis', () => {
  assert.deepEqual(compareQuery('free-storm', 'kernel:6.12,7.3'), { scenario: 'free-storm', kernel: '6.12,7.3' });
  assert.deepEqual(compareQuery('session:abc', 'model:legacy:ERA_FROZEN_PARTIAL,legacy'), { session: 'abc', model: 'legacy:ERA_FROZEN_PARTIAL,legacy' });
  assert.deepEqual(compareQuery('free-storm', 'variant:BARN_REFILL'), { scenario: 'free-storm', variant: 'BARN_REFILL' });
});
