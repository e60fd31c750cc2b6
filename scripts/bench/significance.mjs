// Times the page's Compare view on a per-query values file, its tests run in
// the loading worker (#31's "10,000-permutation randomization test of one
// metric over 100,000 queries in at most 2 s in a worker"):
//
//   bash scripts/build.sh
//   tools/venv/bin/python scripts/bench/significance.py /tmp/rs-sig   # writes pair.csv
//   node scripts/bench/significance.mjs /tmp/rs-sig/pair.csv [runs]
//   node scripts/bench/significance.mjs --table QRELS RUN_A RUN_B [runs]
//   node scripts/bench/significance.mjs --example [runs]
//
// Each run opens the page, clears the example, drops the file (two models,
// one metric, 100,000 queries) and waits until the Compare card shows every
// test's p (t, Wilcoxon, sign, randomization with 10,000 sign flips,
// bootstrap with 1,000 resamples): from the drop to the drawn card, parsing
// included. Then it switches the card's baseline, which reruns every test on
// the values already loaded: the tests alone. Prints both per run.
//
// --table: drops a qrels and two runs, makes the first run the table's
// baseline, waits for the t-test marks, then chooses the randomization test
// and times it until its progress line is gone: one 10,000-flip test per
// column the table tests (the number of tested columns is printed).
//
// --example: the bundled example's ranking tab, as a person first meets it:
// choosing a baseline runs the chosen test on every column the table shows
// in a worker; then the test is switched to Wilcoxon and to the sign test.
// Each is timed from the choice until every column has its p and the
// "Testing…" line is gone (the worker's start, the tests and the marks).
// The baseline chosen is the last model (the first is what the table tests
// against before a baseline is chosen: choosing it may change no p value).
// Prints each run (with when the request left the page and how long the
// worker took, seen at the Worker object), then the min and median of each.
import fs from 'node:fs';
import { serve, launch, open, drop, clearAll } from '../../tests/e2e/harness.mjs';

const table = process.argv[2] === '--table';
if (process.argv[2] === '--example') {
  const runs = Number(process.argv[3] || 5);
  const { server, url } = await serve('/');
  const browser = await launch();
  /** ms from `act` until the table's marks are there and no test runs. */
  // each Compare job's request and answer seen at the Worker object (the
  // page's side before and after the worker: asking, then drawing the marks)
  const tap = () => {
    const Real = globalThis.Worker;
    globalThis.rankscopeCompareJobs = [];
    globalThis.Worker = class extends Real {
      postMessage(message, transfer) {
        const head = Array.isArray(message) ? message[0] : null;
        // (id, job): a one-byte id, then the variant; 3 is Job::Compare
        if (head && head[0] !== 0 && head[1] === 3) {
          this.job = { posted: performance.now() };
          globalThis.rankscopeCompareJobs.push(this.job);
        }
        return super.postMessage(message, transfer);
      }
      set onmessage(f) {
        super.onmessage = f && ((e) => { if (this.job) this.job.answered = performance.now(); return f.call(this, e); });
      }
      get onmessage() { return super.onmessage; }
    };
  };
  const timed = async (page, act) => {
    await page.evaluate(() => {
      globalThis.rankscopeCompareJobs.length = 0;
      globalThis.rankscopeMarked = new Promise((resolve) => {
        // (model, metric, p) of every tested cell: a new baseline moves the p values to other rows
        const ps = () => [...document.querySelectorAll('td[data-metric][data-p]')].map((t) => `${t.dataset.model}:${t.dataset.metric}:${t.dataset.p}`).join();
        const before = ps();
        const t0 = performance.now();
        // done when the marks are new (another test's p values) and no test runs
        const check = () => {
          const now = ps();
          if (now !== '' && now !== before && !document.querySelector('p.testing')) {
            const job = globalThis.rankscopeCompareJobs.at(-1) || {};
            return resolve([performance.now() - t0, now.split(',').length, job.posted - t0, job.answered - job.posted]);
          }
          requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
    });
    await act();
    return page.evaluate(() => globalThis.rankscopeMarked);
  };
  const rows = [];
  try {
    for (let run = 0; run < runs; run++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.addInitScript(tap);
      await page.goto(url);
      await page.waitForSelector('td[data-metric]', { timeout: 30000 });
      await page.click('nav.tabs button[data-tab="ranking"]');
      await page.waitForSelector('td[data-metric]');
      // the last model: not the first, which the table tests against while no baseline is chosen
      const a = await page.$$eval('label:has-text("Baseline") select option', (os) => os.map((o) => o.value).filter(Boolean).at(-1));
      const row = {};
      for (const [test, act] of [
        ['t (baseline chosen)', () => page.selectOption('label:has-text("Baseline") select', a)],
        ['wilcoxon', () => page.selectOption('#sig-test', 'wilcoxon')],
        ['sign', () => page.selectOption('#sig-test', 'sign')],
      ]) {
        const [ms, columns, posted, worker] = await Promise.race([timed(page, act), new Promise((r) => setTimeout(() => r([NaN, 0]), 20000))]);
        row[test] = `${ms.toFixed(0)} ms (${columns} cells; sent at ${posted?.toFixed(0)}, worker ${worker?.toFixed(0)})`;
      }
      rows.push(row);
      await page.close();
    }
    console.table(rows);
    const ms = (cell) => Number.parseFloat(cell);
    const summary = {};
    for (const test of Object.keys(rows[0])) {
      const xs = rows.map((r) => ms(r[test])).sort((x, y) => x - y);
      summary[test] = `min ${xs[0].toFixed(0)} ms, median ${xs[Math.floor(xs.length / 2)].toFixed(0)} ms`;
    }
    console.table(summary);
  } finally {
    await browser.close();
    server.close();
  }
  process.exit(0);
}
const file = process.argv[2];
const runs = Number(process.argv[table ? 6 : 3] || 3);
const { server, url } = await serve('/');
const browser = await launch();
if (table) {
  const files = process.argv.slice(3, 6).map((f) => ({ name: f.split('/').pop(), data: fs.readFileSync(f) }));
  try {
    for (let run = 0; run < runs; run++) {
      const { page } = await open(browser, url);
      await clearAll(page);
      await drop(page, files);
      await page.waitForFunction(() => new Set([...document.querySelectorAll('td[data-metric]')].map((td) => td.dataset.model)).size === 2, null, { timeout: 120000 });
      // the last model: not the first, which the table tests against while no baseline is chosen
      const a = await page.$$eval('label:has-text("Baseline") select option', (os) => os.map((o) => o.value).filter(Boolean).at(-1));
      await page.selectOption('label:has-text("Baseline") select', a);
      await page.waitForSelector('td[data-metric][data-p]', { timeout: 120000 });
      await page.waitForSelector('p.testing', { state: 'detached', timeout: 120000 });
      const t0 = Date.now();
      await page.selectOption('#sig-test', 'randomization');
      await page.waitForSelector('p.testing', { timeout: 30000 });
      await page.waitForSelector('p.testing', { state: 'detached', timeout: 600000 });
      const ms = Date.now() - t0;
      const tested = await page.$$eval('td[data-metric][data-p]', (ts) => ts.length);
      console.log(`run ${run + 1}: randomization (10,000 flips) of ${tested} columns ${(ms / 1000).toFixed(2)} s, ${(ms / tested / 1000).toFixed(3)} s per column`);
      await page.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
  process.exit(0);
}
const done = async (page, baseline) => {
  await page.waitForSelector(`.compare-panel[data-baseline="${baseline}"] tr[data-test="randomization"]`, { timeout: 120000 });
  await page.waitForFunction(() => !document.querySelector('.compare-body.stale'), null, { timeout: 120000 });
};
try {
  for (let run = 0; run < runs; run++) {
    const { page } = await open(browser, url);
    await clearAll(page);
    const data = fs.readFileSync(file);
    let t0 = Date.now();
    await drop(page, [{ name: 'pair.csv', data }]);
    await page.waitForSelector('#cmp-baseline', { timeout: 120000 });
    const first = await page.$eval('#cmp-baseline', (s) => s.value);
    await done(page, first);
    const dropped = Date.now() - t0;
    const other = await page.$eval('#cmp-baseline', (s) => [...s.options].map((o) => o.value).find((v) => v !== s.value));
    t0 = Date.now();
    await page.selectOption('#cmp-baseline', other);
    await done(page, other);
    const tests = Date.now() - t0;
    const p = await page.$eval('.compare-panel tr[data-test="randomization"]', (r) => r.dataset.p);
    console.log(`run ${run + 1}: drop to Compare card ${(dropped / 1000).toFixed(2)} s; every test again (new baseline) ${(tests / 1000).toFixed(2)} s; randomization p ${p}`);
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
