// trec_eval's other measures in the page: offered apart in the metric picker,
// with the values `rankscope trec_eval` (the port of trec_eval 10.0's C) prints
// for the same files, on trec_eval's own test files (graded, with judged -1).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, open, drop, root, cells, waitForModels, clearAll, shot } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const trecFile = (name) => path.join(root, 'tests/trec_eval', name);

function trecEval(args) {
  const bin = path.join(root, 'target/debug/rankscope');
  if (!fs.existsSync(bin)) execFileSync('cargo', ['build', '--locked', '--bin', 'rankscope'], { cwd: root, stdio: 'inherit' });
  const out = execFileSync(bin, ['trec_eval', ...args, trecFile('qrels.rel_level'), trecFile('results.test')], { encoding: 'utf8' });
  const values = {};
  for (const line of out.trim().split('\n')) {
    const [name, q, v] = line.split('\t');
    (values[q] ??= {})[name.trim()] = v;
  }
  return values;
}

// the page's column for a trec_eval output name
function column(name) {
  const fixed = {
    set_P: 'set_p', set_F: 'set_f', set_relative_P: 'set_relative_p', set_recall: 'set_recall', set_map: 'set_map',
    infAP: 'infap', gm_bpref: 'gm_bpref', binG: 'bin_g', G: 'g', ndcg_rel: 'ndcg_rel', Rndcg: 'rndcg',
    rbp: 'rbp', rbp_resid: 'rbp_resid', utility: 'utility', yaap: 'yaap', '11pt_avg': '11pt_avg',
    num_nonrel_judged_ret: 'num_nonrel_judged_ret',
  };
  if (fixed[name]) return fixed[name];
  if (name.startsWith('Rprec_mult_')) return name.toLowerCase();
  const m = name.match(/^(relative_P|unj)_(\d+)$/);
  if (m) return `${m[1] === 'unj' ? 'unj' : 'relative_p'}@${m[2]}`;
  return null;
}

async function showEveryExtra(page) {
  await page.click('.more-metrics > summary');
  for (const chip of await page.$$('.more-metrics button.chip:not(.on)')) await chip.click();
}

test("trec_eval's other measures are offered apart and equal rankscope trec_eval's values, at two relevance levels and per query", async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 900 } });
  await clearAll(page);
  const file = (name) => ({ name, data: fs.readFileSync(trecFile(name)) });
  await drop(page, [file('qrels.rel_level'), file('results.test')]);
  await waitForModels(page, ['STANDARD']);
  // folded away at first: the table shows none of them
  assert.equal(await page.$eval('.more-metrics', (d) => d.open), false);
  assert.ok(!Object.keys((await cells(page)).STANDARD).some((c) => c.startsWith('infap')));
  await showEveryExtra(page);
  const chips = await page.$$eval('.more-metrics button.chip', (bs) => bs.map((b) => [b.dataset.metric, b.classList.contains('on')]));
  assert.equal(chips.length, 20);
  assert.ok(chips.every(([, on]) => on), 'every chip on');
  await shot(page, 'trec-measures.png');

  const ks = await page.$eval('.cutoffs input', (i) => i.value);
  const args = ['-m', 'all_trec', '-m', 'yaap', '-m', `relative_P.${ks}`, '-m', `unj.${ks}`];
  for (const level of ['1', '2']) {
    if (level !== '1') {
      await page.fill('#conv-relevance_level', level);
      await page.dispatchEvent('#conv-relevance_level', 'change');
      await page.waitForFunction(() => !document.querySelector('section.loading'));
    }
    const want = trecEval(level === '1' ? args : ['-l', level, ...args]).all;
    const got = (await cells(page)).STANDARD;
    let compared = 0;
    for (const [name, v] of Object.entries(want)) {
      const id = column(name);
      if (!id) continue;
      assert.ok(id in got, `the page shows ${id} (trec_eval ${name})`);
      // trec_eval prints %6.4f (counts as integers): the page's value rounds to it
      assert.ok(Math.abs(got[id] - Number(v)) <= 0.5e-4 + 1e-12, `${id} at level ${level}: page ${got[id]}, trec_eval ${name} ${v}`);
      compared++;
    }
    // 27 measures of all_trec and yaap, and relative_P and unj at each cutoff
    assert.equal(compared, 27 + 2 * ks.split(',').length, `measures compared at level ${level}`);
  }

  // the trec_eval -q export holds the table's measures, line for line trec_eval's
  // (the page's default "which queries count" is trec_eval -c)
  const [trec] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="trec"]')]);
  const exported = fs.readFileSync(await trec.path(), 'utf8').trim().split('\n');
  const bin = path.join(root, 'target/debug/rankscope');
  const port = execFileSync(bin, ['trec_eval', '-q', '-c', '-l', '2', ...args, trecFile('qrels.rel_level'), trecFile('results.test')], { encoding: 'utf8' }).trim().split('\n');
  const portLines = new Set(port);
  let same = 0;
  for (const line of exported) {
    const name = line.split('\t')[0].trim();
    if (!column(name)) continue;
    assert.ok(portLines.has(line), `exported line ${JSON.stringify(line)} is trec_eval's`);
    same++;
  }
  // every per-query and all line of those measures (3 queries + all)
  assert.equal(same, port.filter((l) => column(l.split('\t')[0].trim()) && !l.startsWith('gm_bpref') || l.startsWith('gm_bpref') && l.includes('\tall\t')).length);

  // per query: the per-query table's infAP is trec_eval -q's
  const perQuery = trecEval(['-l', '2', '-q', '-m', 'infAP']);
  await page.selectOption('#per-query-metric', 'infap');
  await page.waitForFunction(() => document.querySelector('table.rr thead')?.textContent.includes('STANDARD: infap'));
  const rows = await page.$$eval('table.rr tbody tr', (trs) => trs.map((tr) => [tr.dataset.query, Number(tr.querySelector('td[data-per-query]').dataset.perQuery)]));
  assert.equal(rows.length, Object.keys(perQuery).length - 1, "every query but all");
  for (const [q, v] of rows) assert.ok(Math.abs(v - Number(perQuery[q].infAP)) <= 0.5e-4 + 1e-12, `infAP of query ${q}: page ${v}, trec_eval ${perQuery[q].infAP}`);
  assert.deepEqual(errors, []);
  await page.close();
});

// what `rankscope trec_eval` prints for a command line: {qid: {measure: value}}
function port(args) {
  const bin = path.join(root, 'target/debug/rankscope');
  if (!fs.existsSync(bin)) execFileSync('cargo', ['build', '--locked', '--bin', 'rankscope'], { cwd: root, stdio: 'inherit' });
  const values = {};
  for (const line of execFileSync(bin, ['trec_eval', ...args], { cwd: path.join(root, 'tests/trec_eval'), encoding: 'utf8' }).trim().split('\n')) {
    const [name, q, v] = line.split('\t');
    (values[q] ??= {})[name.trim()] = v;
  }
  return values;
}

// the panel's cells: {model: {measure: value}} of the `all` lines
async function panelValues(page) {
  return page.$$eval('section.precomputed table.metrics:not(.per-query) td[data-measure]', (tds) => {
    const out = {};
    for (const td of tds) (out[td.dataset.model] ??= {})[td.dataset.measure] = td.dataset.value === '' ? null : Number(td.dataset.value);
    return out;
  });
}

test("preference, judgment-group and z-score files dropped beside a run are evaluated by rankscope trec_eval in a worker, with its values; a damaged one is refused by line", async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 900 } });
  await clearAll(page);
  const file = (name, as = name) => ({ name: as, data: fs.readFileSync(trecFile(name)) });
  // preferences: detected from their five fields
  await drop(page, [file('prefs.results.test'), file('prefs.test')]);
  await page.waitForSelector('section.precomputed td[data-measure="prefs_simp"]', { timeout: 20000 });
  let got = await panelValues(page);
  const prefs = port(['-q', '-R', 'prefs', '-m', 'all_prefs', 'prefs.test', 'prefs.results.test']);
  const pair = 'STANDARD × prefs.test';
  assert.ok(got[pair], `the pair's column (${Object.keys(got)})`);
  let compared = 0;
  for (const [m, v] of Object.entries(prefs.all)) {
    if (m === 'runid') continue;
    assert.ok(Math.abs(got[pair][m] - Number(v)) <= 0.5e-4 + 1e-12, `${m}: page ${got[pair][m]}, trec_eval ${v}`);
    compared++;
  }
  assert.equal(compared, 15);
  assert.match(await page.$eval('section.precomputed p.relations', (p) => p.textContent), /-R prefs -m all_prefs/);

  // judgment groups (named *.qrels_jg) and z-scores against trec_eval's test run with its qrels
  await clearAll(page);
  await drop(page, [file('qrels.test'), file('results.test'), file('qrels.123', 'groups.qrels_jg'), file('zscores_file')]);
  // one column per (file, run) pair, once both files are in
  await page.waitForFunction(() => {
    const heads = [...document.querySelectorAll('section.precomputed table.metrics:not(.per-query) thead th')].map((th) => th.textContent);
    return heads.some((h) => h.includes('groups.qrels_jg')) && heads.some((h) => h.includes('zscores_file'));
  }, null, { timeout: 20000 });
  got = await panelValues(page);
  const jg = port(['-q', '-R', 'qrels_jg', '-m', 'qrels_jg', 'qrels.123', 'results.test']).all;
  const z = port(['-q', '-Z', 'zscores_file', '-m', 'all_trec', 'qrels.test', 'results.test']).all;
  for (const [pairName, want, n] of [['STANDARD × groups.qrels_jg', jg, 21], ['STANDARD × zscores_file', z, 98]]) {
    let seen = 0;
    for (const [m, v] of Object.entries(want)) {
      if (m === 'runid' || m === 'relstring') continue;
      assert.ok(Math.abs(got[pairName][m] - Number(v)) <= 0.5e-4 + 1e-12, `${pairName} ${m}: page ${got[pairName][m]}, trec_eval ${v}`);
      seen++;
    }
    assert.ok(seen >= n, `${pairName}: ${seen} measures`);
  }
  // the ranking table is the core's, beside them
  assert.ok(Object.keys((await cells(page)).STANDARD).includes('map'));
  await shot(page, 'trec-relations.png');

  // a damaged preference file is refused by line, and what was loaded stays
  const before = await panelValues(page);
  await drop(page, [{ name: 'bad.prefs', data: Buffer.from('q1 a b d1 1\nq1 a b d2 x\n') }]);
  await page.waitForFunction(() => [...document.querySelectorAll('.messages li, .message li, [role="alert"] li')].some((li) => li.textContent.includes('bad.prefs:2:5')) || document.body.textContent.includes('bad.prefs:2:5'));
  assert.deepEqual(await panelValues(page), before);
  assert.deepEqual(errors, []);
  await page.close();
});
