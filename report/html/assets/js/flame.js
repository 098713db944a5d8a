// The flame graph (root at the bottom) and icicle (root at the top) of the
// model's call tree: frames narrower than a pixel are not drawn (their
// weight stays in their parent's width), so a view costs what it shows, not
// what the tree holds. Click a frame to zoom into it; search marks the
// frames whose names match and sums their share (nested matches once).
'use strict';

(function () {
  const hwt = window.hwt;
  const ROW = 18;         // pixels per stack level
  const MIN_PIXELS = 1;  // narrower frames are not drawn

  // The model's tree in typed arrays, with each node's parent and the end of
  // its subtree (nodes are in preorder: node i's subtree is [i, end[i])).
  hwt.Tree = class {
    constructor(model) {
      const t = model.tree;
      const n = t.frame.length;
      this.size = n;
      this.frame = Int32Array.from(t.frame);
      this.depth = Int32Array.from(t.depth);
      this.self = Float64Array.from(t.self);
      this.total = Float64Array.from(t.total);
      this.calls = Float64Array.from(t.calls);
      this.gaps = Float64Array.from(t.gaps);
      this.delta = t.delta ? Float64Array.from(t.delta) : null;
      this.parent = new Int32Array(n);
      this.end = new Int32Array(n);
      const open = [];
      for (let i = 0; i < n; ++i) {
        while (open.length && this.depth[open[open.length - 1]] >= this.depth[i]) {
          this.end[open.pop()] = i;
        }
        this.parent[i] = open.length ? open[open.length - 1] : 0;
        open.push(i);
      }
      while (open.length) this.end[open.pop()] = n;
      this.frames = model.frames;
      this.categories = model.categories;
      this.meta = t;
    }
    name(node) {
      const f = this.frame[node];
      return f < 0 ? 'all' : this.frames.name[f];
    }
    category(node) {
      const f = this.frame[node];
      return f < 0 ? 'user' : this.categories[this.frames.category[f]];
    }
    // The nodes of one frame, in preorder.
    nodesOf(frame) {
      const out = [];
      for (let i = 0; i < this.size; ++i) if (this.frame[i] === frame) out.push(i);
      return out;
    }
    stack(node) {
      const out = [];
      for (let n = node; n !== 0; n = this.parent[n]) out.push(n);
      out.push(0);
      return out.reverse();
    }
  };

  // The part of a name that fits `width` pixels (about 7.2 pixels a
  // character): laying out only what shows keeps a redraw of thousands of
  // frames with long C++ names fast. The title keeps the whole name.
  const CHAR_PIXELS = 7.2;
  function label(name, width) {
    const fits = Math.floor((width - 6) / CHAR_PIXELS);
    if (fits < 3) return '';
    return name.length <= fits ? name : name.slice(0, fits - 1) + '\u2026';
  }

  hwt.Flame = class {
    // options: unit (name of the counts), scale (weights -> shown values),
    // info and matched (elements for the hovered frame and the search
    // result), onZoom(node) after a zoom.
    constructor(container, tree, options) {
      this.container = container;
      this.tree = tree;
      this.options = options;
      this.zoomed = 0;
      this.inverted = false;
      this.matches = null;  // Uint8Array over frames, or null
      container.addEventListener('click', (event) => {
        const box = event.target.closest('.frame');
        if (box) this.zoom(Number(box.dataset.node));
      });
      container.addEventListener('keydown', (event) => {
        const box = event.target.closest('.frame');
        if (box && (event.key === 'Enter' || event.key === ' ')) {
          event.preventDefault();
          this.zoom(Number(box.dataset.node));
        }
      });
      container.addEventListener('mouseover', (event) => {
        const box = event.target.closest('.frame');
        if (box) this.describe(Number(box.dataset.node));
      });
      container.addEventListener('focusin', (event) => {
        const box = event.target.closest('.frame');
        if (box) this.describe(Number(box.dataset.node));
      });
      this.width = container.clientWidth;
      if (window.ResizeObserver) {
        let width = this.width;
        new ResizeObserver(() => {
          if (container.clientWidth !== width && container.isConnected) {
            width = container.clientWidth;
            this.width = width;
            if (width > 0) this.render();
          }
        }).observe(container);
      }
    }

    value(weight) {
      return Math.round(weight * this.options.scale);
    }

    // "1,234 instructions (12.34%)" of the whole tree.
    share(weight) {
      return hwt.thousands(this.value(weight)) + ' ' + this.options.unit + ' (' +
        hwt.percent(weight, this.tree.total[0]) + ')';
    }

    describe(node) {
      const t = this.tree;
      const f = t.frame[node];
      const parts = [t.name(node)];
      if (f >= 0 && t.frames.image[f]) parts.push('(' + t.frames.image[f] + ')');
      parts.push('[' + t.category(node) + (f >= 0 && t.frames.inlined[f] ? ', inlined' : '') + ']');
      parts.push('total ' + this.share(t.total[node]) + ', self ' + this.share(t.self[node]));
      if (t.calls[node]) parts.push(hwt.thousands(t.calls[node]) + ' calls');
      if (t.gaps[node]) parts.push(hwt.thousands(t.gaps[node]) + ' stacks cut by trace gaps');
      if (t.delta) parts.push('change ' + (t.delta[node] >= 0 ? '+' : '') + hwt.thousands(this.value(t.delta[node])));
      if (f >= 0 && t.frames.file[f]) parts.push(t.frames.file[f] + ':' + t.frames.line[f]);
      const text = parts.join(' ');
      if (this.options.info) this.options.info.textContent = text;
      return text;
    }

    zoom(node) {
      this.zoomed = node;
      this.render();
      this.describe(node);
      if (this.options.onZoom) this.options.onZoom(node);
    }

    reset() {
      this.zoom(0);
    }

    setInverted(inverted) {
      this.inverted = inverted;
      this.render();
    }

    // Marks frames whose names match `text` (a regex, or a substring when
    // it is none); empty text clears.
    search(text) {
      const match = hwt.matcher(text);
      const names = this.tree.frames.name;
      if (!match) {
        this.matches = null;
      } else {
        this.matches = new Uint8Array(names.length);
        for (let f = 0; f < names.length; ++f) this.matches[f] = match(names[f]) ? 1 : 0;
      }
      this.render();
      return this.matchedWeight();
    }

    // The weight of the matching frames in the zoomed subtree, each stack
    // once (a match inside a match is not added again).
    matchedWeight() {
      const t = this.tree;
      const out = this.options.matched;
      if (!this.matches) {
        if (out) out.textContent = '';
        return null;
      }
      let sum = 0;
      const end = t.end[this.zoomed];
      for (let i = this.zoomed; i < end;) {
        const f = t.frame[i];
        if (f >= 0 && this.matches[f]) {
          sum += t.total[i];
          i = t.end[i];
        } else {
          ++i;
        }
      }
      if (out) {
        out.textContent = 'Matched: ' + hwt.percent(sum, t.total[this.zoomed]) +
          ' (' + hwt.thousands(this.value(sum)) + ' ' + this.options.unit + ')';
      }
      return sum;
    }

    // The boxes to draw: the zoomed node's ancestors at full width, then its
    // subtree scaled to the width, skipping what is narrower than
    // MIN_PIXELS.
    layout(width) {
      const t = this.tree;
      const boxes = [];
      for (const a of t.stack(this.zoomed)) {
        if (a !== this.zoomed) boxes.push({node: a, x: 0, w: width, ancestor: true});
      }
      const todo = [[this.zoomed, 0, width]];
      while (todo.length) {
        const [node, x, w] = todo.pop();
        boxes.push({node: node, x: x, w: w, ancestor: false});
        const total = t.total[node];
        if (total <= 0) continue;
        let cx = x;
        for (let c = node + 1; c < t.end[node]; c = t.end[c]) {
          const cw = w * t.total[c] / total;
          if (cw >= MIN_PIXELS) todo.push([c, cx, cw]);
          cx += cw;
        }
      }
      return boxes;
    }

    render() {
      const t = this.tree;
      // The width the resize observer saw; reading it from the layout here
      // would force a layout of the frames drawn before.
      const width = this.width || this.container.clientWidth || 1200;
      const boxes = this.layout(width);
      let maxDepth = 0;
      for (const b of boxes) maxDepth = Math.max(maxDepth, t.depth[b.node]);
      const fragment = document.createDocumentFragment();
      for (const b of boxes) {
        const f = t.frame[b.node];
        const category = t.category(b.node);
        const row = t.depth[b.node];
        const box = document.createElement('div');
        box.className = 'frame ' + hwt.categoryClass(category) +
          (b.ancestor ? ' ancestor' : '') +
          (t.delta && t.delta[b.node] > 0 ? ' grew' : '') +
          (t.delta && t.delta[b.node] < 0 ? ' shrank' : '') +
          (this.matches && f >= 0 && this.matches[f] ? ' match' : '');
        box.dataset.node = String(b.node);
        box.tabIndex = -1;
        box.setAttribute('role', 'button');
        box.style.left = b.x.toFixed(2) + 'px';
        box.style.width = b.w.toFixed(2) + 'px';
        box.style.top = ((this.inverted ? row : maxDepth - row) * ROW) + 'px';
        box.style.backgroundColor = this.colour(b.node, category);
        // Differential: the sign in the label too, readable without colour.
        const sign = !t.delta || !t.delta[b.node] ? '' : t.delta[b.node] > 0 ? '+ ' : '- ';
        box.textContent = label(sign + t.name(b.node), b.w);
        box.title = t.name(b.node);
        fragment.append(box);
      }
      this.container.replaceChildren(fragment);
      this.container.style.height = ((maxDepth + 1) * ROW) + 'px';
      // The first frame can take the keyboard focus; Tab moves on to the
      // next control, arrow keys are not needed for a zoom.
      const first = this.container.querySelector('.frame');
      if (first) first.tabIndex = 0;
      this.matchedWeight();
    }

    colour(node, category) {
      const t = this.tree;
      if (t.delta) {
        // Differential: red where the second profile has more, blue where
        // less, by the change's share of the node's weight.
        const d = t.delta[node];
        const base = Math.max(t.total[node], 1);
        const strength = Math.min(1, Math.abs(d) / base);
        const light = Math.round(96 - 36 * strength);
        return d > 0 ? 'hsl(0, 80%, ' + light + '%)' :
          d < 0 ? 'hsl(220, 80%, ' + light + '%)' : 'hsl(0, 0%, 92%)';
      }
      return hwt.categoryColour(category, t.name(node));
    }
  };

  // The legend of categories (colour, pattern and name).
  hwt.renderLegend = function (container, tree) {
    hwt.clear(container);
    const present = new Set();
    for (let i = 1; i < tree.size; ++i) present.add(tree.category(i));
    for (const category of tree.categories) {
      if (!present.has(category)) continue;
      const swatch = hwt.el('span', {className: 'swatch ' + hwt.categoryClass(category)});
      swatch.style.backgroundColor = hwt.categoryColour(category, '');
      container.append(hwt.el('span', {}, [swatch, category]));
    }
  };
})();
