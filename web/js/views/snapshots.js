// @ts-check
// Snapshots: save the current step with a title and a note, copy a
// permalink that reopens the exact session, step and view, export the
// snapshot as JSON and the view as PNG, download the step's /proc/slabinfo
// and /sys/kernel/slab tree for slabtop and slabinfo, the step's Markdown
// report, an offline HTML copy of the session (docs/export.md),
// import a JSON snapshot (with a warning when another engine version made it).

import { slabinfoText } from '../format.js';
import { h, fill, download } from '../dom.js';
import { api } from '../api.js';
import { createTokens, SNAPSHOT_KEY } from '../tokens.js';

/**
 * @param {{ storage: Storage|null, viewLink: () => string, snapshotLink: (id: string, note: string) => string,
 *           exportPng: () => void, openSnapshot: (id: string) => Promise<void>, version: () => string }} o
 */
export function createSnapshots(root, player, o) {
  const doc = root.ownerDocument;
  const title = h(doc, 'input', { type: 'text', id: 'snap-title', maxlength: 200 });
  const note = h(doc, 'textarea', { id: 'snap-note', rows: 3 });
  const link = h(doc, 'input', { type: 'text', id: 'permalink', readonly: true, 'aria-label': 'Permalink' });
  const msg = h(doc, 'p', { id: 'snap-msg', role: 'status' });
  const file = h(doc, 'input', { type: 'file', id: 'snap-import', accept: '.json,application/json' });
  const list = h(doc, 'ul', { id: 'snap-list' });
  let last = /** @type {{ id: string, note: string }|null} */ (null);
  // the snapshots this browser saved or imported (their tokens): the list shows those, and the published ones
  const mine = createTokens(o.storage, SNAPSHOT_KEY);

  async function copy(text) {
    link.value = text;
    link.focus();
    link.select();
    try { await globalThis.navigator?.clipboard?.writeText(text); msg.textContent = 'Copied the link.'; }
    catch { msg.textContent = 'The link is selected: copy it with Ctrl+C.'; }
  }

  async function save() {
    const m = player.get();
    if (!m.session?.id) return null;
    const t = title.value.trim() || `${m.session.info.scenario.name} at step ${m.at}`;
    const r = await api.createSnapshot({
        session : m.session.id,
        at : m.at,
        title : t.slice(0, 200),
        ...(note.value ? {note : note.value.slice(0, 4000)} : {})
    });
    mine.keep(r.id, r.token);
    last = { id: r.id, note: note.value };
    if (o.storage && note.value) o.storage.setItem(`slublab.note.${r.id}`, note.value);
    msg.textContent = `Saved snapshot ${r.id} (step ${r.position}).`;
    link.value = o.snapshotLink(r.id, note.value);
    refresh();
    return r;
  }

  /**
   * Download what the server answers at @url, named as it says (else
   * @name); when it refuses (an offline copy of a session too long for
   * one), say why instead.  @what names the file in the messages.
   */
  async function fetchDownload(url, name, what) {
    msg.textContent = `Preparing ${what}…`;
    try {
      const r = await api.fetchFile(url);
      // as plain bytes: a browser adds no extension of its own to the server's name
      download(doc, r.name ?? name, new Blob([r.blob], { type: 'application/octet-stream' }));
      msg.textContent = `Downloaded ${what}.`;
    } catch (e) {
      msg.textContent = `Could not download ${what}: ${e.message}`;
    }
  }
  /** Download the current step as kernel files (@format slabinfo or sysfs). */
  function kernelFiles(format) {
    const m = player.get();
    if (m.session?.id) fetchDownload(api.exportUrl(m.session.id, format, m.at), `${format}-${m.session.id}-${m.at}`, format === 'sysfs' ? 'the /sys/kernel/slab tar' : '/proc/slabinfo');
  }
  /** Download the report of the current step (@format md) or its chart (svg). */
  function report(format) {
    const m = player.get();
    if (m.session?.id) fetchDownload(api.reportUrl(m.session.id, format, m.at), `report-${m.session.id}.${format}`, format === 'md' ? 'the report' : 'the chart');
  }
  /** Download the offline copy of the whole session, opening at the current step; a
   * session longer than the server's limit is refused here, before any download. */
  function offline() {
    const m = player.get();
    const max = o.offlineMax?.();
    if (max && m.end > max) {
      msg.textContent = `This session is too long for an offline copy: ${m.end.toLocaleString('en')} steps, at most ${max.toLocaleString('en')}.`;
      return;
    }
    if (m.session?.id) fetchDownload(api.offlineUrl(m.session.id, m.at), `slublab-${m.session.id}.html`, 'offline copy');
  }
  const max = o.offlineMax?.();
  const limitNote = h(doc, 'span', { id: 'export-html-limit', class: 'note' },
    max ? ` Sessions of up to ${max.toLocaleString('en')} steps; a long one takes a while.` : '');

  if (o.offline?.()) {
    // an offline copy (docs/export.md): no server to save, export or report; what the page makes itself
    const slabinfo = () => {
      const m = player.get();
      if (!m.cur) return;
      download(doc, `slabinfo-${m.session?.id ?? 'offline'}-${m.at}`, slabinfoText(m.cur.state), 'text/plain');
      msg.textContent = 'Downloaded /proc/slabinfo.';
    };
    fill(root,
      h(doc, 'p', { class: 'note', id: 'offline-note' }, 'This is an offline copy: snapshots, reports, the sysfs tree and other copies need the lab\'s server. What works here:'),
      h(doc, 'p', { class: 'row' },
        h(doc, 'button', { type: 'button', id: 'png-export', onclick: () => o.exportPng() }, 'Export view as PNG'),
        h(doc, 'button', { type: 'button', id: 'export-slabinfo', title: 'What /proc/slabinfo would show at this step (slabtop reads it), made in the page', onclick: slabinfo }, '/proc/slabinfo')),
      msg);
    return { refresh() {}, save: async () => null };
  }

  fill(root,
    h(doc, 'label', { for: 'snap-title' }, 'Title'), title,
    h(doc, 'label', { for: 'snap-note' }, 'Note'), note,
    h(doc, 'p', { class: 'row' },
      h(doc, 'button', { type: 'button', id: 'snap-save', onclick: () => save().catch((e) => { msg.textContent = e.message; }) }, 'Save snapshot'),
      h(doc, 'button', { type: 'button', id: 'snap-copy', onclick: async () => { if (!last) await save(); if (last) copy(o.snapshotLink(last.id, last.note)); } }, 'Copy snapshot permalink'),
      h(doc, 'button', { type: 'button', id: 'view-copy', onclick: () => copy(o.viewLink()) }, 'Copy link to this view')),
    link,
    h(doc, 'p', { class: 'row' },
      h(doc, 'button', { type: 'button', id: 'snap-export', onclick: async () => {
        try {
          if (!last) await save();
          if (!last) return;
          const text = await api.exportSnapshot(last.id);
          download(doc, `slublab-snapshot-${last.id}.json`, text, 'application/json');
        } catch (e) { msg.textContent = e.message; }
      } }, 'Export snapshot JSON'),
      h(doc, 'button', { type: 'button', id: 'png-export', onclick: () => o.exportPng() }, 'Export view as PNG')),
    h(doc, 'p', { class: 'row' }, 'Kernel files at this step: ',
      h(doc, 'button', { type: 'button', id: 'export-slabinfo', title: 'What /proc/slabinfo would show (slabtop reads it)', onclick: () => kernelFiles('slabinfo') }, '/proc/slabinfo'),
      h(doc, 'button', { type: 'button', id: 'export-sysfs', title: 'A tar of /sys/kernel/slab (the kernel\'s slabinfo tool reads it)', onclick: () => kernelFiles('sysfs') }, '/sys/kernel/slab (tar)')),
    h(doc, 'p', { class: 'row' }, 'Report of this step: ',
      h(doc, 'button', { type: 'button', id: 'report-md', title: 'State and counters as Markdown, for a review', onclick: () => report('md') }, 'Markdown'),
      h(doc, 'button', { type: 'button', id: 'report-svg', title: 'The chart the Markdown report links (save it beside the report)', onclick: () => report('svg') }, 'Chart (SVG)')),
    h(doc, 'p', { class: 'row' }, 'The whole session: ',
      h(doc, 'button', { type: 'button', id: 'export-html', title: 'One HTML file that opens without the server and steps through this session', onclick: offline }, 'Offline copy (HTML)'),
      limitNote),
    h(doc, 'p', { class: 'row' }, h(doc, 'label', null, 'Import a snapshot JSON ', file)),
    msg, h(doc, 'h3', null, 'Recent snapshots'),
    h(doc, 'p', { class: 'note', id: 'snap-where' }, /** @type {any} */ (globalThis).slublabStatic?.snapshots // the static lab (static/boot.js)
      ?? 'Those saved or imported in this browser, and those their authors published. Publish one of yours to list it for everyone.'), list);

  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (!f) return;
    try {
      const text = await f.text();
      const j = JSON.parse(text);
      const warn = j.engine && j.engine !== o.version() ? `This snapshot comes from engine ${j.engine}; this server runs ${o.version()}. ` : '';
      const r = await api.importSnapshot(text);
      mine.keep(r.id, r.token);
      msg.textContent = `${warn}Imported as snapshot ${r.id}.`;
      await o.openSnapshot(r.id);
      if (warn) msg.textContent = `${warn}Imported as snapshot ${r.id}.`;
      refresh();
    } catch (e) { msg.textContent = `Import failed: ${e.message}`; }
    file.value = '';
  });

  /** A publish switch for snapshot @s of this browser. */
  function publishSwitch(s) {
    const box = h(doc, 'input', { type: 'checkbox', id: `snap-pub-${s.id}`, class: 'snap-publish', 'aria-label': `published: ${s.title || s.id}` });
    box.checked = !!s.published;
    box.addEventListener('change', async () => {
      try {
        await api.publishSnapshot(s.id, mine.get(s.id), box.checked);
        // the static lab lists snapshots of this browser only (#snap-where says so)
        const where = /** @type {any} */ (globalThis).slublabStatic ? 'this browser\'s list' : 'everyone\'s list';
        msg.textContent = box.checked ? `Published ${s.title || s.id}: ${where} of recent snapshots shows it.` : `${s.title || s.id} is no longer published.`;
      } catch (e) { box.checked = !box.checked; msg.textContent = `Could not change ${s.id}: ${e.message}`; }
    });
    return h(doc, 'label', { class: 'publish' }, box, ' published');
  }

  /** The newest 20 snapshots this browser saved or imported, and those their authors published. */
  function refresh() {
    api.snapshotsFor(mine.all(), 20).then((r) => {
      const rows = r.snapshots ?? [];
      fill(list, rows.length ? rows.map((s) => h(doc, 'li', { dataset: { id: s.id } },
        h(doc, 'button', { type: 'button', class: 'link', onclick: () => o.openSnapshot(s.id) }, s.title || s.id), ` · ${s.scenario} step ${s.position}`,
        s.mine ? [' · ', publishSwitch(s)] : ' · published'))
        : [h(doc, 'li', { class: 'note' }, 'None saved in this browser or published yet.')]);
    }).catch(() => {});
  }
  refresh();
  return { refresh, save };
}
