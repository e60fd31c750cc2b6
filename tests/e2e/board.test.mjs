// The leaderboard page (dist/board/): 50 generated TREC runs built into a
// catalog by `rankscope catalog build`, served as a static folder by
// `python3 -m http.server` under a sub-path, opened from a link to the
// dashboard (?catalog=, relative to the app). Values, tie groups, rank
// intervals and marks against `rankscope leaderboard --format json`, the
// exports byte for byte against the CLI's; the four broken catalogs each give
// a clear message and lose nothing already shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { root, dist, launch, shot, canvasHasInk } from './harness.mjs';

/** The CLI, built now (the harness's cliBin builds it only when missing). */
function cliBin() {
  const bin = path.join(root, 'target/debug/rankscope');
  if (!cliBin.built) {
    const b = spawnSync('cargo', ['build', '--locked', '--quiet', '--bin', 'rankscope'], { cwd: root, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('cargo build failed');
    cliBin.built = true;
  }
  return bin;
}

let server, base, browser, cli;
const manifestOf = (dir) => path.join(dir, 'rankscope-catalog.json');
const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${what}: page ${a}, core ${b}`);
const runName = (r) => `system-${String(r).padStart(3, '0')}`;
const runId = (r) => `run${String(r).padStart(3, '0')}`;
/** The CLI's document as {metric: {name: run}} (and the metric's entry). */
const byName = (doc) => Object.fromEntries(doc.metrics.map((m) => [m.metric, { ...m, byName: Object.fromEntries(m.runs.map((r) => [r.name, r])) }]));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rankscope-board-'));
const data = path.join(tmp, 'team/data');
const RUNS = 50;
const QUERIES = 40;
const METRICS = ['ndcg@10', 'map', 'precision@10'];

/** Two p-values (or adjusted ones) equal to within 1e-12 of their size. */
const pNear = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b)), `${what}: ${a} vs ${b}`);

/** The page's CSV export against the CLI's: every field equal, p-values to within 1e-12. */
function sameCsv(got, want) {
  const [g, w] = [got, want].map((t) => t.split('\n').map((l) => l.split(',')));
  assert.equal(g.length, w.length, 'CSV lines');
  const head = w[0];
  g.forEach((row, i) => row.forEach((cell, j) => {
    if (i > 0 && /^(p_|adjusted_)/.test(head[j]) && cell !== '') pNear(Number(cell), Number(w[i][j]), `CSV line ${i + 1} ${head[j]}`);
    else assert.equal(cell, w[i][j], `CSV line ${i + 1} ${head[j]}`);
  }));
}

/** The page's JSON export against the CLI's: equal, p-values to within 1e-12. */
function sameJson(got, want, where) {
  if (typeof want === 'number' && /\.(p|adjusted)$/.test(where)) return pNear(got, want, where);
  if (want === null || typeof want !== 'object') return assert.equal(got, want, where);
  assert.deepEqual(Object.keys(got), Object.keys(want), where);
  for (const k of Object.keys(want)) sameJson(got[k], want[k], `${where}.${k}`);
}

/** A seeded generator (mulberry32): the same catalog every time. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Judgments and RUNS TREC runs in `dir`, built into a catalog by `rankscope catalog build`;
 * then dates, authors, tags and metadata written into its manifest (the build keeps them). */
function generate(dir) {
  const rnd = random(52);
  fs.mkdirSync(path.join(dir, 'runs'), { recursive: true });
  const grades = [];
  let qrels = '';
  for (let q = 0; q < QUERIES; q++) {
    grades.push([]);
    for (let d = 0; d < 30; d++) {
      const g = rnd() < 0.25 ? (rnd() < 0.4 ? 2 : 1) : 0;
      grades[q].push(g);
      qrels += `q${101 + q} 0 d${d} ${g}\n`;
    }
  }
  fs.writeFileSync(path.join(dir, 'qrels.txt'), qrels);
  for (let r = 0; r < RUNS; r++) {
    // skill rises in steps of two runs (pairs of near ties)
    const skill = 0.2 + 1.6 * Math.floor(r / 2) / (RUNS / 2);
    let run = '';
    for (let q = 0; q < QUERIES; q++) {
      const scored = grades[q].map((g, d) => [d, g * skill + rnd() * 2]);
      scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      scored.slice(0, 20).forEach(([d, s], i) => { run += `q${101 + q} Q0 d${d} ${i + 1} ${s.toFixed(6)} run${r}\n`; });
    }
    fs.writeFileSync(path.join(dir, `runs/run${String(r).padStart(3, '0')}.run`), run);
  }
  const out = spawnSync(cliBin(), ['catalog', 'build', dir, '--metrics', METRICS.join(',')], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`catalog build: ${out.stderr}`);
  const m = JSON.parse(fs.readFileSync(manifestOf(dir), 'utf8'));
  const tags = [['lexical'], ['neural'], ['neural', 'hybrid'], []];
  m.runs.forEach((run, r) => {
    run.name = runName(r);
    run.date = `2026-${String(1 + Math.floor(r / 5)).padStart(2, '0')}-${String(1 + (r * 3) % 28).padStart(2, '0')}`;
    run.author = ['ana', 'bo', 'chen'][r % 3];
    run.tags = tags[r % 4];
    run.metadata = { method: r % 2 === 0 ? 'sparse' : 'dense' };
  });
  fs.writeFileSync(manifestOf(dir), JSON.stringify(m, null, 2));
}

/** The CLI's leaderboard of the catalog in `dir` (`format`: json, csv, markdown, latex). */
function leaderboard(dir, format, more = []) {
  const out = spawnSync(cliBin(), ['leaderboard', manifestOf(dir), '--format', format, ...more], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (out.status !== 0) throw new Error(`leaderboard: ${out.stderr}`);
  return out.stdout;
}

/** A copy of the good catalog as `name`, changed by `change(dir)`. */
function variant(name, change) {
  const dir = path.join(data, name);
  fs.cpSync(path.join(data, 'good'), dir, { recursive: true });
  change(dir);
}


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
  cli = JSON.parse(leaderboard(path.join(data, 'good'), 'json'));
  cli.baseline = JSON.parse(leaderboard(path.join(data, 'good'), 'json', ['--baseline', 'run000']));
  // a damaged manifest: a comma gone
  variant('damaged', (dir) => {
    const text = fs.readFileSync(manifestOf(dir), 'utf8');
    fs.writeFileSync(manifestOf(dir), text.replace('"name": "system-003",', '"name": "system-003"'));
  });
  variant('missing', (dir) => fs.rmSync(path.join(dir, 'values/run007.rsv')));
  variant('judgments', (dir) => {
    const m = JSON.parse(fs.readFileSync(manifestOf(dir), 'utf8'));
    m.judgments.push({ id: 'qrels-2025', file: 'qrels.txt', sha256: m.judgments[0].sha256 });
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


test('a link to the dashboard with ?catalog= opens the leaderboard under a sub-path; values, tie group and rank intervals are the core\'s', async () => {
  const { page, errors } = await openBoard(`${base}index.html?catalog=../data/good/rankscope-catalog.json`);
  assert.match(page.url(), /\/team\/app\/board\/\?catalog=/);
  const table = await readTable(page);
  const want = byName(cli);
  const first = METRICS[0];
  for (let r = 0; r < RUNS; r++) {
    const name = runName(r);
    const row = table[name];
    assert.ok(row, `row ${name}`);
    for (const m of METRICS) near(row.means[m], want[m].byName[name].mean, `${name} ${m}`);
    const c = want[first].byName[name];
    assert.equal(row.rank, c.rank, `${name} rank`);
    assert.equal(row.low, c.rank_interval[0], `${name} rank interval low`);
    assert.equal(row.high, c.rank_interval[1], `${name} rank interval high`);
    assert.equal(row.group, c.tie_group, `${name} in the tie group`);
  }
  // the groups are not trivial: some runs in, some out
  const inGroup = Object.values(table).filter((r) => r.group).length;
  assert.ok(inGroup > 1 && inGroup < RUNS, `${inGroup} runs in the tie group`);
  // the best run per column is marked
  for (const m of METRICS) {
    const best = await page.$eval(`#board-table td.best[data-metric="${m}"]`, (td) => td.dataset.run);
    assert.equal(best, want[m].runs.find((r) => r.best).name, `best on ${m}`);
  }
  // the method is stated
  const method = await page.textContent('#board-method');
  assert.match(method, /paired t-test/);
  assert.match(method, /Holm/);
  assert.match(method, /α = 0\.05/);
  assert.match(method, /1000 paired bootstrap resamples/);
  // a baseline: marks against it, as the CLI's
  await page.selectOption('#board-baseline', runName(0));
  // every run but the baseline tested against it (its p-values shown)
  await page.waitForFunction((n) => [...document.querySelectorAll('#board-table tbody tr')].filter((tr) => /^p [=<] /.test(tr.lastElementChild.textContent)).length === n - 1, RUNS, { timeout: 60000 });
  const vs = await page.$$eval('#board-table td.chosen', (tds) => Object.fromEntries(tds.map((td) => [td.dataset.run, td.textContent])));
  const marks = byName(cli.baseline)[first];
  let marked = 0;
  for (const [name, r] of Object.entries(marks.byName)) {
    const shown = vs[name].includes('▲') ? 1 : vs[name].includes('▼') ? -1 : 0;
    assert.equal(shown, r.vs_baseline ? r.vs_baseline.mark : 0, `${name} against the baseline`);
    if (shown) marked++;
  }
  assert.ok(marked > 0, 'some runs marked against the baseline');
  assert.match(page.url(), /#.*baseline=system-000/);
  // the heatmap is drawn, and the history
  assert.ok(await canvasHasInk(page, 0) > 1000, 'heatmap drawn');
  assert.ok(await canvasHasInk(page, 1) > 1000, 'history drawn');
  // a cell under the pointer names its run and query (the top row: the best run)
  await page.locator('.heat-scroll').scrollIntoViewIfNeeded();
  const box = await page.locator('.heat-scroll').boundingBox();
  await page.mouse.move(box.x + 3, box.y + 3);
  await page.waitForFunction(() => /query q\d+ · ndcg@10 = /.test(document.querySelector('#heat-readout').textContent));
  const readout = await page.textContent('#heat-readout');
  assert.ok(readout.startsWith(Object.entries(table).sort((a, b) => a[1].rank - b[1].rank)[0][0]), readout);
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
  await page.waitForFunction(() => document.querySelectorAll('#board-table tbody tr').length === 9);
  const shown = await page.$$eval('#board-table tbody tr', (trs) => trs.map((t) => t.dataset.run));
  // author bo (r % 3 == 1) and dense (odd r)
  const want = Array.from({ length: RUNS }, (_, r) => r).filter((r) => r % 3 === 1 && r % 2 === 1).map(runName);
  assert.deepEqual([...shown].sort(), want.sort());
  await page.fill('#board-filter', '');
  await page.waitForFunction((n) => document.querySelectorAll('#board-table tbody tr').length === n, RUNS);
  // sorted by the metric, best first
  const order = await page.$$eval('#board-table tbody tr', (trs) => trs.map((t) => t.dataset.run));
  const means = byName(cli)[METRICS[0]].byName;
  for (let i = 1; i < order.length; i++) {
    assert.ok(means[order[i - 1]].mean >= means[order[i]].mean, 'best first');
  }
  // clicking the metric's header sorts worst first
  await page.click(`#board-table th[data-metric="${METRICS[0]}"] button`);
  await page.waitForFunction(([first, last]) => document.querySelector('#board-table tbody tr').dataset.run === first, [order[order.length - 1]]);
  // two runs ticked: the dashboard's Compare view on their files
  await page.check(`tr[data-run="${runName(4)}"] input.pick`);
  await page.check(`tr[data-run="${runName(9)}"] input.pick`);
  const href = await page.getAttribute('#board-compare', 'href');
  assert.match(href, /\/team\/app\/index\.html\?qrels=.*qrels\.txt&run=.*runs\/run004\.run&run=.*runs\/run009\.run#tab=ranking/);
  // exports: the CLI's (every metric, the chosen first, no baseline): Markdown
  // and LaTeX byte for byte; CSV and JSON too but for the p-values, which the
  // worker's wasm computes to within 1e-12 of the native CLI (its logarithms
  // and exponentials are not the C library's)
  for (const [button, format] of [['csv', 'csv'], ['json', 'json'], ['md', 'markdown'], ['tex', 'latex']]) {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click(`button[data-export="${button}"]`)]);
    const text = fs.readFileSync(await d.path(), 'utf8');
    const want = leaderboard(path.join(data, 'good'), format);
    if (format === 'csv') sameCsv(text, want);
    else if (format === 'json') sameJson(JSON.parse(text), JSON.parse(want), 'json');
    else assert.equal(text, want, `${format} export`);
  }
  await page.close();
});

test('a damaged manifest: file, line and column; the board shown stays', async () => {
  const { page, errors } = await openBoard(`${base}board/?catalog=../data/good/rankscope-catalog.json`);
  await page.fill('#board-url', 'data/damaged/rankscope-catalog.json'.replace('data/', '../data/'));
  await page.click('#board-open button[type="submit"]');
  await page.waitForSelector('#board-problems li');
  const text = await page.textContent('#board-problems');
  // file:line:column, the line and column of the missing comma's place
  const lineOf = fs.readFileSync(manifestOf(path.join(data, 'damaged')), 'utf8').split('\n').findIndex((l) => l.includes('"system-003"')) + 1;
  assert.match(text, new RegExp(`damaged/rankscope-catalog\\.json:(${lineOf}|${lineOf + 1}):\\d+: expected`));
  assert.equal(await page.$$eval('#board-table tbody tr', (t) => t.length), RUNS, 'the board shown before stays');
  await shot(page, 'board-damaged.png');
  assert.deepEqual(errors, []);
  await page.close();
});

for (const [name, pattern, run] of [
  ['missing', /values\/run007\.rsv.*404/, 7],
  ['judgments', /run 'run005' was scored against the judgments 'qrels-2025'/, 5],
  ['conventions', /run 'run003' was computed under other conventions than the catalog's: gain exponential \(the catalog: linear\)/, 3],
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
