// A threshold per model: models whose scores live on different scales each
// get their own threshold (a switch beside the slider); the table, the
// confusion matrices and the Diagnostics panel's threshold lines follow each
// model's, equal to `rankscope eval --threshold NAME=T`; an operating point's
// button sets its own model's; a renamed model keeps its threshold; links
// carry them; switching back gives every model the shared one again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, reference, waitForModels, clearAll, cells, shot, cliJson } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const file = path.join(reference, 'extra', 'seeds.csv');
const names = ['model_a_seed1', 'model_a_seed2', 'model_a_seed3', 'model_a_seed4', 'model_a_seed5', 'model_b'];
const THRESHOLD_METRICS = ['accuracy', 'precision', 'recall', 'f1', 'mcc'];

const cli = (args) => cliJson(['eval', file, '--format', 'json', '--metrics', `${THRESHOLD_METRICS.join(',')},tp,fp,fn,tn`, ...args]);

/** The table's threshold metrics and each confusion matrix equal the CLI's under `args`. */
async function sameAsCli(page, args, what) {
  const want = cli(args);
  await page.waitForFunction(([model, metric, value]) => {
    const td = document.querySelector(`td[data-model="${model}"][data-metric="${metric}"]`);
    return td && Math.abs(Number(td.dataset.value) - value) < 1e-12;
  }, [want.models.at(-1).name, 'precision', want.models.at(-1).metrics.precision]);
  const got = await cells(page);
  for (const m of want.models) {
    for (const metric of THRESHOLD_METRICS) {
      const w = m.metrics[metric];
      assert.ok(Math.abs(got[m.name][metric] - w) <= 1e-12, `${what}: ${m.name} ${metric} ${got[m.name][metric]} vs ${w}`);
    }
    const cm = await page.$eval(`table.confusion[data-cm-model="${m.name}"]`, (t) => Object.fromEntries([...t.querySelectorAll('td[data-cm]')].map((td) => [td.dataset.cm, Number(td.textContent)])));
    assert.deepEqual(cm, { tp: m.metrics.tp, fn: m.metrics.fn, fp: m.metrics.fp, tn: m.metrics.tn }, `${what}: ${m.name} confusion`);
  }
}

const box = (model) => `label.threshold:has(input[data-threshold-model="${model}"]) input.threshold-value`;

async function setOwn(page, model, value) {
  await page.fill(box(model), String(value));
  await page.press(box(model), 'Enter');
}

test('each model may have its own threshold: table, matrices, lines, buttons, names and links follow', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await clearAll(page);
  await drop(page, [{ name: 'seeds.csv', data: fs.readFileSync(file) }]);
  await waitForModels(page, names);
  // one shared threshold first
  assert.equal(await page.$$eval('input[type=range][data-threshold-model]', (s) => s.length), 0);
  await sameAsCli(page, [], 'shared 0.5');
  // a threshold per model: one slider each, each starting at the shared one
  await page.check('#threshold-each');
  await page.waitForFunction((n) => document.querySelectorAll('input[type=range][data-threshold-model]').length === n, names.length);
  assert.equal(await page.$('#threshold'), null);
  assert.deepEqual(await page.$$eval('input.threshold-value', (bs) => bs.map((b) => Number(b.value))), names.map(() => 0.5));
  await setOwn(page, 'model_a_seed1', 0.73);
  await setOwn(page, 'model_b', 0.98);
  await sameAsCli(page, ['--threshold', 'model_a_seed1=0.73', '--threshold', 'model_b=0.98'], 'own thresholds');
  // each model's threshold line in the Diagnostics panel sits at its own threshold
  await page.waitForSelector('.diag-panel line.thr[data-m="5"]', { state: 'attached', timeout: 20000 });
  const line = (i) => page.$eval(`.diag-panel line.thr[data-m="${i}"]`, (e) => new DOMMatrix(getComputedStyle(e).transform).e / 308);
  await page.waitForFunction(() => { const e = document.querySelector('.diag-panel line.thr[data-m="5"]'); return Math.abs(new DOMMatrix(getComputedStyle(e).transform).e / 308 - 0.98) < 1e-3; });
  assert.ok(Math.abs(await line(0) - 0.73) < 1e-3, 'model_a_seed1 line at 0.73');
  assert.ok(Math.abs(await line(1) - 0.5) < 1e-3, 'model_a_seed2 line at 0.5');
  // an operating point's button sets its own model's threshold only
  const youden = await page.$eval('.diag-points tr[data-model="model_b"][data-point="youden"] button[data-threshold]', (b) => Number(b.dataset.threshold));
  await page.click('.diag-points tr[data-model="model_b"][data-point="youden"] button[data-threshold]');
  await page.waitForFunction(([sel, t]) => Number(document.querySelector(sel).value) === t, [box('model_b'), youden]);
  assert.equal(Number(await page.$eval(box('model_a_seed1'), (b) => b.value)), 0.73);
  await sameAsCli(page, ['--threshold', 'model_a_seed1=0.73', `--threshold=model_b=${youden}`], 'after the operating point');
  await shot(page, 'thresholds-per-model.png');
  // the link carries them; a new page on it (the file dropped again) shows the same
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('thresholds='));
  const hash = await page.evaluate(() => decodeURIComponent(location.hash));
  assert.match(hash, new RegExp(`thresholds=model_a_seed1:0\\.73,[^&]*model_b:${String(youden).replace('.', '\\.')}`));
  const again = await open(browser, await page.evaluate(() => location.href));
  await drop(again.page, [{ name: 'seeds.csv', data: fs.readFileSync(file) }]);
  await waitForModels(again.page, names);
  await sameAsCli(again.page, ['--threshold', 'model_a_seed1=0.73', `--threshold=model_b=${youden}`], 'the link reopened');
  assert.ok(await again.page.isChecked('#threshold-each'));
  // a removed model's threshold leaves the link with it; the others' stay
  await again.page.click('li[data-model-item="model_a_seed1"] button[title="remove"]');
  await again.page.waitForFunction(() => !decodeURIComponent(location.hash).includes('model_a_seed1:'));
  assert.match(await again.page.evaluate(() => decodeURIComponent(location.hash)), /thresholds=[^&]*model_b:/);
  assert.deepEqual(again.errors, []);
  await again.page.close();
  // a renamed model keeps its threshold
  await page.fill('li[data-model-item="model_b"] input.name', 'model b (logits?)');
  await page.press('li[data-model-item="model_b"] input.name', 'Enter');
  await page.waitForSelector(box('model b (logits?)'));
  assert.equal(Number(await page.$eval(box('model b (logits?)'), (b) => b.value)), youden);
  // one threshold for all again
  await page.uncheck('#threshold-each');
  await page.waitForSelector('#threshold');
  await page.fill('li[data-model-item="model b (logits?)"] input.name', 'model_b');
  await page.press('li[data-model-item="model b (logits?)"] input.name', 'Enter');
  await waitForModels(page, names);
  await sameAsCli(page, [], 'shared again');
  assert.doesNotMatch(await page.evaluate(() => decodeURIComponent(location.hash)), /thresholds=/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('ECE, KS and lift at the top 1, 5, 10 and 20% are table columns equal to rankscope eval', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [{ name: 'seeds.csv', data: fs.readFileSync(file) }]);
  await waitForModels(page, names);
  const ids = ['ece', 'ks', 'lift_1', 'lift_5', 'lift_10', 'lift_20'];
  for (const id of ids) await page.click(`button.chip[data-metric="${id}"]`);
  await page.waitForSelector('td[data-metric="lift_20"]');
  const want = cliJson(['eval', file, '--format', 'json', '--metrics', ids.join(',')]);
  const got = await cells(page);
  for (const m of want.models) {
    for (const id of ids) {
      assert.ok(Math.abs(got[m.name][id] - m.metrics[id]) <= 1e-12, `${m.name} ${id}: ${got[m.name][id]} vs ${m.metrics[id]}`);
    }
  }
  // its header says what it is and how it is binned
  const help = await page.$eval('th[data-help*="Expected calibration error"]', (th) => th.dataset.help);
  assert.match(help, /10 bins of equal width/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('folds or seeds as one model: the table shows each group\'s mean ± sd as rankscope eval --group, members on hover', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [{ name: 'seeds.csv', data: fs.readFileSync(file) }]);
  await waitForModels(page, names);
  await page.fill('#model-groups', 'model_a=model_a_seed*, none=nothing*');
  await page.press('#model-groups', 'Enter');
  await page.waitForSelector('tr.group[data-group="model_a"] td[data-group-metric]');
  const want = cliJson(['eval', file, '--format', 'json', '--group', 'model_a=model_a_seed*']).groups[0];
  const got = await page.$$eval('tr.group[data-group="model_a"] td[data-group-metric]', (tds) => Object.fromEntries(tds.map((td) => [td.dataset.groupMetric, [Number(td.dataset.value), Number(td.dataset.sd), td.title]])));
  assert.ok(want.metrics.length >= 9);
  for (const [metric, stats, values] of want.metrics) {
    if (!(metric in got)) continue;
    const [mean, sd, title] = got[metric];
    assert.ok(Math.abs(mean - stats[0]) <= 1e-12 && Math.abs(sd - stats[1]) <= 1e-12, `${metric}: ${mean} ± ${sd} vs ${stats}`);
    assert.equal(title.split('\n').length, values.length, `${metric}: each member on hover`);
  }
  assert.ok('roc_auc' in got && 'f1' in got);
  // the exports carry the group: CSV and JSON a row of means and one of sds,
  // Markdown (and LaTeX) a row of mean ± sd, as rankscope eval --group
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="csv"]')]);
  const rows = fs.readFileSync(await csv.path(), 'utf8').trim().split('\n').map((l) => l.split(','));
  const header = rows[0];
  const mean = rows.find((r) => r[0] === 'model_a (mean)');
  const sd = rows.find((r) => r[0] === 'model_a (sd)');
  assert.ok(mean && sd, 'the group\'s rows in the CSV');
  let compared = 0;
  for (const [metric, stats] of want.metrics) {
    const c = header.indexOf(metric);
    if (c < 0 || !stats) continue;
    assert.ok(Math.abs(Number(mean[c]) - stats[0]) <= 1e-12 && Math.abs(Number(sd[c]) - stats[1]) <= 1e-12, `${metric} in the CSV`);
    compared++;
  }
  assert.ok(compared >= 9, `${compared} columns compared`);
  const [md] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="md"]')]);
  const markdown = fs.readFileSync(await md.path(), 'utf8');
  assert.match(markdown, /\| model\\_a \(mean ± sd, 5 models\) \| \d\.\d{4} ± \d\.\d{4} \|/);
  assert.doesNotMatch(markdown, /nothing/, 'a group without members is not exported');
  // a pattern nothing matches says so in its row; the models' rows stay as they were
  assert.match(await page.$eval('tr.group[data-group="none"]', (tr) => tr.textContent), /no model matches 'nothing\*'/);
  await waitForModels(page, names);
  // the link keeps the groups, and the Diagnostics panel reads the same ones
  // (it names the pattern that matches nothing too)
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('group:model_a=model_a_seed*'));
  await page.waitForFunction(() => /no model matches 'nothing\*'/.test(document.querySelector('.diag-panel')?.textContent || ''), null, { timeout: 20000 });
  await page.fill('#model-groups', 'model_a=model_a_seed*');
  await page.press('#model-groups', 'Enter');
  await page.waitForSelector('.diag-groups td[data-sd]', { state: 'attached', timeout: 20000 });
  assert.equal(await page.$('tr.group[data-group="none"]'), null);
  assert.deepEqual(errors, []);
  await page.close();
});
