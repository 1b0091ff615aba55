// The follow-mode machinery shared by tests/browser/follow.test.mjs and
// bench/follow-lag.mjs: a page's position trail, a follower without a page
// (the event stream and the state fetches a page makes), and a trail's
// position at a time.  Not a test (node --test runs only *.test.mjs).
import http from 'node:http';

/** Record a page's position every 50 ms in window.__trail as [time, at]. */
export async function trail(page) {
  await page.evaluate(() => {
    window.__trail = [];
    setInterval(() => window.__trail.push([Date.now(), window.__slublab.player.get().at]), 50);
  });
}

/**
 * A follower as a page would be, without the page: reads the event stream
 * @streamUrl and fetches the state of the latest position it announced (one at a
 * time, skipping positions it had no time for), on a keep-alive connection
 * of its own as a page's fetches are, unless the message carried the state
 * (docs/api.md: the presenter's page had rendered it), which it shows at
 * once as a page does.  Its trail is [time, at] of each
 * state it got (no timers: a hundred of them would load the test), its
 * heard [time, at] of each position the stream announced, its inline the
 * states the stream carried, its times the
 * milliseconds each state fetch took, from the request to the answer's
 * last byte; a fetch answered with an error status is its error.
 *
 * Three hundred of these share the server's cores, standing for as many
 * students' machines, so each does the least a follower must: node:http
 * rather than fetch() (about 1.5 times less CPU a request), and of the
 * answer (a state of several KiB, which a page parses whole on its own
 * machine) only its head is read for "at", the rest received as bytes.
 * Parsing it all took as much CPU again as the request and held the
 * followers' own event loops a second behind, counted as the server's
 * lag; tests/browser/follow.test.mjs's pages still parse and draw it.
 */
export function nodeFollower(streamUrl, stateUrl) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const reqs = new Set();
  let stopped = false;
  // shown -1: the first message fetches a state, as a page does when it opens
  const f = {
    trail: [[Date.now(), 0]], heard: [], times: [], inline: 0, shown: -1, target: null, busy: false, error: null,
    stop: () => {
      stopped = true;
      for (const r of reqs) r.destroy();
      agent.destroy();
    },
  };
  const get = (url, onResponse) => {
    const req = http.get(url, { agent: onResponse ? undefined : agent }, onResponse);
    reqs.add(req);
    req.on('close', () => reqs.delete(req));
    return req;
  };
  // {status, at}: at from the answer's head ({"at":N,...}), null when it is not there
  const fetchState = (url) => new Promise((ok, fail) => {
    get(url).on('response', (res) => {
      let head = '';
      res.on('data', (d) => { if (head.length < 64) head += d.toString('latin1', 0, 64); });
      res.on('end', () => {
        const m = /^\{"at":(\d+)[,}]/.exec(head);
        ok({ status: res.statusCode, at: m ? Number(m[1]) : null, head });
      });
      res.on('error', fail);
    }).on('error', fail);
  });
  const pump = async () => {
    if (f.busy) return;
    f.busy = true;
    try {
      while (f.target != null && f.target.at !== f.shown && !stopped) {
        const want = f.target;
        const t0 = performance.now();
        const r = await fetchState(stateUrl(want));
        f.times.push(performance.now() - t0);
        if (r.status !== 200) throw new Error(`state: ${r.status} ${r.head}`);
        if (r.at === null) throw new Error(`state: no "at" at the head of ${r.head}`);
        if (f.target.at === f.shown) continue; // the stream brought a later state meanwhile
        f.shown = r.at;
        f.trail.push([Date.now(), r.at]);
      }
    } catch (err) { if (!stopped) f.error = err; }
    f.busy = false;
  };
  const stream = get(streamUrl, (res) => {
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const msg = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = /^data: (.*)$/m.exec(msg);
        if (!data) continue;
        // the head only: a state it carries is received as bytes, as a fetched one is
        const head = /^\{"session":"([^"]*)","at":(\d+),/.exec(data[1]);
        if (!head) { f.error = new Error(`stream: no session and at in ${data[1].slice(0, 80)}`); continue; }
        f.target = { session: head[1], at: Number(head[2]) };
        f.heard.push([Date.now(), f.target.at]);
        if (data[1].includes(',"state":{"at":')) {
          f.inline++;
          if (f.shown !== f.target.at) {
            f.shown = f.target.at;
            f.trail.push([Date.now(), f.shown]);
          }
          continue;
        }
        pump();
      }
    });
    res.on('error', (err) => { if (!stopped) f.error = err; });
  });
  stream.on('error', (err) => { if (!stopped) f.error = err; });
  return f;
}

/** The presenter's position at time @t, from its trail. */
export function atTime(tr, t) {
  let at = 0;
  for (const [time, a] of tr) { if (time > t) break; at = a; }
  return at;
}
