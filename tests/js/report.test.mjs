// The HTML report in a real browser (Debian's chromium, driven by
// playwright-core, no browser download): reports written from real
// captures (the demo, a recorded program whose function names are markup,
// an SPE trace of known samples, a batch's page and the pages it links to,
// a --diff page)
// load with no console error and no request;
// the top table shows `hwt-report --top`'s numbers; clicking a frame zooms,
// Escape resets; "/" searches and the matched share is the one the folded
// stacks give; names render as text; every view's screenshot has content.
// Run by tests/js/run.sh (ctest label "browser").
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {chromium} from 'playwright-core';

const SOURCE = process.env.HWT_SOURCE_DIR;
const BUILD = process.env.HWT_BUILD_DIR;
const CHROMIUM = process.env.HWT_CHROMIUM || '/usr/bin/chromium';
const tool = (name) => path.join(BUILD, 'tools', name);
const HOSTILE_FN = '</script><img src=x onerror=alert(1)>';
const HOSTILE_BOLD = '<b onmouseover=alert(2)>bold</b>';

let browser;
let dir;
const pages = {};  // name -> {file, input args}

function run(file, args) {
  return execFileSync(file, args, {encoding: 'utf8', maxBuffer: 1 << 28});
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hwt-html-'));
  const demo = path.join(SOURCE, 'testdata/demo.hwt');
  run(tool('hwt-report'), ['--html=' + path.join(dir, 'demo.html'), demo]);
  pages.demo = {file: path.join(dir, 'demo.html'), input: [demo]};

  // A program whose function names are markup, run from a directory whose
  // name is markup, with an argument that is markup: names, paths and the
  // command all come from the input.
  const hostileDir = path.join(dir, 'dir<img src=x onerror=alert(3)>');
  fs.mkdirSync(hostileDir);
  const program = path.join(hostileDir, 'prog<i>x');
  fs.copyFileSync(path.join(BUILD, 'testdata/programs/hostile_names_static'), program);
  fs.chmodSync(program, 0o755);
  const bundle = path.join(dir, 'hostile.hwt');
  run(tool('hwt-emulate'), ['-o', bundle, '--', program, '</script><script>alert(4)</script>']);
  run(tool('hwt-report'), ['--html=' + path.join(dir, 'hostile.html'), bundle]);
  pages.hostile = {file: path.join(dir, 'hostile.html'), input: [bundle]};

  const trace = path.join(dir, 'sample.spe');
  run(path.join(BUILD, 'tests/html/hwt-html-spe-sample'), [trace]);
  const speInput = ['--backend', 'spe', '--image', path.join(BUILD, 'testdata/programs/counted_static') + '@0', trace];
  run(tool('hwt-report'), ['--html=' + path.join(dir, 'spe.html'), ...speInput]);
  pages.spe = {file: path.join(dir, 'spe.html'), input: speInput};

  // A batch with --html: the demo, counted.hwt and a broken bundle.
  const batchIn = path.join(dir, 'batch-in');
  fs.mkdirSync(path.join(batchIn, 'broken.hwt'), {recursive: true});
  fs.writeFileSync(path.join(batchIn, 'broken.hwt', 'manifest.json'), '{');
  fs.cpSync(demo, path.join(batchIn, 'demo.hwt'), {recursive: true});
  fs.cpSync(path.join(SOURCE, 'testdata/decode/counted.hwt'), path.join(batchIn, 'counted.hwt'), {recursive: true});
  const batchOut = path.join(dir, 'batch-out');
  try {
    run(tool('hwt-batch'), ['run', '-q', '--html', '-o', batchOut, batchIn]);
  } catch (e) {
    if (e.status !== 1) throw e;  // 1: the broken capture failed, as it must
  }
  pages.batch = {file: path.join(batchOut, 'report.html'), input: [batchOut], dir: batchOut};

  // --diff of the batch's two profiles (counted -> demo) as a page.
  const profiles = path.join(batchOut, 'profiles');
  const diffInput = ['--diff', path.join(profiles, 'counted.hwtprof'), path.join(profiles, 'demo.hwtprof')];
  run(tool('hwt-report'), [...diffInput, '--html=' + path.join(dir, 'diff.html')]);
  pages.diff = {file: path.join(dir, 'diff.html'), input: diffInput};

  browser = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(dir, 'profile-')), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: {width: 1280, height: 900},
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  if (browser) await browser.close();
  if (dir && !process.env.HWT_KEEP_TEST_DIR) fs.rmSync(dir, {recursive: true, force: true});
});

// Opens a report; records console messages, page errors, alerts and every
// request other than the page's own file.
async function open(name, hash) {
  const page = await browser.newPage();
  // requests: every request the page started; routed: those that reached
  // the network layer (a request the policy blocks never does); failed:
  // why a request failed.
  const seen = {console: [], errors: [], requests: [], routed: [], failed: [], dialogs: []};
  const url = 'file://' + pages[name].file;
  page.on('console', (m) => seen.console.push(m.type() + ': ' + m.text()));
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    d.dismiss();
  });
  page.on('request', (r) => {
    if (r.url().split('#')[0] !== url) seen.requests.push(r.url());
  });
  page.on('requestfailed', (r) => seen.failed.push(r.url() + ' ' + r.failure().errorText));
  await page.route(/^(https?|wss?|ftp):/, (route) => {
    seen.routed.push(route.request().url());
    route.abort();
  });
  await page.goto(url + (hash ? '#' + hash : ''));
  await page.waitForSelector('body[data-ready="1"]', {timeout: 20000});
  return {page, seen};
}

function clean(seen) {
  assert.deepEqual(seen.errors, [], 'page errors');
  assert.deepEqual(seen.console, [], 'console messages');
  assert.deepEqual(seen.requests, [], 'requests');
  assert.deepEqual(seen.routed, [], 'requests on the network');
  assert.deepEqual(seen.dialogs, [], 'dialogs');
}

// A screenshot has content: enough pixels that are not the background, in
// more than a few colours (decoded by the browser in a blank page).
async function assertNotBlank(page, what) {
  const png = await page.screenshot({fullPage: true});
  const probe = await browser.newPage();
  const stats = await probe.evaluate(async (data) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], {type: 'image/png'}));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d');
    context.drawImage(bitmap, 0, 0);
    const pixels = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
    const colours = new Set();
    let ink = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const rgb = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
      if (rgb !== 0xffffff) ++ink;
      if (colours.size < 1000) colours.add(rgb);
    }
    return {ink: ink / (pixels.length / 4), colours: colours.size};
  }, png.toString('base64'));
  await probe.close();
  fs.writeFileSync(path.join(dir, what.replace(/\W+/g, '_') + '.png'), png);
  assert.ok(stats.ink > 0.01, what + ': only ' + (100 * stats.ink).toFixed(2) + '% of the pixels are not white');
  assert.ok(stats.colours > 8, what + ': only ' + stats.colours + ' colours');
}

const number = (text) => Number(text.replace(/,/g, ''));

test('the request counter sees a request (control)', async () => {
  const control = path.join(dir, 'control.html');
  fs.writeFileSync(control, '<img src="http://127.0.0.1:9/x.png">');
  const page = await browser.newPage();
  const requests = [];
  const routed = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.route(/^https?:/, (route) => {
    routed.push(route.request().url());
    route.abort();
  });
  await page.goto('file://' + control);
  await page.waitForTimeout(200);
  assert.ok(requests.includes('http://127.0.0.1:9/x.png'), JSON.stringify(requests));
  assert.ok(routed.includes('http://127.0.0.1:9/x.png'), JSON.stringify(routed));
  await page.close();
});

test('every view loads with no console message and no request, and has content', async () => {
  for (const [name, views] of [['demo', ['overview', 'flame', 'top', 'function=0', 'hot']],
    ['spe', ['overview', 'flame', 'spe', 'top', 'function=0', 'hot']], ['hostile', ['overview', 'flame', 'top', 'hot']]]) {
    for (const view of views) {
      const {page, seen} = await open(name, view);
      await assertNotBlank(page, name + ' ' + view);
      clean(seen);
      await page.close();
    }
  }
});

test('the policy forbids requests the page itself would make', async () => {
  const {page, seen} = await open('demo');
  const policy = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(policy, /default-src 'none'/);
  const outcome = await page.evaluate(async () => {
    const violations = [];
    document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
    let fetched = 'no error';
    try {
      await fetch('http://127.0.0.1:9/');
    } catch (e) {
      fetched = e.name;
    }
    const img = document.createElement('img');
    img.src = 'http://127.0.0.1:9/x.png';
    document.body.append(img);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return {fetched, violations};
  });
  assert.equal(outcome.fetched, 'TypeError');
  assert.ok(outcome.violations.includes('connect-src'), JSON.stringify(outcome));
  assert.ok(outcome.violations.includes('img-src'), JSON.stringify(outcome));
  // Chromium names the blocked image a request, which fails at once and
  // never reaches the network.
  assert.deepEqual(seen.routed, []);
  for (const url of seen.requests) {
    assert.ok(seen.failed.includes(url + ' csp'), JSON.stringify(seen));
  }
  await page.close();
});

test('the top table shows hwt-report --top\'s numbers', async () => {
  const expected = JSON.parse(run(tool('hwt-report'), ['--top', '25', '--format', 'json', ...pages.demo.input]));
  const {page, seen} = await open('demo', 'top');
  const rows = () => page.$$eval('#top-table tbody tr', (trs) => trs.map((tr) =>
    Array.from(tr.children, (td) => td.textContent)));
  const check = (shown, list) => {
    assert.ok(shown.length >= list.length);
    list.forEach((r, i) => {
      const [self, , total, , calls, fn, image] = shown[i];
      assert.deepEqual({self: number(self), total: number(total), calls: number(calls), function: fn, image},
        {self: r.self, total: r.total, calls: r.calls, function: r.function, image: r.image}, 'row ' + i);
    });
  };
  check(await rows(), expected.by_self);
  await page.click('#top-table th[data-key="totalRank"] button');
  check(await rows(), expected.by_total);
  // Percentages as the text table prints them.
  const text = run(tool('hwt-report'), ['--top', '3', ...pages.demo.input]);
  const firstPercent = (await rows())[0][3];
  assert.ok(text.includes(firstPercent), firstPercent + ' not in\n' + text);
  clean(seen);
  await page.close();
});

// The stacks of `hwt-report --folded` whose frames match, each stack once
// (as the page counts nested matches).
function matchedWeight(folded, re) {
  let sum = 0;
  let all = 0;
  for (const line of folded.split('\n')) {
    if (!line) continue;
    const at = line.lastIndexOf(' ');
    const weight = Number(line.slice(at + 1));
    all += weight;
    if (line.slice(0, at).split(';').some((f) => re.test(f))) sum += weight;
  }
  return {sum, all};
}

test('clicking a frame zooms into it and Escape resets the zoom', async () => {
  const {page, seen} = await open('demo', 'flame');
  const width = await page.$eval('#flame', (e) => e.clientWidth);
  const frame = page.locator('.frame[title="exec_block"]').first();
  const before = await frame.boundingBox();
  assert.ok(before.width < width * 0.95);
  await frame.click();
  const zoomed = await page.locator('.frame:not(.ancestor)[title="exec_block"]').first().boundingBox();
  assert.ok(Math.abs(zoomed.width - width) < 2, 'zoomed width ' + zoomed.width + ' of ' + width);
  assert.ok(await page.locator('.frame.ancestor[title="all"]').count() === 1);
  assert.match(await page.textContent('#frame-actions'), /disassembly of exec_block$/);
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('.frame.ancestor').count(), 0);
  const reset = await page.locator('.frame[title="all"]').boundingBox();
  assert.ok(Math.abs(reset.width - width) < 2);
  // Icicle: the root moves from the bottom to the top.
  const rootTop = reset.y;
  await page.click('#invert');
  const flipped = await page.locator('.frame[title="all"]').boundingBox();
  assert.ok(flipped.y < rootTop, 'root at ' + flipped.y + ', was ' + rootTop);
  clean(seen);
  await page.close();
});

test('"/" searches and marks the matching frames with their share; Ctrl-F stays the browser\'s', async () => {
  const folded = run(tool('hwt-report'), ['--folded', ...pages.demo.input]);
  const {page, seen} = await open('demo', 'overview');
  // Ctrl-F is not taken by the page.
  const ctrlF = await page.evaluate(() => {
    const event = new KeyboardEvent('keydown', {key: 'f', ctrlKey: true, bubbles: true, cancelable: true});
    document.body.dispatchEvent(event);
    return event.defaultPrevented;
  });
  assert.equal(ctrlF, false);
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'search');
  assert.equal(await page.evaluate(() => location.hash), '#flame');
  await page.keyboard.type('^lookup_var$');
  const marked = await page.$$eval('.frame.match', (boxes) => boxes.map((b) => b.title));
  assert.ok(marked.length > 0);
  assert.ok(marked.every((t) => t === 'lookup_var'), JSON.stringify(marked));
  const unmarked = await page.$$eval('.frame:not(.match)', (boxes) => boxes.map((b) => b.title));
  assert.ok(!unmarked.includes('lookup_var'));
  const {sum, all} = matchedWeight(folded, /^lookup_var$/);
  const expected = 'Matched: ' + (100 * sum / all).toFixed(2) + '% (' + sum.toLocaleString('en-US') + ' instructions)';
  assert.equal(await page.textContent('#matched'), expected);
  // Escape in the search box resets the zoom and leaves the box.
  await page.keyboard.press('Escape');
  assert.notEqual(await page.evaluate(() => document.activeElement.id), 'search');
  clean(seen);
  await page.close();
});

test('markup in names, paths and the command renders as text', async () => {
  const {page, seen} = await open('hostile', 'flame');
  assert.equal(await page.locator('img').count(), 0);
  assert.equal(await page.locator('main b, main i, header b, header i').count(), 0);
  assert.equal(await page.locator('script').count(), 2);
  assert.equal(await page.locator('.frame[title="' + HOSTILE_FN.replace(/"/g, '\\"') + '"]').count(), 1);
  // Called from two places: two frames, their labels cut to fit (as text).
  const bold = await page.$$eval('.frame', (frames, name) => frames
    .filter((f) => f.getAttribute('title') === name).map((f) => f.textContent), HOSTILE_BOLD);
  assert.equal(bold.length, 2);
  for (const label of bold) assert.ok(HOSTILE_BOLD.startsWith(label.replace(/…$/, '')), label);
  await page.click('#tab-overview');
  const overview = await page.textContent('#view-overview');
  assert.ok(overview.includes('prog<i>x </script><script>alert(4)</script>'), overview);
  assert.ok(overview.includes('dir<img src=x onerror=alert(3)>'));
  await page.click('#tab-top');
  const names = await page.$$eval('#top-table tbody tr td:nth-child(6)', (tds) => tds.map((td) => td.textContent));
  assert.ok(names.includes(HOSTILE_FN) && names.includes(HOSTILE_BOLD), JSON.stringify(names));
  // Its function view, with the disassembly of the loop.
  await page.click('#top-table tbody tr:has-text("onerror=alert(1)")');
  assert.equal(await page.textContent('#view-function h2'), HOSTILE_FN);
  const table = await page.textContent('#view-function table.annotation');
  assert.match(table, /taken 2, not taken 1/);
  clean(seen);
  await page.close();
});

test('a function shows its callers, callees and annotated disassembly', async () => {
  const {page, seen} = await open('demo', 'top');
  await page.click('#top-table tbody tr:first-child');
  const name = await page.textContent('#view-function h2');
  const text = run(tool('hwt-report'), ['--annotate', '^' + name + '$', ...pages.demo.input]);
  const counts = await page.$$eval('#view-function table.annotation tbody tr:not(.source) td:first-child',
    (tds) => tds.map((td) => td.textContent));
  const expected = text.split('\n').filter((l) => /^\s+(\S+)\s+.*[0-9a-f]+:\s/.test(l))
    .map((l) => l.trim().split(/\s+/)[0]);
  assert.deepEqual(counts, expected);
  assert.ok(await page.locator('#view-function h3:has-text("Callers")').count() === 1);
  clean(seen);
  await page.close();
});

test('the SPE views show the SPE report\'s samples', async () => {
  const expected = JSON.parse(run(tool('hwt-report'), ['--format', 'json', ...pages.spe.input]));
  const {page, seen} = await open('spe', 'spe');
  const rows = await page.$$eval('#spe-functions tbody tr', (trs) => trs.map((tr) =>
    [tr.children[0].textContent, tr.children[2].textContent]));
  assert.deepEqual(rows, expected.functions.map((f) => [f.name, String(f.samples)]));
  assert.ok(await page.locator('#histogram-total tr').count() > 3);
  clean(seen);
  await page.close();
});

test('a batch page lists every capture and links each to a report that loads', async () => {
  const summary = JSON.parse(fs.readFileSync(path.join(pages.batch.dir, 'summary.json'), 'utf8'));
  const {page, seen} = await open('batch', 'captures');
  const rows = await page.$$eval('#capture-table tbody tr', (trs) => trs.map((tr) => ({
    cells: Array.from(tr.children, (td) => td.textContent),
    href: tr.querySelector('a') ? tr.querySelector('a').getAttribute('href') : null,
  })));
  assert.equal(rows.length, summary.rows.length);
  const linked = [];
  summary.rows.forEach((r, i) => {
    const [status, name, , , instructions] = rows[i].cells;
    assert.deepEqual({status, name, instructions: number(instructions)},
      {status: r.status, name: r.name, instructions: r.instructions}, 'row ' + i);
    if (r.status === 'failed') {
      assert.equal(rows[i].href, null, 'a failed capture has no report');
      assert.ok(rows[i].cells.includes(r.error), 'its error is shown');
    } else {
      linked.push(rows[i].href);
    }
  });
  await assertNotBlank(page, 'batch captures');
  clean(seen);
  await page.close();
  assert.equal(linked.length, 2);
  // Each link names a page next to its profile; that page loads cleanly and
  // shows its capture's --top.
  for (const href of linked) {
    const target = path.resolve(pages.batch.dir, href);
    assert.ok(fs.existsSync(target), target);
    const profile = target.replace(/\.report\.html$/, '.hwtprof');
    pages.linked = {file: target, input: [profile]};
    const expected = JSON.parse(run(tool('hwt-report'), ['--top', '5', '--format', 'json', profile]));
    const linkedPage = await open('linked', 'top');
    const first = await linkedPage.page.$$eval('#top-table tbody tr', (trs) => trs.slice(0, 5).map((tr) =>
      tr.children[5].textContent));
    assert.deepEqual(first, expected.by_self.slice(0, 5).map((r) => r.function), href);
    await assertNotBlank(linkedPage.page, 'linked ' + href);
    clean(linkedPage.seen);
    await linkedPage.page.close();
  }
});

test('a --diff page colours and signs what changed and lists --diff --top\'s changes', async () => {
  const expected = JSON.parse(run(tool('hwt-report'), [...pages.diff.input, '--top', '10', '--format', 'json']));
  const {page, seen} = await open('diff', 'changes');
  const shown = await page.$$eval('#changes-table tbody tr', (trs) => trs.slice(0, 10).map((tr) =>
    ({change: tr.children[0].textContent, fn: tr.children[5].textContent})));
  assert.deepEqual(shown.map((r) => r.fn), expected.functions.map((r) => r.function));
  assert.deepEqual(shown.map((r) => r.change),
    expected.functions.map((r) => (r.change > 0 ? '+' : '') + r.change.toFixed(2)));
  await assertNotBlank(page, 'diff changes');
  await page.evaluate(() => { location.hash = 'flame'; });
  await page.waitForSelector('#flame .frame.grew');
  const signed = await page.$$eval('#flame .frame.grew', (boxes) => boxes.filter((b) => b.textContent.startsWith('+')).length);
  assert.ok(signed > 0, 'frames that grew are marked + in their labels');
  await assertNotBlank(page, 'diff flame');
  clean(seen);
  await page.close();
});

test('printing shows every view', async () => {
  const {page, seen} = await open('demo', 'overview');
  await page.emulateMedia({media: 'print'});
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  for (const view of ['overview', 'flame', 'top', 'hot']) {
    const visible = await page.$eval('#view-' + view, (e) => getComputedStyle(e).display !== 'none' && e.textContent.length > 0);
    assert.ok(visible, view);
  }
  assert.equal(await page.$eval('#tabs', (e) => getComputedStyle(e).display), 'none');
  clean(seen);
  await page.close();
});
