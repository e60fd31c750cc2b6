// Hover read-outs and the ratings views: what the pointer shows is the core's
// number at that point, and the binned views count every row and user.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, refFile, cells, waitForModels, clearAll, setConvention, shot, reference, canvasHasInk, moreInk } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

/** Moves the pointer across a canvas until the read-out matches `re`; returns its text. */
async function hoverUntil(page, canvasIndex, readout, re) {
  const box = await page.locator('canvas').nth(canvasIndex).boundingBox();
  for (let i = 0; i <= 200; i++) {
    await page.mouse.move(box.x + box.width * (0.1 + 0.85 * i / 200), box.y + box.height * 0.5);
    const text = await page.locator(`[data-readout="${readout}"]`).textContent();
    if (re.test(text)) return text;
  }
  throw new Error(`no read-out matching ${re}`);
}

test('hovering the elbow chart reads out each model\'s value at p, as in the table', async () => {
  const { page, errors } = await open(browser, url);
  const text = await hoverUntil(page, 0, 'elbow', /@10: /);
  const v = (await cells(page));
  for (const model of ['dense', 'bm25']) {
    const m = text.match(new RegExp(`${model} (\\d\\.\\d{4})`));
    assert.ok(m, text);
    assert.equal(m[1], v[model]['ndcg@10'].toFixed(4), `${model} nDCG@10 on hover`);
  }
  // faint per-query lines under the means
  await page.waitForTimeout(200);
  const before = await canvasHasInk(page, 0);
  await page.check('#per-query-lines');
  await moreInk(page, before);
  await shot(page, 'elbow-per-query-light.png');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the elbow and PR curves get their 95% bands, kept in the link, and the ROC legend each AUC\'s DeLong interval', async () => {
  const { page, errors } = await open(browser, url);
  await page.waitForSelector('#curve-bands');
  await page.waitForTimeout(200);
  const before = await canvasHasInk(page, 0);
  await page.check('#curve-bands');
  await page.waitForFunction(() => location.hash.includes('ci=1'));
  await moreInk(page, before);
  await shot(page, 'elbow-bands.png');
  // the binary example's ROC legend: AUC [low, high]
  await page.click('button[data-tab="binary"]');
  const roc = 'figure.chart:has(canvas[aria-label="ROC curve"]) button[data-export="svg"]';
  await page.waitForSelector(roc);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(roc)]);
  const svg = fs.readFileSync(await download.path(), 'utf8');
  assert.match(svg, /AUC 0\.\d{4} \[0\.\d{4}, [01]\.\d{4}\]\)/, 'the legend holds each AUC with its interval');
  // the PR curves' pointwise bands follow the same switch (on: ci=1)
  assert.ok(await page.isChecked('#pr-bands'));
  const pr = await page.evaluate(() => [...document.querySelectorAll('canvas')]
    .findIndex((c) => c.getAttribute('aria-label') === 'precision-recall curve'));
  await page.waitForTimeout(300);
  const banded = await canvasHasInk(page, pr);
  await shot(page, 'pr-bands.png');
  await page.uncheck('#pr-bands');
  await page.waitForFunction(() => !location.hash.includes('ci=1'));
  await page.waitForTimeout(300);
  const bare = await canvasHasInk(page, pr);
  assert.ok(banded > bare * 1.02, `the bands add ink: ${banded} against ${bare}`);
  await page.check('#pr-bands');
  await moreInk(page, bare, pr, 1.02);
  assert.deepEqual(errors, []);
  await page.close();
});

test('hovering the ROC curve rings and reads out an operating point, and a click sets the threshold to it', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  await page.waitForTimeout(300);
  const bare = await canvasHasInk(page, 0);
  const text = await hoverUntil(page, 0, 'binary', /threshold [-\d.e]+, TPR/);
  const [, t, tpr, fpr] = text.match(/threshold ([-\d.e]+), TPR ([\d.]+), FPR ([\d.]+)/);
  // the hovered operating point is ringed on the curve itself
  await moreInk(page, bare, 0, 1);
  // a click there sets the threshold to that operating point (the one
  // nearest the pointer's FPR; the nearest in TPR of the models' points)
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForFunction((want) => Number(document.querySelector('input.threshold-value').value) === want, Number(t));
  const cm = await page.$$eval('table.confusion td[data-cm]', (tds) => Object.fromEntries(tds.map((x) => [x.dataset.cm, Number(x.textContent)])));
  assert.equal((cm.tp / (cm.tp + cm.fn)).toFixed(4), tpr);
  assert.equal((cm.fp / (cm.fp + cm.tn)).toFixed(4), fpr);
  // the pointer leaves the chart: its ring and read-out go
  await page.mouse.move(1, 1);
  await page.waitForFunction(() => document.querySelector('[data-readout="binary"]').textContent === '');
  assert.deepEqual(errors, []);
  await page.close();
});

test('ratings: the binned scatter counts every row and the RMSE distribution every user', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('ratings.csv')]);
  await page.waitForSelector('.scatter[data-total]');
  const lines = fs.readFileSync(path.join(reference, 'ratings.csv'), 'utf8').trim().split('\n').slice(1);
  const users = new Set(lines.map((l) => l.split(',')[0])).size;
  const totals = await page.$$eval('.scatter[data-total]', (fs) => fs.map((f) => Number(f.dataset.total)));
  assert.ok(totals.length >= 1 && totals.every((t) => t === lines.length), `${totals} vs ${lines.length}`);
  const userCounts = await page.$$eval('.hist[data-users]', (hs) => hs.map((h) => Number(h.dataset.users)));
  assert.ok(userCounts.length >= 1 && userCounts.every((u) => u === users), `${userCounts} vs ${users}`);
  await shot(page, 'ratings-light.png');
  assert.deepEqual(errors, []);
  await page.close();
});

test('one-vs-rest ROC and PR for a chosen class match scikit-learn', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('multiclass_probs.csv')]);
  await page.waitForSelector('#ovr-class');
  const want = JSON.parse(fs.readFileSync(path.join(reference, 'extra/ovr.json'), 'utf8'));
  for (const cls of ['1', '3']) {
    await page.fill('#ovr-class', cls);
    await page.press('#ovr-class', 'Enter');
    await page.click('#ovr-run');
    await page.waitForSelector(`td[data-ovr-metric="roc_auc"][data-ovr-class="${cls}"]`);
    const got = await page.$$eval(`td[data-ovr-class="${cls}"]`, (tds) => Object.fromEntries(tds.map((t) => [t.dataset.ovrMetric, Number(t.dataset.value)])));
    assert.ok(Math.abs(got.roc_auc - want[cls]['sklearn.roc_auc_score']) < 1e-9, `AUC class ${cls}: ${got.roc_auc}`);
    assert.ok(Math.abs(got.average_precision - want[cls]['sklearn.average_precision_score']) < 1e-9, `AP class ${cls}`);
  }
  // the class's binary diagnostics come with its curves: both drawn
  for (const cls of ['roc', 'pr', 'reliability', 'det']) {
    const drawn = await page.$$eval(`.ovr-body figure.${cls} path.line`, (ps) => ps.filter((p) => (p.getAttribute('d') || '').includes('L')).length);
    assert.ok(drawn >= 1, `one-vs-rest ${cls} drawn`);
  }
  assert.ok(await page.$('.ovr-body .diag-numbers td[data-key="ece"]'));
  await shot(page, 'multiclass-ovr-light.png');
  // a class the matrix does not have gets a message, and no stale curves
  await page.fill('#ovr-class', '77');
  await page.press('#ovr-class', 'Enter');
  await page.click('#ovr-run');
  await page.waitForFunction(() => /One-vs-rest failed: .*class 77/.test(document.querySelector('#ovr-class').closest('section').textContent));
  assert.equal(await page.$('.ovr-body figure'), null);
  assert.deepEqual(errors, []);
  await page.close();
});
