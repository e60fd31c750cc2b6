// The preset switch: one choice sets another tool's conventions, the page
// names the preset beside the table, the values are the CLI's under the same
// preset (and so the tool's: tests/presets.rs), each column's help carries the
// definition's fingerprint, the CLI's for the same definition, and a link
// keeps the preset.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, drop, refFile, cells, waitForModels, clearAll, cliJson, close, shot } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

test('the preset switch sets a tool\'s conventions, named beside the table, with the CLI\'s values and fingerprints', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('td[data-metric]');
  await clearAll(page);
  await drop(page, [refFile('presets/presets.qrels'), refFile('presets/presets.run')]);
  await waitForModels(page, ['gen']);
  assert.equal(await page.$eval('#preset-in-force', (s) => s.textContent), '');
  await page.selectOption('#conv-preset', 'spark-mllib');
  await page.waitForFunction(() => document.querySelector('#preset-in-force')?.textContent === 'preset spark-mllib');
  // the switch set the tool's values in the panel
  assert.equal(await page.$eval('#conv-grades', (s) => s.value), 'binary');
  assert.equal(await page.$eval('#conv-query_set', (s) => s.value), 'union');
  assert.equal(await page.$eval('#conv-ties', (s) => s.value), 'file');
  const run = 'tests/reference/presets/presets.run';
  const qrels = 'tests/reference/presets/presets.qrels';
  const cli = cliJson(['eval', run, '--qrels', qrels, '--metrics', 'ndcg@10,map@10,precision@10', '--preset', 'spark-mllib', '--format', 'json']);
  await page.waitForFunction((want) => {
    const td = document.querySelector('td[data-metric="ndcg@10"]');
    return td && Math.abs(Number(td.dataset.value) - want) < 1e-12;
  }, cli.models[0].metrics['ndcg@10'], { timeout: 20000 });
  const v = (await cells(page)).gen;
  for (const m of ['ndcg@10', 'map@10', 'precision@10']) close(v[m], cli.models[0].metrics[m], `${m} under spark-mllib`);
  // the definition's fingerprint on hover: the CLI's
  const help = await page.$$eval('table.metrics thead th[data-help]', (ths) => Object.fromEntries(ths.map((th) => [th.firstChild.textContent, th.title])));
  assert.match(help['ndcg@10'], new RegExp(`Definition fingerprint: ${cli.fingerprints['ndcg@10']}`));
  await shot(page, 'preset-spark.png');
  // a link keeps the preset's name and values
  await page.waitForFunction(() => /preset=spark-mllib/.test(location.hash) && /grades=binary/.test(location.hash));
  // none: the name goes, the values stay until changed
  await page.selectOption('#conv-preset', '');
  await page.waitForFunction(() => document.querySelector('#preset-in-force')?.textContent === '');
  await page.close();
});
