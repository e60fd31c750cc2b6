// Leaderboard benchmark: a catalog of RUNS runs × QUERIES queries × METRICS
// metrics (generated through the catalog's API, tests/board_catalog.rs),
// served by `python3 -m http.server`, opened from a link in headless Chromium.
// Reports: link → table drawn, then → tie group and rank intervals (1,000
// resamples, in the worker), the heatmap's frame times while it scrolls, and
// the tab's resident memory (this browser's processes only). Run on demand:
//
//   bash scripts/build.sh && node scripts/bench/board.mjs [RUNS QUERIES METRICS]   (default 200 10000 10)
//   BOARD_CATALOG=dir node scripts/bench/board.mjs RUNS ...   (a catalog generated before, kept)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execSync, spawn, spawnSync } from 'node:child_process';
import { root, dist, launch } from '../../tests/e2e/harness.mjs';

const [runs, queries, metrics] = [process.argv[2] || 200, process.argv[3] || 10000, process.argv[4] || 10].map(Number);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rankscope-board-bench-'));
const t0 = Date.now();
const gen = process.env.BOARD_CATALOG ? (fs.symlinkSync(process.env.BOARD_CATALOG, path.join(tmp, 'catalog')), { status: 0 }) : spawnSync('cargo', ['test', '--locked', '--quiet', '--test', 'board_catalog', '--', '--ignored'], {
  cwd: root, env: { ...process.env, BOARD_OUT: path.join(tmp, 'catalog'), BOARD_RUNS: String(runs), BOARD_QUERIES: String(queries), BOARD_METRICS: String(metrics) }, stdio: 'inherit',
});
if (gen.status !== 0) process.exit(1);
const bytes = fs.readdirSync(path.join(tmp, 'catalog/values')).reduce((s, f) => s + fs.statSync(path.join(tmp, 'catalog/values', f)).size, 0);
console.log(`catalog: ${runs} runs × ${queries} queries × ${metrics} metrics, values ${(bytes / 1e6).toFixed(1)} MB (generated in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
fs.symlinkSync(dist, path.join(tmp, 'app'));
const port = 20000 + Math.floor(Math.random() * 20000);
const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', tmp], { stdio: 'ignore' });
const base = `http://127.0.0.1:${port}/app/`;
for (let i = 0; i < 100; i++) {
  try { if ((await fetch(base)).ok) break; } catch { /* not up yet */ }
  await new Promise((r) => setTimeout(r, 100));
}

/** Resident memory (MB) of this browser's processes (the Chromium processes
 * descending from this script): all, and the largest (the tab's renderer, its workers inside). */
function rss(pid) {
  const rows = execSync('ps -e -o pid=,ppid=,rss=,comm=').toString().trim().split('\n').map((l) => l.trim().split(/\s+/));
  const mine = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, pp] of rows) if (mine.has(Number(pp)) && !mine.has(Number(p))) { mine.add(Number(p)); grew = true; }
  }
  const sizes = rows.filter(([p, , , comm]) => mine.has(Number(p)) && /chrom/.test(comm || '')).map(([, , r]) => Number(r) / 1024);
  return { total: sizes.reduce((a, b) => a + b, 0), largest: Math.max(0, ...sizes) };
}

const browser = await launch();
const pid = process.pid;
let peak = { total: 0, largest: 0 };
const sample = setInterval(() => {
  if (!pid) return;
  const now = rss(pid);
  peak = { total: Math.max(peak.total, now.total), largest: Math.max(peak.largest, now.largest) };
}, 100);
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
page.on('pageerror', (e) => console.error('page error:', String(e)));
const start = Date.now();
await page.goto(`${base}index.html?catalog=../catalog/rankscope-catalog.json`);
await page.waitForFunction((n) => document.querySelectorAll('#board-table tbody tr').length === n, runs, { timeout: 300000, polling: 20 });
const drawn = Date.now() - start;
await page.waitForFunction(() => [...document.querySelectorAll('#board-table td.interval')].every((td) => td.dataset.low !== ''), null, { timeout: 600000, polling: 20 });
const ranked = Date.now() - start;
const marks = await page.evaluate(() => globalThis.rankscopeBoard);
console.log(`link → leaderboard drawn: ${(drawn / 1000).toFixed(2)} s (catalog read and decoded: ${(marks['board-loaded'] / 1000).toFixed(2)} s)`);
console.log(`table → tie group and rank intervals: ${((ranked - drawn) / 1000).toFixed(2)} s more (the worker's job: ${(marks['board-ranked'] / 1000).toFixed(2)} s)`);

// the heatmap: scroll it across and down, one step per frame
await page.evaluate(() => { globalThis.rankscopeHeatFrames = []; });
const frames = await page.evaluate(async () => {
  const div = document.querySelector('.heat-scroll');
  const times = [];
  let last = performance.now();
  for (let i = 0; i < 240; i++) {
    div.scrollLeft += 40;
    if (i % 4 === 0) div.scrollTop += 12;
    await new Promise((r) => requestAnimationFrame(r));
    const now = performance.now();
    times.push(now - last);
    last = now;
  }
  return { frames: times, paints: globalThis.rankscopeHeatFrames };
});
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms (${s.length})`;
};
console.log(`heatmap scroll: frame intervals ${stats(frames.frames)}; painting the window ${stats(frames.paints)}`);
const size = await page.evaluate(() => { const c = document.querySelector('#heat-canvas'); return `${c.width}×${c.height}`; });
console.log(`heatmap canvas ${size} px`);
clearInterval(sample);
const now = pid ? rss(pid) : { total: 0, largest: 0 };
console.log(`memory: the tab's renderer ${now.largest.toFixed(0)} MB now, peak ${peak.largest.toFixed(0)} MB; all of this browser's processes peak ${peak.total.toFixed(0)} MB`);
await browser.close();
server.kill();
fs.rmSync(tmp, { recursive: true, force: true });
