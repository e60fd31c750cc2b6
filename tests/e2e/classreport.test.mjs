// The multi-class report in the page: a worker reads the dropped matrix again
// and writes scikit-learn's classification report, the confusion matrix, the
// one-vs-rest and one-vs-one ROC AUCs and each class against the rest, equal
// to `rankscope diagnose --format json` on the same file; a top-k file has no
// AUC and says so; a class that does not exist gets a message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, reference, clearAll, shot, cliJson } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const diagnose = (file) => cliJson(['diagnose', file, '--format', 'json']);

const near = (got, want, what) => {
  if (want === null) return assert.equal(got, null, what);
  assert.ok(Math.abs(got - want) <= 1e-12 * Math.max(1, Math.abs(want)), `${what}: ${got} vs ${want}`);
};

/** The report as shown: per model, its class lines, AUCs, matrix counts and class-vs-rest AUCs. */
const shown = (page) => page.$$eval('.class-report section.class-model', (sections) => sections.map((s) => {
  const value = (td) => (td ? (td.dataset.value === '' ? null : Number(td.dataset.value)) : undefined);
  const row = (tr) => Object.fromEntries([...tr.querySelectorAll('td[data-key]')].map((td) => [td.dataset.key, value(td)]));
  return {
    model: s.dataset.model,
    lines: Object.fromEntries([...s.querySelectorAll('table.class-lines tr[data-class]')].map((tr) => [tr.dataset.class, row(tr)])),
    auc: Object.fromEntries([...s.querySelectorAll('table.class-auc td[data-key]')].map((td) => [td.dataset.key, value(td)])),
    counts: [...s.querySelectorAll('table.class-confusion tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-count]')].map((td) => Number(td.dataset.count))),
    rest: Object.fromEntries([...s.querySelectorAll('table.class-rest tr[data-class]')].map((tr) => [tr.dataset.class, row(tr)])),
    note: s.textContent,
  };
}));

async function report(page) {
  await page.click('#class-report');
  await page.waitForSelector('.class-report section.class-model', { timeout: 30000 });
  return shown(page);
}

test('the report of every class equals rankscope diagnose on the same matrix', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await clearAll(page);
  const file = path.join(reference, 'multiclass_probs.csv');
  await drop(page, [{ name: 'multiclass_probs.csv', data: fs.readFileSync(file) }]);
  await page.waitForSelector('#class-report');
  const [got] = await report(page);
  const [want] = diagnose(file).models;
  assert.equal(got.model, want.name);
  want.report.classes.forEach((line, i) => {
    const name = want.class_names[i];
    for (const key of ['precision', 'recall', 'f1']) near(got.lines[name][key], line[key], `class ${name} ${key}`);
  });
  near(got.lines.accuracy.f1, want.report.accuracy, 'accuracy');
  ['precision', 'recall', 'f1'].forEach((key, i) => {
    near(got.lines['macro avg'][key], want.report.macro_avg[i], `macro ${key}`);
    near(got.lines['weighted avg'][key], want.report.weighted_avg[i], `weighted ${key}`);
  });
  ['ovr_macro', 'ovr_weighted', 'ovo_macro', 'ovo_weighted'].forEach((key, i) => near(got.auc[key], want.roc_auc[i], key));
  // the matrix: its first 30 classes (of 49), said so
  const k = Math.min(30, want.class_names.length);
  assert.deepEqual(got.counts, want.confusion_matrix.slice(0, k).map((r) => r.slice(0, k)));
  assert.match(got.note, /The first 30 of 49 classes shown/);
  for (const c of want.per_class) {
    near(got.rest[c.class].roc_auc, c.roc_auc, `class ${c.class} against the rest: ROC AUC`);
    near(got.rest[c.class].ece, c.ece, `class ${c.class} against the rest: ECE`);
  }
  await shot(page, 'class-report.png');
  // a class id that does not exist gets a message, and the report's place is kept for it
  await page.fill('#ovr-class', '77');
  await page.press('#ovr-class', 'Enter');
  await page.click('#ovr-run');
  await page.waitForFunction(() => /One-vs-rest failed: .*class 77/.test(document.querySelector('#ovr-class').closest('section').textContent));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a top-k file has a report without AUCs, and the bundled example has one per model', async () => {
  const { page, errors } = await open(browser, url);
  // the example: its two matrices, generated again in the worker
  await page.click('nav.tabs button[data-tab="multiclass"]');
  const example = await report(page);
  assert.deepEqual(example.map((m) => m.model).sort(), ['markov', 'transformer']);
  assert.ok(example.every((m) => m.auc.ovr_macro > 0.5));
  // a model renamed in the page keeps its new name and its colour in the report
  await page.fill('li[data-model-item="markov"] input.name', 'markov v2');
  await page.press('li[data-model-item="markov"] input.name', 'Enter');
  await page.waitForSelector('li[data-model-item="markov v2"]');
  await page.click('#class-report');
  await page.waitForSelector('.class-report section.class-model[data-model="markov v2"]', { timeout: 30000 });
  for (const model of ['markov v2', 'transformer']) {
    const card = await page.$eval(`li[data-model-item="${model}"] .swatch`, (e) => e.style.background);
    const section = await page.$eval(`.class-report section.class-model[data-model="${model}"] h3 .swatch`, (e) => e.style.background);
    assert.equal(section, card, `${model}: the Models card's colour`);
  }
  // one class against the rest names the models as the page does, in their colours
  await page.fill('#ovr-class', '0');
  await page.press('#ovr-class', 'Enter');
  await page.click('#ovr-run');
  await page.waitForSelector('.ovr-body tr[data-model="markov v2 · class 0 vs rest"]', { timeout: 30000 });
  const ovr = await page.$eval('.ovr-body tr[data-model="markov v2 · class 0 vs rest"] .swatch', (e) => e.style.background);
  assert.equal(ovr, await page.$eval('li[data-model-item="markov v2"] .swatch', (e) => e.style.background), 'one-vs-rest: the Models card\'s colour');
  // a removed model leaves the report (its matrix is not read again), and
  // the one left keeps its colour
  const color = await page.$eval('li[data-model-item="transformer"] .swatch', (e) => e.style.background);
  await page.click('li[data-model-item="markov v2"] button[title="remove"]');
  await page.waitForFunction(() => !document.querySelector('li[data-model-item="markov v2"]'));
  await page.click('#class-report');
  await page.waitForFunction(() => {
    const models = [...document.querySelectorAll('.class-report section.class-model')].map((e) => e.dataset.model);
    return models.length === 1 && models[0] === 'transformer';
  }, null, { timeout: 30000 });
  assert.equal(await page.$eval('.class-report section.class-model[data-model="transformer"] h3 .swatch', (e) => e.style.background), color);
  await clearAll(page);
  const file = path.join(reference, 'multiclass_topk.csv');
  await drop(page, [{ name: 'multiclass_topk.csv', data: fs.readFileSync(file) }]);
  await page.waitForSelector('#class-report');
  const [got] = await report(page);
  const [want] = diagnose(file).models;
  want.report.classes.forEach((line, i) => near(got.lines[want.class_names[i]].f1, line.f1, `top-k class ${want.class_names[i]} F1`));
  assert.deepEqual(got.auc, {});
  assert.match(got.note, /A top-k list has no score for every class: no ROC AUC/);
  assert.deepEqual(errors, []);
  await page.close();
});
