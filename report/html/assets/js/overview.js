// The overview: what was traced (the capture's identity and buffers, or a
// saved profile's table of captures in their own view), how
// the decode went (the decoder's statistics as `hwt-decode --stats --format
// json` prints them: errors with their trace offsets, bytes lost), the gaps
// by reason and the time the trace covers.
'use strict';

(function () {
  const hwt = window.hwt;

  function facts(pairs) {
    const dl = hwt.el('dl', {className: 'facts'});
    for (const [label, value] of pairs) {
      if (value === undefined || value === null || value === '') continue;
      dl.append(hwt.el('dt', {}, [label]), hwt.el('dd', {}, [String(value)]));
    }
    return dl;
  }

  function cpuText(cpu) {
    if (!cpu) return '';
    const parts = [cpu.vendor || cpu.arch || 'unknown CPU'];
    if (cpu.family !== undefined) parts.push('family ' + cpu.family + ' model ' + cpu.model + ' stepping ' + cpu.stepping);
    if (cpu.midr) parts.push('MIDR ' + cpu.midr);
    if (cpu.nominal_frequency_hz) parts.push((cpu.nominal_frequency_hz / 1e6).toFixed(0) + ' MHz nominal');
    let text = parts.join(', ');
    if (cpu.arch && parts[0] !== cpu.arch) text += ' (' + cpu.arch + ')';
    return text;
  }

  function captureSection(view, c) {
    view.append(hwt.el('h2', {}, ['Capture']));
    view.append(facts([
      ['Input', c.input], ['Backend', c.backend + ', ' + c.mode + ' mode'], ['CPU', cpuText(c.cpu)],
      ['Command', c.command], ['Process', c.pid], ['Host', c.hostname], ['System', c.os],
      ['Recorded', c.created], ['Recorder', c.recorder],
      ['Images', c.images.length ? c.images.map((i) => i.path).join(', ') : ''],
    ]));
    view.append(hwt.el('h3', {}, ['Buffers']));
    view.append(hwt.table([
      {key: 'id', label: 'Buffer', num: true},
      {key: 'cpu', label: 'CPU', num: true}, {key: 'thread', label: 'Thread', num: true},
      {key: 'bytes', label: 'Bytes', num: true, render: (b) => hwt.thousands(b.bytes)},
      {key: 'wrapped', label: 'Wrapped', render: (b) => b.wrapped ? 'yes' : 'no'},
      {key: 'data_lost', label: 'Data lost', render: (b) => b.data_lost ? 'yes' : 'no'},
      {key: 'file', label: 'File'},
    ], c.buffers, {}));
  }

  function decodeSection(view, d) {
    view.append(hwt.el('h2', {}, ['Decode']));
    const t = d.total;
    view.append(facts([
      ['Trace', hwt.bytes(t.trace_bytes)], ['Decoded', hwt.bytes(t.bytes_decoded)],
      ['Bytes lost', hwt.thousands(t.bytes_lost)], ['Packets', hwt.thousands(t.packets)],
      ['Instructions', hwt.thousands(t.instructions)],
      ['Blocks', t.blocks === null ? 'not counted' : hwt.thousands(t.blocks)],
      ['Decode errors', hwt.thousands(t.errors)], ['Overflows', hwt.thousands(t.overflows)],
    ]));
    const errors = [];
    for (const s of d.streams) {
      for (const e of s.error_list || []) errors.push(Object.assign({stream: s.name}, e));
    }
    view.append(hwt.el('h3', {}, ['Errors']));
    if (errors.length === 0) {
      view.append(hwt.el('p', {id: 'no-errors'}, ['No decode errors.']));
    } else {
      view.append(hwt.table([
        {key: 'stream', label: 'Stream'},
        {key: 'offset', label: 'Trace offset', num: true, render: (e) => hwt.thousands(e.offset) + ' (0x' + e.offset.toString(16) + ')'},
        {key: 'reason', label: 'Reason'},
        {key: 'bytes_lost', label: 'Bytes lost', num: true, render: (e) => hwt.thousands(e.bytes_lost)},
        {key: 'ip', label: 'At', className: 'code'},
        {key: 'message', label: 'Message'},
      ], errors, {id: 'error-table'}));
      if (d.streams.some((s) => s.error_list_truncated)) {
        view.append(hwt.el('p', {className: 'note'}, ['The list stops at the first errors of each stream; hwt-decode --stats counts them all.']));
      }
    }
    for (const w of d.warnings || []) view.append(hwt.el('p', {className: 'note'}, ['warning: ' + w]));
    for (const n of d.notes || []) view.append(hwt.el('p', {className: 'note'}, ['note: ' + n]));
  }

  function profileSection(view, p) {
    view.append(hwt.el('h2', {}, ['Profile']));
    const gaps = Object.entries(p.gaps_by_reason || {}).map(([r, n]) => r + ': ' + hwt.thousands(n)).join(', ');
    let time = 'no timing in the trace';
    if (p.time) {
      const value = p.time.ticks * p.time.scale;
      time = hwt.thousands(value) + ' ' + p.time.unit + ' attributed to the blocks';
    }
    view.append(facts([
      ['Instructions', hwt.thousands(p.instructions)], ['Blocks executed', hwt.thousands(p.blocks)],
      ['Threads', p.threads], ['Counted in', p.unit + (p.inline_frames ? ', with DWARF inline frames' : '')],
      ['Trace gaps', hwt.thousands(p.gaps) + (gaps ? ' (' + gaps + ')' : '')],
      ['Time covered', time],
      ['Exceptions', p.exceptions ? hwt.thousands(p.exceptions) : ''],
      ['Blocks outside images', p.unknown_region_blocks ? hwt.thousands(p.unknown_region_blocks) : ''],
      ['Filters', (p.filters || []).join(', ')],
    ]));
  }

  // A saved profile's or a batch's captures: status, identity and decode
  // totals per capture, each linked to its own report when there is one
  // (hwt-batch run --html writes them next to the profiles).
  hwt.renderCaptures = function (view, app) {
    const rows = app.model.captures;
    hwt.clear(view);
    view.append(hwt.el('h2', {}, ['Captures']));
    const counts = {};
    for (const r of rows) counts[r.status] = (counts[r.status] || 0) + 1;
    view.append(hwt.el('p', {id: 'capture-counts'}, [Object.entries(counts).map(([s, n]) => n + ' ' + s).join(', ')]));
    view.append(hwt.table([
      {key: 'status', label: 'Status', render: (r) => hwt.el('span', {className: 'capture-status capture-' + r.status}, [r.status])},
      {key: 'name', label: 'Capture', render: (r) => r.report ?
        hwt.el('a', {attrs: {href: r.report}}, [r.name]) : r.name},
      {key: 'backend', label: 'Backend'},
      {key: 'command', label: 'Command'},
      {key: 'instructions', label: 'Instructions', num: true, render: (r) => hwt.thousands(r.instructions)},
      {key: 'trace_bytes', label: 'Trace', num: true, render: (r) => hwt.bytes(r.trace_bytes)},
      {key: 'bytes_lost', label: 'Bytes lost', num: true, render: (r) => hwt.thousands(r.bytes_lost)},
      {key: 'errors', label: 'Errors', num: true, render: (r) => hwt.thousands(r.errors)},
      {key: 'error', label: 'Why it failed'},
    ], rows, {id: 'capture-table'}));
  };

  hwt.renderOverview = function (view, app) {
    const model = app.model;
    hwt.clear(view);
    if (model.capture) {
      captureSection(view, model.capture);
    } else if (model.captures) {
      view.append(hwt.el('h2', {}, ['Captures']));
      view.append(hwt.el('p', {}, [model.captures.length + ' captures merged: see the Captures tab.']));
    }
    if (model.decode) decodeSection(view, model.decode);
    if (model.kind === 'profile') profileSection(view, model.profile);
    if (model.spe) hwt.renderSpeOverview(view, app);
  };
})();
