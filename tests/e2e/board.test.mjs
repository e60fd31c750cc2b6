// The leaderboard page (dist/board/): a catalog of 50 generated runs served as
// a static folder by `python3 -m http.server` under a sub-path, opened from a
// link to the dashboard (?catalog=, relative to the app). Values, tie groups,
// rank intervals and exports against the numbers the core computes natively
// (tests/board_catalog.rs writes them beside the catalog); the four broken
// catalogs each give a clear message and lose nothing already shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { root, dist, launch, shot, canvasHasInk } from './harness.mjs';

let server, base, browser, expected;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rankscope-board-'));
const data = path.join(tmp, 'team/data');
const RUNS = 50;

/** The generated catalog (and expected.json) in `dir`. */
function generate(dir) {
  const out = spawnSync('cargo', ['test', '--locked', '--quiet', '--test', 'board_catalog', '--', '--ignored'], {
    cwd: root, env: { ...process.env, BOARD_OUT: dir, BOARD_RUNS: String(RUNS), BOARD_QUERIES: '40', BOARD_METRICS: '3' }, encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`board_catalog: ${out.stderr}`);
}

/** A copy of the good catalog as `name`, changed by `change(dir)`. */
function variant(name, change) {
  const dir = path.join(data, name);
  fs.cpSync(path.join(data, 'good'), dir, { recursive: true });
  change(dir);
}

const manifestOf = (dir) => path.join(dir, 'rankscope-catalog.json');

/** Rewrites a values file's JSON header (its length and padding follow). */
function rewriteHeader(file, change) {
  const bytes = fs.readFileSync(file);
  const h = bytes.readUInt32LE(12);
  const header = JSON.parse(bytes.subarray(16, 16 + h).toString('utf8'));
  const start = Math.ceil((16 + h) / 8) * 8;
  const payload = bytes.subarray(start);
  const text = Buffer.from(JSON.stringify(change(header)), 'utf8');
  const head = Buffer.alloc(16);
  bytes.copy(head, 0, 0, 12);
  head.writeUInt32LE(text.length, 12);
  const pad = Buffer.alloc((8 - ((16 + text.length) % 8)) % 8);
  fs.writeFileSync(file, Buffer.concat([head, text, pad, payload]));
}

before(async () => {
  generate(path.join(data, 'good'));
  expected = JSON.parse(fs.readFileSync(path.join(data, 'good/expected.json'), 'utf8'));
  // a damaged manifest: a comma gone
  variant('damaged', (dir) => {
    const text = fs.readFileSync(manifestOf(dir), 'utf8');
    fs.writeFileSync(manifestOf(dir), text.replace('"name": "system-003",', '"name": "system-003"'));
  });
  variant('missing', (dir) => fs.rmSync(path.join(dir, 'values/run007.rsv')));
  variant('judgments', (dir) => {
    const m = JSON.parse(fs.readFileSync(manifestOf(dir), 'utf8'));
    m.runs[5].judgments = 'qrels-2025';
    fs.writeFileSync(manifestOf(dir), JSON.stringify(m, null, 2));
  });
  variant('conventions', (dir) => rewriteHeader(path.join(dir, 'values/run003.rsv'), (h) => ({ ...h, conventions: { ...h.conventions, gain: 'exponential' } })));
  // the app under /team/app/, the data beside it under /team/data/
  fs.symlinkSync(dist, path.join(tmp, 'team/app'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', tmp], { stdio: 'ignore' });
  base = `http://127.0.0.1:${port}/team/app/`;
  for (let i = 0; i < 100; i++) {
    try { if ((await fetch(base)).ok) break; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function openBoard(url, rows = RUNS) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404|Failed to load resource/.test(m.text())) errors.push(m.text()); });
  await page.goto(url);
  if (rows > 0) await page.waitForFunction((n) => document.querySelectorAll('#board-table tbody tr').length === n, rows, { timeout: 30000 });
  return { page, errors };
}

/** Waits for the worker's tests and reads the table: {run: {metric: mean, rank, low, high, group}}. */
async function readTable(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('#board-table td.interval')].every((td) => td.dataset.low !== ''), null, { timeout: 60000 });
  return page.$$eval('#board-table tbody tr', (trs) => Object.fromEntries(trs.map((tr) => {
    const row = { means: {} };
    for (const td of tr.querySelectorAll('td[data-metric]')) row.means[td.dataset.metric] = Number(td.dataset.value);
    const iv = tr.querySelector('td.interval');
    row.low = Number(iv.dataset.low);
    row.high = Number(iv.dataset.high);
    row.rank = Number(tr.querySelector('td.rank').dataset.rank);
    row.group = tr.querySelector('td.group').dataset.group === 'true';
    return [tr.dataset.run, row];
  })));
}

const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${what}: page ${a}, core ${b}`);
const runName = (r) => `system-${String(r).padStart(3, '0')}`;

test('a link to the dashboard with ?catalog= opens the leaderboard under a sub-path; values, tie group and rank intervals are the core\'s', async () => {
  const { page, errors } = await openBoard(`${base}index.html?catalog=../data/good/rankscope-catalog.json`);
  assert.match(page.url(), /\/team\/app\/board\/\?catalog=/);
  const table = await readTable(page);
  const metrics = Object.keys(expected);
  const first = metrics[0];
  const e = expected[first];
  for (let r = 0; r < RUNS; r++) {
    const row = table[runName(r)];
    assert.ok(row, `row ${runName(r)}`);
    for (const m of metrics) near(row.means[m], expected[m].means[r], `${runName(r)} ${m}`);
    assert.equal(row.rank, e.ranks[r].rank, `${runName(r)} rank`);
    assert.equal(row.low, e.ranks[r].low, `${runName(r)} rank interval low`);
    assert.equal(row.high, e.ranks[r].high, `${runName(r)} rank interval high`);
    assert.equal(row.group, e.members[r], `${runName(r)} in the tie group`);
  }
  // the best run per column is marked
  for (const m of metrics) {
    const best = await page.$eval(`#board-table td.best[data-metric="${m}"]`, (td) => td.dataset.run);
    assert.equal(best, runName(expected[m].best), `best on ${m}`);
  }
  // the method is stated
  const method = await page.textContent('#board-method');
  assert.match(method, /paired t-test/);
  assert.match(method, /Holm/);
  assert.match(method, /α = 0\.05/);
  assert.match(method, /1000 paired bootstrap resamples/);
  // a baseline: marks against it, as the core's comparisons
  await page.selectOption('#board-baseline', runName(0));
  const vs = await (async () => {
    await page.waitForFunction(() => [...document.querySelectorAll('#board-table td.interval')].every((td) => td.dataset.low !== ''));
    return page.$$eval(`#board-table td.chosen`, (tds) => Object.fromEntries(tds.map((td) => [td.dataset.run, td.textContent])));
  })();
  for (const c of e.versus) {
    const shown = vs[runName(c.run)];
    const want = c.significant ? (c.mean_diff > 0 ? '▲' : '▼') : '';
    assert.equal(shown.includes('▲') ? '▲' : shown.includes('▼') ? '▼' : '', want, `${runName(c.run)} against the baseline`);
  }
  assert.match(page.url(), /#.*baseline=system-000/);
  // the heatmap is drawn, and the history
  assert.ok(await canvasHasInk(page, 0) > 1000, 'heatmap drawn');
  assert.ok(await canvasHasInk(page, 1) > 1000, 'history drawn');
  await shot(page, 'board.png');
  assert.deepEqual(errors, []);
  await page.close();
});

test('filter, sort, compare link, exports', async () => {
  const { page } = await openBoard(`${base}board/?catalog=../data/good/rankscope-catalog.json`);
  await readTable(page);
  await page.fill('#board-filter', 'tag:lexical');
  await page.waitForFunction(() => document.querySelectorAll('#board-table tbody tr').length === 13);
  await page.fill('#board-filter', 'author:bo method=dense');
  const shown = await page.$$eval('#board-table tbody tr', (trs) => trs.map((t) => t.dataset.run));
  // runs 1, 7, 13, …: author bo (r % 3 == 1) and dense (odd r)
  const want = Array.from({ length: RUNS }, (_, r) => r).filter((r) => r % 3 === 1 && r % 2 === 1).map(runName);
  assert.deepEqual([...shown].sort(), want.sort());
  await page.fill('#board-filter', '');
  await page.waitForFunction((n) => document.querySelectorAll('#board-table tbody tr').length === n, RUNS);
  // sorted by the metric, best first
  const order = await page.$$eval('#board-table tbody tr', (trs) => trs.map((t) => t.dataset.run));
  const metric = Object.keys(expected)[0];
  const means = expected[metric].means;
  for (let i = 1; i < order.length; i++) {
    assert.ok(means[Number(order[i - 1].slice(7))] >= means[Number(order[i].slice(7))], 'best first');
  }
  // two runs ticked: the dashboard's Compare view on their files
  await page.check(`tr[data-run="${runName(4)}"] input.pick`);
  await page.check(`tr[data-run="${runName(9)}"] input.pick`);
  const href = await page.getAttribute('#board-compare', 'href');
  assert.match(href, /\/team\/app\/index\.html\?qrels=.*qrels\.txt&run=.*runs\/run004\.run&run=.*runs\/run009\.run#tab=ranking/);
  // exports: the table with tie groups and rank intervals
  const table = await readTable(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="csv"]')]);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  const lines = csv.split('\n').filter((l) => l && !l.startsWith('#'));
  assert.match(lines[0], /rank,rank_low,rank_high,tie_group/);
  const header = lines[0].split(',');
  for (const line of lines.slice(1)) {
    const cells = line.split(',');
    const row = table[cells[0]];
    assert.ok(row, line);
    near(Number(cells[header.indexOf(metric)]), row.means[metric], `${cells[0]} CSV mean`);
    assert.equal(Number(cells[header.indexOf('rank_low')]), row.low, `${cells[0]} CSV rank_low`);
    assert.equal(Number(cells[header.indexOf('tie_group')]), row.group ? 1 : 0, `${cells[0]} CSV tie_group`);
  }
  for (const format of ['json', 'md', 'tex']) {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click(`button[data-export="${format}"]`)]);
    const text = fs.readFileSync(await d.path(), 'utf8');
    assert.ok(text.includes(runName(0)) && /rank/.test(text), `${format} export`);
  }
  await page.close();
});

test('a damaged manifest: file, line and column; the board shown stays', async () => {
  const { page, errors } = await openBoard(`${base}board/?catalog=../data/good/rankscope-catalog.json`);
  await page.fill('#board-url', 'data/damaged/rankscope-catalog.json'.replace('data/', '../data/'));
  await page.click('#board-open button[type="submit"]');
  await page.waitForSelector('#board-problems li');
  const text = await page.textContent('#board-problems');
  assert.match(text, /damaged\/rankscope-catalog\.json/);
  assert.match(text, /line \d+/);
  assert.match(text, /column \d+/);
  assert.equal(await page.$$eval('#board-table tbody tr', (t) => t.length), RUNS, 'the board shown before stays');
  await shot(page, 'board-damaged.png');
  assert.deepEqual(errors, []);
  await page.close();
});

for (const [name, pattern, run] of [
  ['missing', /values\/run007\.rsv.*404/, 7],
  ['judgments', /run005 was scored against the judgments qrels-2025/, 5],
  ['conventions', /run003's values were computed under other conventions \(gain exponential \(the catalog's: linear\)\)/, 3],
]) {
  test(`a catalog with a ${name} run: a clear message, the run left out, the others shown`, async () => {
    const { page, errors } = await openBoard(`${base}board/?catalog=../data/${name}/rankscope-catalog.json`, RUNS - 1);
    const text = await page.textContent('#board-problems');
    assert.match(text, pattern);
    assert.equal(await page.$(`tr[data-run="${runName(run)}"]`), null);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
