// The SPE sample views of an SPE capture's report: the model's `spe`
// (SpeReportJson: what `hwt-report --spe --format json` prints): samples per function and
// instruction, latency percentiles with the histograms behind them, events,
// operations, data sources and data-address hot spots (cache lines, pages,
// data symbols); and on the overview, the SPE decode statistics
// (`hwt-decode --stats --format json`) with the skipped runs' offsets.
'use strict';

(function () {
  const hwt = window.hwt;

  // A labelled horizontal bar chart: rows of [label, value]; the numbers
  // are written out, so it reads without the bars.
  function bars(rows, total, id) {
    const max = Math.max(1, ...rows.map((r) => r[1]));
    const body = hwt.el('tbody');
    for (const [label, value] of rows) {
      const bar = hwt.el('span', {className: 'bar'});
      bar.style.width = Math.max(1, Math.round(160 * value / max)) + 'px';
      body.append(hwt.el('tr', {}, [
        hwt.el('td', {className: 'name'}, [label]),
        hwt.el('td', {className: 'num'}, [hwt.thousands(value)]),
        hwt.el('td', {className: 'num'}, [hwt.percent(value, total)]),
        hwt.el('td', {}, [bar]),
      ]));
    }
    return hwt.el('table', Object.assign({className: 'bars'}, id ? {id} : {}), [body]);
  }

  const counterColumns = [
    {key: 'samples', label: 'Samples', num: true, render: (r) => hwt.thousands(r.samples)},
    {key: 'mean_latency', label: 'Mean latency', num: true, render: (r) => r.mean_latency.toFixed(1)},
    {key: 'loads', label: 'Loads', num: true, render: (r) => hwt.thousands(r.loads)},
    {key: 'stores', label: 'Stores', num: true, render: (r) => hwt.thousands(r.stores)},
    {key: 'l1d_refill', label: 'L1D refill', num: true, render: (r) => hwt.thousands(r.l1d_refill)},
    {key: 'llc_miss', label: 'LLC miss', num: true, render: (r) => hwt.thousands(r.llc_miss)},
    {key: 'tlb_walk', label: 'TLB walk', num: true, render: (r) => hwt.thousands(r.tlb_walk)},
    {key: 'remote_access', label: 'Remote', num: true, render: (r) => hwt.thousands(r.remote_access)},
  ];

  function latencySection(view, spe, histograms) {
    view.append(hwt.el('h3', {}, ['Latency (cycles)']));
    const rows = ['total', 'issue', 'translation'].map((k) => Object.assign({kind: k}, spe.latency[k]));
    view.append(hwt.table([
      {key: 'kind', label: 'Latency'},
      {key: 'count', label: 'Samples', num: true, render: (r) => hwt.thousands(r.count)},
      {key: 'mean', label: 'Mean', num: true, render: (r) => r.mean.toFixed(1)},
      {key: 'p50', label: 'p50', num: true}, {key: 'p90', label: 'p90', num: true},
      {key: 'p99', label: 'p99', num: true}, {key: 'max', label: 'Max', num: true},
    ], rows, {}));
    const grid = hwt.el('div', {className: 'grid2'});
    for (const kind of ['total', 'issue', 'translation']) {
      const h = (histograms || {})[kind] || [];
      if (!h.length) continue;
      const total = h.reduce((sum, b) => sum + b.samples, 0);
      grid.append(hwt.el('div', {}, [hwt.el('h3', {}, ['Histogram: ' + kind + ' latency']),
        bars(h.map((b) => [b.low + '\u2013' + b.high, b.samples]), total, 'histogram-' + kind)]));
    }
    view.append(grid);
  }

  hwt.renderSpe = function (view, app) {
    const model = app.model;
    const spe = model.spe;
    const s = spe.summary;
    hwt.clear(view);
    view.append(hwt.el('h2', {}, ['SPE samples']));
    view.append(hwt.el('p', {}, [hwt.thousands(s.samples) + ' samples of ' + hwt.thousands(s.records) +
      ' records (' + hwt.thousands(s.partial_records) + ' partial, ' + hwt.thousands(s.records_without_pc) +
      ' without a PC); ' + hwt.thousands(s.samples_in_images) + ' in images, ' +
      hwt.thousands(s.kernel_samples) + ' in the kernel; ' + hwt.thousands(s.samples_with_data_address) +
      ' with a data address. CPU: ' + (spe.cpu.name || 'unknown') + (spe.cpu.midr ? ' (MIDR ' + spe.cpu.midr + ')' : '') + '.']));
    const rows = model.limits && model.limits.spe_rows;
    if (rows) view.append(hwt.el('p', {className: 'note'}, ['Lists keep their ' + rows + ' heaviest rows (hwt-report --top 0 --format json lists all).']));
    view.append(hwt.el('h3', {}, ['Functions']));
    view.append(hwt.table([
      {key: 'name', label: 'Function'}, {key: 'image', label: 'Image'},
      {key: 'samples', label: 'Samples', num: true, render: (r) => hwt.thousands(r.samples)},
      {key: 'percent', label: 'Share', num: true, render: (r) => r.percent.toFixed(2) + '%'},
      {key: 'p90', label: 'p90 latency', num: true, value: (r) => r.latency.total.p90, render: (r) => r.latency.total.p90},
      ...counterColumns.slice(1).map((c) => Object.assign({}, c, {value: (r) => r.counters[c.key], render: (r) => c.render(r.counters)})),
    ], spe.functions, {id: 'spe-functions', sortKey: 'samples', pageSize: 25}));
    latencySection(view, spe, model.latency_histograms);
    const grid = hwt.el('div', {className: 'grid2'});
    const entries = (o) => Object.entries(o || {}).sort((a, b) => b[1] - a[1]);
    grid.append(hwt.el('div', {}, [hwt.el('h3', {}, ['Events']), bars(entries(spe.events), s.samples, 'spe-events')]));
    grid.append(hwt.el('div', {}, [hwt.el('h3', {}, ['Operations']), bars(entries(spe.operations), s.samples, 'spe-operations')]));
    grid.append(hwt.el('div', {}, [hwt.el('h3', {}, ['Data sources']),
      bars(spe.data_sources.map((d) => [d.name + ' (' + d.value + ')', d.samples]).concat(
        spe.samples_without_data_source ? [['no data source', spe.samples_without_data_source]] : []), s.samples, 'spe-sources')]));
    view.append(grid);
    view.append(hwt.el('h3', {}, ['Instructions']));
    view.append(hwt.table([
      {key: 'location', label: 'Instruction'}, {key: 'vaddr', label: 'Address', className: 'code'},
      {key: 'el', label: 'EL', num: true}, ...counterColumns,
    ], spe.instructions, {sortKey: 'samples', pageSize: 25}));
    for (const [key, title, name] of [['data_symbols', 'Data symbols', 'symbol'], ['cache_lines', 'Cache lines', 'address'], ['pages', 'Pages', 'address']]) {
      view.append(hwt.el('h3', {}, ['Data hot spots: ' + title]));
      const list = spe[key] || [];
      if (!list.length) {
        view.append(hwt.el('p', {className: 'note'}, ['none']));
        continue;
      }
      const first = [{key: name, label: name === 'symbol' ? 'Symbol' : 'Address', className: name === 'address' ? 'code' : ''}];
      if (name === 'symbol') first.push({key: 'image', label: 'Image'});
      view.append(hwt.table(first.concat(counterColumns), list, {sortKey: 'samples', pageSize: 15}));
    }
  };

  hwt.renderSpeOverview = function (view, app) {
    const stats = app.model.spe_stats;
    if (!stats) return;
    const t = stats.total;
    view.append(hwt.el('h2', {}, ['SPE decode']));
    const dl = hwt.el('dl', {className: 'facts'});
    for (const [label, value] of [
      ['Trace', hwt.bytes(t.bytes)], ['Decoded', hwt.bytes(t.bytes_decoded)],
      ['Skipped', hwt.thousands(t.bytes_skipped) + ' bytes in ' + hwt.thousands(t.skipped_runs) + ' runs'],
      ['Packets', hwt.thousands(t.packets)], ['Records', hwt.thousands(t.records)],
      ['Partial records', hwt.thousands(t.partial_records)],
    ]) {
      dl.append(hwt.el('dt', {}, [label]), hwt.el('dd', {}, [value]));
    }
    view.append(dl);
    const skipped = [];
    for (const b of stats.buffers || []) {
      for (const r of b.skipped || []) skipped.push(Object.assign({buffer: b.index}, r));
    }
    view.append(hwt.el('h3', {}, ['Skipped runs']));
    if (!skipped.length) {
      view.append(hwt.el('p', {id: 'no-errors'}, ['No undecodable bytes.']));
      return;
    }
    view.append(hwt.table([
      {key: 'buffer', label: 'Buffer', num: true},
      {key: 'offset', label: 'Trace offset', num: true, render: (r) => hwt.thousands(r.offset) + ' (0x' + r.offset.toString(16) + ')'},
      {key: 'length', label: 'Bytes', num: true}, {key: 'reason', label: 'Reason'},
    ], skipped, {id: 'error-table'}));
  };
})();
