// What new users tripped over: a value never differs from the defaults
// without the page saying so where the value is read, with one way back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, drop, refFile, cells, waitForModels, clearAll, oracle, close, shot } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

test('non-default conventions from a link or remembered settings are named above the table, and reset in one click', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${url}#gain=exponential&ties=average`);
  await page.waitForSelector('td[data-metric]');
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['ranking']);
  const notice = await page.$eval('#non-defaults', (n) => n.textContent);
  assert.match(notice, /gain=exponential/);
  assert.match(notice, /ties=average/);
  await shot(page, 'non-defaults.png');
  // a fresh tab of the same browser, with no fragment: the remembered
  // settings come back, and say so
  const again = await context.newPage();
  await again.goto(url);
  await again.waitForSelector('td[data-metric]');
  await again.click('nav.tabs button[data-tab="ranking"]');
  assert.match(await again.$eval('#non-defaults', (n) => n.textContent), /gain=exponential/);
  // one click puts the defaults back: trec_eval's values, no notice
  await page.click('#reset-conventions');
  await page.waitForSelector('#non-defaults', { state: 'detached' });
  const v = (await cells(page)).ranking;
  close(v['ndcg@10'], oracle.ranking['ndcg@10 gain=rel']['pytrec_eval ndcg_cut'], 'ndcg@10 after reset');
  assert.equal(await page.$eval('#conv-gain', (s) => s.value), 'linear');
  await context.close();
});

test('"which queries count" is labelled as trec_eval behaves: the default is trec_eval -c', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('td[data-metric]');
  await page.click('nav.tabs button[data-tab="ranking"]');
  const options = await page.$$eval('#conv-query_set option', (os) => Object.fromEntries(os.map((o) => [o.value, o.textContent])));
  assert.match(options.qrels, /trec_eval -c/);
  assert.match(options.intersection, /trec_eval without -c/);
  assert.doesNotMatch(options.intersection, /trec_eval default/);
  assert.match(await page.$eval('.conventions p.muted', (p) => p.textContent), /trec_eval with -c/);
  await page.close();
});
