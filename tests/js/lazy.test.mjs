// Unit tests of web/js/lazy.js: a view whose module loads on its first
// render.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lazyView } from '../../web/js/lazy.js';

test('a lazy view loads once, on its first render, then renders itself', async () => {
  const rendered = [];
  let loads = 0, loaded = 0;
  const v = lazyView(async () => { loads++; return { make: () => ({ render: (m) => rendered.push(m) }) }; }, (x) => x.make(), () => loaded++);
  assert.equal(v.view, null);
  assert.equal(v.render(1), undefined);
  assert.equal(v.render(2), undefined);
  await new Promise((ok) => setTimeout(ok, 0));
  assert.equal(loads, 1);
  assert.equal(loaded, 1);
  assert.ok(v.view);
  assert.deepEqual(rendered, [], 'the renders before the load are dropped: onLoad asks for one');
  v.render(3);
  assert.deepEqual(rendered, [3]);
});
