// The Python package's dashboard: rankscope.show() (the report inline, as a
// notebook shows it) and rankscope.report() open from disk with no request
// and show the CLI's values. Needs the package in tools/venv (scripts/test.sh
// builds it) and the built dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, reference, root, dist, outDir, cells, shot } from './harness.mjs';

const python = path.join(root, 'tools/venv/bin/python');
const cli = path.join(root, 'target/debug/rankscope');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('rankscope.show() renders inline and rankscope.report() opens from disk, with no request and the CLI values', async () => {
  assert.ok(fs.existsSync(python), 'tools/venv/bin/python (scripts/test.sh installs it)');
  fs.mkdirSync(outDir, { recursive: true });
  const runFile = path.join(reference, 'ranking.run');
  const qrels = path.join(reference, 'ranking.qrels');
  const shown = path.join(outDir, 'python-show.html');
  const saved = path.join(outDir, 'python-report.html');
  run(python, ['-c', `
import sys, rankscope
run, qrels, dist, shown, saved = sys.argv[1:]
board = rankscope.show(run, qrels, metrics=["ndcg@10", "map", "mrr"], dist=dist, height=700)
open(shown, "w").write("<!DOCTYPE html><meta charset=utf-8><title>notebook</title>" + board._repr_html_())
rankscope.report(run, qrels, path=saved, metrics=["ndcg@10", "map", "mrr"], dist=dist, gain="exponential")
`, runFile, qrels, dist, shown, saved]);
  const want = JSON.parse(run(cli, ['eval', runFile, '--qrels', qrels, '--metrics', 'ndcg@10,map,mrr', '--format', 'json']));
  const wantExp = JSON.parse(run(cli, ['eval', runFile, '--qrels', qrels, '--metrics', 'ndcg@10,map,mrr', '--gain', 'exponential', '--format', 'json']));
  const byModel = (doc) => Object.fromEntries(doc.models.map((m) => [m.name, m.metrics]));

  for (const [file, expected, inFrame] of [[shown, byModel(want), true], [saved, byModel(wantExp), false]]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requests = [];
    const errors = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`file://${file}`);
    let view = page;
    if (inFrame) {
      const frame = await (await page.waitForSelector('iframe[title="Rankscope"]')).contentFrame();
      view = frame;
    }
    await view.waitForSelector('td[data-metric]', { timeout: 30000 });
    const got = await cells(view);
    for (const [model, metrics] of Object.entries(expected)) {
      for (const id of ['ndcg@10', 'map', 'mrr']) {
        assert.equal(got[model]?.[id], metrics[id], `${path.basename(file)} ${model} ${id}`);
      }
    }
    const foreign = requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:') && u !== 'about:srcdoc');
    assert.deepEqual(foreign, [], `${path.basename(file)} requests nothing`);
    await shot(page, path.basename(file).replace('.html', '.png'));
    assert.deepEqual(errors, [], path.basename(file));
    await context.close();
  }
});
