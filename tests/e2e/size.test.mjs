// The page's release wasm stays within the performance issue's budget (at most
// 400 KB gzipped, KB = 1000 bytes, as BENCHMARKS.md and scripts/bench/compare.mjs
// count). Sizes are deterministic for a given toolchain and Cargo.lock, so this
// is a budget, not a timing: it fails the change that spends past it, not a
// slow machine. Measured with GNU `gzip -9`, as build.sh and compare.mjs print
// it (zlib's level 9 gives about 1 % more).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { dist, WASM, distFiles, gzippedBytes } from './harness.mjs';

const BUDGET = 400_000;

test('the page wasm is at most 400 KB gzipped', () => {
  const page = distFiles(WASM.page);
  assert.equal(page.length, 1, `one page wasm in dist/ (found ${page.join(', ') || 'none'}): run scripts/build.sh`);
  const gzipped = gzippedBytes(path.join(dist, page[0]));
  assert.ok(gzipped <= BUDGET, `${page[0]}: ${gzipped} bytes gzipped, over the budget of ${BUDGET}`);
});
