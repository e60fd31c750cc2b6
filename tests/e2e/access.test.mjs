// Keyboard, screen readers and screens: an automated accessibility audit
// (axe-core) of every tab, the lessons and the open panels; a keyboard-only
// session (tests/e2e/keyboard.test.mjs); phones at 390 px and the binary tab at 1440 x 900.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, root, reference, shot } from './harness.mjs';

const axeSource = fs.readFileSync(path.join(root, 'tools/node_modules/axe-core/axe.min.js'), 'utf8');
let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

/** axe-core's serious and critical WCAG 2.1 A/AA violations on the page as it is now. */
async function audit(page) {
  // evaluated through the DevTools protocol, which the page's CSP does not govern
  if (!(await page.evaluate(() => typeof globalThis.axe === 'object'))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

test('axe-core finds no serious or critical violation on any tab, the open panels or the lessons', async () => {
  for (const theme of ['light', 'dark']) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: theme });
    await page.goto(url);
    await page.waitForSelector('td[data-metric]');
    const tabs = await page.$$eval('nav.tabs button[data-tab]', (bs) => bs.map((b) => b.dataset.tab));
    assert.equal(tabs.length, 4);
    for (const tab of tabs) {
      await page.click(`nav.tabs button[data-tab="${tab}"]`);
      await page.waitForSelector(`nav.tabs button[data-tab="${tab}"].active`);
      await page.waitForSelector('td[data-metric]');
      assert.deepEqual(await audit(page), [], `${theme} ${tab}`);
    }
    // an explanation and the share menu, open
    await page.click('nav.tabs button[data-tab="ranking"]');
    await page.click('td[data-metric="ndcg@10"]');
    await page.waitForSelector('section.explain');
    await page.click('#share-menu > summary');
    assert.deepEqual(await audit(page), [], `${theme} explanation and menu`);
    await page.goto(`${url}learn/`);
    await page.waitForSelector('nav.lessons a');
    assert.deepEqual(await audit(page), [], `${theme} lessons`);
    await page.close();
  }
});

test('axe-core finds no serious or critical violation on any lesson page, every fold open, in both themes; no lesson speaks of "the seed"', async () => {
  for (const theme of ['light', 'dark']) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: theme });
    await page.goto(`${url}learn/`);
    await page.waitForSelector('nav.lessons a');
    const ids = await page.$$eval('nav.lessons a[data-page]', (as) => as.map((a) => a.dataset.page));
    assert.ok(ids.length >= 8, `lessons: ${ids.join(', ')}`);
    for (const id of ids) {
      await page.evaluate((h) => { location.hash = h; }, id);
      await page.waitForSelector(`article[data-lesson="${id}"]`);
      const folds = await page.$$eval('details', (ds) => { ds.forEach((d) => { d.open = true; }); return ds.length; });
      await page.waitForTimeout(50);
      assert.deepEqual(await audit(page), [], `${theme} lesson ${id} (${folds} folds open)`);
      const text = await page.$eval('article[data-lesson]', (a) => a.textContent);
      assert.doesNotMatch(text, /\bseed('s|s)?\b/i, `lesson ${id} speaks of the seed documents: ${text.match(/.{0,60}\bseed.{0,60}/i)?.[0]}`);
    }
    await page.close();
  }
});

test('at 390 x 844 no page scrolls sideways; at 1440 x 900 the threshold, both curves and the confusion matrices are on one screen', async () => {
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await phone.goto(url);
  await phone.waitForSelector('td[data-metric]');
  for (const tab of await phone.$$eval('nav.tabs button[data-tab]', (bs) => bs.map((b) => b.dataset.tab))) {
    await phone.click(`nav.tabs button[data-tab="${tab}"]`);
    await phone.waitForSelector('td[data-metric]');
    await phone.waitForTimeout(200);
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${tab}: the page is ${width} px wide`);
  }
  await shot(phone, 'phone-ranking.png');
  await phone.goto(`${url}learn/`);
  await phone.waitForSelector('nav.lessons a');
  await phone.waitForTimeout(300);
  assert.ok((await phone.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'lessons fit the phone');
  await shot(phone, 'phone-lessons.png');
  await phone.close();

  const { page } = await open(browser, url, { viewport: { width: 1440, height: 900 } });
  await page.click('nav.tabs button[data-tab="binary"]');
  await page.waitForSelector('table.confusion');
  const boxes = await page.evaluate(() => ['#threshold', 'canvas', 'table.confusion'].flatMap((s) => [...document.querySelectorAll(s)].map((e) => {
    const r = e.getBoundingClientRect();
    return { s, top: r.top, bottom: r.bottom, right: r.right };
  })));
  assert.equal(boxes.filter((b) => b.s === 'canvas').length, 2);
  for (const b of boxes) assert.ok(b.top >= 0 && b.bottom <= 900 && b.right <= 1440, `${b.s} is on the screen: ${JSON.stringify(b)}`);
  await shot(page, 'binary-1440.png');
  await page.close();
});
