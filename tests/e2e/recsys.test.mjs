// Recommender files as pandas writes them (scripts/reference/recsys_reference.py):
// top-k lists per user (wide columns, one cell, a long CSV with a rank
// column) dropped with the held-out interactions give numpy's Hit@k,
// nDCG@k, MRR and recall@k in the page, as `rankscope eval` does
// (tests/recsys.rs); the rank column orders ascending and says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, cells, clearAll, root, shot } from './harness.mjs';

const dir = path.join(root, 'tests/reference/extra/recsys');
const expected = JSON.parse(fs.readFileSync(path.join(dir, 'recsys.json'), 'utf8')).heldout;
const file = (name) => ({ name, data: fs.readFileSync(path.join(dir, name)) });

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

for (const lists of ['recs_wide.csv', 'recs_items.csv', 'recs_long.csv']) {
  test(`${lists} with the held-out interactions gives numpy's values`, async () => {
    const { page, errors } = await open(browser, url);
    await clearAll(page);
    await drop(page, [file(lists), file('heldout.csv')]);
    await page.waitForFunction(() => document.querySelectorAll('td[data-metric]').length > 0, null, { timeout: 30000 });
    await page.click('nav.tabs button[data-tab="ranking"]');
    await page.waitForSelector('td[data-metric]');
    const got = await cells(page);
    const models = Object.keys(got);
    assert.equal(models.length, 1, `one model: ${models}`);
    const row = got[models[0]];
    for (const [metric, value] of Object.entries(expected)) {
      assert.ok(metric in row, `${metric} is a column of the table (${Object.keys(row).join(', ')})`);
      assert.ok(Math.abs(row[metric] - value) <= 1e-9, `${lists} ${metric}: page ${row[metric]}, numpy ${value}`);
    }
    const notices = await page.evaluate(() => document.body.textContent);
    if (lists === 'recs_long.csv') assert.match(notices, /Ordered by 'rank', ascending/);
    // the lists merge before the interactions dropped with them: the drop's
    // one notice does not say they had no judgments
    assert.doesNotMatch(notices, /No relevance judgments yet/);
    await shot(page, `recsys-${lists.replace('.csv', '')}.png`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
