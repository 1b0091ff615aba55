// The follow-mode machinery shared by tests/browser/follow.test.mjs and
// bench/follow-lag.mjs: a page's position trail, a follower without a page
// (the event stream and the state fetches a page makes), and a trail's
// position at a time.  Not a test (node --test runs only *.test.mjs).

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
 * time, skipping positions it had no time for).  Its trail is [time, at]
 * of each state it got (no timers: a hundred of them would load the test),
 * its times the milliseconds each state fetch took; a fetch answered with
 * an error status is its error.
 */
export function nodeFollower(streamUrl, stateUrl) {
  const ctl = new AbortController();
  // shown -1: the first message fetches a state, as a page does when it opens
  const f = { trail: [[Date.now(), 0]], times: [], shown: -1, target: null, busy: false, error: null, stop: () => { if (!ctl.signal.aborted) ctl.abort(); } };
  const pump = async () => {
    if (f.busy) return;
    f.busy = true;
    try {
      while (f.target != null && f.target.at !== f.shown) {
        const want = f.target;
        const t0 = performance.now();
        const r = await fetch(stateUrl(want), { signal: ctl.signal });
        const st = await r.json();
        f.times.push(performance.now() - t0);
        if (!r.ok) throw new Error(`state: ${r.status}`);
        f.shown = st.at;
        f.trail.push([Date.now(), st.at]);
      }
    } catch (err) { if (!ctl.signal.aborted) f.error = err; }
    f.busy = false;
  };
  (async () => {
    const r = await fetch(streamUrl, { signal: ctl.signal });
    const dec = new TextDecoder();
    let buf = '';
    for await (const chunk of r.body) {
      buf += dec.decode(chunk, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const msg = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = /^data: (.*)$/m.exec(msg);
        if (!data) continue;
        f.target = JSON.parse(data[1]);
        pump();
      }
    }
  })().catch((err) => { if (!ctl.signal.aborted) f.error = err; });
  return f;
}

/** The presenter's position at time @t, from its trail. */
export function atTime(tr, t) {
  let at = 0;
  for (const [time, a] of tr) { if (time > t) break; at = a; }
  return at;
}
