// Rankscope against the peers in one run on this machine, with the issue's
// goals checked: the browser benchmark (`browser.mjs`) run R times per kind,
// the peers (`peers.py`, medians of P) timed between the first and the second
// half of those runs (the machine's speed drifts: ratios only hold within one
// run), the native CLI on the ranking files, and the release wasm sizes.
// Prints a Markdown table of medians, ranges, ratios and goals (met in how
// many runs); `--json FILE` also keeps every raw figure. Run on demand (not in CI):
//
//   cargo run --release --bin rankscope -- generate --preset large --kind all --out /tmp/rs-large
//   bash scripts/build.sh && cargo build --release --bin rankscope
//   node scripts/bench/compare.mjs /tmp/rs-large [--runs 3] [--peers 3] [--json out.json] [binary ranking multiclass]
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dist, WASM, distFiles, gzippedBytes } from '../../tests/e2e/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const runs = Number(option('--runs', '3'));
const peerRuns = Number(option('--peers', '3'));
const jsonOut = option('--json', null);
const [dir, ...kinds] = args;
if (!dir || !(runs >= 1) || !(peerRuns >= 1)) {
  console.error('usage: node scripts/bench/compare.mjs DATA_DIR [--runs N] [--peers N] [--json FILE] [binary ranking multiclass]');
  process.exit(2);
}
const files = {
  binary: ['binary1.csv'],
  ranking: ['bench.qrels', 'dense.run'],
  multiclass: ['multiclass.csv'],
};
// browser.mjs cuts binary1.csv from binary.csv; the peers' set-only timings need binary.csv
const have = (f) => fs.existsSync(path.join(dir, f)) || (f === 'binary1.csv' && fs.existsSync(path.join(dir, 'binary.csv')));
const wanted = Object.keys(files).filter((k) => (kinds.length === 0 || kinds.includes(k)) && files[k].every(have));
if (wanted.length === 0) {
  console.error(`no benchmark files in ${dir} (generate them first: see the top of this script)`);
  process.exit(2);
}

const log = (...m) => console.error(`[compare ${new Date().toISOString().slice(11, 19)}]`, ...m);
function run(cmd, argv, env = {}) {
  const r = spawnSync(cmd, argv, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26, env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

// The machine's cost of memory touched for the first time, in s per GiB, taken
// right before each browser run by a fresh process writing one byte per page of
// 512 MiB. On a VM whose guest returns free pages to the host (free page
// reporting: this machine's Firecracker kernel runs with
// page_reporting.page_reporting_order=11), memory freed more than a second or
// so ago is backed again on its next touch, at 1.5-2.5 s per GiB instead of the
// 0.1-0.2 s of memory that stayed backed; every drop's new columns, buffers and
// worker heaps pay it. This figure lets a slow run be read as the machine's.
const freshMemory = [];
function probeFreshMemory() {
  const probe = `const n = 512 << 20, t = process.hrtime.bigint(), b = Buffer.allocUnsafeSlow(n);
    for (let i = 0; i < n; i += 4096) b[i] = 1;
    console.log(Number(process.hrtime.bigint() - t) / 1e9 / (n / 2 ** 30));`;
  freshMemory.push(Number(run('node', ['-e', probe]).trim()));
}

// the browser: one process per run (a fresh browser each time), every kind in it
const browser = [];
function browserRun() {
  log('browser run', browser.length + 1, 'of', runs);
  probeFreshMemory();
  const rows = run('node', [path.join(here, 'browser.mjs'), dir, ...wanted])
    .split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  browser.push(rows);
}
const firstHalf = Math.ceil(runs / 2);
for (let i = 0; i < firstHalf; i++) browserRun();
log('peers (median of', peerRuns, 'each)');
const peers = {};
for (const line of run('python3', [path.join(here, 'peers.py'), dir, String(peerRuns)]).split('\n')) {
  const m = line.match(/^peer (\S+) ([\d.]+)$/);
  if (m) peers[m[1]] = Number(m[2]);
}
for (let i = firstHalf; i < runs; i++) browserRun();

// the native CLI on the ranking files (wall time, one process each)
const cliTimes = [];
const cli = path.join(root, 'target/release/rankscope');
if (wanted.includes('ranking') && fs.existsSync(cli)) {
  for (let i = 0; i < runs; i++) {
    log('native CLI run', i + 1, 'of', runs);
    const t = process.hrtime.bigint();
    run(cli, ['eval', path.join(dir, 'dense.run'), '--qrels', path.join(dir, 'bench.qrels')]);
    cliTimes.push(Number(process.hrtime.bigint() - t) / 1e9);
  }
}

// the release wasm, gzipped as scripts/build.sh measures it
const wasm = {};
for (const [name, re] of Object.entries(WASM)) {
  const [f] = distFiles(re);
  if (f) wasm[name] = gzippedBytes(path.join(dist, f));
}

// ------------------------------------------------------------------ the table
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x, d = 2) => (x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(d));
const range = (xs, d = 2, unit = '') => `${fmt(median(xs), d)}${unit} (${fmt(Math.min(...xs), d)}-${fmt(Math.max(...xs), d)})`;
const rowsOf = (kind) => browser.map((rs) => rs.find((r) => r.kind === kind)).filter(Boolean);
const lines = [];
const out = (s) => lines.push(s);
/** A goal row: `values` per run, `ok` per value; met at the median, and in how many runs. */
function goal(workload, measured, goalText, values, ok) {
  const met = values.filter(ok).length;
  const verdict = `${ok(median(values)) ? 'met' : '**missed**'} at the median; ${met} of ${values.length} runs`;
  out(`| ${workload} | ${measured} | ${goalText} | ${verdict} |`);
}

out(`Rankscope against the peers, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${runs} browser runs (median, range), peers median of ${peerRuns}`);
out('');
out('| workload | measured | goal | verdict |');
out('|---|---|---|---|');
const first = browser.map((rs) => rs.find((r) => r.kind === 'first render of the example')?.since_navigation_s).filter((x) => x !== undefined);
if (first.length) goal('first render of the example', `${range(first)} s`, 'at most 1 s', first, (x) => x <= 1);
const binary = rowsOf('binary');
if (binary.length) {
  const t = binary.map((r) => r.drop_to_dashboard_s);
  goal(`binary CSV (${binary[0].mb} MB), drop to dashboard`, `${range(t)} s`, 'at most 1.5 s', t, (x) => x <= 1.5);
  for (const [peer, times, want] of [['scikit-learn', 'sklearn_read_and_evaluate', 25], ['numpy', 'numpy_read_and_evaluate', 5]]) {
    const p = peers[times];
    if (p === undefined) continue;
    goal(`binary, ratio to ${peer} end to end (${fmt(p)} s)`, `${fmt(p / median(t), 1)}x (${fmt(p / Math.max(...t), 1)}-${fmt(p / Math.min(...t), 1)}x)`, `at least ${want}x`, t.map((x) => p / x), (r) => r >= want);
  }
  const thr = binary.map((r) => r.threshold_update_ms);
  goal('binary threshold update (median of 15 moves per run)', `${range(thr, 1)} ms`, 'at most 16 ms', thr, (x) => x <= 16);
  const conv = binary.map((r) => r.convention_change_ms);
  goal('binary convention change (>= / >)', `${range(conv, 1)} ms`, 'at most 1 s', conv, (x) => x <= 1000);
}
const ranking = rowsOf('ranking');
if (ranking.length) {
  const t = ranking.map((r) => r.drop_to_dashboard_s);
  goal(`ranking run + qrels (${ranking[0].mb} MB), drop to dashboard`, `${range(t)} s`, 'at most 5 s', t, (x) => x <= 5);
  const p = peers.pytrec_eval_read_and_evaluate;
  if (p !== undefined) {
    goal(`ranking, ratio to pytrec_eval end to end (${fmt(p)} s)`, `${fmt(p / median(t), 1)}x (${fmt(p / Math.max(...t), 1)}-${fmt(p / Math.min(...t), 1)}x)`, 'at least 3x', t.map((x) => p / x), (r) => r >= 3);
  }
  const mem = ranking.map((r) => (r.peak_rss_mb - r.rss_before_mb) / 1024);
  goal('ranking, tab memory (peak over the page before the drop)', `+${range(mem)} GB`, 'at most 1 GB', mem, (x) => x <= 1);
  const conv = ranking.map((r) => r.convention_change_ms);
  goal('ranking convention change (tie rule)', `${range(conv, 0)} ms`, 'at most 1 s', conv, (x) => x <= 1000);
  if (cliTimes.length) goal('ranking, native CLI (`rankscope eval`)', `${range(cliTimes)} s`, 'at most 3 s', cliTimes, (x) => x <= 3);
}
const multiclass = rowsOf('multiclass');
if (multiclass.length) {
  const t = multiclass.map((r) => r.drop_to_dashboard_s);
  goal(`multi-class matrix (${multiclass[0].mb} MB), drop to dashboard`, `${range(t)} s`, 'at most 8 s', t, (x) => x <= 8);
}
if (wasm.page !== undefined) {
  goal('release wasm of the page, gzipped', `${fmt(wasm.page / 1000, 1)} KB (worker ${fmt(wasm.worker / 1000, 1)} KB)`, 'at most 410 KB', [wasm.page], (x) => x <= 410000);
}
out('');
const perRun = (kind) => rowsOf(kind).map((r) => fmt(r.drop_to_dashboard_s)).join(', ');
out(`Per browser run, in order: first touch of fresh memory just before it ${freshMemory.map((x) => fmt(x)).join(', ')} s/GiB; ${wanted.map((k) => `${k} drop ${perRun(k)} s`).join('; ')}`);
out('');
out(`Peers (s): ${Object.entries(peers).map(([k, v]) => `${k} ${fmt(v)}`).join(', ') || 'none timed'}`);
console.log(lines.join('\n'));
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ runs, peerRuns, peers, browser, freshMemory, cliTimes, wasm, table: lines }, null, 1));
