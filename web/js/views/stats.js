// @ts-check
// Counters: Chart.js lines of chosen counters over the run, with a cursor
// at the current step (click a point to go there), and a sysfs-style
// table of every counter with its meaning; CSV export of both.

import { h, fill, download } from '../dom.js';
import { chart as getChart, loadChart } from '../vendor.js';
import { COUNTER_NAMES, counterMeaning, modelCounters } from '../counters.js';
import { toCSV, sysfsLine } from '../format.js';
import { perCpuStats } from '../model.js';

const LINE = [
  { color: '#0b5fa5', dash: [], point: 'circle' },
  { color: '#c0510a', dash: [6, 3], point: 'rect' },
  { color: '#117733', dash: [2, 2], point: 'triangle' },
  { color: '#882255', dash: [8, 3, 2, 3], point: 'rectRot' },
  { color: '#222222', dash: [1, 3], point: 'star' },
  { color: '#5f4b8b', dash: [10, 4], point: 'cross' },
];

export function createStats(root, player) {
  const doc = root.ownerDocument;
  const canvas = h(doc, 'canvas', { id: 'chart', role: 'img', 'aria-label': 'Counters over the run, all caches summed' });
  // whose counters each part shows: the chart sums every cache, the table is one cache's
  const chartTitle = h(doc, 'h3', { class: 'chart-title', id: 'chart-title' }, 'Counters over the run: all caches summed');
  const tableCaption = h(doc, 'caption', { id: 'counter-caption' }, 'Counters of the selected cache, as /sys/kernel/slab/<cache>/<counter> prints them');
  const chooser = h(doc, 'fieldset', { class: 'chooser' }, h(doc, 'legend', null, 'Counters on the chart'));
  const boxes = new Map();
  // a box for every counter; render() shows those of the session's model
  for (const name of COUNTER_NAMES) {
    const cb = h(doc, 'input', { type: 'checkbox', value: name, id: `cc-${name}` });
    cb.addEventListener('change', () => {
      const names = [...boxes.values()].filter((b) => b.checked).map((b) => b.value).slice(0, 6);
      player.setChartCounters(names);
    });
    boxes.set(name, cb);
    chooser.append(h(doc, 'label', { title: counterMeaning(name) }, cb, ` ${name}`));
  }
  const showZero = h(doc, 'input', { type: 'checkbox', id: 'show-zero' });
  showZero.addEventListener('change', () => { tableKey = ''; player.emit(); });
  const tbody = h(doc, 'tbody');
  const table = h(doc, 'table', { class: 'counters', id: 'counter-table' },
    tableCaption,
    h(doc, 'thead', null, h(doc, 'tr', null, h(doc, 'th', { scope: 'col' }, 'counter'), h(doc, 'th', { scope: 'col' }, 'value'), h(doc, 'th', { scope: 'col' }, 'sysfs'))),
    tbody);
  const csvTable = h(doc, 'button', { type: 'button', id: 'csv-table', onclick: () => exportTable() }, 'Table as CSV');
  const csvSeries = h(doc, 'button', { type: 'button', id: 'csv-series', onclick: () => exportSeries() }, 'Series as CSV');
  const noChart = h(doc, 'p', { class: 'note', hidden: true }, 'Chart.js has not loaded (yet): the chart is off, the table still works.');
  fill(root, chartTitle, h(doc, 'div', { class: 'chart-box' }, canvas), noChart, h(doc, 'details', null, h(doc, 'summary', null, 'Choose counters'), chooser),
    h(doc, 'div', { class: 'row' }, csvTable, csvSeries, h(doc, 'label', null, showZero, ' show zero counters')), table);

  /** @type {any} */ let chart = null;
  let seriesRef = null, tableKey = '', last = null, modelKey = '';
  const cursor = { id: 'cursor', afterDatasetsDraw(c) {
    const at = c.options.plugins.cursor?.at;
    if (at == null) return;
    const x = c.scales.x.getPixelForValue(at);
    const { top, bottom } = c.chartArea;
    const g = c.ctx;
    g.save();
    g.strokeStyle = '#000';
    g.lineWidth = 2;
    g.setLineDash([4, 3]);
    g.beginPath(); g.moveTo(x, top); g.lineTo(x, bottom); g.stroke();
    g.restore();
  } };

  function buildChart(m) {
    const Chart = getChart();
    if (!Chart) {
      noChart.hidden = false;
      // Chart.js loads the first time a chart is shown: draw once it has
      // (when it could not load, try again shortly).
      if (!buildChart.retry) {
        buildChart.retry = loadChart(doc).then((c) => new Promise((ok) => setTimeout(ok, c ? 0 : 300)))
          .then(() => { buildChart.retry = null; seriesRef = null; player.emit(); });
      }
      return;
    }
    noChart.hidden = true;
    const sr = m.series;
    const names = Object.keys(sr.series);
    const shown = m.chartCounters.filter((n) => names.includes(n));
    const data = {
      datasets: shown.map((n, i) => ({
        label: n, parsing: false, borderColor: LINE[i % LINE.length].color, backgroundColor: LINE[i % LINE.length].color,
        borderDash: LINE[i % LINE.length].dash, pointStyle: LINE[i % LINE.length].point, pointRadius: sr.positions.length > 80 ? 0 : 3,
        borderWidth: 2, stepped: true,
        data: sr.positions.map((p, k) => ({ x: p, y: sr.series[n][k] })),
      })),
    };
    if (chart) chart.destroy();
    chart = new Chart(canvas, {
      type: 'line', data, plugins: [cursor],
      options: {
        animation: false, parsing: false, normalized: true, responsive: true, maintainAspectRatio: false,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: { x: { type: 'linear', min: 0, max: m.end, title: { display: true, text: 'step' } }, y: { beginAtZero: true, title: { display: true, text: 'count, all caches summed' } } },
        plugins: { cursor: { at: m.at }, decimation: { enabled: true, algorithm: 'min-max' }, legend: { labels: { usePointStyle: true } } },
        onClick: (ev, els, c) => {
          const x = c.scales.x.getValueForPixel(ev.x);
          const pos = sr.positions;
          let best = pos[0];
          for (const p of pos) if (Math.abs(p - x) < Math.abs(best - x)) best = p;
          player.seek(best);
        },
      },
    });
    canvas.setAttribute('aria-label', `Chart of ${shown.join(', ')}, all caches summed, over ${m.end} steps; click to go to a step.`);
  }

  function rows(m) {
    const cache = m.cur?.state?.caches?.find((c) => c.id === m.cacheId);
    const per = perCpuStats(cache);
    const names = [...new Set([...modelCounters(m.session?.info), ...Object.keys(cache?.stats ?? {})])]
      .sort((a, b) => COUNTER_NAMES.indexOf(a) - COUNTER_NAMES.indexOf(b));
    return { cache, names: names.map((n) => ({ name: n, total: cache?.stats?.[n] ?? 0, per: per[n] ?? (cache?.cpus ?? []).map(() => 0) })) };
  }

  function exportTable() {
    const m = player.get();
    const r = rows(m);
    const cpus = (r.cache?.cpus ?? []).map((c) => `C${c.cpu}`);
    download(doc, `slublab-counters-${r.cache?.name ?? 'cache'}-step${m.at}.csv`,
      toCSV([['counter', 'value', ...cpus], ...r.names.map((x) => [x.name, x.total, ...x.per])]), 'text/csv');
  }

  function exportSeries() {
    const sr = player.get().series;
    if (!sr) return;
    const names = Object.keys(sr.series);
    download(doc, 'slublab-series.csv', toCSV([['position', ...names], ...sr.positions.map((p, i) => [p, ...names.map((n) => sr.series[n][i])])]), 'text/csv');
  }

  return {
    render(m) {
      last = m;
      const model = modelCounters(m.session?.info);
      if (model.join() !== modelKey) {
        modelKey = model.join();
        const has = new Set(model);
        for (const [n, cb] of boxes) /** @type {HTMLElement} */ (cb.parentElement).hidden = !has.has(n);
      }
      for (const [n, cb] of boxes) cb.checked = m.chartCounters.includes(n);
      if (m.series && m.series !== seriesRef) { seriesRef = m.series; buildChart(m); }
      if (chart && chart.options.plugins.cursor.at !== m.at) { chart.options.plugins.cursor.at = m.at; chart.draw(); }
      const key = `${m.session?.id}@${m.at}/${m.cacheId}/${showZero.checked}`;
      if (key === tableKey) return;
      tableKey = key;
      const r = rows(m);
      tableCaption.textContent = `Counters of ${r.cache ? `the cache ${r.cache.name}` : 'the selected cache'}, as /sys/kernel/slab/${r.cache?.name ?? '<cache>'}/<counter> prints them`;
      const e = m.cur?.event;
      const bumped = e && e.cache === m.cacheId ? e.stats : {};
      fill(tbody, ...r.names.filter((x) => showZero.checked || x.total || bumped[x.name]).map((x) =>
        h(doc, 'tr', { class: x.name in bumped ? 'bumped' : null, dataset: { counter: x.name } },
          h(doc, 'th', { scope: 'row' }, h(doc, 'abbr', { title: counterMeaning(x.name), tabindex: '0' }, x.name)),
          h(doc, 'td', { class: 'num' }, String(x.total), x.name in bumped ? h(doc, 'span', { class: 'delta' }, ` (+${bumped[x.name]})`) : null),
          h(doc, 'td', { class: 'sysfs' }, sysfsLine(x.name, x.total, x.per)))));
    },
    resize() { chart?.resize(); },
    get last() { return last; },
  };
}
