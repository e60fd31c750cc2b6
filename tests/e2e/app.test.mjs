// Browser end-to-end tests against the built dist/: real drops, values read from
// the data-metric cells and compared with the oracle.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, refFile, oracle, cells, waitForModels, clearAll, setConvention, canvasHasInk, close, shot, root } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

test('opens on the bundled example with values and a drawn chart, no console errors', async () => {
  const { page, errors } = await open(browser, url);
  const values = await cells(page);
  assert.deepEqual(Object.keys(values).sort(), ['bm25', 'dense']);
  assert.ok(values.dense['ndcg@10'] > 0 && values.dense['ndcg@10'] <= 1);
  await page.waitForFunction(() => document.querySelectorAll('canvas').length > 0);
  await page.waitForTimeout(300);
  assert.ok((await canvasHasInk(page)) > 1000, 'the elbow chart is drawn');
  // the rank distribution is laid out as bars (a style clash once flattened it)
  const bars = await page.$eval('.hist .bars', (b) => ({ height: b.getBoundingClientRect().height, fills: [...b.querySelectorAll('.fill')].map((f) => f.getBoundingClientRect().height) }));
  assert.ok(bars.height >= 80, `rank distribution height ${bars.height}`);
  assert.ok(Math.max(...bars.fills) > 20, `tallest bar ${Math.max(...bars.fills)}`);
  await shot(page, 'example-ranking-light.png');
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'docs/screenshot.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a high-density screen a chart keeps its size and is drawn with the screen\'s pixels', async () => {
  const { page, errors } = await open(browser, url, { deviceScaleFactor: 2 });
  // the chart is drawn at its box's width (the card's) times the pixel ratio
  await page.waitForFunction(() => { const c = document.querySelector('canvas'); return c && c.width === Math.round(c.getBoundingClientRect().width * 2) && c.width > 1280; });
  await page.waitForTimeout(300);
  const c = await page.$eval('canvas', (c) => {
    const rect = c.getBoundingClientRect();
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    // ink right of and below the middle of the backing store: a chart drawn at
    // CSS size into it would leave three quarters of it empty
    let right = 0, low = 0;
    for (let y = 0; y < c.height; y++) {
      for (let x = 0; x < c.width; x++) {
        if (d[4 * (y * c.width + x) + 3] === 0) continue;
        if (x > 700) right++;
        if (y > 450) low++;
      }
    }
    return { width: c.width, height: c.height, cssWidth: rect.width, cssHeight: rect.height, right, low };
  });
  assert.equal(c.height, 800);
  assert.ok(Math.abs(c.width - 2 * c.cssWidth) < 1 && Math.abs(c.cssHeight - 400) < 1, `${c.width} x ${c.height} laid out at ${c.cssWidth} x ${c.cssHeight} CSS pixels`);
  assert.ok(c.right > 2000 && c.low > 2000, `ink right ${c.right}, low ${c.low}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('dropped TREC run + qrels match trec_eval, and switching the tie rule matches ranx', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('ranking.run'), refFile('ranking.qrels')]);
  await waitForModels(page, ['bench']);
  // the run came in the same drop as its qrels: nothing says one is missing
  let said = await page.locator('.messages').textContent();
  assert.match(said, /Loaded 2 files.*ranking\.qrels: read as qrels/s);
  assert.doesNotMatch(said, /No run yet/);
  assert.equal(await page.locator('.msg.warning').count(), 0, said);
  const r = oracle.ranking;
  let v = (await cells(page)).bench;
  close(v['ndcg@10'], r['ndcg@10 gain=rel']['pytrec_eval ndcg_cut'], 'ndcg@10');
  close(v['ndcg@5'], r['ndcg@5 gain=rel']['pytrec_eval ndcg_cut'], 'ndcg@5');
  close(v['map'], r['map (no cutoff)']['pytrec_eval map'], 'map');
  close(v['map@10'], r['map@10']['pytrec_eval map_cut (/|R|)'], 'map@10');
  close(v['precision@10'], r['precision@10']['pytrec_eval P (/k)'], 'P@10');
  close(v['recall@20'], r['recall@20']['pytrec_eval recall'], 'R@20');
  close(v['mrr'], r['mrr (no cutoff)']['pytrec_eval recip_rank'], 'mrr');
  close(v['hit_rate@5'], r['hit_rate@5']['pytrec_eval success'], 'hit@5');
  await setConvention(page, 'ties', 'file');
  await page.waitForFunction((want) => Math.abs(Number(document.querySelector('td[data-metric="ndcg@10"]').dataset.value) - want) < 1e-12, r['ndcg@10 gain=rel']['ranx ndcg']);
  v = (await cells(page)).bench;
  close(v['ndcg@10'], r['ndcg@10 gain=rel']['ranx ndcg'], 'ndcg@10 file order');
  close(v['map'], r['map (no cutoff)']['ranx map'], 'map file order');
  await setConvention(page, 'ties', 'average');
  await page.waitForFunction((want) => Math.abs(Number(document.querySelector('td[data-metric="ndcg@10"]').dataset.value) - want) < 1e-12, r['ndcg@10 gain=rel']['naive, tie-averaged (sklearn semantics)']);
  await setConvention(page, 'ties', 'trec');
  await setConvention(page, 'ap_denominator', 'min_relevant_k');
  await page.waitForFunction((want) => Math.abs(Number(document.querySelector('td[data-metric="map@5"]').dataset.value) - want) < 1e-12, r['map@5']['naive, ties: docid desc (trec_eval order) /min(|R|,k)']);
  // qrels dropped alone: once they are in, the page says a run is missing
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels')]);
  await page.waitForSelector('.msg.info >> text=No run yet');
  said = await page.locator('.messages').textContent();
  assert.match(said, /Drop one or more TREC runs/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the reciprocal-rank table sorts, and a query opens its ranked list', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  const rrs = () => page.$$eval('table.rr td[data-per-query]', (tds) => tds.map((t) => Number(t.dataset.perQuery)));
  await page.click('button[data-sort-col="2"]');
  let got = await rrs();
  assert.deepEqual(got, [...got].sort((a, b) => a - b), 'ascending RR');
  await page.click('button[data-sort-col="2"]');
  got = await rrs();
  assert.deepEqual(got, [...got].sort((a, b) => b - a), 'descending RR');
  const mrr = await page.$eval('[data-mrr]', (b) => Number(b.dataset.mrr));
  close(mrr, oracle.ranking['mrr (no cutoff)']['pytrec_eval recip_rank'], 'MRR above the histogram');
  // by query id: the rows' own order
  await page.click('button[data-sort-col="0"]');
  const qids = await page.$$eval('table.rr tbody tr', (trs) => trs.map((t) => t.dataset.query));
  assert.deepEqual(qids, [...qids].sort(), 'rows by query id');
  // a convention change refills the values of the same rows
  await page.fill('#conv-relevance_level', '2');
  await page.dispatchEvent('#conv-relevance_level', 'change');
  await page.waitForFunction((before) => Number(document.querySelector('[data-mrr]').dataset.mrr) !== before, mrr);
  const [mrr2, table2] = await page.evaluate(() => [document.querySelector('[data-mrr]').dataset.mrr, document.querySelector('td[data-metric="mrr"]').dataset.value].map(Number));
  close(mrr2, table2, 'MRR at relevance level 2, above the histogram and in the table');
  assert.deepEqual(await page.$$eval('table.rr tbody tr', (trs) => trs.map((t) => t.dataset.query)), qids);
  await page.click('table.rr tbody tr:first-child button.link');
  await page.waitForSelector('.drill table');
  await shot(page, 'ranking-rr-drilldown.png');
  await page.close();
});

test('binary CSV matches scikit-learn; the threshold slider moves the confusion matrix', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  const b = oracle.binary;
  const v = (await cells(page)).binary;
  close(v.roc_auc, b.roc_auc['sklearn.roc_auc_score'], 'roc_auc');
  close(v.average_precision, b.pr_auc['sklearn.average_precision_score (step, ties grouped)'], 'AP');
  close(v.log_loss, b.log_loss['sklearn.log_loss (clip to float64 eps=2.2e-16)'], 'log loss');
  close(v.f1, b.f1['sklearn [score>=0.5]'], 'f1');
  close(v.mcc, b.mcc['sklearn [score>=0.5]'], 'mcc');
  const cm = () => page.$$eval('table.confusion[data-cm-model="binary"] td[data-cm]', (tds) => Object.fromEntries(tds.map((t) => [t.dataset.cm, Number(t.textContent)])));
  assert.deepEqual(await cm(), b['confusion[score>=0.5]']);
  await setConvention(page, 'threshold_rule', '>');
  await page.waitForFunction(() => document.querySelector('td[data-cm="tp"]').textContent === '12');
  assert.deepEqual(await cm(), b['confusion[score>0.5]']);
  // move the slider with the keyboard: one step up from 0.5 changes nothing at > 0.5 here, so go to 0.9
  await page.fill('input.threshold-value', '0.9');
  await page.press('input.threshold-value', 'Enter');
  await page.waitForFunction(() => Number(document.querySelector('td[data-cm="tp"]').textContent) < 12);
  const high = await cm();
  assert.equal(high.tp + high.fn, 22);
  assert.equal(high.tp + high.fp + high.tn + high.fn, 200);
  await page.focus('#threshold');
  await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(100);
  assert.ok((await canvasHasInk(page, 0)) > 1000 && (await canvasHasInk(page, 1)) > 1000, 'ROC and PR are drawn');
  // a dragged slider: each step updates the matrix at once; the address is
  // rewritten at most every 200 ms (history.replaceState takes ~5 ms) and ends on the last value
  const drag = await page.evaluate(async () => {
    let writes = 0;
    const replace = history.replaceState.bind(history);
    history.replaceState = (...a) => { writes++; return replace(...a); };
    const s = document.querySelector('#threshold');
    const tps = [];
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) {
      s.value = String(0.2 + 0.01 * i);
      s.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 5));
      tps.push(document.querySelector('td[data-cm="tp"]').textContent);
    }
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 400));
    return { writes, tps, hash: location.hash, last: s.value, ms };
  });
  // one write per 200 ms of dragging at most, and the last one after it
  const most = Math.floor(drag.ms / 200) + 2;
  assert.ok(drag.writes >= 1 && drag.writes <= most && drag.writes < 20, `${drag.writes} address writes in ${Math.round(drag.ms)} ms`);
  assert.ok(new Set(drag.tps).size > 1, 'the matrix follows every step');
  assert.match(drag.hash, new RegExp(`threshold=${drag.last.replace('.', '\\.')}(&|$)`));
  await shot(page, 'binary-light.png');
  assert.deepEqual(errors, []);
  await page.close();
});

test('multi-class and ratings files match the oracle', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('multiclass_probs.csv')]);
  await waitForModels(page, ['multiclass_probs']);
  const m = oracle.multiclass;
  let v = (await cells(page)).multiclass_probs;
  close(v['acc@5'], m['acc@5']['naive ties: lower class index first'], 'acc@5');
  // top-1 accuracy leads the table though 1 is not among the default cutoffs
  assert.ok(!(await page.$eval('input[aria-label="cutoffs"]', (i) => i.value)).split(/[ ,]+/).includes('1'));
  close(v['acc@1'], m['acc@1']['sklearn.accuracy_score(argmax; ties: lowest index)'], 'acc@1');
  close(v.cross_entropy, m.cross_entropy['sklearn.log_loss (no renormalisation in 1.9, clip eps)'], 'CE');
  await clearAll(page);
  await drop(page, [refFile('ratings.csv')]);
  await waitForModels(page, ['ratings']);
  v = (await cells(page)).ratings;
  const r = oracle.ratings;
  close(v.rmse, r.rmse['sklearn.root_mean_squared_error'], 'rmse');
  close(v.spearman, r['spearman (global, all rows)']['scipy.stats.spearmanr (Pearson on average ranks)'], 'spearman');
  close(v.fcp, r.fcp['naive Koren (ties in r or p: neither), sum_u nc / sum_u (nc+nd)'], 'fcp');
  await page.close();
});

test('a malformed file gives a precise error and loses nothing already loaded', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  const before = await cells(page);
  await drop(page, [{ name: 'broken.csv', data: Buffer.from('label,score\n1,0.5\n0,abc\n1\n') }]);
  await page.waitForSelector('.msg.error');
  const text = await page.$eval('.msg.error', (e) => e.textContent);
  assert.match(text, /broken\.csv:3:2: expected a score for model 'score' \(a number\), found 'abc'/);
  assert.match(text, /broken\.csv:4:2: expected 2 fields as in the header, found 1 field/);
  assert.deepEqual(await cells(page), before);
  await page.close();
});

test('ids shaped like HTML render as text', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  const evil = '<img src=x onerror=alert(1)>';
  await drop(page, [{ name: 'x.csv', data: Buffer.from(`label,${evil}\n1,0.9\n0,0.1\n`) }]);
  await waitForModels(page, [evil]);
  assert.equal(await page.$$eval('img', (i) => i.length), 0);
  await page.close();
});

test('exports a CSV table and an SVG chart with the shown values', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="csv"]')]);
  const text = fs.readFileSync(await csv.path(), 'utf8');
  const [header, row] = text.trim().split('\n');
  const cols = header.split(',');
  const vals = row.split(',');
  assert.equal(vals[0], 'bench');
  close(Number(vals[cols.indexOf('ndcg@10')]), oracle.ranking['ndcg@10 gain=rel']['pytrec_eval ndcg_cut'], 'CSV ndcg@10');
  const [svg] = await Promise.all([page.waitForEvent('download'), page.click('figure.chart button[data-export="svg"]')]);
  const svgText = fs.readFileSync(await svg.path(), 'utf8');
  assert.match(svgText, /^<svg/);
  assert.match(svgText, /polyline/);
  // exported charts: the legend and the conventions in a strip beside the curves
  assert.match(svgText, /^<svg width="870" height="400"/);
  assert.match(svgText, /Conventions: Rankscope(&apos;|&#39;|')s defaults/);
  // a PNG at twice the size
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('figure.chart button[data-export="png"]')]);
  const bytes = fs.readFileSync(await png.path());
  assert.equal(bytes.toString('latin1', 1, 4), 'PNG');
  assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [1740, 800]);
  // precision-recall as steps (every segment level or upright) with labelled iso-F1 lines
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  const [pr] = await Promise.all([page.waitForEvent('download'), page.click('figure.chart:has(canvas[aria-label*="recall" i]) button[data-export="svg"]')]);
  const prText = fs.readFileSync(await pr.path(), 'utf8');
  assert.match(prText, /F1 = 0\.4/);
  const lines = [...prText.matchAll(/<polyline[^>]*points="([^"]+)"/g)].map((m) => m[1].trim().split(/\s+/).map((p) => p.split(',').map(Number)));
  const stepped = lines.filter((pts) => pts.length > 10 && pts.every((p, i) => i === 0 || p[0] === pts[i - 1][0] || p[1] === pts[i - 1][1]));
  assert.ok(stepped.length >= 1, 'a stepped precision-recall curve');
  await page.close();
});

test('dark theme screenshots of every view', async () => {
  const { page } = await open(browser, url);
  await page.emulateMedia({ colorScheme: 'dark' });
  for (const tab of ['ranking', 'binary', 'multiclass', 'ratings']) {
    await page.click(`button[data-tab="${tab}"]`);
    await page.waitForTimeout(200);
    await shot(page, `example-${tab}-dark.png`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  for (const tab of ['binary', 'multiclass', 'ratings']) {
    await page.click(`button[data-tab="${tab}"]`);
    await page.waitForTimeout(200);
    await shot(page, `example-${tab}-light.png`);
  }
  await page.close();
});
