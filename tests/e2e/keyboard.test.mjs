// What the last round built for people at the page and had no test of its
// own: a file dropped twice asks, the drill-down opens where the person
// looks, histogram labels never overlap, Escape closes menus (and only
// menus), every menu item is reachable with Tab, and a whole session with
// the keyboard alone (no mouse click anywhere).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { serve, launch, open, drop, refFile, waitForModels, clearAll, reference, shot } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const modelNames = (page) => page.$$eval('table.metrics tbody tr[data-model], table.metrics tbody td[data-metric]', (els) => [...new Set(els.map((e) => e.dataset.model))]);

test('a file dropped again asks whether it replaces its models or adds beside them', async () => {
  const { page } = await open(browser, url);
  await clearAll(page);
  await drop(page, [refFile('ranking.qrels'), refFile('ranking.run')]);
  await waitForModels(page, ['bench']);
  // Cancel: added beside (the second copy gets a name of its own)
  let asked = null;
  page.once('dialog', (d) => { asked = d.message(); d.dismiss(); });
  await drop(page, [refFile('ranking.run')]);
  await page.waitForFunction(() => new Set([...document.querySelectorAll('td[data-metric]')].map((t) => t.dataset.model)).size === 2);
  assert.match(asked, /ranking\.run is loaded already \(models: bench\)/);
  assert.match(asked, /OK replaces them/);
  assert.equal((await modelNames(page)).length, 2);
  // OK: both copies' models are replaced by the file's one
  const [both] = [await modelNames(page)];
  asked = null;
  page.once('dialog', (d) => { asked = d.message(); d.accept(); });
  await drop(page, [refFile('ranking.run')]);
  await page.waitForFunction(() => new Set([...document.querySelectorAll('td[data-metric]')].map((t) => t.dataset.model)).size === 1);
  assert.match(asked, new RegExp(`is loaded already \\(models: ${both.join(', ')}\\)`));
  assert.deepEqual(await modelNames(page), ['bench'], 'replaced: the file\'s one model');
  await page.close();
});

test('the drill-down opens in view, wherever the clicked row was', async () => {
  const { page } = await open(browser, url, { viewport: { width: 1280, height: 700 } });
  await page.click('nav.tabs button[data-tab="ranking"]');
  await page.waitForSelector('table.rr tbody tr');
  const rows = await page.$$('table.rr tbody tr button.link');
  assert.ok(rows.length >= 10, `a page of queries (${rows.length})`);
  // the first row of a long page: the lists are written below the pager
  await rows[0].scrollIntoViewIfNeeded();
  await rows[0].press('Enter');
  await page.waitForSelector('.drill table');
  await page.waitForTimeout(400); // a smooth scroll ends
  const box = await page.$eval('.drill', (d) => { const r = d.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, h: innerHeight }; });
  assert.ok(box.top >= 0 && box.top < box.h - 40, `the drill-down's top is on the screen: ${JSON.stringify(box)}`);
  assert.equal(await page.evaluate(() => document.activeElement?.closest('.drill') !== null), true, 'focus moves into the drill-down');
  await shot(page, 'drill-in-view.png');
  await page.close();
});

test('histogram labels and counts never overlap, at a phone\'s width too', async () => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    const { page } = await open(browser, url, { viewport });
    await page.click('nav.tabs button[data-tab="ranking"]');
    await page.waitForSelector('.hists .bar .label');
    const overlaps = await page.evaluate(() => {
      const found = [];
      for (const hist of document.querySelectorAll('.hists .hist, .hist')) {
        for (const kind of ['.label', '.count']) {
          const boxes = [...hist.querySelectorAll(`.bar ${kind}`)].map((e) => ({ text: e.textContent, r: e.getBoundingClientRect() }))
            .filter((b) => b.r.width > 0);
          for (let i = 1; i < boxes.length; i++) {
            const [a, b] = [boxes[i - 1], boxes[i]];
            if (a.r.right > b.r.left + 0.5 && a.r.top < b.r.bottom && b.r.top < a.r.bottom) found.push(`${kind} '${a.text}' over '${b.text}'`);
          }
        }
      }
      return found;
    });
    assert.deepEqual(overlaps, [], `at ${viewport.width} px`);
    await page.close();
  }
});

test('Escape closes an open menu and the explanation, and leaves folds that are not menus as they were', async () => {
  const { page } = await open(browser, url);
  await page.click('nav.tabs button[data-tab="ranking"]');
  await page.focus('#share-menu > summary');
  await page.keyboard.press('Enter');
  assert.equal(await page.$eval('#share-menu', (d) => d.open), true);
  const foldsBefore = await page.$$eval('details:not(.menu)', (ds) => ds.map((d) => d.open));
  await page.keyboard.press('Escape');
  assert.equal(await page.$eval('#share-menu', (d) => d.open), false, 'Escape closes the menu');
  assert.deepEqual(await page.$$eval('details:not(.menu)', (ds) => ds.map((d) => d.open)), foldsBefore, 'folds that are not menus stay as they were');
  await page.close();
});

test('keyboard only, no mouse: the tabs, every Share item (Import session… too), a file, a value explained and closed', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('td[data-metric]');
  const active = () => page.evaluate(() => {
    const e = document.activeElement;
    return e ? (e.id || e.dataset.tab || e.dataset.metric || e.textContent.trim().slice(0, 30)) : null;
  });
  /** Tab (or Shift+Tab) until `pred` holds of the focused element; the presses it took. */
  const tabTo = async (pred, arg, max = 80, key = 'Tab') => {
    for (let n = 0; n < max; n++) {
      if (await page.evaluate(pred, arg)) return n;
      await page.keyboard.press(key);
    }
    assert.fail(`not reached with ${key} in ${max} presses (focus on ${await active()})`);
  };
  // Share ▾ opens with Enter; each of its items is a Tab stop, Import session… among them
  await tabTo(() => document.activeElement?.matches('#share-menu > summary'));
  await page.keyboard.press('Enter');
  assert.equal(await page.$eval('#share-menu', (d) => d.open), true);
  const items = [];
  for (let n = 0; n < 8; n++) {
    await page.keyboard.press('Tab');
    const inside = await page.evaluate(() => document.activeElement?.closest('#share-menu .menu-items') ? (document.activeElement.id || document.activeElement.textContent.trim()) : null);
    if (!inside) break;
    items.push(inside);
  }
  assert.ok(items.includes('import-session'), `Import session… is reached with Tab: ${items.join(', ')}`);
  assert.ok(items.includes('copy-link') && items.includes('export-session'), items.join(', '));
  await page.keyboard.press('Escape');
  assert.equal(await page.$eval('#share-menu', (d) => d.open), false);
  // Open files… with Enter opens the picker
  await tabTo(() => document.activeElement?.id === 'file-input', null, 80, 'Shift+Tab');
  let chooser = null;
  for (const key of ['Enter', 'Space', 'Enter']) {
    [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: 5000 }).catch(() => null), page.keyboard.press(key)]);
    if (chooser) break;
  }
  assert.ok(chooser, 'the keyboard opens the file picker');
  await chooser.setFiles([path.join(reference, 'binary.csv')]);
  await page.waitForFunction(() => [...document.querySelectorAll('td[data-metric]')].some((td) => td.dataset.model === 'binary'));
  // the tab bar: focus a tab with Tab, move along it with the arrows or Tab, Enter opens it
  await tabTo(() => document.activeElement?.matches('nav.tabs button[data-tab]'));
  await tabTo(() => document.activeElement?.dataset.tab === 'binary', null, 6);
  await page.keyboard.press('Enter');
  await page.waitForSelector('nav.tabs button[data-tab="binary"].active');
  // the table is one Tab stop; arrows inside; Enter explains; Escape closes
  await tabTo(() => document.activeElement?.matches('table.metrics td[data-metric]'));
  const first = await active();
  await page.keyboard.press('ArrowRight');
  assert.notEqual(await active(), first, 'ArrowRight moves to the next value');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await active(), first, 'ArrowLeft moves back');
  assert.equal(await page.$$eval('table.metrics [tabindex="0"]', (e) => e.length), 1, 'one Tab stop per table');
  // a header shows its formula when focused, as on hover
  await page.keyboard.press('ArrowUp');
  const help = await page.evaluate(() => document.activeElement.dataset.help);
  assert.match(help, /Reference: /);
  const shown = await page.evaluate(() => getComputedStyle(document.activeElement, '::after').content);
  assert.ok(shown.includes(help.split('\n')[1]), `the focused header shows its formula: ${shown}`);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('section.explain');
  assert.match(await page.$eval('section.explain h2', (h) => h.textContent), new RegExp(first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  await page.keyboard.press('Escape');
  await page.waitForSelector('section.explain', { state: 'detached' });
  await page.close();
});
