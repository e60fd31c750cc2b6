// Is the difference real? The metric table's marks and intervals, and the
// Compare view, equal the CLI's `rankscope compare --format json` on the
// same files; the settings live in the link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, reference, waitForModels, clearAll, shot, cliJson } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const extra = (name) => path.join(reference, 'extra', name);
const file = (name) => ({ name, data: fs.readFileSync(extra(name)) });

const cli = cliJson;

const TESTS = ['t', 'wilcoxon', 'sign', 'randomization', 'bootstrap', 'mcnemar'];
// the page's wasm and the native CLI differ in their last bits of exp/ln/log2
// (two libms), so equal means equal to 1e-9 relative
const near = (got, want, what) => assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(Math.abs(want), 1e-300), `${what}: ${got} vs ${want}`);
const rawP = (c, test) => ({
  t: c.t_test?.p, wilcoxon: c.wilcoxon?.p, sign: c.sign_test, randomization: c.randomization?.p, bootstrap: c.bootstrap?.p, mcnemar: c.mcnemar,
})[test];

async function loadPair(page) {
  await clearAll(page);
  await drop(page, [file('example.qrels'), file('bm25.run'), file('dense.run')]);
  await waitForModels(page, ['bm25', 'dense']);
  await page.selectOption('label:has-text("Baseline") select', 'bm25');
  await page.waitForSelector('#compare .compare-panel');
}

// the cells of the metric table: value, p, adjusted p, interval and mark
const tableCells = (page) => page.$$eval('table.metrics td[data-metric]', (tds) => tds.map((td) => ({
  model: td.dataset.model,
  metric: td.dataset.metric,
  value: td.dataset.value === '' ? null : Number(td.dataset.value),
  p: td.dataset.p === undefined ? null : Number(td.dataset.p),
  adjusted: td.dataset.pAdjusted === undefined ? null : Number(td.dataset.pAdjusted),
  lo: td.dataset.ciLow === undefined ? null : Number(td.dataset.ciLow),
  hi: td.dataset.ciHigh === undefined ? null : Number(td.dataset.ciHigh),
  mark: td.querySelector('.mark')?.textContent.trim() ?? null,
  ci: td.querySelector('.ci')?.textContent ?? null,
})));

test('marks, p-values and the Compare view equal rankscope compare, for every test', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await loadPair(page);
  // Hit@1: a hit or a miss per query, on which the two runs disagree (McNemar)
  await page.fill('input[aria-label="cutoffs"]', '1,5,10');
  await page.press('input[aria-label="cutoffs"]', 'Enter');
  await page.waitForSelector('td[data-metric="hit_rate@1"][data-model="dense"][data-p]');
  let cells = await tableCells(page);
  // the columns tested: the Compare view offers exactly those
  const metrics = await page.$$eval('#cmp-metric option', (os) => os.map((o) => o.value));
  assert.ok(metrics.includes('ndcg@10') && metrics.includes('map'), metrics.join(','));
  // the baseline has no p
  assert.ok(cells.filter((c) => c.model === 'bm25').every((c) => c.p === null));
  const json = cli(['compare', extra('bm25.run'), extra('dense.run'), '--qrels', extra('example.qrels'),
    '--metrics', metrics.join(','), '--baseline', 'bm25', '--format', 'json']);
  const byMetric = Object.fromEntries(json.comparisons.map((c) => [c.metric, c]));
  for (const test of TESTS) {
    if (test !== 't') {
      await page.selectOption('#sig-test', test);
      await page.waitForFunction((t) => document.querySelector('#sig-test')?.value === t
        && !document.querySelector('.compare-body.stale') && document.querySelector('td[data-metric][data-p]'), test);
      cells = await tableCells(page);
    }
    if (test === 'mcnemar') {
      // defined only for hits: Hit@1 here, never nDCG
      assert.ok(cells.some((c) => c.model === 'dense' && c.metric === 'hit_rate@1' && c.p !== null), 'McNemar on Hit@1');
      assert.ok(cells.every((c) => !c.metric.startsWith('ndcg') || c.p === null), 'no McNemar on nDCG');
    }
    for (const c of cells.filter((c) => c.model === 'dense' && c.p !== null)) {
      const want = byMetric[c.metric];
      assert.ok(want && metrics.includes(c.metric), `the CLI compared ${c.metric}`);
      near(c.p, rawP(want, test), `${test} p of ${c.metric}`);
      // one model against the baseline: nothing to adjust
      assert.equal(c.adjusted, c.p, `${test} adjusted p of ${c.metric}`);
      assert.equal(c.mark !== null, c.adjusted < 0.05, `mark of ${c.metric} (p ${c.adjusted})`);
      if (c.mark) assert.equal(c.mark, want.paired.mean_diff > 0 ? '▲' : '▼');
    }
  }
  // the Compare view: dense against bm25 on the chosen metric, every test's p as the CLI's
  await page.selectOption('#cmp-metric', 'ndcg@10');
  await page.waitForSelector('.compare-panel[data-metric="ndcg@10"]');
  const panel = await page.$eval('.compare-panel', (p) => ({
    ...p.dataset,
    tests: Object.fromEntries([...p.querySelectorAll('tr[data-test]')].map((r) => [r.dataset.test, r.dataset.p === '' ? null : Number(r.dataset.p)])),
    bars: p.querySelectorAll('.diffs rect').length,
    dots: p.querySelectorAll('.scatter circle').length,
  }));
  const want = byMetric['ndcg@10'];
  assert.equal(panel.model, 'dense');
  assert.equal(panel.baseline, 'bm25');
  assert.equal(Number(panel.n), want.paired.n);
  near(Number(panel.meanDiff), want.paired.mean_diff, 'mean difference');
  assert.deepEqual([panel.wins, panel.losses, panel.ties].map(Number), [want.paired.wins, want.paired.losses, want.paired.ties]);
  for (const test of TESTS) {
    // McNemar only for hits (0/1 per query): none for nDCG, in the page as in the CLI
    if (rawP(want, test) === null) assert.equal(panel.tests[test], null, `Compare view ${test}`);
    else near(panel.tests[test], rawP(want, test), `Compare view ${test}`);
  }
  assert.equal(panel.bars, want.paired.n, 'one bar per query');
  assert.equal(panel.dots, want.paired.n, 'one dot per query');
  await shot(page, 'compare.png');
  // a query among the largest gains opens dense's value for it in the explanation
  const q = await page.$eval('.extremes tr[data-query]', (r) => r.dataset.query);
  await page.click(`.extremes tr[data-query="${q}"]`);
  await page.waitForSelector('section.explain');
  assert.match(await page.$eval('section.explain', (s) => s.textContent), new RegExp(q));
  assert.deepEqual(errors, []);
  await page.close();
});

test('intervals of the means, and the settings restored from the link', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await loadPair(page);
  await page.check('#sig-ci');
  await page.waitForSelector('td[data-metric] .ci');
  const cells = (await tableCells(page)).filter((c) => c.lo !== null);
  assert.ok(cells.length >= 10, `${cells.length} intervals`);
  for (const c of cells) {
    assert.ok(c.lo <= c.value && c.value <= c.hi, `${c.model} ${c.metric}: ${c.lo} ≤ ${c.value} ≤ ${c.hi}`);
    assert.equal(c.ci, `[${c.lo.toFixed(4)}, ${c.hi.toFixed(4)}]`);
  }
  await page.selectOption('#sig-correction', 'bonferroni');
  await page.fill('#sig-alpha', '0.01');
  await page.press('#sig-alpha', 'Enter');
  await page.waitForFunction(() => location.hash.includes('alpha=0.01') && location.hash.includes('correction=bonferroni') && location.hash.includes('ci=1'));
  const link = page.url();
  // the same link in a fresh tab brings the same settings and the same intervals back
  const again = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await again.goto(link);
  await again.waitForSelector('td[data-metric]');
  await loadPair(again);
  await again.waitForSelector('td[data-metric] .ci');
  assert.equal(await again.$eval('#sig-correction', (s) => s.value), 'bonferroni');
  assert.equal(await again.$eval('#sig-alpha', (s) => s.value), '0.01');
  const restored = (await tableCells(again)).filter((c) => c.lo !== null);
  assert.deepEqual(restored.map((c) => [c.lo, c.hi]), cells.map((c) => [c.lo, c.hi]), 'seeded: the same intervals');
  assert.deepEqual(errors, []);
  await again.close();
  await page.close();
});

test('a long randomization run shows its progress, Cancel stops it, and the page answers meanwhile', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1280, height: 900 } });
  await clearAll(page);
  // 20,000 queries: the randomization test of every column takes seconds
  const queries = 20000;
  let qrels = '', a = '', b = '';
  for (let q = 0; q < queries; q++) {
    for (let d = 0; d < 5; d++) {
      qrels += `q${q} 0 d${d} ${(q * 7 + d) % 3 === 0 ? 1 : 0}\n`;
      a += `q${q} Q0 d${d} ${d + 1} ${5 - d} a\n`;
      b += `q${q} Q0 d${(d + q) % 5} ${d + 1} ${5 - d} b\n`;
    }
  }
  await drop(page, [{ name: 'big.qrels', data: Buffer.from(qrels) }, { name: 'a.run', data: Buffer.from(a) }, { name: 'b.run', data: Buffer.from(b) }]);
  await waitForModels(page, ['a', 'b']);
  await page.selectOption('label:has-text("Baseline") select', 'a');
  await page.waitForSelector('#sig-test');
  await page.selectOption('#sig-test', 'randomization');
  await page.waitForSelector('p.testing', { timeout: 10000 });
  assert.match(await page.$eval('p.testing', (p) => p.textContent), /Testing… \d+ of \d+ steps/);
  // the page stays responsive: a tab switch-free interaction answers at once
  const t0 = Date.now();
  await page.evaluate(() => document.querySelector('#sig-alpha').value);
  assert.ok(Date.now() - t0 < 1000);
  await page.click('p.testing button');
  await page.waitForSelector('p.testing', { state: 'detached' });
  // no mark of an unfinished test is shown
  assert.equal(await page.$$eval('table.metrics .mark', (ms) => ms.length), 0);
  assert.equal(await page.$$eval('td[data-metric][data-p]', (ts) => ts.length), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('binary models: ROC AUC marked by DeLong\'s test, its intervals and the Compare card equal rankscope compare', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await clearAll(page);
  const seeds = extra('seeds.csv');
  await drop(page, [{ name: 'seeds.csv', data: fs.readFileSync(seeds) }]);
  const names = ['model_a_seed1', 'model_a_seed2', 'model_a_seed3', 'model_a_seed4', 'model_a_seed5', 'model_b'];
  await waitForModels(page, names);
  await page.selectOption('label:has-text("Baseline") select', 'model_b');
  await page.waitForSelector('td[data-metric="roc_auc"][data-model="model_a_seed1"][data-p]', { timeout: 30000 });
  await page.check('#sig-ci');
  await page.waitForSelector('td[data-metric="roc_auc"] .ci');
  const json = cli(['compare', seeds, '--metrics', 'roc_auc', '--baseline', 'model_b', '--format', 'json']);
  const cells = (await tableCells(page)).filter((c) => c.metric === 'roc_auc');
  assert.equal(cells.length, names.length);
  for (const c of cells) {
    if (c.model === 'model_b') {
      // the baseline: its own DeLong interval, no p
      assert.equal(c.p, null);
      near(c.lo, json.comparisons[0].delong.ci_a[0], 'baseline CI low');
      near(c.hi, json.comparisons[0].delong.ci_a[1], 'baseline CI high');
      continue;
    }
    const want = json.comparisons.find((x) => x.model === c.model);
    near(c.p, want.delong.p, `${c.model} DeLong p`);
    near(c.adjusted, want.adjusted, `${c.model} Holm-adjusted p`);
    near(c.lo, want.delong.ci_b[0], `${c.model} CI low`);
    near(c.hi, want.delong.ci_b[1], `${c.model} CI high`);
    assert.equal(c.mark !== null, want.adjusted < 0.05, `${c.model} mark`);
    if (c.mark) assert.equal(c.mark, want.delong.auc_b > want.delong.auc_a ? '▲' : '▼');
  }
  // no other column is tested
  assert.equal((await tableCells(page)).filter((c) => c.metric !== 'roc_auc' && c.p !== null).length, 0);
  // the Compare card: a chosen model against the baseline, DeLong's numbers
  await page.selectOption('#cmp-model', 'model_a_seed3');
  await page.waitForSelector('.compare-panel[data-model="model_a_seed3"][data-metric="roc_auc"]');
  const panel = await page.$eval('.compare-panel', (p) => ({ ...p.dataset }));
  const want = json.comparisons.find((x) => x.model === 'model_a_seed3');
  near(Number(panel.aucA), want.delong.auc_a, 'baseline AUC');
  near(Number(panel.aucB), want.delong.auc_b, 'model AUC');
  near(Number(panel.p), want.delong.p, 'card p');
  await shot(page, 'compare-binary.png');
  assert.deepEqual(errors, []);
  await page.close();
});
