// Sortable tables (click a column header; again to reverse) and the top
// functions view, whose rows are the model's `top` (TopTableJson: what
// `hwt-report --top N --format json` prints), shown as they are.
'use strict';

(function () {
  const hwt = window.hwt;
  const PAGE = 200;  // rows shown before "Show all"

  // columns: [{key, label, num (right-aligned, numeric sort), render(row)
  // -> string|Node, value(row) -> sort key, title}]; rows: objects.
  // options: sortKey, descending, onRow(row) (rows become links), id,
  // pageSize (rows shown before "Show all").
  hwt.table = function (columns, rows, options) {
    options = options || {};
    const state = {key: options.sortKey || null, descending: options.descending !== false};
    const wrap = hwt.el('div', {className: 'table-wrap'});
    const table = hwt.el('table', options.id ? {id: options.id} : {});
    if (options.caption) table.append(hwt.el('caption', {className: 'note'}, [options.caption]));
    const head = hwt.el('tr');
    const body = hwt.el('tbody');
    let limit = options.pageSize || PAGE;
    const more = hwt.el('div', {className: 'more'});
    const valueOf = (column, row) => column.value ? column.value(row) : row[column.key];
    function sorted() {
      const column = columns.find((c) => c.key === state.key);
      const order = rows.map((row, index) => ({row, index}));
      if (!column) return order.map((x) => x.row);
      const sign = state.descending ? -1 : 1;
      order.sort((a, b) => {
        const va = valueOf(column, a.row);
        const vb = valueOf(column, b.row);
        if (va < vb) return -sign;
        if (va > vb) return sign;
        return a.index - b.index;  // stable: the model's order breaks ties
      });
      return order.map((x) => x.row);
    }
    function draw() {
      hwt.clear(body);
      const list = sorted();
      const shown = limit ? list.slice(0, limit) : list;
      for (const row of shown) {
        const tr = hwt.el('tr', options.onRow ? {className: 'clickable', tabIndex: 0} : {});
        if (options.rowClass) tr.className += ' ' + options.rowClass(row);
        for (const column of columns) {
          const content = column.render ? column.render(row) : row[column.key];
          tr.append(hwt.el('td', {className: (column.num ? 'num' : 'name') + (column.className ? ' ' + column.className : '')},
            [content === undefined || content === null ? '' : content]));
        }
        if (options.onRow) {
          tr.addEventListener('click', () => options.onRow(row));
          tr.addEventListener('keydown', (event) => {
            if (event.key === 'Enter') options.onRow(row);
          });
        }
        body.append(tr);
      }
      hwt.clear(more);
      if (limit && list.length > limit) {
        more.append(hwt.el('button', {type: 'button', onclick: () => { limit = 0; draw(); }},
          ['Show all ' + hwt.thousands(list.length) + ' rows']));
      }
      for (const th of head.children) {
        const key = th.dataset.key;
        if (key === state.key) {
          th.setAttribute('aria-sort', state.descending ? 'descending' : 'ascending');
        } else {
          th.removeAttribute('aria-sort');
        }
      }
    }
    for (const column of columns) {
      const button = hwt.el('button', {type: 'button', title: column.title || ('Sort by ' + column.label)}, [column.label]);
      button.addEventListener('click', () => {
        if (state.key === column.key) {
          state.descending = !state.descending;
        } else {
          state.key = column.key;
          state.descending = !!column.num;
        }
        draw();
      });
      head.append(hwt.el('th', {className: column.num ? 'num' : '', dataset: {key: column.key}, attrs: {scope: 'col'}}, [button]));
    }
    table.append(hwt.el('thead', {}, [head]), body);
    wrap.append(table, more);
    draw();
    return wrap;
  };

  // Rows of the top view: the model's by_self rows in their order, then the
  // by_total rows that have no self weight (a function with self weight has
  // total weight, so by_total alone would do when both lists are complete).
  hwt.topRows = function (top) {
    const rows = new Map();
    const key = (r) => r.function + '\u0000' + r.image;
    top.by_self.forEach((r, i) => rows.set(key(r), Object.assign({selfRank: i, totalRank: Infinity}, r)));
    top.by_total.forEach((r, i) => {
      const k = key(r);
      if (rows.has(k)) {
        rows.get(k).totalRank = i;
      } else {
        rows.set(k, Object.assign({selfRank: Infinity, totalRank: i}, r));
      }
    });
    return Array.from(rows.values());
  };

  // The differential report's table: the functions that changed most, as
  // `hwt-report --diff BASE NEW --top N --format json` lists them.
  hwt.renderChanges = function (view, app) {
    const d = app.model.diff;
    const changes = app.model.changes;
    const share = d.measure === 'share';
    hwt.clear(view);
    view.append(hwt.el('h2', {}, ['Functions that changed most']));
    view.append(hwt.el('p', {className: 'note'}, [
      d.base + ': ' + hwt.thousands(d.base_instructions) + ' instructions; ' + d.new + ': ' +
      hwt.thousands(d.new_instructions) + '. Change: ' +
      (share ? 'the self share of the new total less that of the base (percentage points).' : 'self instructions, new less base.')]));
    const signed = (v) => (v > 0 ? '+' : '') + (share ? v.toFixed(2) : hwt.thousands(v));
    view.append(hwt.table([
      {key: 'change', label: share ? 'Change (points)' : 'Change', num: true, render: (r) => signed(r.change),
        value: (r) => Math.abs(r.change)},
      {key: 'base_self', label: 'Base self', num: true, render: (r) => hwt.thousands(r.base_self)},
      {key: 'new_self', label: 'New self', num: true, render: (r) => hwt.thousands(r.new_self)},
      {key: 'base_share', label: 'Base %', num: true, render: (r) => r.base_share.toFixed(2) + '%'},
      {key: 'new_share', label: 'New %', num: true, render: (r) => r.new_share.toFixed(2) + '%'},
      {key: 'function', label: 'Function'},
      {key: 'image', label: 'Image'},
    ], changes.functions, {id: 'changes-table', sortKey: 'change', descending: true}));
  };

  hwt.renderTop = function (view, app) {
    const model = app.model;
    const top = model.top;
    const rows = hwt.topRows(top);
    const grand = top.total;
    hwt.clear(view);
    view.append(hwt.el('h2', {}, ['Functions by ' + top.unit]));
    const limit = model.limits && model.limits.top_rows;
    const limited = limit && (top.by_self.length >= limit || top.by_total.length >= limit) ? limit : 0;
    view.append(hwt.el('p', {className: 'note'}, [
      hwt.thousands(grand) + ' ' + top.unit + ' in total. Self: in the function\'s own code; total: in it and what it called (recursion counted once). ' +
      'Click a row for its callers, callees and annotated disassembly.' +
      (limited ? ' The ' + hwt.thousands(limited) + ' heaviest by self and by total are here (hwt-report --top 0 lists all).' : '')]));
    const filter = hwt.el('input', {type: 'search', placeholder: 'filter by function name (regular expression)', id: 'top-filter'});
    const holder = hwt.el('div');
    view.append(hwt.el('div', {className: 'toolbar'}, [hwt.el('label', {htmlFor: 'top-filter'}, ['Filter']), filter]), holder);
    const columns = [
      {key: 'selfRank', label: 'Self', num: true, value: (r) => -r.selfRank, render: (r) => hwt.thousands(r.self), title: 'Sort by self weight'},
      {key: 'selfPct', label: 'Self %', num: true, value: (r) => -r.selfRank, render: (r) => hwt.percent(r.self, grand)},
      {key: 'totalRank', label: 'Total', num: true, value: (r) => -r.totalRank, render: (r) => hwt.thousands(r.total), title: 'Sort by total weight'},
      {key: 'totalPct', label: 'Total %', num: true, value: (r) => -r.totalRank, render: (r) => hwt.percent(r.total, grand)},
      {key: 'calls', label: 'Calls', num: true, render: (r) => hwt.thousands(r.calls)},
      {key: 'function', label: 'Function'},
      {key: 'image', label: 'Image'},
    ];
    function draw() {
      const match = hwt.matcher(filter.value);
      const shown = match ? rows.filter((r) => match(r.function)) : rows;
      hwt.clear(holder).append(hwt.table(columns, shown, {
        id: 'top-table', sortKey: 'selfRank', descending: true,
        onRow: (r) => app.showFunction(app.frameOfFunction(r.function, r.image)),
      }));
    }
    filter.addEventListener('input', draw);
    draw();
  };
})();
