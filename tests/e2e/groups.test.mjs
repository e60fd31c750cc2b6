// Runs of one system (folds, seeds) as one model on the elbow chart: the
// Models card's groups draw the members' mean with a ±1 sd band, members
// faint, and the elbow table's group row equals `rankscope eval --group` at
// the last cutoff.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, open, drop, reference, waitForModels, clearAll, canvasHasInk, shot, cliJson } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

// four runs of the reference run, each document's score moved by a
// deterministic amount of its own per seed: same lists, other orders
function seededRuns() {
  const lines = fs.readFileSync(path.join(reference, 'ranking.run'), 'utf8').trim().split('\n');
  return [1, 2, 3, 4].map((seed) => {
    const text = lines.map((line) => {
      const [q, q0, doc, rank, score] = line.split(/\s+/);
      const h = [...`${seed}:${doc}:${q}`].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 1000003, 7);
      return `${q} ${q0} ${doc} ${rank} ${(Number(score) + (h % 1000) / 1000).toFixed(4)} fold${seed}`;
    }).join('\n') + '\n';
    return { name: `fold${seed}.run`, data: Buffer.from(text) };
  });
}

test('a group of runs is drawn as its members\' mean with a ±1 sd band, its row equal to rankscope eval --group', async () => {
  const runs = seededRuns();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rs-groups-'));
  for (const r of runs) fs.writeFileSync(path.join(dir, r.name), r.data);
  const qrels = path.join(reference, 'ranking.qrels');
  const names = ['fold1', 'fold2', 'fold3', 'fold4'];
  const { page, errors } = await open(browser, url, { viewport: { width: 1440, height: 1000 } });
  await clearAll(page);
  await drop(page, [{ name: 'ranking.qrels', data: fs.readFileSync(qrels) }, ...runs]);
  await waitForModels(page, names);
  await page.click('nav.tabs button[data-tab="ranking"]').catch(() => {});
  await page.waitForSelector('tr[data-elbow-model="fold1"]');
  const alone = await canvasHasInk(page, 0);
  await page.fill('#model-groups', 'folds=fold*');
  await page.press('#model-groups', 'Enter');
  await page.waitForSelector('tr[data-elbow-group="folds"]');
  // the members keep their own rows; the group's says what it is
  const row = await page.$eval('tr[data-elbow-group="folds"]', (tr) => ({ text: tr.textContent, last: tr.lastElementChild.dataset, elbow: tr.dataset.elbow }));
  assert.match(row.text, /mean ± sd of 4 runs/);
  assert.equal(await page.$$eval('tr[data-elbow-model]', (trs) => trs.length), 4);
  const p = Number(await page.$eval('input[aria-label="largest cutoff"]', (i) => i.value));
  assert.equal(p, 15, 'P: the longest list');
  const want = cliJson(['eval', qrels, ...runs.map((r) => path.join(dir, r.name)), '--cutoffs', String(p), '--format', 'json', '--group', 'folds=fold*']).groups[0];
  const [, stats, values] = want.metrics.find(([m]) => m === `ndcg@${p}`);
  assert.equal(values.length, 4);
  assert.ok(Math.abs(Number(row.last.value) - stats[0]) <= 1e-12, `mean ${row.last.value} vs ${stats[0]}`);
  assert.ok(Math.abs(Number(row.last.sd) - stats[1]) <= 1e-12, `sd ${row.last.sd} vs ${stats[1]}`);
  assert.ok(stats[1] > 0, 'the seeds differ');
  // hovering reads out the group's mean ± sd beside each run's value
  const canvas = page.locator('canvas').first();
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  await page.waitForFunction(() => /folds \d\.\d{4} ± \d\.\d{4}/.test(document.querySelector('[data-readout="elbow"]').textContent));
  assert.match(await page.$eval('[data-readout="elbow"]', (r) => r.textContent), /fold1 \d\.\d{4}/);
  // the band has ink of its own; the link keeps the group
  // the chart's legend names the group alone (members faint, unnamed); the
  // band is its two edges in the group's colour
  assert.notEqual(await canvasHasInk(page, 0), alone);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('figure.chart:has(canvas[aria-label="elbow curve"]) button[data-export="svg"]')]);
  const svg = fs.readFileSync(await download.path(), 'utf8');
  assert.match(svg, /\bfolds\b/);
  assert.doesNotMatch(svg, /\bfold1\b/);
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('group:folds=fold*'));
  await shot(page, 'elbow-groups.png');
  // emptying the box ends the group
  await page.fill('#model-groups', '');
  await page.press('#model-groups', 'Enter');
  await page.waitForSelector('tr[data-elbow-group]', { state: 'detached' });
  assert.deepEqual(errors, []);
  await page.close();
});
