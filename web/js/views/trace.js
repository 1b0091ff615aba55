// @ts-check
// "Open a kernel trace": upload a kmem trace (ftrace text, plain or gzip,
// as scripts/record-kmem-trace writes it) to POST /api/traces, show the
// upload, then each phase of the server's job with its label and progress
// (GET /api/traces/ID: replaying the trace, then building the session,
// whose progress is the operations applied of those recorded), and open
// the session it makes; the machine's /proc/slabinfo, picked with the
// trace, goes before it and gives its caches that machine's geometry.  On
// failure the server's message and the replay's report are shown.  Cancel deletes the upload (DELETE
// /api/traces/ID with the token its upload was given), which stops the
// replay.  No allocator logic: the server replays.
import { h, fill } from '../dom.js';

const POLL_MS = 250;

/**
 * What the dialog says of a running job (GET /api/traces/ID): the text, the
 * phase it names and the bar's share; null once the job is done or failed.
 * @param {any} job
 * @returns {{ text: string, phase: string, share: number } | null}
 */
export function jobStatus(job) {
  // phase_progress is the running phase's share; older servers only give progress
  const share = job.phase_progress ?? job.progress;
  const pct = `${Math.floor(share * 100)}%`;
  if (job.state === 'replaying') return { text: `Replaying the trace: ${pct}`, phase: 'replaying', share };
  if (job.state === 'building') {
    return {
      text: job.ops_total
        ? `Building the session: ${pct} (${job.ops} of ${job.ops_total} operations)`
        : `Building the session from ${job.events} events…`,
      phase: 'building', share,
    };
  }
  return null;
}

/**
 * @param {HTMLElement} root  where the control lives (in the header)
 * @param {{ doc: Document, win: Window, open: (id: string, token: string) => Promise<void> }} o
 */
export function createTraceOpen(root, { doc, win, open }) {
  const input = /** @type {HTMLInputElement} */ (h(doc, 'input', {
    type: 'file', id: 'trace-file', accept: '.txt,.gz,.trace,text/plain,application/gzip', hidden: true, multiple: true,
    'aria-label': 'A kernel kmem trace file, and the machine\'s /proc/slabinfo beside it if you have it',
  }));
  const button = h(doc, 'button', { type: 'button', id: 'trace-open-btn', onclick: () => input.click() }, 'Open a kernel trace');
  const bar = /** @type {HTMLProgressElement} */ (h(doc, 'progress', { id: 'trace-progress', max: '1', value: '0', hidden: true, 'aria-label': 'Trace replay progress' }));
  const status = h(doc, 'span', { id: 'trace-status', class: 'trace-status', role: 'status', 'aria-live': 'polite' });
  const report = h(doc, 'details', { id: 'trace-report', class: 'trace-report', hidden: true },
    h(doc, 'summary', null, 'Replay report'), h(doc, 'pre', null));
  // a kmem trace names the tasks that ran and the kernel's call sites: say so before it leaves the machine
  const NOTE = 'A trace holds the names of the tasks that ran and the kernel\'s call sites; the lab keeps the session made from it until you delete it.';
  const note = h(doc, 'span', { id: 'trace-note', class: 'trace-note' }, NOTE);
  const cancel = h(doc, 'button', { type: 'button', id: 'trace-cancel', hidden: true, onclick: () => stop() }, 'Cancel');
  button.setAttribute('aria-describedby', 'trace-note');
  // the machine's /proc/slabinfo may be picked with the trace: its caches' geometry (?slabinfo=N)
  button.setAttribute('title', `Pick the trace, and with it the machine's /proc/slabinfo (optional) for its caches' geometry. ${NOTE}`);
  note.hidden = true; /* shown while a trace is on its way; the button's title says it before */
  fill(root, button, input, bar, cancel, status, report, note);

  /** @type {{ id: string, token: string } | null} the upload being replayed, which Cancel deletes */
  let current = null;
  let stopped = false;
  async function stop() {
    stopped = true;
    cancel.hidden = true;
    if (!current) return;
    const { id, token } = current;
    current = null;
    await fetch(`/api/traces/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } }).catch(() => {});
  }

  /** @param {string} text @param {boolean} [err] @param {string} [phase] what the bar shows */
  const say = (text, err = false, phase = '') => {
    status.textContent = text;
    status.classList.toggle('err', err);
    status.dataset.phase = phase;
    bar.setAttribute('aria-label', phase === 'building' ? 'Session building progress'
      : phase === 'replaying' ? 'Trace replay progress' : 'Trace upload progress');
  };
  const showReport = (text) => {
    report.hidden = !text;
    /** @type {HTMLElement} */ (report.querySelector('pre')).textContent = text ?? '';
  };

  /** Of the files picked, the machine's /proc/slabinfo (it opens with its header) and the trace. */
  async function sortFiles(/** @type {File[]} */ files) {
    let slabinfo = null, trace = null;
    for (const f of files) {
      if (!slabinfo && (await f.slice(0, 23).text()) === 'slabinfo - version: 2.1') slabinfo = f;
      else trace ??= f;
    }
    return { slabinfo, trace };
  }

  /** POST the file (after the slabinfo, when one was picked) with upload progress; resolves to the job. */
  function upload(file, slabinfo) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', slabinfo ? `/api/traces?slabinfo=${slabinfo.size}` : '/api/traces');
      xhr.setRequestHeader('Content-Type', 'application/octet-stream');
      xhr.upload.onprogress = (ev) => {
        if (!ev.lengthComputable) return;
        bar.value = ev.loaded / ev.total;
        say(`Uploading ${file.name}${slabinfo ? ` after ${slabinfo.name}` : ''}: ${Math.floor((ev.loaded / ev.total) * 100)}%`, false, 'uploading');
        note.hidden = false;
      };
      xhr.onload = () => {
        let json = null;
        try { json = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
        if (xhr.status === 202 && json?.id) resolve(json);
        else reject(new Error(json?.error?.message ?? `the server answered ${xhr.status}`));
      };
      xhr.onerror = () => reject(new Error('the server cannot be reached'));
      xhr.send(slabinfo ? new Blob([slabinfo, file]) : file); // the slabinfo first, then the trace
    });
  }

  async function poll(id) {
    for (;;) {
      if (stopped) throw new Error('cancelled: the upload was deleted');
      const res = await fetch(`/api/traces/${encodeURIComponent(id)}`);
      const job = await res.json();
      if (!res.ok) throw new Error(job?.error?.message ?? `HTTP ${res.status}`);
      const st = jobStatus(job);
      if (st) {
        bar.value = st.share;
        say(st.text, false, st.phase);
      }
      if (job.state === 'done' || job.state === 'failed') return job;
      await new Promise((r) => win.setTimeout(r, POLL_MS));
    }
  }

  input.addEventListener('change', async () => {
    const { slabinfo, trace: file } = await sortFiles([...(input.files ?? [])]);
    input.value = '';
    if (!file) {
      if (slabinfo) say(`${slabinfo.name} is a /proc/slabinfo: pick the trace with it`, true);
      return;
    }
    button.setAttribute('disabled', '');
    bar.hidden = false;
    bar.value = 0;
    stopped = false;
    showReport(null);
    try {
      const up = await upload(file, slabinfo);
      current = { id: up.id, token: up.token };
      cancel.hidden = false;
      const job = await poll(up.id);
      current = null;
      cancel.hidden = true;
      showReport(job.report);
      if (job.state === 'failed') {
        say(`The trace could not be opened: ${job.error.message}`, true);
        return;
      }
      // the release the replay ran on, and whether the trace said it or it was guessed
      const kernel = /^kernel (\S+): (.*)$/m.exec(job.report ?? '');
      const guessed = kernel && /no "# kernel:" line/.test(kernel[2]);
      say(`${file.name}${slabinfo ? ` (caches from ${slabinfo.name})` : ''}: ${job.events} events replayed${kernel ? ` on Linux ${kernel[1]}${guessed ? ' (guessed: the trace names no kernel; POST /api/traces?kernel=X.Y or slublab replay --kernel picks another)' : ''}` : ''}`);
      await open(job.session.id, job.session.token);
    } catch (err) {
      say(`The trace could not be opened: ${err.message}`, true);
    } finally {
      bar.hidden = true;
      note.hidden = true;
      cancel.hidden = true;
      current = null;
      button.removeAttribute('disabled');
    }
  });
}
