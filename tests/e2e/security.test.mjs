// Nothing leaves the browser: during a whole session every request goes to the
// server the app came from, the page runs under its Content-Security-Policy
// without a single violation, and an injected inline script is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, drop, refFile, waitForModels, clearAll } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/team/tools/rankscope/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

test('a full session under a sub-path requests nothing but its own server, with no CSP violation', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const origin = new URL(url).origin;
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('worker', (w) => requests.push(w.url()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  await page.waitForSelector('td[data-metric]');
  const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
  assert.match(csp, /default-src 'self'/);
  const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src'));
  assert.doesNotMatch(scriptSrc, /'unsafe-inline'|'unsafe-eval'/, 'no inline scripts beyond the hashed loader, no eval');
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  await clearAll(page);
  await drop(page, [refFile('binary.csv')]);
  await waitForModels(page, ['binary']);
  await page.click('button[data-export="svg"]');
  await page.click('button[data-export="png"]');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:'));
  assert.deepEqual(foreign, [], 'requests outside the app\'s own server');
  assert.ok(requests.some((u) => u.includes('/team/tools/rankscope/rankscope-worker')), 'the worker loads from the sub-path');
  // the policy is enforced: an injected inline script does not run
  const ran = await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true';
    document.body.appendChild(s);
    return window.__injected === true;
  });
  assert.equal(ran, false);
  // the teaching page under the same policy: formulas, SVG charts, drags, no violation
  await page.click('#learn-link');
  await page.waitForSelector('article[data-lesson="hits"]');
  assert.match(await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content), /default-src 'self'/);
  for (const id of ['graded', 'thresholds']) {
    await page.click(`nav.lessons a[data-page="${id}"]`);
    await page.waitForSelector(`article[data-lesson="${id}"] .formula math`);
  }
  await page.waitForSelector('#classification-playground .chart-svg svg');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')), []);
  assert.deepEqual(errors.filter((e) => !/Content Security Policy/.test(e)), []);
  await page.close();
});
