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
  await waitForModels(page, ['ranking']);
  for (const metric of ['ndcg@10', 'map@10', 'mrr']) {
    const shown = await cellValue(page, metric, 'ranking');
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
  const rr = Number(await page.$eval('tr[data-query] td[data-rr]', (td) => td.dataset.rr));
  await page.click('tr[data-query] td[data-rr] button');
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
  assert.deepEqual(errors, []);
  await page.close();
});

test('the toy ranking: seed 004 preset, reordering by keyboard, ideal order', async () => {
  const { page, errors } = await open(browser, url);
  await page.click('#learn-toggle');
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
  assert.ok((await metric('ndcg')) > 0.687);
  // drag and drop: the last document (grade 2) onto the first place
  await page.dragAndDrop('ol.toy-list li:nth-child(5)', 'ol.toy-list li:nth-child(1)');
  await page.waitForFunction(() => document.querySelector('ol.toy-list li:first-child').dataset.grade === '2');
  await page.click('#toy-ideal');
  assert.equal(await metric('ndcg'), 1);
  assert.equal(await metric('ap'), 1);
  await page.click('#toy-reverse');
  assert.ok((await metric('ndcg')) < 1);
  // the live explanation's terms add up to the DCG shown
  const terms = await page.evaluate(() => [...document.querySelector('.toy-explain').querySelectorAll('tr[data-term]')].map((r) => Number(r.dataset.term)));
  near(terms.reduce((a, b) => a + b, 0), await metric('dcg'), 'toy DCG terms');
  assert.deepEqual(errors, []);
  await page.close();
});
