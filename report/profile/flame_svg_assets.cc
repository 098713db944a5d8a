// CSS and JavaScript of the flame graph SVG; see flame_svg_assets.h.
#include "report/profile/flame_svg_assets.h"

namespace hwt::report {

const char kFlameSvgStyle[] = R"css(
text { font-family: "DejaVu Sans", Verdana, "Helvetica Neue", Arial, sans-serif; font-size: 12px; fill: #1a1a1a; }
#title { font-size: 17px; font-weight: bold; text-anchor: middle; }
#subtitle { font-size: 12px; text-anchor: middle; fill: #555; }
#notes { fill: #a33; }
#details, #matched { font-size: 12px; }
#matched { text-anchor: end; fill: #8a008a; font-weight: bold; }
.btn { cursor: pointer; fill: #26547c; font-weight: bold; }
.btn:hover { fill: #d1495b; text-decoration: underline; }
.legend text { font-size: 11px; fill: #444; }
.f { cursor: pointer; }
.f rect { stroke: #fff; stroke-width: 0.6; }
.f:hover rect { stroke: #000; stroke-width: 1; }
.f text { pointer-events: none; }
.f.inl text { font-style: italic; }
.f.parent { opacity: 0.5; }
.hide { display: none; }
)css";

const char kFlameSvgScript[] = R"js(
"use strict";
(function () {
  var svg = document.documentElement;
  var num = function (name) { return +svg.getAttribute(name); };
  var xpad = num("data-xpad"), width = num("data-w"), total = num("data-total");
  var scale = num("data-scale") || 1, minw = num("data-minw");
  var fontSize = num("data-font"), fontWidth = num("data-fw");
  var unit = svg.getAttribute("data-unit");
  var matchFill = "rgb(230,0,230)";
  var frames = [], zoomed = null, searching = null, ignoreCase = false;
  var details, matched, unzoomBtn, searchBtn, caseBtn;

  function fmt(n) {
    return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function fit(f, w) {
    var t = f.text;
    var chars = Math.floor((w - 6) / (fontSize * fontWidth));
    if (chars < 3) { t.textContent = ""; return; }
    var s = f.label.length > chars ? f.label.substring(0, chars - 2) + ".." : f.label;
    t.textContent = s;
    // The estimate is for an average glyph: trim until it really fits.
    while (s.length > 3 && t.getComputedTextLength && t.getComputedTextLength() > w - 6) {
      s = s.substring(0, s.length - 3) + "..";
      t.textContent = s;
    }
    if (s.length <= 3 && f.label.length > 3) t.textContent = "";
  }

  function place(f, x, w) {
    f.rect.setAttribute("x", x.toFixed(2));
    f.rect.setAttribute("width", w.toFixed(2));
    f.text.setAttribute("x", (x + 3).toFixed(2));
    if (w < minw) { f.g.classList.add("hide"); return; }
    f.g.classList.remove("hide");
    fit(f, w);
  }

  function homeX(f) { return xpad + f.s / total * width; }
  function homeW(f) { return f.v / total * width; }

  function zoom(f) {
    zoomed = f;
    unzoomBtn.classList.remove("hide");
    frames.forEach(function (o) {
      var inside = o.s >= f.s && o.s + o.v <= f.s + f.v;
      if (o.d < f.d && o.s <= f.s && o.s + o.v >= f.s + f.v) {
        o.g.classList.add("parent");
        place(o, xpad, width);
      } else if (o.d >= f.d && inside) {
        o.g.classList.remove("parent");
        place(o, xpad + (o.s - f.s) / f.v * width, o.v / f.v * width);
      } else {
        o.g.classList.remove("parent");
        o.g.classList.add("hide");
      }
    });
    if (searching !== null) search(searching);
    saveState();
  }

  function unzoom() {
    zoomed = null;
    unzoomBtn.classList.add("hide");
    frames.forEach(function (o) {
      o.g.classList.remove("parent");
      place(o, homeX(o), homeW(o));
    });
    if (searching !== null) search(searching);
    saveState();
  }

  function search(term) {
    var re;
    try { re = new RegExp(term, ignoreCase ? "i" : ""); } catch (e) {
      matched.textContent = "Invalid regular expression: " + term;
      return;
    }
    searching = term;
    // The share of the visible scope covered by matching frames, nested
    // matches counted once.
    var lo = zoomed ? zoomed.s : 0, hi = zoomed ? zoomed.s + zoomed.v : total;
    var spans = [];
    frames.forEach(function (o) {
      var hit = o.d > 0 && re.test(o.label);
      o.rect.setAttribute("fill", hit ? matchFill : o.fill);
      o.g.classList.toggle("match", hit);
      if (hit) {
        var a = Math.max(o.s, lo), b = Math.min(o.s + o.v, hi);
        if (b > a) spans.push([a, b]);
      }
    });
    spans.sort(function (p, q) { return p[0] - q[0]; });
    var sum = 0, end = -1;
    spans.forEach(function (p) {
      if (p[1] <= end) return;
      sum += p[1] - Math.max(p[0], end);
      end = p[1];
    });
    var scope = hi - lo;
    matched.textContent = "Matched: " + (scope ? (100 * sum / scope).toFixed(1) : "0.0") +
        "% (" + fmt(sum * scale) + " " + unit + ")";
    matched.classList.remove("hide");
    searchBtn.textContent = "Reset Search";
    saveState();
  }

  function resetSearch() {
    searching = null;
    frames.forEach(function (o) {
      o.rect.setAttribute("fill", o.fill);
      o.g.classList.remove("match");
    });
    matched.classList.add("hide");
    searchBtn.textContent = "Search";
    saveState();
  }

  function searchPrompt() {
    if (searching !== null) { resetSearch(); return; }
    var term = window.prompt("Search for frames (regular expression" +
        (ignoreCase ? ", ignoring case" : "") + "):", "");
    if (term) search(term);
  }

  function toggleCase() {
    ignoreCase = !ignoreCase;
    caseBtn.classList.toggle("on", ignoreCase);
    caseBtn.textContent = ignoreCase ? "IC" : "ic";
    if (searching !== null) search(searching); else saveState();
  }

  function saveState() {
    try {
      var p = new URLSearchParams(window.location.search);
      if (zoomed) p.set("f", frames.indexOf(zoomed)); else p.delete("f");
      if (searching !== null) p.set("s", searching); else p.delete("s");
      if (ignoreCase) p.set("i", "1"); else p.delete("i");
      var q = p.toString();
      window.history.replaceState(null, "", window.location.pathname + (q ? "?" + q : "") +
          window.location.hash);
    } catch (e) { /* file: URLs in some browsers */ }
  }

  function frameOf(node) {
    while (node && node !== svg) {
      if (node.classList && node.classList.contains("f")) return node.hwtFrame;
      node = node.parentNode;
    }
    return null;
  }

  function init() {
    details = document.getElementById("details");
    matched = document.getElementById("matched");
    unzoomBtn = document.getElementById("unzoom");
    searchBtn = document.getElementById("search");
    caseBtn = document.getElementById("case");
    var gs = document.getElementById("frames").getElementsByTagName("g");
    for (var i = 0; i < gs.length; ++i) {
      var g = gs[i];
      var title = g.getElementsByTagName("title")[0].textContent;
      var f = {
        g: g, rect: g.getElementsByTagName("rect")[0], text: g.getElementsByTagName("text")[0],
        s: +g.getAttribute("data-s"), v: +g.getAttribute("data-v"), d: +g.getAttribute("data-d"),
        title: title, label: title.substring(0, title.lastIndexOf(" (")),
      };
      f.fill = f.rect.getAttribute("fill");
      g.hwtFrame = f;
      frames.push(f);
    }
    svg.addEventListener("click", function (e) {
      var f = frameOf(e.target);
      if (f) { if (f.d === 0) unzoom(); else zoom(f); }
    });
    svg.addEventListener("mouseover", function (e) {
      var f = frameOf(e.target);
      if (f) details.textContent = f.title;
    });
    svg.addEventListener("mouseout", function (e) {
      if (frameOf(e.target)) details.textContent = " ";
    });
    unzoomBtn.addEventListener("click", unzoom);
    searchBtn.addEventListener("click", searchPrompt);
    caseBtn.addEventListener("click", toggleCase);
    window.addEventListener("keydown", function (e) {
      if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) {
        e.preventDefault();
        searchPrompt();
      } else if (e.ctrlKey && e.keyCode === 73) {
        e.preventDefault();
        toggleCase();
      }
    });
    // The state a link carries.
    var p = new URLSearchParams(window.location.search);
    if (p.get("i") === "1") toggleCase();
    var z = p.get("f");
    if (z !== null && frames[+z]) zoom(frames[+z]);
    var s = p.get("s");
    if (s) search(s);
    svg.setAttribute("data-ready", "1");
  }

  init();
})();
)js";

}  // namespace hwt::report
