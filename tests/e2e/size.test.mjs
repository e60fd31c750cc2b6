// Each artifact a person downloads has a stated budget, gzipped (KB = 1000
// bytes, as BENCHMARKS.md and scripts/bench/compare.mjs count): the page's wasm,
// the JS glue that loads it, the loading worker's wasm (started after the first
// render), the teaching page's wasm (dist/learn/) and the leaderboard's
// (dist/board/). The page's budget is 425 KB: the performance issue's 400 KB,
// plus the layered crates and the typed worker protocol (6.4 KB), plus the
// presets' conventions and switch, condensed lists, and every view job's
// progress line and Cancel (10.8 KB), with 2 % headroom; what a person waits
// for (navigation to the first table, a drop to every card) is measured by
// scripts/bench/waits.mjs, not by this file. The worker's budget, 610 KB, adds
// the leaderboard's tests and the kept, warmed view workers (20 KB) to its
// earlier 580 KB. The others are their size when set plus 5-8 % headroom, so a
// change that spends past one says so here and raises it on purpose. Sizes are
// deterministic for a given toolchain and Cargo.lock, so these are budgets,
// not timings: they fail the change that spends past them, not a slow
// machine. Measured with GNU `gzip -9`, as build.sh and compare.mjs print it
// (zlib's level 9 gives about 1 % more).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { dist, WASM, gzippedBytes } from './harness.mjs';

const BUDGETS = [
  { what: 'the page wasm', dir: dist, file: WASM.page, budget: 425_000 },
  { what: "the page's JS glue", dir: dist, file: /^rankscope-web-[^_]*\.js$/, budget: 11_500 },
  { what: "the loading worker's wasm", dir: dist, file: WASM.worker, budget: 610_000 },
  { what: "the teaching page's wasm", dir: path.join(dist, 'learn'), file: /^rankscope-learn-.*_bg\.wasm$/, budget: 220_000 },
  { what: "the leaderboard page's wasm", dir: path.join(dist, 'board'), file: /^rankscope-board-.*_bg\.wasm$/, budget: 330_000 },
];

for (const { what, dir, file, budget } of BUDGETS) {
  test(`${what} is at most ${budget / 1000} KB gzipped`, () => {
    const found = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => file.test(f)) : [];
    const where = path.relative(path.dirname(dist), dir);
    assert.equal(found.length, 1, `one file ${file} in ${where}/ (found ${found.join(', ') || 'none'}): run scripts/build.sh`);
    const gzipped = gzippedBytes(path.join(dir, found[0]));
    assert.ok(gzipped <= budget, `${where}/${found[0]}: ${gzipped} bytes gzipped, over the budget of ${budget}`);
  });
}
