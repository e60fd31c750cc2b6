// The page's worker jobs (app/worker/protocol.rs): a job superseded by a
// newer one of its view is stopped at once and its late answer never shown;
// the loader's Cancel stops the loads only, so a view's job in flight
// still answers, and what was loaded stays.
//
// The Worker constructor is wrapped so that one chosen job's answers
// arrive late (`hold`): the page cannot tell, and the test sees when the
// page terminates that job's worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, drop, reference, cells, outDir } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

/** Installed before the page's scripts: the next job of kind `globalThis.holdKind`
 * (its variant's place in `Job`) has every answer of its worker delayed by
 * `globalThis.holdMs`; such workers are listed in `globalThis.held`, with
 * the time the page terminated them. */
function hold() {
  const Real = globalThis.Worker;
  globalThis.held = [];
  globalThis.Worker = class extends Real {
    postMessage(message, transfer) {
      // message[0]: the encoded (id, job); a one-byte id, then the variant
      const head = Array.isArray(message) ? message[0] : null;
      if (globalThis.holdKind !== undefined && head && head[0] !== 0 && head[1] === globalThis.holdKind) {
        globalThis.holdKind = undefined;
        this.heldAt = performance.now();
        globalThis.held.push(this);
      }
      return super.postMessage(message, transfer);
    }
    terminate() {
      this.terminatedAt ??= performance.now();
      return super.terminate();
    }
    set onmessage(f) {
      super.onmessage = f && ((e) => {
        if (this.heldAt === undefined) return f.call(this, e);
        // a terminated worker's queued messages are never delivered
        setTimeout(() => { if (this.terminatedAt === undefined) f.call(this, e); }, globalThis.holdMs);
      });
    }
    get onmessage() { return super.onmessage; }
  };
}

/** `Job::Diagnose`'s place in the enum (protocol.rs). */
const DIAGNOSE = 5;

async function openHeld() {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.addInitScript(hold);
  await page.goto(url);
  await page.waitForSelector('td[data-metric]', { timeout: 30000 });
  await drop(page, [{ name: 'seeds.csv', data: fs.readFileSync(path.join(reference, 'extra', 'seeds.csv')) }]);
  await page.waitForFunction(() => document.querySelectorAll('.diag-numbers tbody tr').length === 6, null, { timeout: 20000 });
  return { page, errors };
}

const strategy = (page) => page.$eval('#diag-strategy', (s) => s.value);
const setStrategy = (page, value) => page.evaluate((v) => {
  const s = document.querySelector('#diag-strategy');
  s.value = v;
  s.dispatchEvent(new Event('change', { bubbles: true }));
}, value);

test('a Diagnostics job superseded by a newer one is stopped at once, and its late answer is never shown', async () => {
  const { page, errors } = await openHeld();
  assert.equal(await strategy(page), 'uniform');
  await page.evaluate((kind) => { globalThis.holdKind = kind; globalThis.holdMs = 4000; }, DIAGNOSE);
  // job A (quantile bins) answers 4 s late; job B (quantile, 7 bins) supersedes it
  await setStrategy(page, 'quantile');
  await page.waitForFunction(() => globalThis.held.length === 1);
  await page.fill('#diag-bins', '7');
  await page.press('#diag-bins', 'Enter');
  await page.waitForFunction(() => document.querySelector('#diag-bins')?.getAttribute('value') === '7', null, { timeout: 20000 });
  const shownAt = await page.evaluate(() => performance.now());
  const [heldAt, terminatedAt] = await page.evaluate(() => [globalThis.held[0].heldAt, globalThis.held[0].terminatedAt]);
  assert.ok(terminatedAt !== undefined && terminatedAt <= shownAt, 'the superseded job\'s worker was stopped when the newer job started');
  assert.ok(terminatedAt - heldAt < 4000, `stopped after ${terminatedAt - heldAt} ms, before its answer`);
  // past the time its answer would have come: the newer answer stays
  await page.waitForTimeout(4500);
  assert.equal(await page.$eval('#diag-bins', (e) => e.getAttribute('value')), '7');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Cancel on a long load stops the load only: what was loaded stays, and a Diagnostics job in flight still answers', async () => {
  fs.mkdirSync(outDir, { recursive: true });
  const big = path.join(outDir, 'jobs-long.run');
  // about 130 MB of run lines: parsed for well over the time Cancel takes
  const fd = fs.openSync(big, 'w');
  for (let q = 0; q < 20000; q++) {
    let lines = '';
    for (let d = 0; d < 200; d++) lines += `q${q} Q0 doc${q}_${d} ${d + 1} ${(200 - d) / 10} long\n`;
    fs.writeSync(fd, lines);
  }
  fs.closeSync(fd);
  const { page, errors } = await openHeld();
  const before = await cells(page);
  await page.evaluate((kind) => { globalThis.holdKind = kind; globalThis.holdMs = 6000; }, DIAGNOSE);
  await page.evaluate(() => { document.querySelector('.diag-panel').dataset.stale = '1'; });
  await setStrategy(page, 'quantile');
  await page.waitForFunction(() => globalThis.held.length === 1);
  await page.setInputFiles('#file-input', [big]);
  await page.waitForSelector('.progress button', { timeout: 10000 });
  await page.click('.progress button');
  await page.waitForSelector('text=Loading jobs-long.run cancelled');
  await page.waitForSelector('.progress', { state: 'detached' });
  assert.deepEqual(await cells(page), before, 'everything loaded before is unchanged');
  assert.equal(await page.evaluate(() => globalThis.held[0].terminatedAt), undefined, 'the Diagnostics job goes on');
  // its answer arrives: the panel redrawn with quantile bins
  await page.waitForFunction(() => document.querySelector('.diag-panel') && !document.querySelector('.diag-panel').dataset.stale, null, { timeout: 20000 });
  assert.equal(await strategy(page), 'quantile');
  assert.deepEqual(errors, []);
  await page.close();
});

/** `Job::Export`'s place in the enum (protocol.rs). */
const EXPORT = 8;

test('every long view job shows its progress and a Cancel that stops it: the page stays usable and nothing loaded is lost', async () => {
  const { page, errors } = await openHeld();
  const before = await cells(page);
  const panelBefore = await page.$eval('.diag-body', (e) => e.innerHTML);
  // a Diagnostics job whose answer would come 20 s late: shown as running, with a Cancel
  await page.evaluate((kind) => { globalThis.holdKind = kind; globalThis.holdMs = 20000; }, DIAGNOSE);
  await setStrategy(page, 'quantile');
  await page.waitForFunction(() => globalThis.held.length === 1);
  const status = page.locator('.jobs p[role="status"]', { hasText: 'Diagnostics' });
  await status.waitFor({ timeout: 5000 });
  await status.locator('button', { hasText: 'Cancel' }).click();
  // stopped at once: its worker terminated, the line gone, the panel and every value as before
  await page.waitForFunction(() => globalThis.held[0].terminatedAt !== undefined, null, { timeout: 2000 });
  await page.waitForSelector('.jobs p', { state: 'detached', timeout: 2000 });
  assert.deepEqual(await cells(page), before, 'everything loaded is unchanged');
  assert.equal(await page.$eval('.diag-body', (e) => e.innerHTML), panelBefore, 'the panel of the last answer stays');
  // the page stays usable: the next Diagnostics job answers, and so does an export
  await setStrategy(page, 'uniform');
  await page.fill('#diag-bins', '7');
  await page.press('#diag-bins', 'Enter');
  await page.waitForFunction(() => document.querySelector('#diag-bins')?.getAttribute('value') === '7', null, { timeout: 20000 });
  // an export held long enough to be seen running, then cancelled: no file, no error shown
  await page.evaluate((kind) => { globalThis.holdKind = kind; globalThis.holdMs = 20000; }, EXPORT);
  let downloaded = false;
  page.on('download', () => { downloaded = true; });
  await page.click('button[data-export="csv"]');
  const exporting = page.locator('.jobs p[role="status"]', { hasText: 'Export' });
  await exporting.waitFor({ timeout: 5000 });
  await exporting.locator('button').click();
  await page.waitForSelector('.jobs p', { state: 'detached', timeout: 2000 });
  assert.equal(await page.evaluate(() => globalThis.held[1].terminatedAt !== undefined), true, 'the export\'s worker was stopped');
  await page.waitForTimeout(300);
  assert.equal(downloaded, false);
  assert.equal(await page.$$eval('.msg.error', (e) => e.length), 0, 'a cancel is not an error');
  // and an export asked again is written
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 20000 }), page.click('button[data-export="csv"]')]);
  assert.match(await download.suggestedFilename(), /\.csv$/);
  assert.deepEqual(await cells(page), before);
  assert.deepEqual(errors, []);
  await page.close();
});
