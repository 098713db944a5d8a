// Load time of HTML reports in headless Chromium: for each page, from the
// start of navigation to the report's "hwt-ready" mark (model parsed, tree
// built, first view drawn), opened on its flame graph, the median of five
// loads; then the time of a search and of a zoom on the loaded page. The
// first page given is the baseline the others are compared with (run in
// the same browser, one after another).
//   node bench/html_load.mjs BASELINE.html PAGE.html...
// playwright-core comes from tests/js (npm ci there first); docs/html-report.md
// has the figures.
import {createRequire} from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../tests/js/package.json'));
const {chromium} = require('playwright-core');

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node bench/html_load.mjs BASELINE.html PAGE.html...');
  process.exit(2);
}
const browser = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), 'hwt-bench-')), {
  executablePath: process.env.HWT_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: {width: 1280, height: 900},
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let baseline = null;
for (const file of files) {
  const loads = [];
  let search = 0;
  let zoom = 0;
  for (let i = 0; i < 5; ++i) {
    const page = await browser.newPage();
    await page.goto('file://' + path.resolve(file) + '#flame');
    await page.waitForSelector('body[data-ready="1"]', {timeout: 60000});
    loads.push(await page.evaluate(() => performance.getEntriesByName('hwt-ready')[0].startTime));
    if (i === 0) {
      search = await page.evaluate(() => {
        const start = performance.now();
        window.hwt.app.flame.search('step1');
        return performance.now() - start;
      });
      zoom = await page.evaluate(() => {
        const start = performance.now();
        window.hwt.app.flame.zoom(1);
        window.hwt.app.flame.reset();
        return (performance.now() - start) / 2;
      });
    }
    await page.close();
  }
  const load = median(loads);
  if (baseline === null) baseline = load;
  const size = fs.statSync(file).size;
  console.log(path.basename(file) + ': ' + (size / 1048576).toFixed(2) + ' MiB, load ' +
    load.toFixed(0) + ' ms (median of 5; ' + (load / baseline).toFixed(1) + 'x the baseline), search ' +
    search.toFixed(0) + ' ms, zoom ' + zoom.toFixed(0) + ' ms');
}
await browser.close();
