// Every view works where a report goes: a report saved from the live page,
// opened from file://, and the dashboards of the executed example notebook
// (python/examples/dashboard.ipynb, rendered by python/tests/test_notebook.py)
// start the loading worker they carry (a blob: URL) and show Compare,
// Diagnostics and the values panel with the live page's numbers; an export
// from the report downloads what the live page's does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { serve, launch, open, drop, reference, root, outDir, waitForModels, clearAll, shot } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const extra = (name) => ({ name, data: fs.readFileSync(path.join(reference, 'extra', name)) });
const upstream = (name) => ({ name, data: fs.readFileSync(path.join(root, 'tests/trec_eval', name)) });
const RANKING = ['bm25', 'dense'];
const BINARY = ['model_a_seed1', 'model_a_seed2', 'model_a_seed3', 'model_a_seed4', 'model_a_seed5', 'model_b'];
const VALUES = ['STANDARD', 'STANDARD (2)'];

async function tab(view, kind) {
  const button = await view.$(`nav.tabs button[data-tab="${kind}"]`);
  if (button) {
    await button.click();
    await view.waitForSelector(`nav.tabs button[data-tab="${kind}"].active`);
  }
}

/** The Compare view of the ranking runs: its panel's numbers, every test's p. */
async function compare(view) {
  await tab(view, 'ranking');
  await view.waitForSelector('#compare .compare-panel[data-baseline="bm25"]', { timeout: 30000 });
  await view.waitForFunction(() => !document.querySelector('.compare-body.stale'));
  return view.$eval('#compare .compare-panel', (p) => ({
    ...p.dataset,
    tests: Object.fromEntries([...p.querySelectorAll('tr[data-test]')].map((r) => [r.dataset.test, r.dataset.p])),
    marks: [...document.querySelectorAll('table.metrics td[data-metric][data-p]')].map((td) => [td.dataset.model, td.dataset.metric, td.dataset.p]),
  }));
}

/** The Diagnostics panel of the binary models: every number of its table. */
async function diagnostics(view) {
  await tab(view, 'binary');
  await view.waitForFunction((n) => document.querySelectorAll('.diag-numbers tbody tr').length === n, BINARY.length, { timeout: 30000 });
  return view.$$eval('.diag-numbers tbody tr', (rows) => rows.map((r) => [r.dataset.model,
    [...r.querySelectorAll('td[data-key]')].map((td) => [td.dataset.key, td.dataset.value])]));
}

/** The values panel of trec_eval's -q output: the means, then map per query. */
async function values(view) {
  await view.waitForFunction(() => document.querySelectorAll('section.precomputed td[data-measure="map"]').length === 2, null, { timeout: 30000 });
  const means = await view.$$eval('section.precomputed table.metrics:not(.per-query) td[data-measure]', (tds) =>
    tds.map((td) => [td.dataset.model, td.dataset.measure, td.dataset.value]));
  await view.click('section.precomputed button.link >> text=map');
  await view.waitForSelector('section.precomputed tr[data-query] td[data-measure="map"]', { timeout: 30000 });
  const perQuery = await view.$$eval('section.precomputed tr[data-query]', (rows) => rows.map((r) =>
    [r.dataset.query, [...r.querySelectorAll('td[data-measure]')].map((td) => [td.dataset.model, td.dataset.measure, td.dataset.value])]));
  return { means, perQuery };
}

/** The text of the metric table's CSV export (a download the worker writes). */
async function csv(page, view) {
  const [download] = await Promise.all([page.waitForEvent('download'), view.click('button[data-export="csv"]')]);
  return fs.readFileSync(await download.path(), 'utf8');
}

/** Opens `file` from disk in a context of its own, with what it asked for. */
async function openFile(file) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, acceptDownloads: true });
  const page = await context.newPage();
  const requests = [];
  const errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`file://${file}`);
  return { context, page, requests, errors };
}

const foreign = (requests) => requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:') && u !== 'about:srcdoc');

// the live page's views, read once for both tests; the report it saved
let live, saved;

async function livePage() {
  if (live) return live;
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 }, acceptDownloads: true });
  await clearAll(page);
  await drop(page, [extra('example.qrels'), extra('bm25.run'), extra('dense.run')]);
  await waitForModels(page, RANKING);
  await drop(page, [extra('seeds.csv')]);
  await page.waitForSelector('nav.tabs button[data-tab="binary"]');
  await drop(page, [upstream('out.test.aq'), upstream('out.test.aqc')]);
  await page.waitForSelector('section.precomputed td[data-measure="map"]', { timeout: 30000 });
  live = { page, errors };
  live.values = await values(page);
  live.diagnostics = await diagnostics(page);
  live.compare = await compare(page);
  live.csv = await csv(page, page);
  return live;
}

test('a report saved from the live page, opened from file://, shows Compare, Diagnostics and the values panel with the same numbers, and exports', async () => {
  const { page, errors } = await livePage();
  assert.ok(live.compare.tests.t && live.compare.tests.wilcoxon, 'the live page tested the runs');
  assert.equal(live.compare.model, 'dense');
  assert.ok(live.diagnostics.every(([, numbers]) => numbers.some(([key]) => key === 'ece')), 'the live page diagnosed every model');
  assert.ok(live.values.perQuery.length > 0, 'the live page shows map per query');
  await page.click('#share-menu summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-report')]);
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'report-every-view.html');
  await download.saveAs(file);
  saved = file;
  assert.deepEqual(errors, []);
  // the report carries the worker and may start it from a blob: URL, nothing broader
  const html = fs.readFileSync(file, 'utf8');
  const csp = html.match(/Content-Security-Policy" content="([^"]+)"/)[1];
  assert.ok(csp.split('; ').includes('worker-src blob:'), csp);
  assert.equal(csp.split('; ').filter((d) => d.startsWith('worker-src')).length, 1);
  assert.ok(html.includes('id="rankscope-worker-wasm"') && html.includes('id="rankscope-worker-js"'));

  const report = await openFile(file);
  await report.page.waitForSelector('td[data-metric]', { timeout: 30000 });
  assert.deepEqual(await values(report.page), live.values, 'the values panel');
  assert.deepEqual(await diagnostics(report.page), live.diagnostics, 'the Diagnostics panel');
  assert.deepEqual(await compare(report.page), live.compare, 'the Compare view');
  assert.equal(await csv(report.page, report.page), live.csv, 'the CSV export');
  // the views came from the report's worker, started from a blob: URL
  assert.ok(report.page.workers().length > 0 && report.page.workers().every((w) => w.url().startsWith('blob:')),
    report.page.workers().map((w) => w.url()).join(', '));
  assert.equal(await report.page.$('.msg.error'), null, 'no error');
  await shot(report.page, 'report-every-view.png');
  assert.deepEqual(foreign(report.requests), [], 'a report requests nothing');
  assert.deepEqual(report.errors, []);
  await report.context.close();
});

test('a report in a frame that allows no worker says so in each view instead of showing nothing', async () => {
  assert.ok(saved, 'the report the test above saved');
  // the same report under a policy that refuses every worker, as a sandboxing frame might
  const file = path.join(outDir, 'report-no-worker.html');
  fs.writeFileSync(file, fs.readFileSync(saved, 'utf8').replace('; worker-src blob:;', "; worker-src 'none';"));
  const report = await openFile(file);
  await report.page.waitForSelector('td[data-metric]', { timeout: 30000 });
  const said = (title) => report.page.waitForFunction((t) => [...document.querySelectorAll('.msg.error')]
    .some((m) => m.textContent.includes(t) && m.textContent.includes('the loading worker could not start')), title, { timeout: 20000 });
  await said('The values could not be shown');
  await tab(report.page, 'binary');
  await said('The diagnostics failed');
  await tab(report.page, 'ranking');
  await said('The significance tests failed');
  // the table itself is the page's: still there
  assert.ok((await report.page.$$('td[data-metric]')).length > 0);
  await report.context.close();
});

const python = process.env.RANKSCOPE_PYTHON || path.join(root, 'tools/venv/bin/python');

test('the executed example notebook\'s dashboards show Compare, Diagnostics and the values panel with the live page\'s numbers', async () => {
  assert.ok(fs.existsSync(python), `${python} (scripts/test.sh installs it)`);
  fs.mkdirSync(outDir, { recursive: true });
  const rendered = path.join(outDir, 'notebook.html');
  fs.rmSync(rendered, { force: true });
  const r = spawnSync(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', path.join(root, 'python/tests/test_notebook.py')], {
    encoding: 'utf8', env: { ...process.env, RANKSCOPE_NOTEBOOK_HTML: rendered }, maxBuffer: 1 << 26,
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  await livePage();
  const notebook = await openFile(rendered);
  const frames = await Promise.all((await notebook.page.$$('iframe[title="Rankscope"]')).map((f) => f.contentFrame()));
  assert.equal(frames.length, 3, 'one dashboard per show() cell');
  for (const frame of frames) await frame.waitForSelector('td[data-metric], section.precomputed td[data-measure]', { timeout: 30000 });
  const [ranking, binary, measures] = frames;
  assert.deepEqual(await compare(ranking), live.compare, 'the Compare view');
  assert.deepEqual(await diagnostics(binary), live.diagnostics, 'the Diagnostics panel');
  assert.deepEqual(await values(measures), live.values, 'the values panel');
  await shot(notebook.page, 'notebook.png');
  assert.deepEqual(foreign(notebook.requests), [], 'the notebook\'s dashboards request nothing');
  assert.deepEqual(notebook.errors, []);
  await notebook.context.close();
  assert.deepEqual(live.errors, []);
  await live.page.close();
});
