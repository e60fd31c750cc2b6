// The loader in the browser: parsing in a Web Worker with progress and Cancel,
// the same values as the native core on a generated run, and a clear error when
// no worker can start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, open, drop, refFile, oracle, cells, allCells, warmedWorkers, waitForModels, clearAll, close, outDir, root, cliBin } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

/** A seeded TREC run + qrels: `queries` x `docs`, tied scores and graded judgments. */
function generate(name, queries, docs) {
  fs.mkdirSync(outDir, { recursive: true });
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const run = fs.openSync(path.join(outDir, `${name}.run`), 'w');
  const qrels = fs.openSync(path.join(outDir, `${name}.qrels`), 'w');
  for (let q = 0; q < queries; q++) {
    let lines = '', judged = '';
    for (let d = 0; d < docs; d++) {
      const score = Math.round(rand() * 50) / 10; // ties on purpose
      lines += `q${q} Q0 doc${(q * 7919 + d * 104729) % 1000003} ${d + 1} ${score} ${name}\n`;
      if (rand() < 0.4) judged += `q${q} 0 doc${(q * 7919 + d * 104729) % 1000003} ${Math.floor(rand() * 4)}\n`;
    }
    judged += `q${q} 0 unretrieved${q} 1\n`;
    fs.writeSync(run, lines);
    fs.writeSync(qrels, judged);
  }
  fs.closeSync(run);
  fs.closeSync(qrels);
  return { run: path.join(outDir, `${name}.run`), qrels: path.join(outDir, `${name}.qrels`) };
}

const cli = cliBin;

test('a generated run is parsed in a worker and gives the native core\'s values', async () => {
  const files = generate('medium', 3000, 100); // 300,000 lines, ~11 MB
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await page.evaluate(() => { globalThis.rankscopeLastLoad = undefined; });
  await page.setInputFiles('#file-input', [files.qrels, files.run]);
  await waitForModels(page, ['medium']);
  // the page keeps loading workers started ahead of a drop, so whether one
  // starts during it says nothing: the stage times come only with a worker's answer
  const times = await page.evaluate(() => globalThis.rankscopeLastLoad);
  assert.equal(typeof times?.parse_ms, 'number', 'parsed in a worker');
  const shown = (await cells(page)).medium;
  const native = JSON.parse(execFileSync(cli(), ['eval', files.run, '--qrels', files.qrels, '--format', 'json', '-k', '1,3,5,10,20,100,1000'], { maxBuffer: 1 << 28 }));
  const want = native.models[0].metrics;
  let compared = 0;
  for (const [id, v] of Object.entries(shown)) {
    if (v === null || !(id in want)) continue;
    close(v, want[id], id);
    compared++;
  }
  assert.ok(compared >= 15, `compared ${compared} metrics`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a large load shows progress, and Cancel stops it keeping what was loaded', async () => {
  const files = generate('large', 40000, 100); // 4M lines, ~150 MB
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  const before = await cells(page);
  await page.setInputFiles('#file-input', [files.run]);
  const seen = new Set();
  for (let i = 0; i < 40 && seen.size < 3; i++) {
    const text = await page.locator('.progress span').textContent({ timeout: 10000 }).catch(() => null);
    if (text) seen.add(text);
    await page.waitForTimeout(50);
  }
  assert.ok(seen.size >= 2, `progress moved: ${[...seen]}`);
  await page.click('.progress button');
  await page.waitForSelector('text=Loading large.run cancelled');
  await page.waitForSelector('.progress', { state: 'detached' });
  assert.deepEqual(await cells(page), before, 'everything loaded before is unchanged');
  assert.deepEqual(errors, []);
  await page.close();
});

test('without the worker script a drop fails with a clear message and loses nothing', async () => {
  // page.route does not see requests a service worker answers: block it here
  const { page, errors } = await open(browser, url, { serviceWorkers: 'block' });
  await page.route('**/rankscope-worker_loader.js', (r) => r.fulfill({ status: 404, body: '' }));
  // the page keeps two workers started ahead: this drop takes them, and
  // the workers started to replace them cannot load their script
  await drop(page, [refFile('ranking.run'), refFile('ranking.qrels')]);
  await page.waitForSelector('td[data-metric][data-model="bench"]');
  const before = await cells(page);
  await drop(page, [refFile('binary.csv')]);
  await page.waitForSelector('text=could not be loaded');
  const text = await page.locator('.messages').textContent();
  assert.match(text, /binary\.csv could not be loaded/);
  assert.match(text, /loading worker could not start/);
  assert.match(text, /Nothing already loaded was changed/);
  // what was loaded is still there
  assert.deepEqual(await cells(page), before);
  assert.ok(errors.every((e) => /404|worker/i.test(e)), errors.join('\n'));
  await page.close();
});

test('a run DataFrame saved by pandas (no relevance column) is evaluated against the qrels, which a later one keeps', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  const csv = fs.readFileSync(path.join(root, 'tests/reference/extra/ranking.run.csv'));
  await drop(page, [refFile('ranking.qrels'), { name: 'ranking.run.csv', data: csv }]);
  await waitForModels(page, ['ranking.run']);
  await drop(page, [{ name: 'later.csv', data: csv }]);
  await waitForModels(page, ['ranking.run', 'later']);
  const shown = await cells(page);
  // the same run as a TREC file, by the native CLI
  const native = JSON.parse(execFileSync(cli(), ['eval', path.join(root, 'tests/reference/ranking.run'), '--qrels', path.join(root, 'tests/reference/ranking.qrels'), '--format', 'json', '-k', '1,3,5,10,20,100,1000']));
  const want = native.models[0].metrics;
  for (const model of ['ranking.run', 'later']) {
    let compared = 0;
    for (const [id, v] of Object.entries(shown[model])) {
      if (v === null || !(id in want)) continue;
      close(v, want[id], `${model} ${id}`);
      compared++;
    }
    assert.ok(compared >= 15, `${model}: compared ${compared} metrics`);
  }
  assert.ok(want['ndcg@10'] > 0, 'judgments were applied');
  assert.deepEqual(errors, []);
  await page.close();
});

test('trec_eval -q output is shown as written, next to nothing recomputed', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  const text = 'P_5                   \tq1\t0.4000\nmap                   \tq1\t0.3125\nP_5                   \tq2\t0.2000\nmap                   \tq2\t0.5\nrunid                 \tall\tbm25_elsewhere\nnum_q                 \tall\t2\nmap                   \tall\t0.40625\nP_5                   \tall\t0.3000\n';
  await drop(page, [{ name: 'bm25.eval', data: Buffer.from(text) }]);
  await page.waitForSelector('td[data-measure="map"][data-model="bm25_elsewhere"]');
  const v = await page.$$eval('section.precomputed td[data-measure]', (tds) => tds.map((t) => [t.dataset.measure, t.dataset.value]));
  assert.deepEqual(v.slice(0, 3), [['P_5', '0.3'], ['map', '0.40625'], ['num_q', '2']]);
  await page.click('section.precomputed button.link >> text=map');
  await page.waitForSelector('tr[data-query="q2"] td[data-measure="map"][data-value="0.5"]');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a 2 GB file is refused at once with what to do instead, and nothing loaded is lost', async () => {
  // 20,000 real rows, then a sparse 2 GiB tail (no disk space): the worker
  // estimates the rows from the size after the first 20,000 and stops reading
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'huge.csv');
  let text = 'label,score\n';
  for (let i = 0; i < 20000; i++) text += `${i % 2},0.${String(i).padStart(5, '0')}\n`;
  fs.writeFileSync(file, text);
  fs.truncateSync(file, 2 * 1024 ** 3);
  try {
    const { page, errors } = await open(browser, url);
    const before = await cells(page);
    const t0 = Date.now();
    await page.setInputFiles('#file-input', file);
    await page.waitForSelector('.msg.error', { timeout: 30000 });
    const seconds = (Date.now() - t0) / 1000;
    const shown = await page.$eval('.msg.error', (e) => e.textContent);
    assert.match(shown, /huge\.csv:20001: expected at most 40,000,000 values in one file \(one per score of a row, 16 per query of a run\), the most a browser tab's 32-bit memory evaluates safely, found about [0-9,]+ \(estimated from the file's size, 2\.15 GB, and its first 20,000 rows\)\. Evaluate it with the command-line tool \(rankscope eval FILE\)/);
    // refused from the first slice, not after reading 2 GB
    assert.ok(seconds < 10, `refused after ${seconds} s`);
    assert.deepEqual(await cells(page), before);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('the example is read from the build\'s example.bin, and made by a worker without it, with the same values', async () => {
  // page.route does not see requests a service worker answers: block it
  const load = async (exampleBin) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const fetched = [];
    page.on('response', (r) => { if (r.url().endsWith('/example.bin')) fetched.push(r.status()); });
    if (exampleBin) await page.route('**/example.bin', (r) => r.fulfill(exampleBin));
    // whether a worker was started before the example's values were shown
    await page.addInitScript(() => {
      const Worker = globalThis.Worker;
      globalThis.Worker = function (...args) { globalThis.workerBeforeValues ??= !document.querySelector('td[data-metric]'); return new Worker(...args); };
    });
    await page.goto(url);
    await page.waitForSelector('td[data-metric]', { timeout: 30000 });
    const all = await allCells(page);
    const workerFirst = await page.evaluate(() => globalThis.workerBeforeValues === true);
    await page.close();
    return { all, fetched, errors, workerFirst };
  };
  const ahead = await load(null);
  assert.deepEqual(ahead.fetched, [200], 'example.bin was fetched');
  assert.equal(ahead.workerFirst, false, 'no worker was needed for the example');
  assert.deepEqual(Object.keys(ahead.all).sort(), ['binary', 'multiclass', 'ranking', 'ratings']);
  // missing (a build by trunk alone), or not readable (from another version): the worker makes it
  for (const exampleBin of [{ status: 404, body: '' }, { status: 200, body: 'not the example' }]) {
    const made = await load(exampleBin);
    assert.deepEqual(made.all, ahead.all, `example.bin answered ${exampleBin.status}`);
    assert.equal(made.workerFirst, true, 'a worker made the example');
    assert.deepEqual(made.errors, []);
  }
});

test('two spare workers and the page are warmed up ahead of a drop', async () => {
  // a spare asked to warm up before its wasm ran lost the message and met
  // its first job in the browser's baseline code (several times slower)
  const { page, errors } = await open(browser, url);
  await page.waitForSelector('td[data-metric]');
  const shown = await cells(page);
  assert.equal(await warmedWorkers(page, 2, 30000), 2, 'two warmed-up spare workers');
  // the page runs its own hot code on the example, through a scratch state of its own
  await page.waitForFunction(() => globalThis.rankscopePageWarmedUp === true, null, { timeout: 30000 });
  assert.deepEqual(await cells(page), shown, 'the warm-up leaves the shown data alone');
  assert.deepEqual(errors, []);
  await page.close();
});

/** Writes `name` of the reference file's rows repeated `copies` times (past
 * the 16 MiB where a file is split; every metric of a file repeated is the
 * file's), drops it on a cleared page, and checks it was parsed as two parts. */
async function dropRepeated(reference, copies, name, preamble = '') {
  const [header, ...rows] = fs.readFileSync(path.join(root, 'tests/reference', reference), 'utf8').trim().split('\n');
  const block = rows.join('\n') + '\n';
  fs.mkdirSync(outDir, { recursive: true });
  const big = path.join(outDir, `${name}.csv`);
  fs.writeFileSync(big, `${preamble}${header}\n${block.repeat(copies)}`);
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await page.setInputFiles('#file-input', big);
  await waitForModels(page, [name]);
  assert.equal(await page.evaluate(() => globalThis.rankscopeLastLoad?.split), true, 'parsed as two parts');
  return { page, errors, header, rows, block };
}

test('a large multi-class matrix is parsed by two workers at once and gives scikit-learn\'s values; its problems keep their lines', async () => {
  // the reference matrix's 200 rows, 150 times: 18 MB
  const { page, errors, header, rows, block } = await dropRepeated('multiclass_probs.csv', 150, 'matrix-big');
  const m = oracle.multiclass;
  const v = (await cells(page))['matrix-big'];
  for (const k of [5, 10]) close(v[`acc@${k}`], m[`acc@${k}`]['naive ties: lower class index first'], `acc@${k}`);
  close(v.cross_entropy, m.cross_entropy['sklearn.log_loss (no renormalisation in 1.9, clip eps)'], 'CE');
  // a bad target in the head, a bad score in the tail: both at their lines
  const lines = 1 + 200 * 150;
  const bad = path.join(outDir, 'matrix-bad.csv');
  fs.writeFileSync(bad, `${header}\n77${rows[0].slice(rows[0].indexOf(','))}\n${block.repeat(150)}${rows[1].replace(/,[^,]*$/, ',x')}\n`);
  await page.setInputFiles('#file-input', bad);
  await page.waitForSelector('text=matrix-bad.csv could not be loaded (2 problems)');
  const text = await page.locator('.messages').textContent();
  assert.match(text, /matrix-bad\.csv:2:1: expected a class number that has a column \(0\.\.49\), found '77'/);
  assert.match(text, new RegExp(`matrix-bad\\.csv:${lines + 2}:51: expected a probability or logit \\(a number\\), found 'x'`));
  // the large file is still loaded
  assert.deepEqual((await cells(page))['matrix-big'], v);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a large binary CSV is parsed by two workers at once and gives scikit-learn\'s values; its problems keep their lines', async () => {
  // the reference file's 200 rows, 8000 times: 17.6 MB
  const { page, errors, header, block } = await dropRepeated('binary.csv', 8000, 'binary-big', '# 8000 copies of the reference rows\n');
  const b = oracle.binary;
  const v = (await cells(page))['binary-big'];
  close(v.roc_auc, b.roc_auc['sklearn.roc_auc_score'], 'roc_auc');
  close(v.average_precision, b.pr_auc['sklearn.average_precision_score (step, ties grouped)'], 'AP');
  close(v.log_loss, b.log_loss['sklearn.log_loss (clip to float64 eps=2.2e-16)'], 'log loss');
  close(v.f1, b.f1['sklearn [score>=0.5]'], 'f1');
  close(v.mcc, b.mcc['sklearn [score>=0.5]'], 'mcc');
  const cm = await page.$$eval('table.confusion td[data-cm]', (tds) => Object.fromEntries(tds.map((t) => [t.dataset.cm, Number(t.textContent)])));
  const want = Object.fromEntries(Object.entries(b['confusion[score>=0.5]']).map(([k, n]) => [k, n * 8000]));
  assert.deepEqual(cm, want);
  // a bad row in each half: both reported, at their lines in the whole file
  const lines = 2 + 200 * 8000;
  const bad = path.join(outDir, 'binary-bad.csv');
  fs.writeFileSync(bad, `# 8000 copies of the reference rows\n${header}\nmaybe,0.5\n${block.repeat(8000)}1,high\n`);
  await page.setInputFiles('#file-input', bad);
  await page.waitForSelector('text=binary-bad.csv could not be loaded (2 problems)');
  const text = await page.locator('.messages').textContent();
  assert.match(text, /binary-bad\.csv:3:1: expected a binary label/);
  assert.match(text, new RegExp(`binary-bad\\.csv:${lines + 2}:2: expected a score for model 'score'`));
  // the large file is still loaded
  assert.deepEqual((await cells(page))['binary-big'], v);
  assert.deepEqual(errors, []);
  await page.close();
});
