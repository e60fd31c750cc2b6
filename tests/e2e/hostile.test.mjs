// Hostile and broken input in the browser: URLs that never end, lie about
// their size or answer late; a gzip bomb; damaged, crafted and misnamed
// sessions; a query too long to show at once. Each ends with a clear message,
// bounded time and memory, and nothing loaded lost or silently replaced.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, refFile, root, cells, waitForModels, clearAll, shot } from './harness.mjs';

let server, url, browser, hostile, hostileUrl;
/** What the hostile server saw, and how to let its slow answer go. */
const seen = { endlessClosed: false, endlessBytes: 0, releaseSlow: null };

/** A second server, on another port (cross-origin, CORS allowed): a run that
 * never ends, a response announcing 10 GiB, qrels that answer only when the test says. */
function hostileServer() {
  const s = http.createServer((req, res) => {
    const at = new URL(req.url, 'http://x').pathname;
    const head = { 'access-control-allow-origin': '*', 'content-type': 'text/plain' };
    if (at === '/endless.run') {
      res.writeHead(200, head);
      let q = 0;
      let stopped = false;
      req.on('close', () => { stopped = true; seen.endlessClosed = true; });
      const pump = () => {
        while (!stopped) {
          let chunk = '';
          // a new query per line: a run that grows forever
          for (let i = 0; i < 20000; i++) chunk += `q${q++} Q0 d1 1 0.5 endless\n`;
          seen.endlessBytes += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
      };
      pump();
    } else if (at === '/huge.run') {
      res.writeHead(200, { ...head, 'content-length': String(10 * 2 ** 30) });
      res.write('q1 Q0 d1 1 0.5 t\n');
      req.on('close', () => res.destroy());
    } else if (at === '/slow.qrels') {
      res.writeHead(200, head);
      res.write('q000000 0 d000026 0\n');
      // every judgment 0: merged, it would turn every nDCG to 0
      seen.releaseSlow = () => res.end(fs.readFileSync(path.join(root, 'tests/reference/ranking.qrels'), 'utf8').replace(/ \d+\n/g, ' 0\n'));
    } else {
      res.writeHead(404, head);
      res.end();
    }
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve({ hostile: s, hostileUrl: `http://127.0.0.1:${s.address().port}` })));
}

before(async () => {
  ({ server, url } = await serve('/'));
  ({ hostile, hostileUrl } = await hostileServer());
  browser = await launch();
});
after(async () => { await browser?.close(); server?.close(); hostile?.closeAllConnections?.(); hostile?.close(); });

const errorText = (page) => page.$$eval('.msg.error, .msg.warning', (ms) => ms.map((m) => m.textContent).join('\n'));

test('a URL that never ends is refused at the value limit and its download stopped; one announcing 10 GiB at once', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const t0 = Date.now();
  await page.goto(`${url}?run=${hostileUrl}/endless.run`);
  await page.waitForSelector('.progress', { timeout: 10000 }); // progress (and Cancel) from the first bytes
  await page.waitForSelector('.msg.error', { timeout: 60000 });
  const text = await errorText(page);
  assert.match(text, /endless\.run:\d+: expected at most 40,000,000 values in one file/, text);
  await page.waitForFunction(() => !document.querySelector('.progress'));
  // the worker let go of the stream: the server saw the connection close
  const until = Date.now() + 5000;
  while (!seen.endlessClosed && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  assert.ok(seen.endlessClosed, 'the endless download is stopped');
  const sent = seen.endlessBytes;
  assert.ok(sent < 400e6, `${sent} bytes sent before the refusal`);
  console.log(`endless URL refused after ${((Date.now() - t0) / 1000).toFixed(1)} s, ${(sent / 1e6).toFixed(0)} MB sent`);
  // a Content-Length past the download limit is refused before any parsing
  await page.goto(`${url}?run=${hostileUrl}/huge.run`);
  await page.waitForSelector('.msg.error', { timeout: 10000 });
  assert.match(await errorText(page), /huge\.run: expected a download of at most 4,294,967,296 bytes \(4 GiB\), found 10,737,418,240 bytes \(its Content-Length\)/);
  await shot(page, 'hostile-url.png');
  await page.close();
});

test('a URL that answers after the person dropped their own data is discarded, not merged', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${url}?qrels=${hostileUrl}/slow.qrels`);
  await page.waitForSelector('.progress', { timeout: 10000 });
  assert.match(await page.$eval('.progress', (p) => p.textContent), /slow\.qrels \(downloading\)/);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  const mine = (await cells(page)).bench;
  assert.ok(mine['ndcg@10'] > 0);
  seen.releaseSlow();
  await page.waitForFunction(() => [...document.querySelectorAll('.msg.warning')].some((m) => m.textContent.includes('slow.qrels was not loaded')), null, { timeout: 15000 });
  assert.deepEqual((await cells(page)).bench, mine, 'the late qrels changed nothing');
  await page.close();
});

test('a gzip bomb is refused past the inflated-text limit with a message naming it, and the page keeps working', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  const before = await cells(page);
  // 10 GiB of line breaks in 10 MB: one 64 MiB gzip member, 160 times
  const member = zlib.gzipSync(Buffer.alloc(64 << 20, 10), { level: 9 });
  const bomb = Buffer.concat(Array(160).fill(member));
  const t0 = Date.now();
  await drop(page, [{ name: 'bomb.csv.gz', data: bomb }]);
  await page.waitForSelector('.msg.error', { timeout: 120000 });
  const text = await errorText(page);
  assert.match(text, /bomb\.csv\.gz:\d+: expected a gzip file that inflates to at most 4,294,967,296 bytes of text \(4 GiB\)/, text);
  assert.match(text, /gzip bomb/);
  console.log(`gzip bomb (${(bomb.length / 1e6).toFixed(1)} MB) refused after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  assert.deepEqual(await cells(page), before, 'nothing loaded was lost');
  assert.deepEqual(errors, []);
  await page.close();
});

/** CRC-32 (IEEE), as the session's checksum line holds it. */
function crc32(bytes) {
  let c, crc = 0xffffffff;
  for (const b of bytes) {
    c = (crc ^ b) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

const seeds = path.join(root, 'tests/fuzz-regressions/import_session');
/** A session of the fuzz seeds (their first byte is the fuzz body's switch). */
const seedSession = () => fs.readFileSync(path.join(seeds, 'seed-session-v2')).subarray(1);
/** A payload sealed with a valid checksum, as a crafted session would be. */
function sealed(payload) {
  const head = Buffer.from(`RANKSCOPE-SESSION 2\ncrc32 ${crc32(payload).toString(16).padStart(8, '0')} ${payload.length}\n`);
  return Buffer.concat([head, payload]);
}

test('damaged, crafted and misnamed sessions are refused and change nothing; replacing own data asks first', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  const mine = await cells(page);
  const good = seedSession();
  // a flipped bit anywhere: the checksum catches it
  for (const at of [30, Math.floor(good.length / 2), good.length - 3]) {
    const bad = Buffer.from(good);
    bad[at] ^= 0x10;
    await drop(page, [{ name: `flipped-${at}.rankscope`, data: bad }]);
    await page.waitForFunction((n) => document.body.textContent.includes(`${n} could not be restored`), `flipped-${at}.rankscope`);
  }
  // NaN scores under a valid checksum: refused by the same rules as a CSV
  await drop(page, [{ name: 'nan.rankscope', data: sealed(fs.readFileSync(path.join(seeds, 'seed-nan-sealed')).subarray(1)) }]);
  await page.waitForFunction(() => document.body.textContent.includes('nan.rankscope could not be restored'));
  assert.match(await errorText(page), /not a number \(NaN\)/);
  // a data file that starts like a session is not restored as one
  await drop(page, [{ name: 'x.run', data: good }]);
  await page.waitForFunction(() => document.body.textContent.includes('x.run could not be loaded'));
  assert.match(await errorText(page), /restored only from a \.rankscope file/);
  assert.deepEqual(await cells(page), mine, 'nothing loaded was changed');
  // a good session over the person's own data asks; "cancel" keeps it all
  const file = path.join(path.dirname(seeds), '..', 'e2e', 'out', 'seed.rankscope');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, good);
  const asked = [];
  page.once('dialog', (d) => { asked.push(d.message()); d.dismiss(); });
  await page.setInputFiles('#import-session', file);
  await page.waitForFunction(() => document.body.textContent.includes('seed.rankscope not restored'));
  assert.match(asked[0], /Replace what is loaded \(1 model\)/);
  assert.deepEqual(await cells(page), mine);
  page.once('dialog', (d) => d.accept());
  await page.setInputFiles('#import-session', file);
  await page.waitForFunction(() => document.body.textContent.includes('Session seed.rankscope restored'));
  assert.notDeepEqual(await cells(page), mine);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the explanation of a 300,000-document query opens at once, a page of rows at a time', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  const n = 300000;
  let run = '';
  for (let i = 0; i < n; i++) run += `big Q0 d${i} ${i + 1} ${(1 - i / n).toFixed(7)} long\n`;
  let qrels = '';
  for (let i = 0; i < n; i += 7) qrels += `big 0 d${i} ${i % 3}\n`;
  await drop(page, [{ name: 'big.qrels', data: Buffer.from(qrels) }, { name: 'long.run', data: Buffer.from(run) }]);
  await waitForModels(page, ['long']);
  const shown = Number(await page.$eval('td[data-metric="ndcg"]', (td) => td.dataset.value));
  await page.click('td[data-metric="ndcg"]');
  await page.waitForSelector('section.explain tbody tr button');
  const t0 = Date.now();
  await page.click('section.explain tbody tr button');
  await page.waitForSelector('section.explain h2:has-text("query")');
  await page.waitForSelector('section.explain .explain-more');
  const opened = Date.now() - t0;
  const state = await page.evaluate(() => ({
    rows: document.querySelectorAll('section.explain tbody tr').length,
    nodes: document.getElementsByTagName('*').length,
    more: document.querySelector('section.explain .explain-more').textContent,
    value: Number(document.querySelector('section.explain .explain-body').dataset.value),
  }));
  assert.equal(state.rows, 200);
  assert.match(state.more, /Showing the first 200 of 300000 rows/);
  assert.ok(state.nodes < 20000, `${state.nodes} DOM nodes`);
  assert.ok(Math.abs(state.value - shown) < 1e-12, 'the one query is the mean');
  assert.ok(opened < 10000, `${opened} ms to open`);
  await page.click('section.explain .explain-more button');
  await page.waitForFunction(() => document.querySelectorAll('section.explain tbody tr').length === 400);
  console.log(`300,000-document query explained in ${opened} ms, ${state.nodes} DOM nodes`);
  assert.deepEqual(errors, []);
  await page.close();
});
