// The page's first requests, sent while the UI's modules still load: a
// small classic script beside index.html (not one of the modules in js/),
// which the page runs as its parser reaches it, before the modules have
// even compiled (an async script waited behind their compilation; the
// parser waits for its few hundred bytes only).  For an address that starts a session of a shipped scenario
// (`/`, `/?scenario=NAME`, as readQuery() in js/urlstate.js reads it) it
// sends the POST /api/sessions that main.js would send once the modules
// have run, and once that answers, the GETs of the session and of its
// state at 0 that the player opens it with (js/state.js); for one that
// names a session (`/?session=ID&at=N`, a reload of the lab), those two
// GETs at once.  main.js takes what is here (js/api.js: earlySession(),
// and request() for the GETs) and asks for nothing twice; an address this
// script leaves alone is opened as before.  An offline copy runs no such
// script; in the static lab, static/boot.js runs before it, so its fetch()
// answers these too.
(function () {
  'use strict';
  const q = new URLSearchParams(location.search);
  const named = ['follow', 'lecture', 'snapshot', 'lesson', 'exercise', 'cmp'].some((k) => q.has(k));
  // main.js ran first (api.earlySession()): it asks for what it needs itself
  if (named || window.__slublabOffline || window.__slublabEarly) return;
  // each answer kept as {status, text}: api.js reads it as it reads its own
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
  const create = fetch('/api/sessions', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ scenario }),
  }).then(read).then((a) => {
    let id = null;
    try { id = a.status === 201 ? JSON.parse(a.text).id : null; } catch { id = null; }
    if (typeof id === 'string') open(id, 0);
    return a;
  });
  window.__slublabEarly = { scenario, create, gets };
}());
