// The Python package's dashboard: rankscope.show() (the report inline, as a
// notebook shows it) and rankscope.report() open from disk with no request
// and show the CLI's values. Needs the package in tools/venv (scripts/test.sh
// builds it) and the built dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { serve, open, drop, launch, reference, root, dist, outDir, cells, shot } from './harness.mjs';

const python = path.join(root, 'tools/venv/bin/python');
const cli = path.join(root, 'target/debug/rankscope');
let browser, server, url;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('rankscope.show() renders inline and rankscope.report() opens from disk, with no request and the CLI values', async () => {
  assert.ok(fs.existsSync(python), 'tools/venv/bin/python (scripts/test.sh installs it)');
  fs.mkdirSync(outDir, { recursive: true });
  const runFile = path.join(reference, 'ranking.run');
  const qrels = path.join(reference, 'ranking.qrels');
  const shown = path.join(outDir, 'python-show.html');
  const saved = path.join(outDir, 'python-report.html');
  run(python, ['-c', `
import sys, rankscope
run, qrels, dist, shown, saved = sys.argv[1:]
board = rankscope.show(run, qrels, metrics=["ndcg@10", "map", "mrr"], dist=dist, height=700)
open(shown, "w").write("<!DOCTYPE html><meta charset=utf-8><title>notebook</title>" + board._repr_html_())
rankscope.report(run, qrels, path=saved, metrics=["ndcg@10", "map", "mrr"], dist=dist, gain="exponential")
`, runFile, qrels, dist, shown, saved]);
  const want = JSON.parse(run(cli, ['eval', runFile, '--qrels', qrels, '--metrics', 'ndcg@10,map,mrr', '--format', 'json']));
  const wantExp = JSON.parse(run(cli, ['eval', runFile, '--qrels', qrels, '--metrics', 'ndcg@10,map,mrr', '--gain', 'exponential', '--format', 'json']));
  const byModel = (doc) => Object.fromEntries(doc.models.map((m) => [m.name, m.metrics]));

  for (const [file, expected, inFrame] of [[shown, byModel(want), true], [saved, byModel(wantExp), false]]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requests = [];
    const errors = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`file://${file}`);
    let view = page;
    if (inFrame) {
      const frame = await (await page.waitForSelector('iframe[title="Rankscope"]')).contentFrame();
      view = frame;
    }
    await view.waitForSelector('td[data-metric]', { timeout: 30000 });
    const got = await cells(view);
    for (const [model, metrics] of Object.entries(expected)) {
      for (const id of ['ndcg@10', 'map', 'mrr']) {
        assert.equal(got[model]?.[id], metrics[id], `${path.basename(file)} ${model} ${id}`);
      }
    }
    const foreign = requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:') && u !== 'about:srcdoc');
    assert.deepEqual(foreign, [], `${path.basename(file)} requests nothing`);
    await shot(page, path.basename(file).replace('.html', '.png'));
    assert.deepEqual(errors, [], path.basename(file));
    await context.close();
  }
});

// the page's wasm and the native CLI differ in their last bits of exp/ln
// (two libms): the tests' p-values are equal to 1e-9 relative
const near = (got, want, what) => assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(Math.abs(want), 1e-300), `${what}: ${got} vs ${want}`);

test('a per-query values file written by the Python package, dropped into the page, gives the CLI means and p-values', async () => {
  assert.ok(fs.existsSync(python), 'tools/venv/bin/python (scripts/test.sh installs it)');
  fs.mkdirSync(outDir, { recursive: true });
  const extra = (name) => path.join(reference, 'extra', name);
  const csv = path.join(outDir, 'per-query.csv');
  // what a notebook does: evaluate two runs, keep the per-query values, write them with pandas
  run(python, ['-c', `
import sys, rankscope
bm25, dense, qrels, out = sys.argv[1:]
per_query = rankscope.evaluate({"bm25": bm25, "dense": dense}, qrels, metrics=["ndcg@10", "map", "mrr", "precision@5"], per_query=True)
per_query.to_csv(out, index=False)
`, extra('bm25.run'), extra('dense.run'), extra('example.qrels'), csv]);
  const metrics = ["ndcg@10", "map", "mrr", "precision@5"];
  const means = JSON.parse(run(cli, ['eval', csv, '--format', 'json']));
  const compared = JSON.parse(run(cli, ['compare', csv, '--metrics', metrics.join(','), '--baseline', 'bm25', '--format', 'json']));
  const byMetric = Object.fromEntries(compared.comparisons.map((c) => [c.metric, c]));

  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await page.click('#clear');
  await drop(page, [{ name: 'per-query.csv', data: fs.readFileSync(csv) }]);
  await page.waitForSelector('section.precomputed td[data-measure][data-model="dense"]');
  // the table: each model's mean over its queries, the CLI's to the last bit
  const shown = await page.$$eval('section.precomputed table.metrics:not(.per-query) td[data-measure]', (tds) =>
    tds.map((td) => [td.dataset.model, td.dataset.measure, td.dataset.value === '' ? null : Number(td.dataset.value)]));
  assert.equal(shown.length, 2 * metrics.length);
  for (const model of means.models) {
    for (const m of metrics) {
      const cell = shown.find(([name, measure]) => name === model.name && measure === m);
      assert.ok(cell, `${model.name} ${m} shown`);
      assert.equal(cell[2], model.metrics[m], `${model.name} ${m}`);
    }
  }
  // the per-query table, filtered to one query: the values as written
  const q = await page.$eval('section.precomputed tr[data-query]', (r) => r.dataset.query);
  await page.fill('section.precomputed input[type=search]', q);
  await page.waitForFunction((q) => [...document.querySelectorAll('section.precomputed tr[data-query]')].every((r) => r.dataset.query.includes(q)), q);

  // the Compare view on the values alone: dense against bm25, every test's p as the CLI's
  for (const m of ['ndcg@10', 'map']) {
    await page.waitForSelector('#cmp-metric');
    if (await page.$eval('#cmp-metric', (s) => s.value) !== m) await page.selectOption('#cmp-metric', m);
    await page.waitForSelector(`.compare-panel[data-metric="${m}"]:not(.stale .compare-panel)`);
    await page.waitForFunction(() => !document.querySelector('.compare-body.stale'));
    const panel = await page.$eval('.compare-panel', (p) => ({
      ...p.dataset,
      tests: Object.fromEntries([...p.querySelectorAll('tr[data-test]')].map((r) => [r.dataset.test, r.dataset.p === '' ? null : Number(r.dataset.p)])),
      counts: [...p.querySelectorAll('.distribution path')].map((d) => d.dataset.counts.split(' ').map(Number).reduce((a, b) => a + b, 0)),
    }));
    const want = byMetric[m];
    assert.ok(want, `the CLI compared ${m}`);
    assert.equal(panel.model, 'dense');
    assert.equal(panel.baseline, 'bm25');
    assert.equal(Number(panel.n), want.paired.n);
    near(Number(panel.meanDiff), want.paired.mean_diff, `${m} mean difference`);
    assert.deepEqual([panel.wins, panel.losses, panel.ties].map(Number), [want.paired.wins, want.paired.losses, want.paired.ties]);
    near(panel.tests.t, want.t_test.p, `${m} t-test p`);
    near(panel.tests.wilcoxon, want.wilcoxon.p, `${m} Wilcoxon p`);
    near(panel.tests.sign, want.sign_test, `${m} sign test p`);
    near(panel.tests.randomization, want.randomization.p, `${m} randomization p`);
    near(panel.tests.bootstrap, want.bootstrap.p, `${m} bootstrap p`);
    // the distribution of each model's values: every query counted once
    assert.deepEqual(panel.counts, [want.paired.n, want.paired.n], `${m} distribution`);
  }
  await shot(page, 'per-query-compare.png');
  // the baseline chosen in the panel: bm25 against dense now
  await page.selectOption('#cmp-baseline', 'dense');
  await page.waitForSelector('.compare-panel[data-baseline="dense"][data-model="bm25"]');
  assert.deepEqual(errors, []);
  await page.close();
});
