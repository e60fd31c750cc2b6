// What new users tripped over: a value never differs from the defaults
// without the page saying so where the value is read, with one way back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, drop, refFile, cells, waitForModels, clearAll, setConvention, oracle, close, shot } from './harness.mjs';

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
  await waitForModels(page, ['bench']);
  const notice = await page.$eval('#non-defaults', (n) => n.textContent);
  assert.match(notice, /gain=exponential/);
  assert.match(notice, /ties=average/);
  // each column a changed convention changes is marked †, with which in its help
  const marks = await page.$$eval('table.metrics thead th[data-conventions]', (ths) => Object.fromEntries(ths.map((th) => [th.firstChild.textContent, [th.dataset.conventions, th.querySelector('sup.conv').textContent]])));
  assert.deepEqual(marks['ndcg@10'], ['ties=average, gain=exponential', '†']);
  assert.deepEqual(marks.map, ['ties=average', '†']);
  await shot(page, 'non-defaults.png');
  // the paper table says so too
  const [md] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="md"]')]);
  const text = (await import('node:fs')).readFileSync(await md.path(), 'utf8');
  assert.match(text, /\| nDCG@10† \|/);
  assert.match(text, /† marks the columns they change/);
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
  const v = (await cells(page)).bench;
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

const file = (name, text) => ({ name, data: Buffer.from(text) });
const warningsText = (page) => page.$$eval('ul.warnings li', (ls) => ls.map((l) => l.textContent).join('\n'));
const noticesText = (page) => page.$$eval('.msg', (ms) => ms.map((m) => m.textContent).join('\n'));

test('precision with nothing predicted positive is scikit-learn\'s 0 with its warning and a marked cell, and zero_division nan leaves it undefined (—)', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [file('none.csv', 'label,m\n1,0.2\n0,0.1\n1,0.3\n1,0.4\n0,0.45\n')]);
  await waitForModels(page, ['m']);
  const cell = await page.$('td[data-metric="precision"][data-model="m"]');
  assert.equal(await cell.getAttribute('data-value'), '0.0');
  assert.match(await cell.$eval('.mark.zd', (m) => m.textContent), /⚠/);
  assert.match(await cell.getAttribute('title'), /⚠ no row is predicted positive: its denominator is 0/);
  // recall is 0 of 3 positives: a ratio, no mark
  assert.equal(await page.$('td[data-metric="recall"][data-model="m"] .mark.zd'), null);
  assert.match(await warningsText(page), /precision is ill-defined at this threshold \(no row is predicted positive\), set to 0 \(zero_division = 0, scikit-learn's default 'warn'\)/);
  await setConvention(page, 'zero_division', 'nan');
  await page.waitForFunction(() => document.querySelector('td[data-metric="precision"][data-model="m"]')?.dataset.value === '');
  assert.match(await page.$eval('td[data-metric="precision"][data-model="m"]', (c) => c.textContent), /—/);
  assert.match(await page.$eval('#non-defaults', (n) => n.textContent), /zero_division=nan/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a run whose document ids never match the qrels says so instead of a silent table of zeros', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  await drop(page, [file('q.qrels', 'q1 0 D1 1\nq2 0 D2 1\n'), file('lower.run', 'q1 Q0 d1 1 3 lower\nq2 Q0 d2 1 2 lower\n')]);
  await waitForModels(page, ['lower']);
  assert.match(await warningsText(page), /lower: none of its retrieved documents is judged in the qrels.*'d1'.*'D1'/);
  await page.close();
});

test('the elbow is a clear knee of the cumulative curve or "no clear elbow", with the rule beside the chart', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  // top: every relevant document in the first 4 of 20; spread: one in three, all the way down
  const lines = (tag, rel) => Array.from({ length: 20 }, (_, i) => `q1 Q0 d${i} ${i + 1} ${20 - i} ${tag}`).join('\n') + '\n';
  const qrels = (rel) => Array.from({ length: 20 }, (_, i) => `q1 0 d${i} ${rel(i) ? 1 : 0}`).join('\n') + '\n';
  await drop(page, [file('top.qrels', qrels((i) => i < 4)), file('top.run', lines('top'))]);
  await waitForModels(page, ['top']);
  await page.click('nav.tabs button[data-tab="ranking"]');
  await page.waitForSelector('tr[data-elbow-model="top"]');
  assert.equal(await page.$eval('tr[data-elbow-model="top"]', (r) => r.dataset.elbow), '4');
  assert.match(await page.evaluate(() => document.body.innerText), /found on the metric's cumulative form/);
  await clearAll(page);
  await drop(page, [file('spread.qrels', qrels((i) => i % 3 === 0)), file('spread.run', lines('spread'))]);
  await waitForModels(page, ['spread']);
  await page.waitForSelector('tr[data-elbow-model="spread"]');
  assert.equal(await page.$eval('tr[data-elbow-model="spread"]', (r) => r.dataset.elbow), '');
  assert.match(await page.$eval('tr[data-elbow-model="spread"]', (r) => r.textContent), /no clear elbow/);
  await page.close();
});

test('a pandas index column is skipped and said; a duplicated document is refused as trec_eval refuses it, keeping what was loaded', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  // written by pandas 3.1's DataFrame.to_csv()
  await drop(page, [file('preds.csv', ',label,score\n0,1,0.9\n1,0,0.8\n2,1,0.3\n3,0,0.1\n')]);
  await waitForModels(page, ['preds']);
  assert.equal((await cells(page)).preds.roc_auc, 0.75);
  assert.match(await noticesText(page), /Column 1 has no name: read as the row index pandas' to_csv\(\) writes, and skipped/);
  await drop(page, [file('dup.run', 'q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d1 3 1 r\n')]);
  await page.waitForSelector('.msg.error');
  assert.match(await noticesText(page), /document 'd1' twice for query 'q1', in rows 1 and 3 of the run/);
  await waitForModels(page, ['preds']);
  await page.close();
});

test('the reciprocal-rank difference column follows the chosen baseline', async () => {
  const { page } = await open(browser, url);
  await page.click('nav.tabs button[data-tab="ranking"]');
  await page.waitForSelector('table.rr tbody tr');
  const header = () => page.$eval('table.rr thead tr th:last-child', (th) => th.textContent);
  const names = await page.$$eval('table.rr thead th button.sort', (bs) => bs.map((b) => b.textContent).filter((t) => t.endsWith(': RR')).map((t) => t.slice(0, -4)));
  assert.equal(names.length, 2);
  assert.equal(await header(), `RR ${names[0]} − ${names[1]}`);
  // choose the first model as the baseline: the column turns around
  await page.selectOption('section.card:has(table.metrics) select', names[0]);
  await page.waitForFunction((want) => document.querySelector('table.rr thead tr th:last-child')?.textContent === want, `RR ${names[1]} − ${names[0]}`);
  const row = await page.$eval('table.rr tbody tr', (tr) => ({
    rr: [...tr.querySelectorAll('td[data-per-query]')].map((td) => Number(td.dataset.perQuery)),
    diff: Number(tr.lastElementChild.textContent),
  }));
  assert.ok(Math.abs(row.diff - (row.rr[1] - row.rr[0])) < 1e-4, JSON.stringify(row));
  await page.close();
});

test('top-k lists with text item ids load, join by name and explain with their names; a run is named by its tag', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1280, height: 900 } });
  await clearAll(page);
  const text = (await import('node:fs')).readFileSync(new URL('../reference/multiclass_topk.csv', import.meta.url), 'utf8');
  const [header, ...rows] = text.trim().split('\n');
  const named = [header, ...rows.map((r) => r.split(',').map((id) => `item-${id}`).join(','))].join('\n') + '\n';
  await drop(page, [refFile('multiclass_topk.csv')]);
  await waitForModels(page, ['multiclass_topk']);
  const numbered = (await cells(page)).multiclass_topk;
  await clearAll(page);
  // the same lists with every id a text, twice: the second file, its lists
  // reversed, meets the ids in another order and joins them by name
  const reversed = [header, ...rows.map((r) => { const ids = r.split(',').map((id) => `item-${id}`); return [ids[0], ...ids.slice(1).reverse()].join(','); })].join('\n') + '\n';
  await drop(page, [file('named.csv', named)]);
  await waitForModels(page, ['named']);
  await drop(page, [file('reversed.csv', reversed)]);
  await waitForModels(page, ['named', 'reversed']);
  const v = await cells(page);
  assert.ok(Object.keys(v.named).length >= 5);
  assert.deepEqual(v.named, numbered, 'text ids give the values of the same lists numbered');
  assert.notDeepEqual(v.reversed, numbered);
  await page.click('td[data-metric="f1_macro"][data-model="named"]');
  await page.waitForSelector('section.explain');
  assert.match(await page.$eval('section.explain', (s) => s.textContent), /class item-28/);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  assert.match(await noticesText(page), /named bench after its run tag/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the per-query table shows any metric of the table, exports it, and the page writes trec_eval -q output', async () => {
  const { page, errors } = await open(browser, url, { viewport: { width: 1280, height: 900 } });
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  // pytrec_eval's per-query values (trec_eval 9's measures) for the same files
  const fs = await import('node:fs');
  const ref = JSON.parse(fs.readFileSync(new URL('../reference/extra/trec_eval.json', import.meta.url), 'utf8')).cases.ranking['ranking.run level=1'];
  await page.selectOption('#per-query-metric', 'ndcg@10');
  await page.waitForFunction(() => document.querySelector('table.rr thead')?.textContent.includes('bench: ndcg@10'));
  const rows = await page.$$eval('table.rr tbody tr', (trs) => trs.map((tr) => [tr.dataset.query, Number(tr.querySelector('td[data-per-query]').dataset.perQuery)]));
  let checked = 0;
  for (const [q, v] of rows) {
    if (!ref[q]) continue;
    close(v, ref[q].ndcg_cut_10, `ndcg@10 of ${q}`);
    checked++;
  }
  assert.ok(checked >= 10, `${checked} queries checked`);
  // the explanation of a row is the chosen metric's, for that query
  await page.click('table.rr tbody tr:first-child td[data-per-query] button');
  await page.waitForSelector('section.explain');
  assert.match(await page.$eval('section.explain h2', (h) => h.textContent), new RegExp(`ndcg@10 — bench, query ${rows[0][0]}`));
  await page.click('#explain-close');
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="per-query"]')]);
  const lines = fs.readFileSync(await csv.path(), 'utf8').trim().split('\n');
  assert.equal(lines[0], 'query,bench: ndcg@10');
  assert.equal(lines.length, rows.length + 1);
  for (const line of lines.slice(1)) {
    const [q, v] = line.split(',');
    if (ref[q]) close(Number(v), ref[q].ndcg_cut_10, `CSV ndcg@10 of ${q}`);
  }
  // trec_eval -q: per-query lines and the all lines, trec_eval's layout; pytrec_eval
  // bundles trec_eval 9.0.x, whose recall points (iprec_at_recall) the convention selects
  await page.selectOption('#conv-trec_eval', '9.0.x');
  const [trec] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="trec"]')]);
  const out = fs.readFileSync(await trec.path(), 'utf8').trim().split('\n').map((l) => l.split('\t'));
  // trec_eval -q: the per-query lines, then the all lines from runid on
  assert.ok(out.some((l) => l.join('|') === 'runid                 |all|bench'), 'the runid line');
  assert.equal(out.find((l) => l[1] === 'all')[0].trim(), 'runid');
  let lines2 = 0;
  for (const [measure, q, v] of out) {
    const name = measure.trim();
    if (q !== 'all' && ref[q] && ref[q][name] !== undefined) {
      assert.ok(Math.abs(Number(v) - ref[q][name]) <= 5e-5, `${name} ${q}: ${v} vs ${ref[q][name]}`);
      lines2++;
    }
  }
  assert.ok(lines2 > 200, `${lines2} per-query lines checked`);
  assert.deepEqual(errors, []);
  await page.close();
});
