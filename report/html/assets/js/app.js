// The report's frame: reads the model, builds the tabs for its kind
// (a profile or a --diff; an SPE tab when the profile is an SPE capture's,
// a Captures tab when it has several), draws each view the first time it is
// shown, follows the address's #view (so views can be linked and the Back
// button works, from file:// too), and the keyboard: "/" searches the
// flame graph (Ctrl-F stays the browser's), Escape resets its zoom.
'use strict';

(function () {
  const hwt = window.hwt;

  const VIEWS = {
    overview: {label: 'Overview', render: (v, app) => hwt.renderOverview(v, app)},
    captures: {label: 'Captures', render: (v, app) => hwt.renderCaptures(v, app)},
    flame: {label: 'Flame graph', render: (v, app) => app.drawFlame()},
    top: {label: 'Functions', render: (v, app) => hwt.renderTop(v, app)},
    function: {label: 'Function', render: (v, app) => hwt.renderFunction(v, app, app.currentFunction)},
    hot: {label: 'Hot spots', render: (v, app) => hwt.renderHot(v, app)},
    spe: {label: 'SPE samples', render: (v, app) => hwt.renderSpe(v, app)},
    changes: {label: 'Changes', render: (v, app) => hwt.renderChanges(v, app)},
  };
  const VIEWS_OF_KIND = {
    profile: ['overview', 'flame', 'top', 'function', 'hot'],
    diff: ['flame', 'changes'],
  };

  const app = {
    model: null, tree: null, flame: null, unit: '', scale: 1,
    current: null, currentFunction: null, drawn: new Set(), views: [],
  };

  app.frameOfFunction = function (name, image) {
    const f = app.model.frames;
    let found = -1;
    for (let i = 0; i < f.name.length; ++i) {
      if (f.name[i] !== name || (image !== null && f.image[i] !== image)) continue;
      if (!f.inlined[i]) return i;
      if (found < 0) found = i;
    }
    return found;
  };

  app.showFunction = function (frame) {
    location.hash = 'function=' + frame;
  };

  app.showInFlame = function (frame) {
    const name = app.model.frames.name[frame];
    const search = document.getElementById('search');
    search.value = '^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
    location.hash = 'flame';
    app.show('flame');
    app.flame.reset();
    app.flame.search(search.value);
  };

  app.drawFlame = function () {
    if (!app.flame) {
      const container = document.getElementById('flame');
      app.flame = new hwt.Flame(container, app.tree, {
        unit: app.unit, scale: app.scale,
        info: document.getElementById('frame-info'),
        matched: document.getElementById('matched'),
        onZoom: (node) => app.frameActions(node),
      });
      hwt.renderLegend(document.getElementById('legend'), app.tree);
      const meta = app.tree.meta;
      const note = document.getElementById('flame-note');
      note.textContent = meta.pruned_nodes ?
        hwt.thousands(meta.pruned_nodes) + ' of ' + hwt.thousands(meta.nodes) +
        ' stacks narrower than ' + hwt.percent(meta.prune_fraction, 1, 4) +
        ' of the whole are not in this page; their weight stays in their callers\' width.' : '';
    }
    app.flame.render();
  };

  app.frameActions = function (node) {
    const holder = hwt.clear(document.getElementById('frame-actions'));
    const frame = app.tree.frame[node];
    if (frame < 0 || !app.model.top) return;
    holder.append(hwt.el('button', {type: 'button', onclick: () => app.showFunction(frame)},
      ['Callers, callees and disassembly of ' + app.model.frames.name[frame]]));
  };

  app.show = function (name) {
    if (!app.views.includes(name)) name = app.views[0];
    app.current = name;
    for (const view of app.views) {
      document.getElementById('view-' + view).hidden = view !== name;
      document.getElementById('tab-' + view).setAttribute('aria-selected', view === name ? 'true' : 'false');
    }
    const section = document.getElementById('view-' + name);
    if (name === 'function' || name === 'flame' || !app.drawn.has(name)) {
      VIEWS[name].render(section, app);
      app.drawn.add(name);
    }
  };

  function route() {
    const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
    const m = /^function=(\d+)$/.exec(hash);
    if (m) {
      app.currentFunction = Number(m[1]);
      app.show('function');
      return;
    }
    app.show(hash || app.views[0]);
  }

  function editable(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  function keyboard(event) {
    if (event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && !editable(event.target)) {
      if (!app.views.includes('flame')) return;
      event.preventDefault();
      if (app.current !== 'flame') location.hash = 'flame';
      app.show('flame');
      document.getElementById('search').focus();
    } else if (event.key === 'Escape') {
      if (app.flame && app.current === 'flame') app.flame.reset();
      if (editable(event.target)) event.target.blur();
    }
  }

  function init() {
    try {
      app.model = hwt.readModel();
    } catch (e) {
      const error = document.getElementById('load-error');
      error.textContent = 'The report could not be read: ' + e.message;
      error.hidden = false;
      return;
    }
    const model = app.model;
    app.unit = model.profile ? model.profile.unit : 'samples';
    app.scale = model.profile ? model.profile.scale : 1;
    app.tree = new hwt.Tree(model);
    document.getElementById('title').textContent = model.title;
    document.getElementById('subtitle').textContent = hwt.subtitle(model);
    app.views = (VIEWS_OF_KIND[model.kind] || ['overview']).slice();
    // A saved profile's or a batch's captures get their own table.
    if (model.captures) app.views.splice(1, 0, 'captures');
    // An SPE capture's samples: its SPE tables after the flame graph.
    if (model.spe) app.views.splice(app.views.indexOf('flame') + 1, 0, 'spe');
    const tabs = document.getElementById('tabs');
    tabs.setAttribute('role', 'tablist');
    for (const view of app.views) {
      const tab = hwt.el('button', {type: 'button', id: 'tab-' + view, onclick: () => { location.hash = view; }},
        [VIEWS[view].label]);
      tab.setAttribute('role', 'tab');
      tab.setAttribute('aria-controls', 'view-' + view);
      tabs.append(tab);
    }
    const search = document.getElementById('search');
    search.addEventListener('input', () => app.flame && app.flame.search(search.value));
    document.getElementById('reset-zoom').addEventListener('click', () => app.flame.reset());
    const invert = document.getElementById('invert');
    invert.addEventListener('click', () => {
      const inverted = invert.getAttribute('aria-pressed') !== 'true';
      invert.setAttribute('aria-pressed', inverted ? 'true' : 'false');
      invert.textContent = inverted ? 'Flame' : 'Icicle';
      app.flame.setInverted(inverted);
    });
    document.addEventListener('keydown', keyboard);
    window.addEventListener('hashchange', route);
    window.addEventListener('beforeprint', () => {
      for (const view of app.views) {
        const section = document.getElementById('view-' + view);
        if (!app.drawn.has(view) && view !== 'function') {
          VIEWS[view].render(section, app);
          app.drawn.add(view);
        }
      }
    });
    route();
    document.body.dataset.ready = '1';
    performance.mark('hwt-ready');
  }

  hwt.subtitle = function (model) {
    const c = model.capture;
    const parts = [];
    if (model.kind === 'diff') {
      return 'widths are ' + model.diff.new + '\'s instructions; red (marked +) grew and blue (marked -) shrank, ' +
        (model.diff.measure === 'share' ? 'as shares of each total' : 'in instructions');
    }
    if (c) parts.push(c.backend + (c.command ? ': ' + c.command : ''));
    else if (model.captures) parts.push(model.captures.length + (model.captures.length === 1 ? ' capture' : ' captures'));
    if (model.profile && model.profile.instructions !== undefined) {
      parts.push(hwt.thousands(model.profile.instructions) + ' instructions');
    }
    if (model.profile && model.profile.samples !== undefined) {
      parts.push(hwt.thousands(model.profile.samples) + ' samples');
    }
    if (model.profile && model.profile.threads !== undefined) {
      parts.push(model.profile.threads + (model.profile.threads === 1 ? ' thread' : ' threads'));
    }
    return parts.join(', ');
  };

  hwt.app = app;
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
