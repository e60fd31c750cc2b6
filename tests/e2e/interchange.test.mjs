// One tool's output as another's input, in the page: trec_eval 10.0's own
// `-q -m all_trec` output (upstream's out.test.aq and out.test.aqc,
// unchanged, with their quoted relstring lines) is read whole, its values
// shown as written, the text set aside and said.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, clearAll, root } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const upstream = (name) => ({ name, data: fs.readFileSync(path.join(root, 'tests/trec_eval', name)) });
/** The `all` value trec_eval printed for `measure` in `name`. */
const printed = (name, measure) => Number(fs.readFileSync(path.join(root, 'tests/trec_eval', name), 'utf8')
  .split('\n').map((l) => l.split('\t')).find((f) => f[0].trim() === measure && f[1] === 'all')[2]);

test('trec_eval\'s own -q -m all_trec output (upstream\'s files, relstring and all) loads, as written', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [upstream('out.test.aq')]);
  await page.waitForSelector('section.precomputed td[data-measure="map"]', { timeout: 30000 });
  const text = await page.evaluate(() => document.body.textContent);
  assert.doesNotMatch(text, /expected a measure value/);
  assert.match(text, /relstring/, 'the notice says the quoted text was set aside');
  await drop(page, [upstream('out.test.aqc')]);
  await page.waitForFunction(() => document.querySelectorAll('section.precomputed td[data-measure="map"]').length === 2, null, { timeout: 30000 });
  const maps = await page.$$eval('section.precomputed td[data-measure="map"]', (tds) => tds.map((t) => Number(t.dataset.value)));
  assert.deepEqual(maps, [printed('out.test.aq', 'map'), printed('out.test.aqc', 'map')]);
  const p10 = await page.$$eval('section.precomputed td[data-measure="P_10"]', (tds) => tds.map((t) => Number(t.dataset.value)));
  assert.deepEqual(p10, [printed('out.test.aq', 'P_10'), printed('out.test.aqc', 'P_10')]);
  assert.deepEqual(errors, []);
  await page.close();
});
