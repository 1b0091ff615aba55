// Unit tests of web/js/static/api.js's requestOrder(): the order the
// static lab's Worker answers the page's requests in.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestOrder } from '../../web/js/static/api.js';

const enc = new TextEncoder();
const S = '/api/sessions/abc';
const read = (at) => ({ method: 'GET', target: `${S}/state?at=${at}` });
const publish = (to) => ({ method: 'POST', target: `${S}/step`, body: enc.encode(JSON.stringify({ to, state: false })) });

/** A requestOrder() whose later() tasks run when run() is called: [order, log, runTasks]. */
function setup() {
  const log = [], tasks = [];
  const name = (msg) => msg.target.endsWith('/step') ? `publish ${JSON.parse(new TextDecoder().decode(msg.body)).to}` : msg.target.replace(S, '') || '/';
  const order = requestOrder((msg) => log.push(name(msg)),
    (target) => log.push(`warm ${target.replace(S, '')}`), (fn) => tasks.push(fn));
  const runTasks = () => { while (tasks.length) tasks.shift()(); };
  return [order, log, runTasks];
}

test('a position publish waits while state reads come, then runs when the Worker is idle', () => {
  const [order, log, runTasks] = setup();
  order.take(read(1));
  order.take(publish(1));
  order.take(read(2));
  assert.deepEqual(log, ['/state?at=1', '/state?at=2'], 'the read of position 2 overtakes the publish of 1');
  runTasks();
  assert.deepEqual(log, ['/state?at=1', '/state?at=2', 'warm /state?at=3', 'publish 1']);
});

test('any other request lets the publishes before it run first, in order', () => {
  const [order, log, runTasks] = setup();
  order.take(publish(4));
  order.take(publish(5));
  order.take({ method: 'GET', target: `${S}` }); // the session, with its position
  order.take({ method: 'GET', target: `${S}/state?at=5&by=op&dir=next` });
  assert.deepEqual(log, ['publish 4', 'publish 5', '/', '/state?at=5&by=op&dir=next']);
  runTasks();
  assert.equal(log.length, 4, 'nothing to compute ahead: no plain read came');
});

test('the state computed ahead follows the direction of the reads; a request meanwhile puts it off', () => {
  const [order, log, runTasks] = setup();
  order.take(read(10));
  order.take(read(9));
  runTasks();
  assert.deepEqual(log.slice(2), ['warm /state?at=8'], 'stepping back: the position before');
  order.take(read(0));
  runTasks();
  assert.deepEqual(log.slice(3), ['/state?at=0'], 'nothing before position 0');
  order.take(read(1));
  order.take(read(2)); // came before the quiet moment
  runTasks();
  assert.deepEqual(log.slice(4), ['/state?at=1', '/state?at=2', 'warm /state?at=3'], 'computed once, for the last read');
  order.take(read(3));
  order.take({ method: 'POST', target: `${S}/ops`, body: enc.encode('{}') });
  runTasks();
  assert.deepEqual(log.slice(7), ['/state?at=3', '/ops'], 'a change to the session drops what was to be computed');
});
