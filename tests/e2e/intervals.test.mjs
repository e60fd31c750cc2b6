// The 95% interval of each model's mean, as the page's table shows it (the
// Compare settings' "95% intervals of the means", `ci=1` in the link), equals
// what `rankscope compare --format json` prints as `mean_intervals` for the
// same files, conventions, seed and resamples.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, clearAll, waitForModels, reference, cliJson } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const extra = (name) => path.join(reference, 'extra', name);
const file = (name) => ({ name, data: fs.readFileSync(extra(name)) });

test('the page\'s interval of each mean equals rankscope compare\'s', async () => {
  const { page, errors } = await open(browser, `${url}#ci=1`);
  await clearAll(page);
  await drop(page, [file('example.qrels'), file('bm25.run'), file('dense.run')]);
  await waitForModels(page, ['bm25', 'dense']);
  await page.selectOption('label:has-text("Baseline") select', 'bm25');
  await page.waitForSelector('td[data-metric][data-ci-low]', { timeout: 60000 });
  await page.waitForSelector('p.testing', { state: 'detached', timeout: 60000 });
  const shown = await page.$$eval('td[data-metric][data-ci-low]', (tds) => tds.map((t) => ({
    model: t.dataset.model, metric: t.dataset.metric, low: Number(t.dataset.ciLow), high: Number(t.dataset.ciHigh),
  })));
  const metrics = [...new Set(shown.map((s) => s.metric))];
  assert.ok(metrics.length >= 5, `intervals of several columns: ${metrics.join(', ')}`);
  const cli = cliJson(['compare', '--format', 'json', '--baseline', 'bm25', '-m', metrics.join(','), extra('bm25.run'), extra('dense.run'), '--qrels', extra('example.qrels')]);
  const byKey = new Map(cli.mean_intervals.map((i) => [`${i.model} ${i.metric}`, i]));
  for (const s of shown) {
    const c = byKey.get(`${s.model} ${s.metric}`);
    assert.ok(c, `the CLI has ${s.model} ${s.metric}`);
    assert.ok(Math.abs(c.low - s.low) <= 1e-12 && Math.abs(c.high - s.high) <= 1e-12,
      `${s.model} ${s.metric}: page [${s.low}, ${s.high}], CLI [${c.low}, ${c.high}] (${c.method})`);
  }
  assert.equal(shown.length, cli.mean_intervals.length, 'every interval the CLI prints is shown');
  assert.deepEqual(errors, []);
  await page.close();
});
