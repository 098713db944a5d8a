#!/usr/bin/env python3
"""Imports a profile with speedscope's own importer in headless Chromium
and prints, as JSON, what speedscope made of it: per profile its name, total
weight and per frame name the self and total weights.

speedscope ships only its web application (one bundled script), so the test
serves a copy of it with one line added that hands the bundle's
importProfileGroupFromText to the page, and a loader script (speedscope's
#localProfilePath hook) that imports the file and writes the result into the
page, which Chromium prints with --dump-dom.

Usage: speedscope_import.py SPEEDSCOPE_RELEASE_DIR WORK_DIR PROFILE
"""
import base64
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys

LOADER = """
const TEXT = %(text)s;
window.speedscope.loadFileFromBase64(%(name)s, %(b64)s);
(async function () {
  for (let i = 0; i < 400 && !window.__hwtImport; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const out = {};
  try {
    const group = await window.__hwtImport(%(name)s, TEXT);
    out.profiles = group.profiles.map((p) => {
      const self = {}, total = {};
      p.forEachFrame((f) => {
        self[f.name] = (self[f.name] || 0) + f.getSelfWeight();
        total[f.name] = (total[f.name] || 0) + f.getTotalWeight();
      });
      return {name: p.getName(), total: p.getTotalWeight(), self, frameTotals: total};
    });
  } catch (e) {
    out.error = String(e);
  }
  const pre = document.createElement("pre");
  pre.id = "hwt-result";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""


def main():
    release, work, profile = sys.argv[1:4]
    site = os.path.join(work, "speedscope")
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(release, site)
    bundle = glob.glob(os.path.join(site, "speedscope-*.js"))[0]
    source = open(bundle, encoding="utf-8").read()
    found = re.search(r"importProfileGroupFromText:\(\)=>([\w$]+)", source)
    if not found:
        sys.exit("speedscope_import: importProfileGroupFromText not found in " + bundle)
    at = source.index("async function %s(" % found.group(1))
    source = source[:at] + "window.__hwtImport=%s;" % found.group(1) + source[at:]
    open(bundle, "w", encoding="utf-8").write(source)
    text = open(profile, encoding="utf-8").read()
    name = json.dumps(os.path.basename(profile))
    loader = os.path.join(site, "hwt-load.js")
    open(loader, "w", encoding="utf-8").write(LOADER % {
        "text": json.dumps(text), "name": name,
        "b64": json.dumps(base64.b64encode(text.encode()).decode())})
    url = "file://%s#localProfilePath=%s" % (os.path.join(site, "index.html"), loader)
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
         "--allow-file-access-from-files", "--virtual-time-budget=30000",
         "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    result = re.search(r'<pre id="hwt-result">(.*?)</pre>', dom, re.S)
    if not result:
        sys.exit("speedscope_import: no result in the page")
    print(html.unescape(result.group(1)))


if __name__ == "__main__":
    main()
