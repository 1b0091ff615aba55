// The kernel source table (web/data/source-lines.json, made by
// scripts/kernel-source-lines) and the code panel's lookup in it
// (web/js/sourcelines.js).  The table must be complete: every function an
// engine event can name is in it for at least one release, or is the lab's
// own (engine_only) or of a release Debian has no source package for
// (untabled).  The engine's names are read from its source: every string
// literal at the `const char *fn` position of a call to a function that
// takes one.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { sourceRefs, setSourceLines, sourceLinesLoaded } from '../../web/js/sourcelines.js';

const ROOT = new URL('../../', import.meta.url);
const read = (p) => readFileSync(new URL(p, ROOT), 'utf8');
const table = JSON.parse(read('web/data/source-lines.json'));

/** The arguments of the call whose "(" is at @text[@at], split at top level. */
function callArgs(text, at) {
  const args = [];
  let depth = 0, cur = '';
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      cur += text.slice(i, j + 1);
      i = j;
      continue;
    }
    if (c === '(' && depth++ === 0) continue;
    if (c === ')' && --depth === 0) { args.push(cur.trim()); return args; }
    if (c === ',' && depth === 1) { args.push(cur.trim()); cur = ''; continue; }
    cur += c;
  }
  throw new Error('unbalanced call');
}

/** Every fn the engine's events can carry, and the calls it could not read. */
function engineFns() {
  const dir = new URL('engine/', ROOT);
  const files = readdirSync(dir).filter((f) => /\.[ch]$/.test(f))
    .map((f) => [f, readFileSync(new URL(f, dir), 'utf8').replace(/\/\*[\s\S]*?\*\//g, ' ')]);
  /** @type {Map<string, number>} function name -> position of its fn parameter */
  const takers = new Map();
  for (const [, text] of files) {
    for (const m of text.matchAll(/\b(\w+)\s*\(([^(){};]*)\)\s*[{;]/g)) {
      m[2].split(',').forEach((p, i) => { if (/^const\s+char\s*\*\s*fn$/.test(p.trim())) takers.set(m[1], i); });
    }
  }
  const fns = new Set(), unread = [];
  for (const [f, text] of files) {
    for (const [name, pos] of takers) {
      for (const m of text.matchAll(new RegExp(`\\b${name}\\s*\\(`, 'g'))) {
        const arg = callArgs(text, m.index + m[0].length - 1)[pos];
        if (arg === undefined || /^(const\s+)?char\s*\*\s*fn$/.test(arg)) continue;
        const lits = [...arg.matchAll(/"(\w+)"/g)].map((x) => x[1]);
        if (lits.length) lits.forEach((x) => fns.add(x));
        else if (arg !== 'fn') unread.push(`${f}: ${name}(... ${arg} ...)`);
      }
    }
  }
  return { fns, takers, unread };
}

const { fns, takers, unread } = engineFns();
const tabled = new Set(Object.values(table.releases).flatMap((r) => Object.keys(r.functions)));

test('the engine\'s fn names are all read from its source', () => {
  for (const t of ['ev_begin', 'ev_rename', 'ev_report_result']) assert.ok(takers.has(t), `${t} takes a fn`);
  assert.deepEqual(unread, [], 'fn arguments that are neither a literal nor a passed-on fn');
  for (const fn of ['alloc_from_pcs', '__slab_free', 'put_cpu_partial', '__alloc_pages', 'rcu_grace_period'])
    assert.ok(fns.has(fn), `${fn} is among the engine's names`);
  assert.ok(fns.size >= 60, `${fns.size} names`);
});

test('the golden traces name no function the source reading missed', () => {
  const dir = new URL('tests/golden/', ROOT);
  let n = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    for (const line of readFileSync(new URL(f, dir), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const e = JSON.parse(line);
      if (typeof e.fn !== 'string') continue;
      n++;
      assert.ok(fns.has(e.fn), `${f}: event fn ${e.fn} was not found in engine/*.c`);
    }
  }
  assert.ok(n > 100, `${n} events read`);
});

test('every fn the engine can emit, and every outlined one, is in the table, engine_only or untabled', () => {
  const outlines = Object.keys(JSON.parse(read('web/data/texts.json')).outlines);
  for (const fn of new Set([...fns, ...outlines])) {
    const places = [tabled.has(fn), table.engine_only.includes(fn), table.untabled.includes(fn)].filter(Boolean).length;
    assert.equal(places, 1, `${fn}: in the table ${tabled.has(fn)}, engine_only ${table.engine_only.includes(fn)}, untabled ${table.untabled.includes(fn)} (scripts/kernel-source-lines)`);
  }
  const standIns = Object.values(table.stand_in);
  for (const fn of [...table.engine_only, ...table.untabled, ...tabled]) assert.ok(fns.has(fn) || outlines.includes(fn) || standIns.includes(fn), `${fn} is no longer the engine's`);
});

test('the rows point at the definitions in the kernel trees the table was made from', (t) => {
  const cache = process.env.SLUBLAB_ORACLE_CACHE ?? '/var/cache/slublab-oracle';
  let checked = 0;
  for (const [rel, r] of Object.entries(table.releases)) {
    const tree = `${cache}/src/${rel}/linux-source-${rel}`;
    let makefile;
    try { makefile = readFileSync(`${tree}/Makefile`, 'utf8'); } catch { continue; }
    const v = ['VERSION', 'PATCHLEVEL', 'SUBLEVEL'].map((k) => new RegExp(`^${k} = (\\d+)`, 'm').exec(makefile)?.[1]);
    if (v.join('.') !== r.version) continue; // another point release: the table is due to be made again
    for (const [fn, row] of Object.entries(r.functions)) {
      const lines = readFileSync(`${tree}/${row.file}`, 'utf8').split('\n');
      const head = lines.slice(row.start - 1, row.start + 3).join(' ');
      assert.match(head, new RegExp(`\\b${row.name ?? fn}\\s*\\(`), `${rel} ${fn}: ${row.file}:${row.start}`);
      assert.match(lines[row.end - 1], /^}/, `${rel} ${fn}: ${row.file}:${row.end} closes the body`);
      assert.ok(row.start === 1 || !/^[a-z_]/.test(lines[row.start - 2]), `${rel} ${fn}: the definition starts at ${row.start}`);
      checked++;
    }
  }
  if (!checked) t.skip(`no kernel tree of the table's point releases under ${cache} (scripts/kernel-oracle --fetch-only)`);
});

test('engine_only is the lab\'s own events of docs/event-labels.md', () => {
  const doc = read('docs/event-labels.md');
  const section = doc.slice(doc.indexOf('## The lab\'s own events'));
  const own = [...section.matchAll(/^\| `(\w+)`/gm)].map((m) => m[1]).sort();
  assert.ok(own.length >= 2);
  assert.deepEqual([...table.engine_only].sort(), own);
});

test('the table: the four Debian releases, point releases, rows that make sense', () => {
  assert.deepEqual(Object.keys(table.releases).sort(), ['6.1', '6.12', '7.2', '7.3']);
  for (const [rel, r] of Object.entries(table.releases)) {
    assert.ok(r.version === rel || r.version.startsWith(`${rel}.`), `${rel}: version ${r.version}`);
    assert.match(r.debian, new RegExp(`^${r.version.replace(/\./g, '\\.')}-`), `${rel}: Debian ${r.debian}`);
    assert.ok(r.debian_patches_touch === 'unchecked' || Array.isArray(r.debian_patches_touch));
    for (const [fn, row] of Object.entries(r.functions)) {
      assert.match(row.file, /^(mm|kernel|include)\/[\w/.-]+\.[ch]$/, `${rel} ${fn}`);
      assert.ok(Number.isInteger(row.start) && row.start > 0 && row.end > row.start, `${rel} ${fn}: ${row.start}-${row.end}`);
      if (row.name) assert.ok(row.name !== fn && /^\w+$/.test(row.name));
    }
  }
  // definitions in one file do not overlap
  for (const [rel, r] of Object.entries(table.releases)) {
    const rows = Object.values(r.functions).sort((a, b) => a.file.localeCompare(b.file) || a.start - b.start);
    for (let i = 1; i < rows.length; i++) {
      if (rows[i].file === rows[i - 1].file && rows[i].start === rows[i - 1].start) continue; // two names, one function
      if (rows[i].file === rows[i - 1].file) assert.ok(rows[i].start > rows[i - 1].end, `${rel}: ${rows[i].file} rows overlap`);
    }
  }
  // sheaves came after 6.12; the cpu partial lists went
  assert.ok(!('alloc_from_pcs' in table.releases['6.1'].functions));
  assert.ok('alloc_from_pcs' in table.releases['7.3'].functions);
  assert.ok('put_cpu_partial' in table.releases['6.12'].functions);
  // 7.2 still had __slab_alloc_node, which 7.3 folded into its callers
  assert.ok('__slab_alloc_node' in table.releases['7.2'].functions);
  assert.ok(!('__slab_alloc_node' in table.releases['7.3'].functions));
});

test('the lookup: a tabled release gives its lines and an Elixir link to the exact point release', () => {
  setSourceLines(null);
  assert.equal(sourceLinesLoaded(), false);
  assert.deepEqual(sourceRefs('__slab_free', '7.3'), []);
  setSourceLines(table);
  const r = table.releases['7.3'], row = r.functions.__slab_free;
  const [ref, ...more] = sourceRefs('__slab_free', '7.3');
  assert.equal(more.length, 0);
  assert.equal(ref.kind, 'lines');
  assert.equal(ref.text, `mm/slub.c:${row.start}-${row.end} in Linux ${r.version}`);
  assert.equal(ref.url, `https://elixir.bootlin.com/linux/v${r.version}/source/mm/slub.c#L${row.start}`);
  // an alloc-tagging macro: the function behind it is named
  const alloc = table.releases['6.12'].functions.__alloc_pages;
  const [p] = sourceRefs('__alloc_pages', '6.12');
  assert.equal(p.name, alloc.name);
  assert.match(p.text, new RegExp(`\\(${alloc.name}\\)$`));
});

test('the lookup: the lab\'s own, a function the release lacks, a release without a table, a model without a release', () => {
  setSourceLines(table);
  // the lab's own event says so, then links the kernel code it stands for (stand_in)
  assert.deepEqual(sourceRefs('rcu_grace_period', '7.3').map((x) => x.kind), ['lab', 'lines']);
  assert.deepEqual(sourceRefs('user_write', '7.3').map((x) => x.kind), ['lab']);
  const [absent] = sourceRefs('alloc_from_pcs', '6.1');
  assert.equal(absent.kind, 'absent');
  assert.match(absent.text, new RegExp(`Linux ${table.releases['6.1'].version.replace(/\./g, '\\.')} has no function alloc_from_pcs`));
  // a release without a table: the nearest release's lines, said so, and the release's own search
  const [near, other] = sourceRefs('__slab_free', '6.18');
  assert.equal(near.kind, 'nearest');
  assert.equal(near.release, '7.2', '6.18 is nearer 7.2 (6.19, 7.0, 7.1, 7.2) than 6.12');
  assert.match(near.text, /Linux 7\.2\.\d+, the nearest release with a line table \(not 6\.18\)$/);
  assert.equal(other.kind, 'untabled');
  assert.equal(other.url, 'https://elixir.bootlin.com/linux/v6.18/A/ident/__slab_free');
  assert.ok(!('start' in other), 'the search borrows no line numbers');
  // the nearest release that has the function: 7.2 has no cpu partial lists
  assert.equal(sourceRefs('put_cpu_partial', '6.18')[0].release, '6.12');
  assert.equal(sourceRefs('__slab_free', '6.8')[0].release, '6.12');
  assert.equal(sourceRefs('__slab_free', '7.1')[0].release, '7.2');
  // a function no tabled release has: the search alone
  assert.deepEqual(sourceRefs('alloc_full_sheaf', '6.18').map((x) => x.kind), ['untabled']);
  const all = sourceRefs('__slab_free', null);
  assert.deepEqual(all.map((x) => x.release), ['6.1', '6.12', '7.2', '7.3']);
  assert.ok(all.every((x) => x.kind === 'lines'));
  assert.deepEqual(sourceRefs('alloc_from_pcs', null).map((x) => x.release), ['7.2', '7.3']);
});

const anchorsFile = JSON.parse(read('scripts/kernel-source-anchors.json'));

test('every anchor resolves in every release that has its function, on the line it names', (t) => {
  const cache = process.env.SLUBLAB_ORACLE_CACHE ?? '/var/cache/slublab-oracle';
  let resolved = 0, read = 0;
  for (const [fn, labels] of Object.entries(anchorsFile.anchors)) {
    const have = Object.entries(table.releases).filter(([, r]) => fn in r.functions);
    assert.ok(have.length, `${fn} (an anchor's function) is in some release`);
    for (const [rel, r] of have) {
      const row = r.functions[fn];
      for (const [label, pattern] of Object.entries(labels)) {
        const line = row.label?.[label];
        assert.ok(Number.isInteger(line) && line > row.start && line < row.end, `${rel} ${fn} ${label}: line ${line} in ${row.start}-${row.end}`);
        resolved++;
        const tree = `${cache}/src/${rel}/linux-source-${rel}`;
        let text;
        try { text = readFileSync(`${tree}/${row.file}`, 'utf8').split('\n'); } catch { continue; }
        if (!readFileSync(`${tree}/Makefile`, 'utf8').includes(`SUBLEVEL = ${r.version.split('.')[2]}\n`)) continue;
        assert.match(text[line - 1], new RegExp(pattern), `${rel} ${row.file}:${line} is ${fn}'s ${label}`);
        read++;
      }
    }
  }
  // the counters' lines: a stat() of that counter, inside the function
  for (const [rel, r] of Object.entries(table.releases)) {
    for (const [fn, row] of Object.entries(r.functions)) {
      for (const [k, line] of Object.entries(row.stat ?? {})) {
        assert.match(k, /^[a-z][a-z0-9_]*$/);
        assert.ok(line > row.start && line < row.end, `${rel} ${fn} ${k}: ${line} in ${row.start}-${row.end}`);
      }
    }
  }
  for (const [own, fn] of Object.entries(anchorsFile.stand_in)) {
    assert.ok(table.engine_only.includes(own) || table.untabled.includes(own), `${own} stands in for kernel code`);
    assert.ok(Object.values(table.releases).some((r) => fn in r.functions), `${fn} is tabled`);
  }
  assert.deepEqual(table.stand_in, anchorsFile.stand_in);
  assert.ok(resolved >= 40, `${resolved} anchors`);
  if (!read) t.diagnostic('no kernel tree to read the anchored lines from');
});

test('an event\'s link carries a line inside its function, at its statement when it has one', () => {
  setSourceLines(table);
  const dir = new URL('tests/golden/', ROOT);
  let events = 0, atStatement = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    for (const line of readFileSync(new URL(f, dir), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const e = JSON.parse(line);
      if (typeof e.fn !== 'string') continue;
      for (const kernel of [null, ...Object.keys(table.releases), '6.18']) {
        for (const ref of sourceRefs(e.fn, kernel, e)) {
          if (!('line' in ref)) continue;
          const row = table.releases[ref.release].functions[ref.fn];
          assert.ok(ref.line >= row.start && ref.line <= row.end, `${f} ${e.fn} ${e.label} in ${ref.release}: ${ref.line} in ${row.start}-${row.end}`);
          assert.ok(ref.url.endsWith(`/${row.file}#L${ref.line}`));
          events++;
          if (ref.line !== row.start) atStatement++;
        }
      }
    }
  }
  assert.ok(events > 1000, `${events} links`);
  assert.ok(atStatement / events > 0.5, `${atStatement} of ${events} links at a statement`);
  // the counter's line: alloc_from_pcs's fast path at its stat(s, ALLOC_FASTPATH)
  const row = table.releases['7.3'].functions.alloc_from_pcs;
  const [fast] = sourceRefs('alloc_from_pcs', '7.3', { label: 'fastpath', stats: { alloc_fastpath: 1 } });
  assert.equal(fast.line, row.stat.alloc_fastpath);
  assert.equal(fast.text, `mm/slub.c:${row.stat.alloc_fastpath} in alloc_from_pcs() (${row.start}-${row.end}), Linux ${table.releases['7.3'].version}`);
  // a label's anchor comes before the counters
  const swap = table.releases['7.3'].functions.__pcs_replace_empty_main;
  assert.equal(sourceRefs('__pcs_replace_empty_main', '7.3', { label: 'swap_spare', stats: {} })[0].line, swap.label.swap_spare);
  // the lab's own grace period: the kernel's rcu_do_batch(), where the callbacks run
  const rcu = sourceRefs('rcu_grace_period', '7.3', { label: 'operation', stats: {} });
  assert.deepEqual(rcu.map((x) => x.kind), ['lab', 'lines']);
  assert.equal(rcu[1].fn, 'rcu_do_batch');
  assert.equal(rcu[1].line, table.releases['7.3'].functions.rcu_do_batch.label['*']);
  assert.deepEqual(sourceRefs('user_write', '7.3', { label: 'write' }).map((x) => x.kind), ['lab']);
});
