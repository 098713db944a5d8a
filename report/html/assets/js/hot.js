// Hot spots below the level of functions: the model's `hot` (HotReportJson,
// what `hwt-report --hot --format json` prints): blocks, conditional
// branches with taken / not-taken counts, taken branch edges, call paths,
// intra-procedural paths and loops.
'use strict';

(function () {
  const hwt = window.hwt;

  const num = (key, label, title) => ({key, label, num: true, title,
    render: (r) => hwt.thousands(r[key])});
  const share = (key) => ({key, label: 'Share', num: true,
    render: (r) => r[key].toFixed(2) + '%'});
  const text = (key, label, className) => ({key, label, className});

  function section(view, title, note, columns, rows, sortKey, onRow) {
    view.append(hwt.el('h3', {}, [title]));
    if (note) view.append(hwt.el('p', {className: 'note'}, [note]));
    if (!rows || rows.length === 0) {
      view.append(hwt.el('p', {className: 'note'}, ['none']));
      return;
    }
    view.append(hwt.table(columns, rows, {sortKey, descending: true, onRow, pageSize: 15}));
  }

  hwt.renderHot = function (view, app) {
    const hot = app.model.hot;
    hwt.clear(view);
    view.append(hwt.el('h2', {}, ['Hot spots']));
    if (!hot) {
      view.append(hwt.el('p', {className: 'note'}, ['This report has no hot spots (no code to expand the blocks).']));
      return;
    }
    const limit = app.model.limits && app.model.limits.hot_rows;
    const rows = limit && ['blocks', 'conditional_branches', 'taken_branches', 'call_paths', 'paths', 'loops']
      .some((k) => (hot[k] || []).length >= limit) ? limit : 0;
    view.append(hwt.el('p', {className: 'note'}, [
      'Shares are of all ' + hwt.thousands(hot.total) + ' ' + hot.unit + '.' +
      (rows ? ' The ' + rows + ' heaviest rows per section (hwt-report --hot --rows 0 lists all).' : '')]));
    const toFunction = (name) => {
      const frame = app.frameOfFunction(name.replace(/\+0x[0-9a-f]+$/, ''), null);
      if (frame >= 0) app.showFunction(frame);
    };
    section(view, 'Blocks', 'Unique blocks by instructions executed.', [
      num('instructions', 'Instructions'), share('share'), num('executions', 'Executions'),
      num('instructions_per_execution', 'Per run'), text('name', 'Block'), text('last', 'Last instruction'),
      text('end', 'Ends by'), text('image', 'Image'), text('source', 'Source'),
    ], hot.blocks, 'instructions', (r) => toFunction(r.name));
    section(view, 'Conditional branches', 'Exact taken and not-taken counts.', [
      num('executions', 'Executions'), num('taken', 'Taken'), num('not_taken', 'Not taken'),
      {key: 'taken_share', label: 'Taken %', num: true, render: (r) => r.taken_share.toFixed(1) + '%'},
      text('name', 'Branch'), text('image', 'Image'), text('source', 'Source'),
    ], hot.conditional_branches, 'executions', (r) => toFunction(r.name));
    section(view, 'Taken branches', 'Edges from a branch to its target.', [
      num('count', 'Count'), text('kind', 'Kind'), text('from_name', 'From'), text('to_name', 'To'),
      text('from', 'From address', 'code'), text('to', 'To address', 'code'),
    ], hot.taken_branches, 'count', (r) => toFunction(r.from_name));
    section(view, 'Call paths', 'Stacks by their own weight.', [
      num('instructions', 'Instructions'), share('share'),
      {key: 'stack', label: 'Stack (root first)', render: (r) => r.stack.join(' \u2192 '), value: (r) => r.stack.join(';')},
    ], hot.call_paths, 'instructions', (r) => toFunction(r.stack[r.stack.length - 1]));
    section(view, 'Paths in functions', 'Acyclic paths through a function\'s blocks.', [
      num('instructions', 'Instructions'), share('share'), num('executions', 'Executions'),
      num('instructions_per_execution', 'Per run'), text('function', 'Function'),
      {key: 'blocks', label: 'Blocks', render: (r) => r.blocks.join(' \u2192 '), value: (r) => r.blocks.length},
    ], hot.paths, 'instructions', (r) => toFunction(r.function));
    section(view, 'Loops', 'Header, trip counts and share.', [
      num('instructions', 'Instructions'), share('share'), num('entries', 'Entries'),
      num('back_edges', 'Back edges'),
      {key: 'trip_count', label: 'Trips per entry', num: true, render: (r) => r.trip_count.toFixed(1)},
      text('name', 'Header'), text('header', 'Address', 'code'), text('source', 'Source'),
    ], hot.loops, 'instructions', (r) => toFunction(r.name));
  };
})();
