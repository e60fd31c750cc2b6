// Classifier diagnostics in the page: the Diagnostics panel (written by a
// worker) shows the numbers `rankscope diagnose --format json` prints on the
// same file, draws every chart, moves the threshold line with the slider,
// sets the threshold from an operating point, groups seed columns into one
// model, and keeps its options in the link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, reference, waitForModels, clearAll, shot, cliJson } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const cli = cliJson;

const near = (got, want, what) => assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(Math.abs(want), 1), `${what}: ${got} vs ${want}`);

// the panel's numbers: per model, key -> value
const shown = (page) => page.$$eval('.diag-numbers tbody tr', (rows) => rows.map((r) => ({
  model: r.dataset.model,
  values: Object.fromEntries([...r.querySelectorAll('td[data-key]')].map((td) => [td.dataset.key, td.dataset.value === '' ? null : Number(td.dataset.value)])),
})));

/** Runs `action` (an option change) and waits for the panel it redraws. */
async function redrawn(page, action) {
  await page.evaluate(() => { document.querySelector('.diag-panel').dataset.stale = '1'; });
  await action();
  await panelWith(page, () => document.querySelector('.diag-panel') && !document.querySelector('.diag-panel').dataset.stale);
}

async function panelWith(page, pred) {
  await page.waitForFunction(pred, null, { timeout: 20000 });
}

test('the Diagnostics panel equals rankscope diagnose and draws every chart', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await clearAll(page);
  const file = path.join(reference, 'extra', 'seeds.csv');
  await drop(page, [{ name: 'seeds.csv', data: fs.readFileSync(file) }]);
  const names = ['model_a_seed1', 'model_a_seed2', 'model_a_seed3', 'model_a_seed4', 'model_a_seed5', 'model_b'];
  await waitForModels(page, names);
  await panelWith(page, () => document.querySelectorAll('.diag-numbers tbody tr').length === 6);
  const json = cli(['diagnose', file, '--format', 'json']);
  let rows = await shown(page);
  for (const m of json.models) {
    const row = rows.find((r) => r.model === m.name);
    assert.ok(row, m.name);
    near(row.values.ece, m.calibration.ece, `${m.name} ECE`);
    near(row.values.mce, m.calibration.mce, `${m.name} MCE`);
    near(row.values.brier, m.brier, `${m.name} Brier`);
    near(row.values.reliability, m.calibration.reliability, `${m.name} reliability`);
    near(row.values.brier_binned, m.calibration.brier_binned, `${m.name} binned Brier`);
    near(m.calibration.brier_binned, m.calibration.reliability - m.calibration.resolution + m.calibration.uncertainty, `${m.name} binned Brier = the three terms`);
    near(row.values.ks, m.ks[0], `${m.name} KS`);
    for (const [q, , lift] of m.top) near(row.values[`lift@${q}`], lift, `${m.name} lift@${q}`);
  }
  // every chart has ink: a path with points per model
  for (const cls of ['reliability', 'distribution', 'gains', 'lift', 'det']) {
    const drawn = await page.$$eval(`.diag-panel figure.${cls} path.line`, (ps) => ps.filter((p) => (p.getAttribute('d') || '').split('L').length > 2).length);
    assert.ok(drawn >= 1, `${cls} drawn`);
  }
  // the threshold line follows the slider (the panel's own style rule moves
  // each line across the 308-unit plot)
  const thr = () => page.$eval('.diag-panel line.thr', (e) => new DOMMatrix(getComputedStyle(e).transform).e / 308);
  assert.ok(Math.abs(await thr() - 0.5) < 1e-4, 'threshold line at 0.5');
  // an operating point's button sets the threshold: the confusion matrix follows
  const youden = json.models[0].operating_points.find((p) => p.name === 'youden');
  await page.click(`.diag-points tr[data-model="model_a_seed1"][data-point="youden"] button[data-threshold]`);
  // (the range input snaps to its step; the number beside it holds the value)
  await page.waitForFunction((t) => Number(document.querySelector('.threshold-value').value) === t, youden.threshold);
  const tp = await page.$eval('table.confusion[data-cm-model="model_a_seed1"] td[data-cm="tp"]', (e) => Number(e.textContent));
  assert.equal(tp, youden.confusion.tp);
  assert.ok(Math.abs(await thr() - youden.threshold) < 1e-4, 'threshold line at the chosen threshold');
  // options: quantile bins and a group, as the CLI's
  // one change at a time: each answer redraws the panel, its controls too, so
  // text typed into the old panel while an answer arrives would be lost
  await redrawn(page, () => page.selectOption('#diag-strategy', 'quantile'));
  await redrawn(page, async () => { await page.fill('#diag-bins', '15'); await page.press('#diag-bins', 'Enter'); });
  await redrawn(page, async () => { await page.fill('#diag-group', 'model_a=model_a_seed*'); await page.press('#diag-group', 'Enter'); });
  await panelWith(page, () => document.querySelector('.diag-groups') && document.querySelector('#diag-bins')?.value === '15');
  const grouped = cli(['diagnose', file, '--format', 'json', '--bins', '15', '--strategy', 'quantile', '--group', 'model_a=model_a_seed*']);
  rows = await shown(page);
  near(rows[0].values.ece, grouped.models[0].calibration.ece, 'quantile ECE');
  const groupCells = await page.$$eval('.diag-groups td[data-sd]', (tds) => tds.map((td) => [td.closest('tr').dataset.key, Number(td.dataset.value), Number(td.dataset.sd)]));
  for (const [key, mean, sd] of grouped.groups[0].mean_sd) {
    const cell = groupCells.find((c) => c[0] === key);
    assert.ok(cell, key);
    near(cell[1], mean, `${key} mean`);
    near(cell[2], sd, `${key} sd`);
  }
  assert.ok(await page.$('.diag-panel figure.averaged-roc path.band'));
  // the precision-recall curves averaged the same way, their APs' mean ± sd
  assert.ok(await page.$('.diag-panel figure.averaged-pr path.band'));
  assert.ok(await page.$('.diag-panel figure.averaged-roc path.diagonal'), 'chance on ROC');
  assert.equal(await page.$('.diag-panel figure.averaged-pr path.diagonal'), null, 'no chance diagonal on PR');
  const pr = grouped.groups[0].averaged_pr;
  assert.match(await page.$eval('.diag-panel figure.averaged-pr figcaption', (c) => c.textContent),
    new RegExp(`model_a \\(AP ${pr.ap_mean.toFixed(4)} ± ${pr.ap_sd.toFixed(4)}\\)`));
  // the options are in the link, and a reload restores them
  // (the link follows the view at most every 200 ms)
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('group:model_a='));
  const hash = await page.evaluate(() => decodeURIComponent(location.hash));
  assert.match(hash, /bins:15/);
  assert.match(hash, /group:model_a=model_a_seed\*/);
  await shot(page, 'diagnostics.png');
  // a new page opened on the link (the files dropped again) shows the same options and group
  const link = await page.evaluate(() => location.href);
  const again = await open(browser, link);
  await drop(again.page, [{ name: 'seeds.csv', data: fs.readFileSync(file) }]);
  await again.page.waitForSelector('.diag-groups td[data-sd]', { timeout: 20000 });
  assert.equal(await again.page.$eval('#diag-bins', (e) => e.value), '15');
  assert.equal(await again.page.$eval('#diag-strategy', (e) => e.value), 'quantile');
  assert.deepEqual(again.errors, []);
  await again.page.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a group that matches nothing says so, and the rest stays', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [{ name: 'seeds.csv', data: fs.readFileSync(path.join(reference, 'extra', 'seeds.csv')) }]);
  await panelWith(page, () => document.querySelectorAll('.diag-numbers tbody tr').length === 6);
  await page.fill('#diag-group', 'x=nothing*');
  await page.press('#diag-group', 'Enter');
  await panelWith(page, () => /no model matches 'nothing\*'/.test(document.querySelector('.diag-panel')?.textContent || ''));
  assert.equal(await page.$$eval('.diag-numbers tbody tr', (r) => r.length), 6);
  assert.deepEqual(errors, []);
  await page.close();
});

test('text typed into a control survives an answer to an earlier change, and Enter applies it', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await clearAll(page);
  const file = path.join(reference, 'extra', 'seeds.csv');
  await drop(page, [{ name: 'seeds.csv', data: fs.readFileSync(file) }]);
  await panelWith(page, () => document.querySelectorAll('.diag-numbers tbody tr').length === 6);
  // typing the bin count, not yet entered, when another control's change asks the worker again
  await page.click('#diag-bins');
  await page.fill('#diag-bins', '7');
  await page.evaluate(() => {
    const s = document.querySelector('#diag-strategy');
    s.value = 'quantile';
    s.dispatchEvent(new Event('change', { bubbles: true }));
  });
  // the answer for the strategy arrives meanwhile: the typed text and the focus stay
  await page.waitForTimeout(3000);
  assert.equal(await page.$eval('#diag-bins', (e) => e.value), '7');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'diag-bins');
  // Enter applies it: quantile bins, 7 of them, as rankscope diagnose computes them
  await page.press('#diag-bins', 'Enter');
  await panelWith(page, () => document.querySelector('#diag-strategy')?.value === 'quantile'
    && document.querySelector('#diag-bins')?.getAttribute('value') === '7');
  const json = cli(['diagnose', file, '--bins', '7', '--strategy', 'quantile', '--format', 'json']);
  const rows = await shown(page);
  for (const m of json.models) near(rows.find((r) => r.model === m.name).values.ece, m.calibration.ece, `${m.name} ECE`);
  assert.deepEqual(errors, []);
  await page.close();
});
