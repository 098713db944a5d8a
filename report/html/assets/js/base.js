// The HTML report's shared helpers: making elements (text only ever through
// textContent, so names from the input cannot become markup), number and
// share formatting as the text reports write them, colours and patterns of
// frame categories, and the model read from the page.
'use strict';

window.hwt = (function () {
  const hwt = {};

  // el('td', {className: 'num', title: '...'}, ['text', otherElement]).
  // Strings become text nodes; properties are set as properties (never as
  // HTML).
  hwt.el = function (tag, props, children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (key === 'dataset') {
          Object.assign(node.dataset, value);
        } else if (key === 'attrs') {
          for (const [name, v] of Object.entries(value)) {
            node.setAttribute(name, v);
          }
        } else if (key === 'onclick') {
          node.addEventListener('click', value);
        } else {
          node[key] = value;
        }
      }
    }
    for (const child of children || []) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === 'string' || typeof child === 'number' ?
        document.createTextNode(String(child)) : child);
    }
    return node;
  };

  hwt.clear = function (node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  };

  // 1234567 -> "1,234,567" (the text reports' Thousands).
  hwt.thousands = function (value) {
    const text = String(Math.round(value));
    const negative = text.startsWith('-');
    const digits = negative ? text.slice(1) : text;
    let out = '';
    for (let i = 0; i < digits.length; ++i) {
      if (i !== 0 && (digits.length - i) % 3 === 0) out += ',';
      out += digits[i];
    }
    return (negative ? '-' : '') + out;
  };

  // part of whole as "12.34%" (two decimals, as the text reports).
  hwt.percent = function (part, whole, decimals) {
    if (!whole) return '-';
    return (100 * part / whole).toFixed(decimals === undefined ? 2 : decimals) +
      '%';
  };

  hwt.bytes = function (n) {
    if (n < 1024) return hwt.thousands(n) + ' B';
    const units = ['KiB', 'MiB', 'GiB', 'TiB'];
    let value = n / 1024;
    let unit = 0;
    while (value >= 1024 && unit + 1 < units.length) {
      value /= 1024;
      ++unit;
    }
    return value.toFixed(1) + ' ' + units[unit] + ' (' + hwt.thousands(n) +
      ' bytes)';
  };

  // A stable small hash of a string (for colour variation).
  hwt.hash = function (text) {
    let h = 2166136261;
    for (let i = 0; i < text.length; ++i) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    return h >>> 0;
  };

  // Frame categories: a colour and, for reading without colour, a pattern
  // (a CSS class) and a label.
  const CATEGORY_HUES = {
    user: [18, 90, 62], libc: [45, 85, 58], 'ld.so': [280, 45, 70],
    library: [200, 60, 66], kernel: [120, 40, 60], unknown: [0, 0, 72],
    gap: [0, 0, 88],
  };
  hwt.categoryColour = function (category, name) {
    const [h, s, l] = CATEGORY_HUES[category] || CATEGORY_HUES.unknown;
    const v = hwt.hash(name || '') % 1000 / 1000;
    const hue = h + (s === 0 ? 0 : Math.round(v * 22 - 11));
    const light = l + Math.round(v * 10 - 5);
    return 'hsl(' + hue + ', ' + s + '%, ' + light + '%)';
  };
  hwt.categoryClass = function (category) {
    return 'cat-' + String(category).replace(/[^a-z]/g, '');
  };

  // The model the page renders (one JSON document in the page).
  hwt.readModel = function () {
    const node = document.getElementById('hwt-model');
    const model = JSON.parse(node.textContent);
    if (model.format !== 'hwt-report-html' || model.version !== 1) {
      throw new Error('this page holds a model of another format or version');
    }
    return model;
  };

  // Regex from user text; a plain substring when it is no valid regex.
  hwt.matcher = function (text) {
    if (!text) return null;
    try {
      const re = new RegExp(text);
      return (name) => re.test(name);
    } catch {
      return (name) => name.includes(text);
    }
  };

  return hwt;
})();
