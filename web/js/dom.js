// @ts-check
// Tiny DOM helpers for the views: build elements from a root's document,
// never from a global.

const SVGNS = 'http://www.w3.org/2000/svg';

/** An HTML element: h(doc, 'button', {class: 'x', onclick: f}, 'text', child). */
export function h(doc, tag, attrs, ...kids) {
  const el = doc.createElement(tag);
  set(el, attrs);
  add(el, kids);
  return el;
}

/** An SVG element. @returns {any} */
export function s(doc, tag, attrs, ...kids) {
  const el = doc.createElementNS(SVGNS, tag);
  set(el, attrs);
  add(el, kids);
  return el;
}

function set(el, attrs) {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function add(el, kids) {
  for (const k of kids.flat(Infinity)) {
    if (k === null || k === undefined || k === false) continue;
    el.append(k instanceof Node ? k : String(k));
  }
}

/**
 * Set @el's text to @text, and attribute @name to @value, only when they
 * differ: a step re-renders every view, and an unchanged write still
 * replaces the text node (or dirties the page's style) for nothing.
 */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}
export function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** Replace the children of @el. */
export function fill(el, ...kids) {
  el.replaceChildren();
  add(el, kids);
  return el;
}

/**
 * @text as nodes of @doc where a line may break only after an underscore
 * (a <wbr> there): `kmem_cache_alloc` wraps as kmem_/cache_/alloc or not at
 * all, never inside a word.  The text content is @text unchanged.
 * @param {Document} doc @param {string} text
 */
export function breakAtUnderscores(doc, text) {
  return text.split(/(?<=_)(?=[A-Za-z0-9])/).flatMap((part, i) => (i ? [doc.createElement('wbr'), part] : [part]));
}

/** Offer @text as a file download named @name. */
export function download(doc, name, text, type = 'text/plain') {
  const blob = text instanceof Blob ? text : new Blob([text], { type });
  const url = URL.createObjectURL(blob);
  const a = h(doc, 'a', { href: url, download: name, hidden: true });
  doc.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 5000);
}

/** Download what the server answers at @url (it names the file: Content-Disposition). */
export function downloadUrl(doc, url) {
  const a = h(doc, 'a', { href: url, download: '', hidden: true });
  doc.body.append(a);
  a.click();
  a.remove();
}

/** A canvas sized for the device pixel ratio; returns its 2D context, scaled. */
export function sizeCanvas(canvas, w, h) {
  const dpr = globalThis.devicePixelRatio || 1;
  const W = Math.max(1, Math.round(w * dpr)), H = Math.max(1, Math.round(h * dpr));
  if (canvas.width !== W || canvas.height !== H) {
    canvas.width = W;
    canvas.height = H;
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

/** True when the user asked for less motion. */
export function reducedMotion(win) {
  return !!win.matchMedia && win.matchMedia('(prefers-reduced-motion: reduce)').matches;
}
