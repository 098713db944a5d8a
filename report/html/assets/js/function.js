// One function: its counts, its callers and callees (exact near-call counts
// from the model's call edges, weights from the call tree), and its
// annotated disassembly (--annotate's rows: exact counts per instruction,
// taken / not-taken per conditional branch, source lines from DWARF).
'use strict';

(function () {
  const hwt = window.hwt;

  // Whether an ancestor of `node` (above its parent) already is a call
  // from `caller` to `callee`: then node's weight is in that one's.
  function edgeAbove(tree, node, caller, callee) {
    for (let a = tree.parent[node]; a !== 0; a = tree.parent[a]) {
      if (tree.frame[a] === callee && tree.frame[tree.parent[a]] === caller) return true;
    }
    return false;
  }

  // Weights along the tree: what the function ran under each caller and
  // what each callee ran under it, each stack once per call edge (so that
  // recursion does not count a stack twice), as pprof counts them.
  function treeNeighbours(tree, frame) {
    const callers = new Map();
    const callees = new Map();
    let self = 0;
    let total = 0;
    const add = (map, key, value) => map.set(key, (map.get(key) || 0) + value);
    for (let i = 1; i < tree.size; ++i) {
      const parentFrame = tree.frame[tree.parent[i]];
      if (parentFrame === frame && !edgeAbove(tree, i, frame, tree.frame[i])) {
        add(callees, tree.frame[i], tree.total[i]);
      }
      if (tree.frame[i] !== frame) continue;
      self += tree.self[i];
      if (!edgeAbove(tree, i, parentFrame, frame)) add(callers, parentFrame, tree.total[i]);
      let outer = true;
      for (let a = tree.parent[i]; a !== 0 && outer; a = tree.parent[a]) outer = tree.frame[a] !== frame;
      if (outer) total += tree.total[i];
    }
    return {callers, callees, self, total};
  }

  function neighbourTable(app, title, weights, edges, unit) {
    const frames = new Set([...weights.keys(), ...edges.keys()]);
    const rows = [];
    for (const f of frames) {
      rows.push({frame: f, name: f < 0 ? 'all' : app.model.frames.name[f],
        image: f < 0 ? '' : app.model.frames.image[f],
        calls: edges.get(f) || 0, weight: weights.get(f) || 0});
    }
    const scale = app.scale;
    const columns = [
      {key: 'calls', label: 'Calls', num: true, render: (r) => hwt.thousands(r.calls), title: 'Near calls (exact)'},
      {key: 'weight', label: unit, num: true, render: (r) => hwt.thousands(r.weight * scale), title: 'Weight along these stacks (of the embedded tree)'},
      {key: 'name', label: 'Function'},
      {key: 'image', label: 'Image'},
    ];
    return hwt.el('div', {}, [hwt.el('h3', {}, [title]),
      rows.length ? hwt.table(columns, rows, {sortKey: 'weight', onRow: (r) => r.frame >= 0 && app.showFunction(r.frame)}) :
        hwt.el('p', {className: 'note'}, ['none'])]);
  }

  function annotationTable(annotation) {
    const executed = annotation.executed;
    let max = 0;
    for (const row of annotation.rows) max = Math.max(max, row[1]);
    const body = hwt.el('tbody');
    for (const [address, count, text, source = '', kind = 0, taken = 0, notTaken = 0] of annotation.rows) {
      if (source) {
        body.append(hwt.el('tr', {className: 'source'}, [hwt.el('td', {colSpan: 5}, [source])]));
      }
      let note = '';
      if (kind === 1) {
        note = 'taken ' + hwt.thousands(taken) + ', not taken ' + hwt.thousands(notTaken) +
          ' (' + hwt.percent(taken, taken + notTaken, 1) + ' taken)';
      } else if (kind === 2) {
        note = 'never reached';
      }
      const bar = hwt.el('span', {className: 'bar'});
      bar.style.width = (max ? Math.round(60 * count / max) : 0) + 'px';
      body.append(hwt.el('tr', {className: count === 0 ? 'cold' : count === max ? 'hot' : ''}, [
        hwt.el('td', {className: 'num count'}, [count ? hwt.thousands(count) : '.']),
        hwt.el('td', {className: 'num'}, [count ? bar : '', count ? hwt.percent(count, executed, 1) : '']),
        hwt.el('td', {className: 'code'}, [address.replace(/^0x/, '') + ':']),
        hwt.el('td', {className: 'code'}, [text]),
        hwt.el('td', {className: 'note'}, [note]),
      ]));
    }
    const head = hwt.el('tr', {}, ['count', 'share', 'addr', 'instruction', 'branches'].map((h, i) =>
      hwt.el('th', {className: i < 2 ? 'num' : '', attrs: {scope: 'col'}}, [h])));
    return hwt.el('table', {className: 'annotation'}, [hwt.el('thead', {}, [head]), body]);
  }

  hwt.renderFunction = function (view, app, frame) {
    const model = app.model;
    const tree = app.tree;
    const f = model.frames;
    hwt.clear(view);
    if (frame === null || frame === undefined || frame < 0 || frame >= f.name.length) {
      view.append(hwt.el('p', {className: 'note'}, ['Choose a function in the Functions table or the flame graph.']));
      return;
    }
    const unit = app.unit;
    const name = f.name[frame];
    const category = model.categories[f.category[frame]];
    view.append(hwt.el('h2', {}, [name]));
    const near = treeNeighbours(tree, frame);
    const row = hwt.topRows(model.top).find((r) => r.function === name && r.image === f.image[frame]);
    const facts = hwt.el('dl', {className: 'facts'});
    const fact = (label, value) => facts.append(hwt.el('dt', {}, [label]), hwt.el('dd', {}, [value]));
    fact('Image', f.image[frame] || '(none)');
    fact('Category', category + (f.inlined[frame] ? ', inlined frame' : ''));
    if (f.file[frame]) fact('Source', f.file[frame] + ':' + f.line[frame]);
    if (row) {
      fact('Self', hwt.thousands(row.self) + ' ' + unit + ' (' + hwt.percent(row.self, model.top.total) + ')');
      fact('Total', hwt.thousands(row.total) + ' ' + unit + ' (' + hwt.percent(row.total, model.top.total) + ')');
      fact('Calls', hwt.thousands(row.calls));
    } else {
      fact('Self (tree)', hwt.thousands(near.self * app.scale) + ' ' + unit);
      fact('Total (tree)', hwt.thousands(near.total * app.scale) + ' ' + unit);
    }
    const show = hwt.el('button', {type: 'button', onclick: () => app.showInFlame(frame)}, ['Show in flame graph']);
    view.append(facts, show);

    const callerCalls = new Map();
    const calleeCalls = new Map();
    for (const [caller, callee, count] of model.call_edges || []) {
      if (callee === frame) callerCalls.set(caller, (callerCalls.get(caller) || 0) + count);
      if (caller === frame) calleeCalls.set(callee, (calleeCalls.get(callee) || 0) + count);
    }
    view.append(hwt.el('div', {className: 'grid2'}, [
      neighbourTable(app, 'Callers', near.callers, callerCalls, unit),
      neighbourTable(app, 'Callees', near.callees, calleeCalls, unit),
    ]));

    const annotation = (model.annotations || []).find((a) => a.frame === frame);
    view.append(hwt.el('h3', {}, ['Annotated disassembly']));
    if (!annotation) {
      view.append(hwt.el('p', {className: 'note'}, [
        'Not embedded for this function (the page carries the ' +
        ((model.limits && model.limits.annotated_functions) || 0) +
        ' functions with the most instructions of their own): hwt-report --annotate \'' + name + '\' prints it.']));
      return;
    }
    view.append(hwt.el('p', {}, [
      annotation.name + ' (' + annotation.image + ') ' + annotation.start + '-' + annotation.end + ': ' +
      hwt.thousands(annotation.executed) + ' instructions executed here (' +
      hwt.percent(annotation.executed, annotation.all_instructions) + ' of ' +
      hwt.thousands(annotation.all_instructions) + ')' +
      (annotation.calls !== undefined ? '; entered by ' + hwt.thousands(annotation.calls) +
        (annotation.calls === 1 ? ' call' : ' calls') : '')]));
    if (annotation.no_code) {
      view.append(hwt.el('p', {className: 'note'}, ['(' + annotation.no_code + ')']));
      return;
    }
    view.append(annotationTable(annotation));
  };
})();
