// The page's first requests, sent while the UI's modules still load: a
// small classic script beside index.html (not one of the modules in js/),
// which the page runs as its parser reaches it, before the modules have
// even compiled (an async script waited behind their compilation; the
// parser waits for its few hundred bytes only), and above the stylesheet
// (a script below one waits for it to load before it runs).  For an address that
// starts a session of a shipped scenario (`/`, `/?scenario=NAME`, as
// readQuery() in js/urlstate.js reads it) it sends the POST /api/sessions
// that main.js would send once the modules have run, with `?first=1`: its
// answer also carries the session's description and its state at 0, what
// the player opens it with (js/state.js), so the first state is one round
// trip away (a server that answers without them gets the two GETs once
// the POST answers, as before).  For an address that names a session
// (`/?session=ID&at=N`, a reload of the lab) it sends those two GETs at
// once.  main.js takes what is here (js/api.js: earlySession(), and
// request() for the GETs) and asks for nothing twice; an address this
// script leaves alone is opened as before.  An offline copy runs no such
// script; in the static lab, static/boot.js runs before it, so its fetch()
// answers these too.
(function () {
  'use strict';
  const q = new URLSearchParams(location.search);
  const named = ['follow', 'lecture', 'snapshot', 'lesson', 'exercise', 'cmp'].some((k) => q.has(k));
  // main.js ran first (api.earlySession()): it asks for what it needs itself
  if (named || window.__slublabOffline || window.__slublabEarly) return;
  // each answer kept as {status, text} (or {status, json}, already parsed): api.js reads it as it reads its own
  const read = (res) => res.text().then((text) => ({ status: res.status, text }));
  const gets = {};
  const open = (id, at) => {
    const s = `/api/sessions/${encodeURIComponent(id)}`;
    for (const path of [s, `${s}/state?at=${at}`]) gets[path] = fetch(path).then(read);
  };
  const session = q.get('session');
  if (session) {
    const at = Number(q.get('at') ?? 0);
    if (Number.isInteger(at) && at >= 0) open(session, at);
    window.__slublabEarly = { scenario: null, create: null, gets };
    return;
  }
  const scenario = q.get('scenario') || 'default';
  const create = fetch('/api/sessions?first=1', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ scenario }),
  }).then(read).then((a) => {
    let r = null;
    try { r = a.status === 201 ? JSON.parse(a.text) : null; } catch { r = null; }
    if (typeof r?.id !== 'string') return a;
    if (r.session && r.state) {
      // what the two GETs would answer, kept parsed (api.js takes {status, json} as it is)
      const s = `/api/sessions/${encodeURIComponent(r.id)}`;
      gets[s] = Promise.resolve({ status: 200, json: r.session });
      gets[`${s}/state?at=0`] = Promise.resolve({ status: 200, json: r.state });
      delete r.session;
      delete r.state;
      return { status: a.status, json: r };
    }
    open(r.id, 0);
    return a;
  });
  window.__slublabEarly = { scenario, create, gets };
}());
