// Teaching: every number explains itself with terms that add up to the value
// shown, and the toy ranking's metrics follow its order (seed 004's example).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, drop, refFile, clearAll, waitForModels, shot } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

/** The open explanation: its value, its row terms and its steps. */
async function explanation(page) {
  await page.waitForSelector('section.explain .explain-body');
  return page.evaluate(() => {
    const body = document.querySelector('section.explain .explain-body');
    return {
      value: Number(body.dataset.value),
      terms: [...body.querySelectorAll('tr[data-term]')].map((r) => r.dataset.term).filter((t) => t !== '').map(Number),
      steps: [...body.querySelectorAll('li[data-step]')].map((l) => Number(l.dataset.step)),
      text: body.textContent,
    };
  });
}

async function cellValue(page, metric, model) {
  return Number(await page.$eval(`td[data-metric="${metric}"][data-model="${model}"]`, (td) => td.dataset.value));
}

test('nDCG@10, AP@10 and MRR explain themselves: per-query terms add up to the shown values', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  for (const metric of ['ndcg@10', 'map@10', 'mrr']) {
    const shown = await cellValue(page, metric, 'bench');
    await page.focus(`td[data-metric="${metric}"]`);
    await page.keyboard.press('Enter'); // keyboard opens it like a click
    await page.waitForFunction((m) => document.querySelector('section.explain h2')?.textContent.includes(m), metric);
    const mean = await explanation(page);
    near(mean.value, shown, `${metric} explanation value`);
    near(mean.terms.reduce((a, b) => a + b, 0) / mean.terms.length, shown, `${metric} mean of per-query terms`);
    // one query's own computation
    await page.click('section.explain tbody tr:nth-child(2) button');
    await page.waitForSelector('section.explain h2:has-text("query")');
    const q = await explanation(page);
    const sum = q.terms.reduce((a, b) => a + b, 0);
    if (metric === 'ndcg@10') {
      near(sum, q.steps[0], 'DCG = Σ gain·discount');
      near(q.steps[1] > 0 ? sum / q.steps[1] : 0, q.value, 'nDCG = DCG / IDCG');
    } else if (metric === 'map@10') {
      near(sum, q.steps[0], 'Σ P@i at relevant ranks');
      assert.match(q.text, /\|R\| = \d+/);
    } else {
      near(1 / q.steps[0], q.value, 'RR = 1 / first relevant rank');
    }
    near(q.value, mean.terms[1], `${metric}: the query's value is its row in the mean`);
    if (metric === 'ndcg@10') await shot(page, 'explain-ndcg-query.png');
    await page.click('#explain-close');
  }
  // the reciprocal-rank table's cells open the same explanation
  const rr = Number(await page.$eval('tr[data-query] td[data-per-query]', (td) => td.dataset.perQuery));
  await page.click('tr[data-query] td[data-per-query] button');
  near((await explanation(page)).value, rr, 'RR table cell');
  // and the elbow table's value at the elbow
  await page.click('button[data-explain-elbow]');
  const elbow = await explanation(page);
  near(elbow.terms.reduce((a, b) => a + b, 0) / elbow.terms.length, elbow.value, 'elbow point mean');
  assert.deepEqual(errors, []);
  await page.close();
});

test('ROC AUC explains itself as ordered pairs, ties counting one half', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  const shown = await cellValue(page, 'roc_auc', 'binary');
  await page.click('td[data-metric="roc_auc"]');
  const e = await explanation(page);
  near(e.value, shown, 'AUC');
  const pairs = Number((e.text.match(/= (\d+) pairs/) || [])[1]);
  near(e.terms.reduce((a, b) => a + b, 0) / pairs, shown, '(correct + ½ tied) / (P·N)');
  await shot(page, 'explain-auc.png');
  await page.click('#explain-close');
  // a threshold metric shows the confusion matrix it comes from
  await page.click('td[data-metric="f1"]');
  const f1 = await explanation(page);
  near(f1.value, await cellValue(page, 'f1', 'binary'), 'F1');
  near(f1.steps[0] / f1.steps[1], f1.value, 'F1 = 2TP / (2TP + FP + FN)');
  await page.click('#explain-close');
  // log loss: the per-class sums of −ln p and −ln(1 − p), over N
  await page.click('td[data-metric="log_loss"]');
  await page.waitForFunction(() => document.querySelector('section.explain')?.textContent.includes('positives (y = 1)'));
  const ll = await explanation(page);
  const n = (await page.$$eval('section.explain tbody tr', (trs) => trs.map((tr) => Number(tr.children[1].textContent)))).reduce((a, b) => a + b, 0);
  near(ll.terms.reduce((a, b) => a + b, 0) / n, await cellValue(page, 'log_loss', 'binary'), 'log loss = Σ terms / N');
  assert.deepEqual(errors, []);
  await page.close();
});

test('multi-class and ratings values explain themselves: rank groups, per-class F1, per-user errors', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('multiclass_probs.csv')]);
  await page.waitForSelector('td[data-metric="acc@5"]');
  const model = await page.$eval('td[data-metric="acc@5"]', (td) => td.dataset.model);
  const rowsOf = (e) => e.rowCounts.reduce((a, b) => a + b, 0);
  for (const metric of ['acc@5', 'mrr', 'ndcg@10']) {
    const shown = await cellValue(page, metric, model);
    await page.click(`td[data-metric="${metric}"][data-model="${model}"]`);
    await page.waitForFunction((m) => document.querySelector('section.explain h2')?.textContent.includes(m), metric);
    const e = await explanation(page);
    const rowCounts = await page.$$eval('section.explain tbody tr', (trs) => trs.map((tr) => Number(tr.children[1].textContent)));
    near(e.value, shown, metric);
    near(e.terms.reduce((a, b) => a + b, 0) / rowsOf({ rowCounts }), shown, `${metric}: Σ rows × value / N`);
    await page.click('#explain-close');
  }
  const f1 = await cellValue(page, 'f1_weighted', model);
  await page.click(`td[data-metric="f1_weighted"][data-model="${model}"]`);
  await page.waitForFunction(() => document.querySelector('section.explain')?.textContent.includes('support'));
  const e = await explanation(page);
  near(e.terms.reduce((a, b) => a + b, 0), f1, 'weighted F1 = Σ n_c/N · F1_c');
  await shot(page, 'explain-multiclass-f1.png');
  await page.click('#explain-close');
  await clearAll(page);
  await drop(page, [refFile('ratings.csv')]);
  await page.waitForSelector('td[data-metric="rmse"]');
  const rmodel = await page.$eval('td[data-metric="rmse"]', (td) => td.dataset.model);
  for (const metric of ['mae', 'rmse']) {
    const shown = await cellValue(page, metric, rmodel);
    await page.click(`td[data-metric="${metric}"][data-model="${rmodel}"]`);
    await page.waitForFunction((m) => document.querySelector('section.explain h2')?.textContent.includes(m), metric);
    const r = await explanation(page);
    const n = (await page.$$eval('section.explain tbody tr', (trs) => trs.map((tr) => Number(tr.children[1].textContent)))).reduce((a, b) => a + b, 0);
    const mean = r.terms.reduce((a, b) => a + b, 0) / n;
    near(metric === 'rmse' ? Math.sqrt(mean) : mean, shown, `${metric} from per-user error sums`);
    assert.ok(await page.$('section.explain .formula math'), 'typeset formula');
    await page.click('#explain-close');
  }
  assert.deepEqual(errors, []);
  await page.close();
});

/** Opens a page of the teaching site (dist/learn/) and waits for its lesson. */
async function openLearn(page) {
  const errors = [];
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  p.on('pageerror', (e) => errors.push(String(e)));
  await p.goto(`${url}learn/#${page}`);
  await p.waitForSelector(`article[data-lesson="${page}"]`, { timeout: 30000 });
  return { page: p, errors };
}

test('the toy ranking: seed 004 preset, reordering by keyboard, ideal order', async () => {
  const { page, errors } = await openLearn('ranking');
  await page.waitForSelector('#ranking-playground');
  const metric = (id) => page.$eval(`td[data-toy-metric="${id}"]`, (td) => Number(td.dataset.value));
  await page.click('#toy-seed004');
  assert.equal((await metric('dcg')).toFixed(3), '6.151');
  assert.equal((await metric('idcg')).toFixed(3), '8.954');
  assert.equal((await metric('ndcg')).toFixed(3), '0.687');
  assert.equal(await metric('rr'), 0.5);
  await shot(page, 'playground-seed004.png');
  // Alt+↑ on the document at rank 2 (grade 5) moves it to rank 1: RR becomes 1, nDCG rises
  await page.focus('ol.toy-list li:nth-child(2)');
  await page.keyboard.press('Alt+ArrowUp');
  await page.waitForFunction(() => document.querySelector('ol.toy-list li:first-child').dataset.grade === '5');
  assert.equal(await metric('rr'), 1);
  // the keyboard stays on the moved document: Alt+↓ twice takes it to rank 3
  await page.waitForFunction(() => document.activeElement?.dataset?.grade === '5');
  await page.keyboard.press('Alt+ArrowDown');
  await page.waitForFunction(() => document.activeElement?.dataset?.grade === '5' && document.querySelector('ol.toy-list li:nth-child(2)').dataset.grade === '5');
  await page.keyboard.press('Alt+ArrowDown');
  await page.waitForFunction(() => document.activeElement?.dataset?.grade === '5' && document.querySelector('ol.toy-list li:nth-child(3)').dataset.grade === '5');
  await page.keyboard.press('Alt+ArrowUp');
  await page.waitForFunction(() => document.activeElement?.dataset?.grade === '5' && document.querySelector('ol.toy-list li:nth-child(2)').dataset.grade === '5');
  await page.keyboard.press('Alt+ArrowUp');
  await page.waitForFunction(() => document.querySelector('ol.toy-list li:first-child').dataset.grade === '5');
  assert.ok((await metric('ndcg')) > 0.687);
  // drag and drop: the last document (grade 2) onto the first place
  await page.dragAndDrop('ol.toy-list li:nth-child(5)', 'ol.toy-list li:nth-child(1)');
  await page.waitForFunction(() => document.querySelector('ol.toy-list li:first-child').dataset.grade === '2');
  await page.click('#toy-ideal');
  assert.equal(await metric('ndcg'), 1);
  assert.equal(await metric('ap'), 1);
  await page.click('#toy-reverse');
  assert.ok((await metric('ndcg')) < 1);
  // the live explanation's terms add up to the DCG shown, under a typeset formula
  const terms = await page.evaluate(() => [...document.querySelector('.toy-explain').querySelectorAll('tr[data-term]')].map((r) => Number(r.dataset.term)));
  near(terms.reduce((a, b) => a + b, 0), await metric('dcg'), 'toy DCG terms');
  assert.ok(await page.$('.toy-explain .formula math mfrac'), 'the nDCG formula is MathML with a fraction');
  assert.deepEqual(errors, []);
  await page.close();
});

/** The classification playground's examples, metric values and confusion cells. */
async function classifier(page) {
  return page.evaluate(() => ({
    examples: [...document.querySelectorAll('svg.clf-axis g.example')].map((g) => ({
      positive: g.dataset.positive === 'true', score: Number(g.dataset.score), count: Number(g.dataset.count),
    })),
    metric: Object.fromEntries([...document.querySelectorAll('td[data-clf-metric]')].map((td) => [td.dataset.clfMetric, td.dataset.value === '' ? null : Number(td.dataset.value)])),
    cm: Object.fromEntries([...document.querySelectorAll('td[data-cm]')].map((td) => [td.dataset.cm, Number(td.textContent.replace(/\D+/g, ''))])),
    threshold: Number(document.querySelector('#clf-threshold').value),
  }));
}

/** Reference values computed here from the examples alone (no Rankscope code). */
function reference({ examples, threshold }) {
  let tp = 0, fp = 0, fn = 0, tn = 0, correct = 0, tied = 0, P = 0, N = 0;
  for (const e of examples) {
    const predicted = e.score >= threshold;
    if (e.positive) { P += e.count; if (predicted) tp += e.count; else fn += e.count; }
    else { N += e.count; if (predicted) fp += e.count; else tn += e.count; }
  }
  for (const a of examples.filter((e) => e.positive)) for (const b of examples.filter((e) => !e.positive)) {
    if (a.score > b.score) correct += a.count * b.count; else if (a.score === b.score) tied += a.count * b.count;
  }
  const div = (x, y) => (y > 0 ? x / y : 0);
  const f1p = div(2 * tp, 2 * tp + fp + fn), f1n = div(2 * tn, 2 * tn + fn + fp);
  return {
    cm: { tp, fp, fn, tn },
    accuracy: div(tp + tn, P + N), precision: div(tp, tp + fp), recall: div(tp, tp + fn), f1: f1p,
    f1_weighted: div(P * f1p + N * f1n, P + N), f1_macro: (f1p + f1n) / 2,
    mcc: div(tp * tn - fp * fn, Math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
    roc_auc: P && N ? (correct + tied / 2) / (P * N) : null,
  };
}

function sameAsReference(state, what) {
  const ref = reference(state);
  assert.deepEqual(state.cm, ref.cm, `${what}: confusion matrix`);
  for (const m of ['accuracy', 'precision', 'recall', 'f1', 'f1_weighted', 'f1_macro', 'mcc', 'roc_auc']) near(state.metric[m], ref[m], `${what}: ${m}`);
}

test('the classification playground: seed 000 imbalance, the majority threshold, dragging and keys', async () => {
  const { page, errors } = await openLearn('imbalance');
  await page.waitForSelector('#classification-playground td[data-clf-metric]');
  let s = await classifier(page);
  // seed 000: A 1000 samples, 60 % right; B 10 samples, 10 % right; accuracy (600 + 1) / 1010
  assert.deepEqual(s.cm, { tp: 1, fn: 9, fp: 400, tn: 600 });
  near(s.metric.accuracy, 601 / 1010, 'accuracy at 0.5');
  near(s.metric.recall, 0.1, 'recall of B');
  near(s.metric.precision, 1 / 401, 'precision of B');
  sameAsReference(s, 'imbalance at 0.5');
  await shot(page, 'learn-imbalance.png');
  // ignoring B: accuracy rises to 1000/1010, weighted F1 follows A, macro F1 halves, MCC 0
  await page.click('#clf-majority');
  await page.waitForFunction(() => document.querySelector('#clf-threshold').value === '1.00' || document.querySelector('#clf-threshold').value === '1');
  s = await classifier(page);
  near(s.metric.accuracy, 1000 / 1010, 'accuracy, majority');
  near(s.metric.f1_weighted, (1000 / 1010) * (2000 / 2010), 'weighted F1, majority');
  near(s.metric.f1_macro, (2000 / 2010) / 2, 'macro F1, majority');
  assert.equal(s.metric.mcc, 0);
  sameAsReference(s, 'majority');
  // weighted F1 explains itself: per-class terms add up to the value
  await page.click('td[data-clf-metric="f1_weighted"]');
  await page.waitForFunction(() => document.querySelector('#clf-explain').textContent.includes('support'));
  const e = await page.evaluate(() => {
    const body = document.querySelector('#clf-explain .explain-body');
    return { value: Number(body.dataset.value), terms: [...body.querySelectorAll('tr[data-term]')].map((r) => Number(r.dataset.term)) };
  });
  near(e.terms.reduce((a, b) => a + b, 0), e.value, 'weighted F1 terms');
  near(e.value, s.metric.f1_weighted, 'weighted F1 explanation');
  // balanced preset; keys move an example (Shift+← = −0.1) and the metrics follow
  await page.click('#clf-balanced');
  await page.waitForFunction(() => document.querySelectorAll('svg.clf-axis g.example').length === 12);
  await page.focus('svg.clf-axis g.example[data-example="0"]');
  await page.keyboard.press('Shift+ArrowLeft');
  await page.waitForFunction(() => document.activeElement?.dataset?.example === '0' && document.activeElement.dataset.score === '0.85');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.activeElement?.dataset?.example === '0' && document.activeElement.dataset.score === '0.84');
  sameAsReference(await classifier(page), 'after keys');
  // C changes the focused example's class
  await page.keyboard.press('c');
  await page.waitForFunction(() => document.querySelector('svg.clf-axis g.example[data-example="0"]').dataset.positive === 'false');
  sameAsReference(await classifier(page), 'after a class change');
  // a pointer drag of the lowest negative to the far right
  const box = await page.$eval('svg.clf-axis g.example[data-example="11"] circle', (c) => { const r = c.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
  const axis = await page.$eval('svg.clf-axis', (svg) => { const r = svg.getBoundingClientRect(); return { x: r.x, w: r.width }; });
  await page.mouse.move(box.x, box.y);
  await page.mouse.down();
  await page.mouse.move(axis.x + axis.w * (40 + 0.9 * 560) / 640, box.y, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('svg.clf-axis g.example[data-example="11"]').dataset.score === '0.90');
  // and the threshold slider
  await page.$eval('#clf-threshold', (i) => { i.value = '0.3'; i.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction(() => document.querySelector('#clf-threshold-value').textContent === '0.30');
  s = await classifier(page);
  sameAsReference(s, 'after a drag and a new threshold');
  assert.ok(await page.$('#classification-playground .chart-svg svg'), 'ROC and PR curves drawn');
  await shot(page, 'learn-classification.png');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the lessons: every page renders typeset formulas, the widgets keep the seeds\' relations and values', async () => {
  const { page, errors } = await openLearn('hits');
  const pages = await page.$$eval('nav.lessons a[data-page]', (as) => as.map((a) => a.dataset.page));
  assert.ok(pages.length >= 9, `lessons listed: ${pages}`);
  // seed 000 §3.5: every answer at rank 2 gives MRR 0.5 and Acc@1 0; the relations hold
  const lessonMetric = (id) => page.$eval(`td[data-lesson-metric="${id}"]`, (td) => Number(td.dataset.value));
  await page.click('#ranks-all2');
  await page.waitForFunction(() => document.querySelector('td[data-lesson-metric="mrr"]').dataset.value === '0.5');
  assert.equal(await lessonMetric('acc1'), 0);
  assert.equal(await lessonMetric('acc5'), 1);
  near(await lessonMetric('ndcg10'), 1 / Math.log2(3), 'nDCG@10 at rank 2');
  // a missing answer and a rank beyond 10
  await page.fill('input[data-rank-input="0"]', '');
  await page.dispatchEvent('input[data-rank-input="0"]', 'change');
  await page.fill('input[data-rank-input="1"]', '12');
  await page.dispatchEvent('input[data-rank-input="1"]', 'change');
  await page.waitForFunction(() => document.querySelector('td[data-lesson-metric="acc10"]').dataset.value === String(6 / 8));
  near(await lessonMetric('mrr'), (6 * 0.5 + 1 / 12) / 8, 'MRR with a miss and rank 12');
  // a rank that is no place in a list is said, not silently counted as a miss
  for (const [typed, says] of [['0', /rank 0 is not a place/], ['-3', /rank -3 is not a place/], ['2.5', /'2\.5' is not a rank/], ['25', /past the list's 20 places/]]) {
    await page.fill('input[data-rank-input="2"]', typed);
    await page.dispatchEvent('input[data-rank-input="2"]', 'change');
    await page.waitForSelector('#rank-problem');
    assert.match(await page.$eval('#rank-problem', (p) => p.textContent), says);
    near(await lessonMetric('mrr'), (6 * 0.5 + 1 / 12) / 8, `MRR unchanged by '${typed}'`);
  }
  await page.fill('input[data-rank-input="2"]', '2');
  await page.dispatchEvent('input[data-rank-input="2"]', 'change');
  await page.waitForSelector('#rank-problem', { state: 'detached' });
  const checks = await page.$$eval('ul.checks li', (ls) => ls.map((l) => l.textContent));
  assert.equal(checks.length, 3);
  for (const c of checks) assert.match(c, /✓ holds/);
  // keyboard: the lesson links are reachable and followable
  await page.focus('nav.lessons a[data-page="discounts"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('article[data-lesson="discounts"]');
  // seed 000 §4.4's discount table
  const discount = (r) => page.$eval(`tr[data-discount-rank="${r}"]`, (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
  assert.deepEqual((await discount(2)).slice(1, 3), ['0.500', '0.631']);
  assert.deepEqual((await discount(10)).slice(1, 3), ['0.100', '0.289']);
  assert.deepEqual((await discount(100)).slice(1, 3), ['0.010', '0.150']);
  // the confidence widget: p = 0.1 costs −ln 0.1
  await page.goto(`${url}learn/#confidence`);
  await page.waitForSelector('#confidence-widget');
  await page.$eval('#confidence-p', (i) => { i.value = '0.1'; i.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction(() => document.querySelector('#confidence-loss').textContent === '2.3026');
  near(Number(await page.$eval('#confidence-loss', (e) => e.dataset.value)), -Math.log(0.1), 'log loss of p = 0.1');
  // every page: a lesson, typeset MathML (never the TeX source), a way on
  for (const id of pages) {
    await page.click(`nav.lessons a[data-page="${id}"]`);
    await page.waitForSelector(`article[data-lesson="${id}"]`);
    const state = await page.evaluate(() => ({
      formulas: document.querySelectorAll('article .formula').length,
      typeset: document.querySelectorAll('article .formula math').length,
      tex: /\\(frac|sum|text)/.test(document.querySelector('article').textContent),
      widget: !!document.querySelector('article .widget, article .playground'),
    }));
    assert.equal(state.typeset, state.formulas, `${id}: every formula typeset`);
    assert.ok(!state.tex, `${id}: no TeX source shown`);
    assert.ok(state.widget, `${id}: ends on a widget`);
    if (['hits', 'discounts', 'graded'].includes(id)) await shot(page, `learn-${id}.png`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('the dashboard links to the lessons and back', async () => {
  const { page, errors } = await open(browser, url);
  await page.click('#learn-link');
  await page.waitForSelector('article[data-lesson="hits"]');
  await page.click('#to-dashboard');
  await page.waitForSelector('td[data-metric]');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the lessons and the column headers cite real sources, never the project\'s internal "seed" labels', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${url}learn/`);
  await page.waitForSelector('nav.lessons a');
  const links = await page.$$eval('nav.lessons a', (as) => as.map((a) => a.getAttribute('href')));
  for (const href of links) {
    await page.click(`nav.lessons a[href="${href}"]`);
    await page.waitForTimeout(150);
    const text = await page.evaluate(() => document.body.innerText);
    assert.doesNotMatch(text, /\bseeds? 0\d\d\b/i, href);
    assert.doesNotMatch(text, /lower loss means better calibrated/);
  }
  const { page: app } = await open(browser, url);
  for (const tab of ['ranking', 'binary', 'multiclass', 'ratings']) {
    await app.click(`nav.tabs button[data-tab="${tab}"]`);
    await app.waitForSelector(`nav.tabs button[data-tab="${tab}"].active`);
    const helps = await app.$$eval('th[data-help]', (ths) => ths.map((t) => t.dataset.help).join('\n'));
    assert.doesNotMatch(helps, /\bseeds? 0\d\d\b/i, tab);
  }
  await page.close();
  await app.close();
});
