// Browser benchmark: the release app in headless Chromium, large files loaded
// through the real loader (file picker -> worker -> transfer -> workspace ->
// dashboard). Reports per stage wall times from the app's User Timing marks,
// the peak resident memory of all Chromium processes, the time of a threshold
// update and of a convention change. Run on demand (not in CI):
//
//   cargo run --release --bin rankscope -- generate --preset large --kind ranking --out /tmp/rs-large
//   bash scripts/build.sh && node scripts/bench/browser.mjs /tmp/rs-large [ranking|binary|multiclass|ratings ...]
//   DIST=/tmp/dist-old node scripts/bench/browser.mjs ...   (another build, e.g. an older commit's)
//   node scripts/bench/browser.mjs /tmp/rs-large binary --runs 7   (the binary drop N times, each in a
//     fresh page: min and median of drop to dashboard and of the Diagnostics panel after the dashboard,
//     with the diagnostics job's stages from the page's `rankscope:diagnose:*` marks; no example timing)
import fs from 'node:fs';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { serve, launch, warmedWorkers } from '../../tests/e2e/harness.mjs';

const dir = process.argv[2];
const runsAt = process.argv.indexOf('--runs');
const repeat = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 1;
const only = process.argv.slice(3).filter((a, i, all) => a !== '--runs' && all[i - 1] !== '--runs');
if (!dir) { console.error('usage: node scripts/bench/browser.mjs DATA_DIR [kinds...]'); process.exit(2); }
// the spec's binary shape is `label,score` (one model): cut it from the generated file
if (fs.existsSync(path.join(dir, 'binary.csv')) && !fs.existsSync(path.join(dir, 'binary1.csv'))) {
  execSync(`cut -d, -f1,2 '${path.join(dir, 'binary.csv')}' > '${path.join(dir, 'binary1.csv')}'`);
}
let sets = [
  { kind: 'binary', files: ['binary1.csv'], model: 'gbdt' },
  { kind: 'ranking', files: ['bench.qrels', 'dense.run'], model: 'dense' },
  { kind: 'multiclass', files: ['multiclass.csv'], model: null },
  { kind: 'ratings', files: ['ratings.csv'], model: 'svd' },
].filter((s) => (only.length === 0 || only.includes(s.kind)) && s.files.every((f) => fs.existsSync(path.join(dir, f))));
// --runs N: the binary drop N times (the Diagnostics panel's figure)
if (repeat > 1) sets = Array.from({ length: repeat }, () => sets.filter((s) => s.kind === 'binary')).flat();

/** Resident memory (KiB) of every Chromium process (the benchmark's browser is the only one running). */
function chromiumRss() {
  const out = execSync('ps -e -o rss=,comm=').toString().trim().split('\n');
  let total = 0;
  for (const line of out) {
    const [rss, comm] = line.trim().split(/\s+/, 2);
    if (/chrom/.test(comm || '')) total += Number(rss);
  }
  return total;
}

/** Median time (ms) from running `act` in the page until every update it caused
 * (the reactive effects run as microtasks) is done: the next macrotask. */
async function timeUpdate(page, actSource, watchSelector, rounds = 15) {
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const t = await page.evaluate(([act, sel, i]) => new Promise((resolve) => {
      const before = [...document.querySelectorAll(sel)].map((e) => e.textContent + (e.dataset.value || '')).join('|');
      const t0 = performance.now();
      new Function('i', act)(i);
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        const t1 = performance.now();
        const after = [...document.querySelectorAll(sel)].map((e) => e.textContent + (e.dataset.value || '')).join('|');
        resolve(after === before ? NaN : t1 - t0);
      };
      ch.port2.postMessage(0);
    }), [actSource, watchSelector, i]);
    times.push(t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

// DIST=other/dist: the same benchmark on another build (an A/B against an older commit)
const { server, url } = process.env.DIST
  ? await serve('/unused/', { '/': path.resolve(process.env.DIST) }).then((s) => ({ ...s, url: s.url.replace('/unused/', '/') }))
  : await serve('/');
const browser = await launch();
const results = [];
// first render of the bundled example after navigation, in a fresh context
// each time (nothing cached): the end of the first frame that shows its metric
// table, seen by a mutation observer in the page; median of 7
if (repeat === 1) {
  const runs = [];
  for (let i = 0; i < 7; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript(() => {
      globalThis.rankscopeFirstRender = new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          if (!document.querySelector('td[data-metric]')) return;
          observer.disconnect();
          requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(performance.now()); ch.port2.postMessage(0); });
        });
        addEventListener('DOMContentLoaded', () => observer.observe(document, { subtree: true, childList: true, attributes: true }));
      });
    });
    await page.goto(url);
    runs.push(await page.evaluate(() => globalThis.rankscopeFirstRender));
    await page.close();
  }
  runs.sort((a, b) => a - b);
  console.log(JSON.stringify({ kind: 'first render of the example', since_navigation_s: +(runs[3] / 1000).toFixed(3), runs_s: runs.map((t) => +(t / 1000).toFixed(3)) }));
}
for (const set of sets) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // the page's wasm memory (it only grows: its size after the load is its peak)
  await page.addInitScript(() => { globalThis.rankscopeLoads = []; let last; Object.defineProperty(globalThis, 'rankscopeLastLoad', { configurable: true, get: () => last, set: (v) => { last = v; globalThis.rankscopeLoads.push(v); } }); });
  await page.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => { globalThis.rankscopeMemory = e.detail.wasm.memory; }));
  const wasmMb = () => page.evaluate(() => Math.round((globalThis.rankscopeMemory?.buffer.byteLength || 0) / 1048576));
  await page.goto(url);
  await page.waitForSelector('td[data-metric]', { timeout: 30000 });
  await page.click('#clear');
  await page.waitForSelector('section.empty');
  // a person drops a file seconds after the page opens: by then the two spare
  // workers have started and warmed up (each sets rankscopeWarmedUp)
  await warmedWorkers(page);
  // and the page has run its own warm-up (builds before it have none: they wait 5 s)
  await page.waitForFunction(() => globalThis.rankscopePageWarmedUp === true, null, { timeout: 5000 }).catch(() => {});
  const bytes = set.files.reduce((s, f) => s + fs.statSync(path.join(dir, f)).size, 0);
  let peak = 0;
  let peakAt = 0;
  const started = Date.now();
  const sampler = setInterval(() => {
    try {
      const rss = chromiumRss();
      if (rss > peak) { peak = rss; peakAt = Date.now() - started; }
    } catch { /* ps gone */ }
  }, 100);
  const baseline = chromiumRss();
  const wasmBefore = await wasmMb();
  const modelSel = set.model ? `td[data-metric][data-model="${set.model}"]` : 'td[data-metric]';
  // timed in the page: from the file input's change event to the end of the
  // first frame that shows the dashboard (its tables and a chart), seen by a
  // mutation observer; Playwright's own polling (harness_s) adds 0.1-0.2 s
  await page.evaluate((sel) => {
    globalThis.rankscopeDrop = null;
    document.querySelector('#file-input').addEventListener('change', () => { globalThis.rankscopeDrop = performance.now(); }, { capture: true, once: true });
    globalThis.rankscopeShown = new Promise((resolve) => {
      const check = () => {
        if (!document.querySelector(sel) || !document.querySelector('canvas')) return;
        observer.disconnect();
        requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(performance.now()); ch.port2.postMessage(0); });
      };
      const observer = new MutationObserver(check);
      observer.observe(document, { subtree: true, childList: true, attributes: true });
    });
    // binary: when the worker's Diagnostics panel shows the dropped model
    globalThis.rankscopeDiagnostics = new Promise((resolve) => {
      const check = () => {
        if (!document.querySelector('.diag-numbers tbody tr[data-model]') || !document.querySelector(sel)) return;
        observer.disconnect();
        resolve(performance.now());
      };
      const observer = new MutationObserver(check);
      observer.observe(document, { subtree: true, childList: true });
    });
  }, modelSel);
  const harness0 = await page.evaluate(() => performance.now());
  await page.setInputFiles('#file-input', set.files.map((f) => path.join(dir, f)));
  await page.waitForSelector(modelSel, { timeout: 600000 });
  await page.waitForFunction(() => document.querySelectorAll('canvas').length > 0, null, { timeout: 60000 });
  const harness1 = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(performance.now()))));
  const [t0, t1] = await page.evaluate(async () => [globalThis.rankscopeDrop, await globalThis.rankscopeShown]);
  clearInterval(sampler);
  peak = Math.max(peak, chromiumRss());
  const marks = await page.evaluate(() => performance.getEntriesByType('mark').filter((m) => m.name.startsWith('rankscope:')).map((m) => [m.name, m.startTime]));
  const stage = (what, file) => marks.find(([n]) => n === `rankscope:${what}:${file}`)?.[1];
  const row = { kind: set.kind, mb: +(bytes / 1e6).toFixed(1), drop_to_dashboard_s: +((t1 - t0) / 1000).toFixed(3), harness_s: +((harness1 - harness0) / 1000).toFixed(3), files: {} };
  for (const f of set.files) {
    const s = stage('start', f), p = stage('parsed', f), m = stage('merged', f);
    row.files[f] = { parse_s: +((p - s) / 1000).toFixed(3), merge_s: +((m - p) / 1000).toFixed(3), mb_per_s: +((fs.statSync(path.join(dir, f)).size / 1e6) / ((p - s) / 1000)).toFixed(1) };
  }
  row.worker = await page.evaluate(() => globalThis.rankscopeLastLoad);
  // the worker's job on the drop's timeline (epoch ms -> seconds from the drop)
  const origin = await page.evaluate(() => performance.timeOrigin);
  for (const w of [row.worker, row.worker?.tail].filter(Boolean)) {
    for (const k of ['began_at', 'posted_at', 'decode_began_at']) {
      if (typeof w[k] === 'number') w[k] = +((w[k] - origin - t0) / 1000).toFixed(3);
    }
  }
  row.decodes_ms = await page.evaluate(() => globalThis.rankscopeLoads.map((l) => Math.round(l.decode_ms)));
  const lastMerged = Math.max(...set.files.map((f) => stage('merged', f)));
  row.evaluate_and_render_s = +((t1 - lastMerged) / 1000).toFixed(3);
  row.peak_rss_mb = Math.round(peak / 1024);
  // when the peak happened, next to the load's stages (seconds from the drop)
  row.peak_at_s = +(peakAt / 1000).toFixed(1);
  row.stages_s = Object.fromEntries(marks.map(([n, t]) => [n.replace('rankscope:', ''), +((t - t0) / 1000).toFixed(2)]));
  row.rss_before_mb = Math.round(baseline / 1024);
  row.page_wasm_mb = { before: wasmBefore, after: await wasmMb() };
  if (set.kind === 'binary') {
    // the Diagnostics panel is written by a worker after the dashboard shows
    const diag = await page.evaluate(() => Promise.race([globalThis.rankscopeDiagnostics, new Promise((r) => setTimeout(() => r(null), 60000))]));
    row.diagnostics_after_dashboard_s = diag === null ? null : +((diag - t1) / 1000).toFixed(3);
    // the diagnostics job's stages (page marks, seconds after the dashboard)
    row.diagnose_stages_s = await page.evaluate((t1) => Object.fromEntries(performance.getEntriesByType('mark')
      .filter((m) => m.name.startsWith('rankscope:diagnose:')).map((m) => [m.name.slice(19), +((m.startTime - t1) / 1000).toFixed(3)])), t1);
    row.threshold_update_ms = +(await timeUpdate(page,
      "const s = document.querySelector('#threshold'); s.value = String(0.3 + 0.02 * i); s.dispatchEvent(new Event('input', { bubbles: true }));",
      'td[data-cm]')).toFixed(2);
    row.convention_change_ms = +(await timeUpdate(page,
      "const s = document.querySelector('#conv-threshold_rule'); s.value = s.value === '>=' ? '>' : '>='; s.dispatchEvent(new Event('change', { bubbles: true }));",
      'td[data-metric]', 5)).toFixed(2);
    row.scale_change_ms = +(await timeUpdate(page,
      "const s = document.querySelector('#conv-binary_scores_are_logits'); s.value = s.value === '1' ? '0' : '1'; s.dispatchEvent(new Event('change', { bubbles: true }));",
      'td[data-metric]', 3)).toFixed(2);
  }
  if (set.kind === 'ranking') {
    row.convention_change_ms = +(await timeUpdate(page,
      "const s = document.querySelector('#conv-ties'); s.value = s.value === 'trec' ? 'file' : 'trec'; s.dispatchEvent(new Event('change', { bubbles: true }));",
      'td[data-metric]', 5)).toFixed(2);
  }
  results.push(row);
  console.log(JSON.stringify(row));
  await page.close();
}
if (repeat > 1) {
  const stats = (xs) => { const s = xs.filter((x) => x !== null).sort((a, b) => a - b); return { min: s[0], median: s[Math.floor(s.length / 2)], runs: xs }; };
  console.log(JSON.stringify({
    kind: `binary x ${repeat}`,
    drop_to_dashboard_s: stats(results.map((r) => r.drop_to_dashboard_s)),
    diagnostics_after_dashboard_s: stats(results.map((r) => r.diagnostics_after_dashboard_s)),
  }));
}
await browser.close();
server.close();
