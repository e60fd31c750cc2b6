// Shared harness for the browser end-to-end tests: a static server for dist/
// (optionally under a sub-path) and headless Debian Chromium through playwright-core.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const dist = path.join(root, 'dist');
export const reference = path.join(root, 'tests/reference');
export const outDir = path.join(here, 'out');
const require = createRequire(path.join(root, 'tools/package.json'));
const { chromium } = require('playwright-core');

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.csv': 'text/csv' };

/** The release wasm files of dist/ by part, the page's and its loading worker's. */
export const WASM = { page: /^rankscope-web-.*_bg\.wasm$/, worker: /^rankscope-worker_bg\.wasm$/ };

/** The files of dist/ whose names match `re`. */
export const distFiles = (re) => fs.readdirSync(dist).filter((f) => re.test(f));

/** A file's size gzipped with GNU `gzip -9`, as build.sh prints it (node's zlib at level 9 writes about 1 % more). */
export function gzippedBytes(file) {
  const gzip = spawnSync('gzip', ['-9c', file], { maxBuffer: 1 << 26 });
  if (gzip.status !== 0) throw new Error(`gzip -9 ${file} failed: ${gzip.stderr}`);
  return gzip.stdout.length;
}

/** Serves dist/ under `prefix`; `mounts` maps other path prefixes to folders (data next to the app). */
export function serve(prefix = '/', mounts = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const [at, dir] = Object.entries({ ...mounts, [prefix]: dist }).find(([p]) => url.pathname.startsWith(p)) || [];
    if (!at) { res.writeHead(404); return res.end(); }
    let rel = decodeURIComponent(url.pathname.slice(at.length));
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = path.join(dir, rel);
    if (!file.startsWith(dir) || !fs.existsSync(file)) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}${prefix}` })));
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Opens the app and collects console errors and failed requests. */
export async function open(browser, url, options = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, ...options });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('td[data-metric]', { timeout: 30000 });
  return { page, errors };
}

/** Drops files on the drop zone with a real DataTransfer (dragenter, dragover, drop). */
export async function drop(page, files) {
  const payload = files.map((f) => ({ name: f.name, data: Buffer.from(f.data).toString('base64') }));
  await page.evaluate((items) => {
    const dt = new DataTransfer();
    for (const it of items) {
      const bytes = Uint8Array.from(atob(it.data), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], it.name));
    }
    const zone = document.getElementById('dropzone');
    for (const type of ['dragenter', 'dragover', 'drop']) {
      zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
  }, payload);
}

/** The debug CLI's path, built first when missing (the tests' reference). */
export function cliBin() {
  const bin = path.join(root, 'target/debug/rankscope');
  if (!fs.existsSync(bin)) spawnSync('cargo', ['build', '--locked', '--bin', 'rankscope'], { cwd: root, stdio: 'inherit' });
  return bin;
}

/** What the CLI prints as JSON for `args`. */
export function cliJson(args) {
  const out = spawnSync(cliBin(), args, { maxBuffer: 1 << 26, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`rankscope ${args.join(' ')}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

export function refFile(name) {
  return { name, data: fs.readFileSync(path.join(reference, name)) };
}

export const oracle = JSON.parse(fs.readFileSync(path.join(reference, 'oracle.json'), 'utf8'));

/** Reads every metric cell: {model: {metric: value}}. */
export async function cells(page) {
  return page.$$eval('td[data-metric]', (tds) => {
    const out = {};
    for (const td of tds) {
      const m = td.dataset.model;
      out[m] = out[m] || {};
      out[m][td.dataset.metric] = td.dataset.value === '' ? null : Number(td.dataset.value);
    }
    return out;
  });
}

/** Every metric cell of every tab: {tab: {model: {metric: value}}}. */
export async function allCells(page) {
  const tabs = await page.$$eval('nav.tabs button[data-tab]', (bs) => bs.map((b) => b.dataset.tab));
  const out = {};
  for (const tab of tabs) {
    await page.click(`nav.tabs button[data-tab="${tab}"]`);
    await page.waitForSelector(`nav.tabs button[data-tab="${tab}"].active`);
    await page.waitForSelector('td[data-metric]');
    out[tab] = await cells(page);
  }
  return out;
}

/** Waits up to `ms` for `n` warmed-up workers (each sets rankscopeWarmedUp
 * after its warm-up) and returns how many there are. */
export async function warmedWorkers(page, n = 2, ms = 15000) {
  const count = async () => (await Promise.all(page.workers().map((w) => w.evaluate(() => globalThis.rankscopeWarmedUp === true).catch(() => false)))).filter(Boolean).length;
  const until = Date.now() + ms;
  while ((await count()) < n && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return count();
}

/** Waits until the metric table shows exactly these models. */
export async function waitForModels(page, names) {
  await page.waitForFunction((want) => {
    const got = [...new Set([...document.querySelectorAll('td[data-metric]')].map((td) => td.dataset.model))].sort();
    return JSON.stringify(got) === JSON.stringify([...want].sort());
  }, names, { timeout: 20000 });
}

export async function clearAll(page) {
  await page.click('#clear');
  await page.waitForSelector('section.empty');
}

export async function setConvention(page, id, value) {
  await page.selectOption(`#conv-${id}`, value);
}

export async function canvasHasInk(page, index = 0) {
  return page.evaluate((i) => {
    const c = document.querySelectorAll('canvas')[i];
    if (!c) return 0;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let j = 3; j < d.length; j += 4) if (d[j] > 0) n++;
    return n;
  }, index);
}

/** Waits until canvas `index` holds more than `factor` times `before` inked pixels. */
export async function moreInk(page, before, index = 0, factor = 1.1) {
  await page.waitForFunction(async ([i, b, f]) => {
    const c = document.querySelectorAll('canvas')[i];
    if (!c) return false;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let j = 3; j < d.length; j += 4) if (d[j] > 0) n++;
    return n > b * f;
  }, [index, before, factor]);
}

export function close(actual, expected, what) {
  if (typeof actual !== 'number' || Math.abs(actual - expected) > 1e-9) {
    throw new Error(`${what}: page shows ${actual}, oracle says ${expected}`);
  }
}

// A screenshot is for people to look at, not an assertion; Chromium now and
// then never hands back a full-page capture on a loaded machine (CI saw a
// 30 s timeout once), so a stalled one is retried as the viewport alone.
export async function shot(page, name) {
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, name);
  try {
    await page.screenshot({ path: file, fullPage: true, timeout: 10000 });
  } catch (e) {
    if (e.name !== 'TimeoutError') throw e;
    await page.screenshot({ path: file, timeout: 20000 });
  }
}
