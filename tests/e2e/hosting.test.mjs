// Static hosting for teams: links with data URLs and a view fragment, sessions
// exported and imported, a saved report opened from disk with no network,
// offline use through the service worker, and file content rendered as text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { serve, launch, open, drop, refFile, reference, oracle, cells, allCells, waitForModels, clearAll, setConvention, close, shot, outDir } from './harness.mjs';

const APP = '/team/tools/rankscope/';
let server, url, browser;
before(async () => {
  ({ server, url } = await serve(APP, { '/team/data/': reference }));
  browser = await launch();
});
after(async () => { await browser?.close(); server?.close(); });

async function controls(page) {
  return page.evaluate(() => ({
    ties: document.querySelector('#conv-ties')?.value,
    k: document.querySelector('input[aria-label="cutoffs"]')?.value,
    curve: document.querySelector('select[aria-label="curve metric"]')?.value,
    p: document.querySelector('input[aria-label="largest cutoff"]')?.value,
    perQuery: document.querySelector('#per-query-lines')?.checked,
    theme: document.documentElement.dataset.theme ?? 'system',
    tab: document.querySelector('nav.tabs button.active')?.dataset.tab,
  }));
}

test('a link under a sub-path loads its data URLs and restores the view of its fragment', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const origin = new URL(url).origin;
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const link = `${url}?run=../../data/ranking.run&qrels=../../data/ranking.qrels#k=5,10,15&ties=file&curve=recall&p=12&per_query=1&theme=dark`;
  await page.goto(link);
  await waitForModels(page, ['bench']);
  await page.waitForFunction(() => document.querySelector('td[data-metric="ndcg@15"]'));
  // the values follow the fragment's conventions: file order is ranx's tie rule
  const r = oracle.ranking;
  const v = (await cells(page)).bench;
  close(v['ndcg@10'], r['ndcg@10 gain=rel']['ranx ndcg'], 'ndcg@10 (ties=file from the link)');
  close(v['map'], r['map (no cutoff)']['ranx map'], 'map (ties=file from the link)');
  assert.deepEqual(await controls(page), { ties: 'file', k: '5,10,15', curve: 'recall', p: '12', perQuery: true, theme: 'dark', tab: 'ranking' });
  assert.ok(requests.some((u) => u === `${origin}/team/data/ranking.run`), 'the run came from its URL');
  assert.ok(requests.every((u) => u.startsWith(origin) || u.startsWith('data:') || u.startsWith('blob:')), 'nothing but the local server');
  // the same view built by hand from dropped files shows the same values
  const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await fresh.goto(url);
  await fresh.waitForSelector('td[data-metric]');
  await clearAll(fresh);
  await drop(fresh, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(fresh, ['bench']);
  await fresh.fill('input[aria-label="cutoffs"]', '5,10,15');
  await fresh.press('input[aria-label="cutoffs"]', 'Enter');
  await setConvention(fresh, 'ties', 'file');
  await fresh.waitForFunction(() => document.querySelector('td[data-metric="ndcg@15"]'));
  await fresh.waitForFunction((want) => Number(document.querySelector('td[data-metric="ndcg@10"]').dataset.value) === want, v['ndcg@10']);
  assert.deepEqual((await cells(fresh)).bench, v);
  // the address follows the view: changing a control rewrites the fragment
  await setConvention(page, 'ties', 'trec');
  await page.waitForFunction(() => !location.hash.includes('ties='));
  assert.match(await page.evaluate(() => location.hash), /k=5,10,15/);
  // a bad URL and a refused scheme: clear errors, nothing lost
  await page.goto(`${url}?run=../../data/missing.run&qrels=javascript:alert(1)`);
  // each URL reports as it ends (the refused scheme at once, the 404 once its worker answers)
  await page.waitForFunction(() => document.querySelectorAll('.msg.error').length >= 2);
  const text = await page.$$eval('.msg.error', (ms) => ms.map((m) => m.textContent).join('\n'));
  assert.match(text, /missing\.run.*HTTP 404/s);
  assert.match(text, /only http and https URLs/);
  assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
  await shot(page, 'link-errors.png');
  await fresh.close();
  await page.close();
});

test('an exported session imported again shows identical values and the same view', async () => {
  const { page, errors } = await open(browser, url);
  await setConvention(page, 'ties', 'average');
  await page.fill('input[aria-label="cutoffs"]', '3,7');
  await page.press('input[aria-label="cutoffs"]', 'Enter');
  await page.waitForFunction(() => document.querySelector('td[data-metric="ndcg@7"]'));
  // a renamed model travels with the session
  await page.fill('li[data-model-item="bm25"] input.name', 'bm25 (tuned)');
  await page.press('li[data-model-item="bm25"] input.name', 'Enter');
  await waitForModels(page, ['bm25 (tuned)', 'dense']);
  const before = await allCells(page);
  await page.click('nav.tabs button[data-tab="ranking"]');
  await page.click('#share-menu summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-session')]);
  const file = path.join(outDir, 'session.rankscope');
  await download.saveAs(file);
  assert.ok(fs.readFileSync(file).subarray(0, 18).toString() === 'RANKSCOPE-SESSION ');

  const other = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await other.goto(url);
  await other.waitForSelector('td[data-metric]');
  await clearAll(other);
  await other.setInputFiles('#import-session', file);
  await waitForModels(other, ['bm25 (tuned)', 'dense']);
  assert.deepEqual(await allCells(other), before);
  await other.click('nav.tabs button[data-tab="ranking"]');
  assert.equal(await other.$eval('#conv-ties', (s) => s.value), 'average');
  // a damaged session is refused and changes nothing
  const bytes = fs.readFileSync(file);
  await drop(other, [{ name: 'broken.rankscope', data: bytes.subarray(0, bytes.length - 40) }]);
  await other.waitForSelector('.msg.error');
  assert.match(await other.$eval('.msg.error', (m) => m.textContent), /broken\.rankscope could not be restored/);
  assert.deepEqual(await allCells(other), before);
  assert.deepEqual(errors, []);
  await other.close();
  await page.close();
});

test('a saved report opens from disk with no network and shows the same values', async () => {
  const { page, errors } = await open(browser, url);
  const before = await allCells(page);
  await page.click('nav.tabs button[data-tab="binary"]');
  await page.waitForSelector('#threshold');
  await page.click('#share-menu summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-report')]);
  const file = path.join(outDir, 'report.html');
  await download.saveAs(file);
  await page.close();
  const html = fs.readFileSync(file, 'utf8');
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  // its scripts: the one inline module (the app's glue and its start) by its
  // hash, and wasm compilation; no scheme (data:, blob:) and nothing inline
  const csp = html.match(/Content-Security-Policy" content="([^"]+)"/)[1];
  const scriptSrc = csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src ')).split(' ').slice(1);
  const modules = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assert.equal(modules.length, 1);
  const hash = crypto.createHash('sha256').update(modules[0], 'utf8').digest('base64');
  assert.deepEqual(scriptSrc, [`'sha256-${hash}'`, "'wasm-unsafe-eval'"]);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const report = await context.newPage();
  const requests = [];
  report.on('request', (r) => requests.push(r.url()));
  const reportErrors = [];
  report.on('pageerror', (e) => reportErrors.push(String(e)));
  report.on('console', (m) => { if (m.type() === 'error') reportErrors.push(m.text()); });
  await report.goto(`file://${file}`);
  await report.waitForSelector('td[data-metric]', { timeout: 30000 });
  assert.equal(await report.$eval('nav.tabs button.active', (b) => b.dataset.tab), 'binary', 'the saved view');
  assert.deepEqual(await allCells(report), before);
  assert.equal(await report.$('#file-input'), null, 'a report does not load files');
  // the report starts the worker it carries: no error greets the reader, and
  // the table's export (written by the worker) downloads
  assert.match(await report.$eval('#dropzone', (d) => d.textContent), /A saved Rankscope report/);
  await report.waitForTimeout(1500);
  assert.equal(await report.$('.msg.error'), null, 'no error on opening');
  const [exported] = await Promise.all([report.waitForEvent('download'), report.click('button[data-export="csv"]')]);
  assert.match(fs.readFileSync(await exported.path(), 'utf8'), /^model,/);
  const foreign = requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, [], 'a report requests nothing');
  await shot(report, 'report.png');
  assert.deepEqual(reportErrors, []);
  assert.deepEqual(errors, []);
  // a script injected into the file (from a data: URL, or inline) does not
  // run; the report still does
  const injected = path.join(outDir, 'report-injected.html');
  fs.writeFileSync(injected, html.replace('</body>', `<script src="data:text/javascript,document.title='pwned'"></script><script>document.title='pwned'</script></body>`));
  const hostile = await context.newPage();
  await hostile.goto(`file://${injected}`);
  await hostile.waitForSelector('td[data-metric]', { timeout: 30000 });
  assert.deepEqual(await allCells(hostile), before);
  assert.notEqual(await hostile.title(), 'pwned');
  await context.close();
});

test('once opened, the app works offline (service worker)', async () => {
  const own = await serve('/offline/app/');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(own.url);
  await page.waitForSelector('td[data-metric]');
  await page.evaluate(() => navigator.serviceWorker.ready);
  const first = await cells(page);
  own.server.close();
  own.server.closeAllConnections();
  await page.reload();
  await page.waitForSelector('td[data-metric]', { timeout: 30000 });
  assert.deepEqual(await cells(page), first, 'the example computed again with the server gone');
  // loading a file offline still works: the worker came from the cache
  await clearAll(page);
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  // the teaching page was cached at install too, though never opened online
  await page.goto(`${own.url}learn/#imbalance`);
  await page.waitForSelector('#classification-playground td[data-clf-metric]', { timeout: 30000 });
  await context.close();
});

test('ids and names from files are rendered as text, never as HTML', async () => {
  const { page, errors } = await open(browser, url);
  await page.evaluate(() => { window.alert = () => { window.__xss = 'alert'; }; });
  await clearAll(page);
  const evil = '<img src=x onerror=window.__xss=1>';
  const q = '<u class=pwn>q1</u>';
  const csv = ['query_id,item_id,score,relevance', `"${q}","${evil}",0.9,1`, `"${q}",d2,0.5,0`, 'q2,"<script>window.__xss=2</script>",0.7,2', 'q2,d3,0.2,0'].join('\n');
  await drop(page, [{ name: 'evil.csv', data: Buffer.from(csv) }]);
  await page.waitForSelector('td[data-metric]');
  await page.fill('.models li input.name', '<b onmouseover=window.__xss=3>m</b>');
  await page.press('.models li input.name', 'Enter');
  await page.waitForFunction(() => document.body.textContent.includes('<u class=pwn>q1</u>'));
  // the drill-down lists the query's documents by id
  await page.click('tr[data-query="<u class=pwn>q1</u>"] button');
  await page.waitForSelector('.drill table');
  await page.waitForFunction((id) => document.querySelector('.drill').textContent.includes(id), evil);
  await page.click('tr[data-query="q2"] button');
  await page.waitForFunction(() => document.querySelector('.drill').textContent.includes('<script>window.__xss=2</script>'));
  const state = await page.evaluate(() => ({
    xss: window.__xss,
    injected: document.querySelectorAll('u.pwn, img[src="x"], b[onmouseover]').length,
    text: document.body.textContent.includes('<u class=pwn>q1</u>'),
  }));
  assert.deepEqual(state, { xss: undefined, injected: 0, text: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the last view settings are remembered in this browser until forgotten', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('td[data-metric]');
  await setConvention(page, 'ties', 'average');
  await page.fill('input[aria-label="cutoffs"]', '2,4');
  await page.press('input[aria-label="cutoffs"]', 'Enter');
  await page.waitForFunction(() => localStorage.getItem('rankscope.view')?.includes('k=2,4'));
  // a plain address (no fragment) opens with the remembered settings
  const again = await context.newPage();
  await again.goto(url);
  await again.waitForSelector('td[data-metric="ndcg@4"]');
  assert.equal(await again.$eval('#conv-ties', (s) => s.value), 'average');
  assert.equal(await again.evaluate(() => localStorage.getItem('rankscope.view').includes('files=')), false, 'data is not remembered');
  await again.click('#share-menu summary');
  await again.click('#forget-settings');
  await again.waitForSelector('td[data-metric="ndcg@10"]');
  assert.equal(await again.$eval('#conv-ties', (s) => s.value), 'trec');
  const third = await context.newPage();
  await third.goto(url);
  await third.waitForSelector('td[data-metric="ndcg@10"]');
  assert.equal(await third.$eval('#conv-ties', (s) => s.value), 'trec');
  await context.close();
});
