// What a person waits for, in headless Chromium, for two builds of the page in
// one run on one machine: (a) from navigation to the bundled example's first
// metric table drawn, (b) from a drop of files to every card drawn. Each sample
// is a new browser (a new profile: nothing cached, no compiled wasm kept), on
// the machine's loopback and on a throttled network (CDP
// Network.emulateNetworkConditions: 10 Mbit/s down and up, 40 ms latency). The
// two builds take turns (A B, then B A, ...) so that drift in the machine's
// speed falls on both; prints min and median per build and their ratio. Run on
// demand (not in CI):
//
//   bash scripts/build.sh && cp -r dist /tmp/dist-b        # and another build in /tmp/dist-a
//   node scripts/bench/waits.mjs /tmp/dist-a /tmp/dist-b [--rounds 5] [--net both|loopback|throttled]
//        [--data DIR] [--settle MS] [--json FILE]
//   node scripts/bench/waits.mjs dist dist                  # the same build twice: the noise
//
// The drops of the reference files take about 0.1 s, so a busy machine (other
// builds: the load average is printed) moves their medians by a quarter; give
// such a run more rounds and read the minimums too.
//
// The files are served as a static host (GitHub Pages) serves them: gzip when
// the browser asks for it (every file but images), an ETag, Last-Modified and
// `Cache-Control: max-age=600`, so that a file the page fetches twice in one
// visit can come from the browser's cache.
//
// "Every card", by the DOM: the drop comes after Clear (so no card of the
// example is left to count), and a calibration drop per build and workload
// (untimed, on loopback) waits until the page is settled (no DOM change and no
// request for 2 s), then notes the models in the metric table and each card
// (`section.card`, `article.card`: keyed by id or heading) with its number of
// elements and of inked canvases. A timed drop ends at the end of the first
// frame in which the table shows those models, no progress bar is left, and
// every noted card is there with at least as many elements and inked canvases
// (a canvas is inked when a pixel is not transparent). Cards a worker writes
// (Diagnostics, Compare, the values panel) count like any other.
//
// Workloads (--data, default /work/shared/data/reference or tests/reference):
// ranking = the qrels and the run dropped together; binary = the binary CSV.
// The drop comes after the page has loaded and the network has been quiet for
// --settle ms (default 1500): a person who drops files a moment after the page
// opens. Every page load also gives a sample of (a).
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { launch } from '../../tests/e2e/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const rounds = Number(option('--rounds', '5'));
const net = option('--net', 'both');
const settleMs = Number(option('--settle', '1500'));
const jsonOut = option('--json', null);
const dataDir = option('--data', ['/work/shared/data/reference', path.join(root, 'tests/reference')].find((d) => fs.existsSync(path.join(d, 'binary.csv'))));
const dists = (args.length ? args : [process.env.DIST_A, process.env.DIST_B].filter(Boolean)).map((d) => path.resolve(d));
if (dists.length < 1 || dists.length > 2 || !(rounds >= 1) || !['both', 'loopback', 'throttled'].includes(net)) {
  console.error('usage: node scripts/bench/waits.mjs DIST_A [DIST_B] [--rounds N] [--net both|loopback|throttled] [--data DIR] [--settle MS] [--json FILE]');
  process.exit(2);
}
if (dists.length === 1) dists.push(dists[0]);
for (const d of dists) {
  if (!fs.existsSync(path.join(d, 'index.html'))) { console.error(`${d}: no index.html (build it with scripts/build.sh)`); process.exit(2); }
}
const workloads = [
  { name: 'ranking', files: ['ranking.qrels', 'ranking.run'] },
  { name: 'binary', files: ['binary.csv'] },
];
for (const w of workloads) {
  for (const f of w.files) {
    if (!fs.existsSync(path.join(dataDir, f))) { console.error(`${dataDir}/${f} is missing`); process.exit(2); }
  }
}
const networks = { loopback: null, throttled: { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 } };
const nets = net === 'both' ? ['loopback', 'throttled'] : [net];
const TIMEOUT = 90_000;
const log = (...m) => console.error(`[waits ${new Date().toISOString().slice(11, 19)}]`, ...m);

// ---- a static host: gzip on request, files kept in memory once compressed
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.csv': 'text/csv', '.txt': 'text/plain' };
function host(dir) {
  const cache = new Map();
  const server = http.createServer((req, res) => {
    let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.join(dir, rel);
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) { res.writeHead(404); return res.end(); }
    const ext = path.extname(file);
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] || '') && !['.png', '.ico'].includes(ext);
    const key = `${file}|${gzip}`;
    if (!cache.has(key)) {
      const raw = fs.readFileSync(file);
      cache.set(key, gzip ? zlib.gzipSync(raw, { level: 9 }) : raw);
    }
    const body = cache.get(key);
    const stat = fs.statSync(file);
    const etag = `"${stat.size.toString(16)}-${Math.round(stat.mtimeMs).toString(16)}${gzip ? '-gz' : ''}"`;
    const headers = { etag, 'last-modified': stat.mtime.toUTCString(), 'cache-control': 'max-age=600', ...(gzip ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : {}) };
    if (req.headers['if-none-match'] === etag) { res.writeHead(304, headers); return res.end(); }
    res.writeHead(200, { ...headers, 'content-type': types[ext] || 'application/octet-stream', 'content-length': body.length });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}

// ---- in the page: the end of the first frame that shows a metric table
function firstTableObserver() {
  globalThis.wfFirstTable = new Promise((resolve) => {
    const frameEnd = () => requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(performance.now()); ch.port2.postMessage(0); });
    const observer = new MutationObserver(() => {
      if (!document.querySelector('td[data-metric]')) return;
      observer.disconnect();
      frameEnd();
    });
    addEventListener('DOMContentLoaded', () => {
      if (document.querySelector('td[data-metric]')) return frameEnd();
      observer.observe(document, { subtree: true, childList: true, attributes: true });
    });
  });
}

// ---- in the page: what is drawn now (models in the table, each card)
const SNAPSHOT = `((ink = true) => {
  const inked = (c) => {
    if (!c.width || !c.height) return false;
    const ctx = c.getContext('2d');
    if (!ctx) return true; // a canvas drawn by WebGL or a bitmap renderer: its presence is what we can see
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    for (let j = 3; j < d.length; j += 4) if (d[j] > 0) return true;
    return false;
  };
  const models = [...new Set([...document.querySelectorAll('td[data-metric]')].map((td) => td.dataset.model))].sort();
  const seen = {};
  const cards = [...document.querySelectorAll('section.card, article.card')].map((card) => {
    const head = card.querySelector('h2, h3');
    let key = card.id ? '#' + card.id : (head ? head.textContent.trim().replace(/\\s+/g, ' ').slice(0, 60) : card.className);
    seen[key] = (seen[key] || 0) + 1;
    if (seen[key] > 1) key += ' (' + seen[key] + ')';
    return { key, elements: card.querySelectorAll('*').length, inked: ink ? [...card.querySelectorAll('canvas')].filter(inked).length : Infinity };
  });
  return { models, cards, progress: !!document.querySelector('progress, .progress') };
})`;

/** In the page: drops `items` on the drop zone and resolves with the ms from
 * the drop to the end of the first frame in which `want` is drawn. */
async function dropAndWait(page, items, want, timeout) {
  return page.evaluate(async ([items, want, snapshotSrc, timeout]) => {
    const snapshot = (0, eval)(snapshotSrc);
    const drawn = (now) => {
      if (now.progress || JSON.stringify(now.models) !== JSON.stringify(want.models)) return false;
      const byKey = Object.fromEntries(now.cards.map((c) => [c.key, c]));
      return want.cards.every((w) => byKey[w.key] && byKey[w.key].elements >= w.elements && byKey[w.key].inked >= w.inked);
    };
    // the canvases' pixels are read only once everything else is there
    const done = () => drawn(snapshot(false)) && drawn(snapshot(true));
    const dt = new DataTransfer();
    for (const it of items) dt.items.add(new File([Uint8Array.from(atob(it.data), (c) => c.charCodeAt(0))], it.name));
    const zone = document.getElementById('dropzone');
    const t0 = performance.now();
    for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    return new Promise((resolve) => {
      // one look per frame (a canvas is drawn without a DOM change); the end
      // of the frame that shows everything is the time
      const until = t0 + timeout;
      const look = () => {
        if (done()) { const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(performance.now() - t0); ch.port2.postMessage(0); return; }
        if (performance.now() > until) return resolve({ timeout: snapshot(true) });
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
  }, [items, want, SNAPSHOT, timeout]);
}

/** Resolves once no request has been in flight for `quietMs`. */
async function networkQuiet(inflight, quietMs, timeout = TIMEOUT) {
  const until = Date.now() + timeout;
  let quietSince = inflight.size === 0 ? Date.now() : 0;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    if (inflight.size > 0) quietSince = 0;
    else if (!quietSince) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
  }
  throw new Error(`the network was not quiet within ${timeout} ms (${[...inflight].map((r) => r.url()).join(', ')})`);
}

/** One cold visit: a new browser, optionally throttled, the page opened; then,
 * with a workload, Clear and the drop. Returns { nav_ms, drop_ms?, errors }. */
async function visit(url, network, workload, want) {
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    const inflight = new Set();
    context.on('request', (r) => inflight.add(r));
    context.on('requestfinished', (r) => inflight.delete(r));
    context.on('requestfailed', (r) => inflight.delete(r));
    if (networks[network]) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', networks[network]);
    }
    await page.addInitScript(firstTableObserver);
    await page.goto(url);
    const nav = await Promise.race([page.evaluate(() => globalThis.wfFirstTable), new Promise((r) => setTimeout(() => r(null), TIMEOUT))]);
    if (nav === null) throw new Error(`no metric table within ${TIMEOUT} ms of navigation`);
    const out = { nav_ms: nav, errors };
    if (networks[network]) {
      // the throttle holds: the page's largest download took at least its bytes at the set rate
      const [bytes, ms] = await page.evaluate(() => performance.getEntriesByType('resource').reduce((best, e) => (e.encodedBodySize > best[0] ? [e.encodedBodySize, e.responseEnd - e.requestStart] : best), [0, 0]));
      const floor = (bytes / networks[network].downloadThroughput) * 1000;
      if (ms < 0.8 * floor) throw new Error(`not throttled: ${bytes} bytes in ${ms.toFixed(0)} ms (at least ${floor.toFixed(0)} ms at the set rate)`);
    }
    if (!workload) return out;
    await networkQuiet(inflight, settleMs);
    await page.click('#clear');
    await page.waitForSelector('section.empty');
    const items = workload.files.map((f) => ({ name: f, data: fs.readFileSync(path.join(dataDir, f)).toString('base64') }));
    if (!want) {
      // calibration: drop, then wait until the DOM and the network are quiet for 2 s
      await page.evaluate((items) => {
        const dt = new DataTransfer();
        for (const it of items) dt.items.add(new File([Uint8Array.from(atob(it.data), (c) => c.charCodeAt(0))], it.name));
        const zone = document.getElementById('dropzone');
        for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      }, items);
      await page.waitForSelector('td[data-metric]', { timeout: TIMEOUT });
      await page.evaluate((quiet) => new Promise((resolve) => {
        let last = performance.now();
        const observer = new MutationObserver(() => { last = performance.now(); });
        observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
        const poll = setInterval(() => { if (performance.now() - last >= quiet) { clearInterval(poll); observer.disconnect(); resolve(); } }, 100);
      }), 2000);
      await networkQuiet(inflight, 2000);
      out.settled = await page.evaluate(`${SNAPSHOT}(true)`);
      return out;
    }
    const t = await dropAndWait(page, items, want, TIMEOUT);
    if (typeof t !== 'number') throw new Error(`not every card within ${TIMEOUT} ms; drawn: ${JSON.stringify(t.timeout)}`);
    out.drop_ms = t;
    return out;
  } finally {
    await browser.close();
  }
}

const hosts = [];
for (const d of dists) hosts.push(await host(d));
const labels = dists.map((d, i) => `${'AB'[i]}: ${path.relative(process.cwd(), d) || '.'}`);
const loadBefore = os.loadavg()[0];
log(labels.join(', '), `| data ${dataDir} | ${rounds} rounds | ${nets.join(', ')} | load average ${loadBefore.toFixed(1)} on ${os.cpus().length} cores`);

// calibration: what "every card" is for each build and workload
const wants = hosts.map(() => ({}));
for (const [i, h] of hosts.entries()) {
  for (const w of workloads) {
    const { settled } = await visit(h.url, 'loopback', w, null);
    if (settled.models.length === 0 || settled.progress) throw new Error(`${labels[i]} ${w.name}: the calibration drop did not settle (${JSON.stringify(settled)})`);
    wants[i][w.name] = settled;
    log(`${labels[i]} ${w.name}: models ${settled.models.join(', ')}; cards ${settled.cards.map((c) => `${c.key} [${c.elements}${c.inked ? `, ${c.inked} inked` : ''}]`).join('; ')}`);
  }
}

const samples = []; // { build, network, measure, ms }
const failures = [];
for (let r = 0; r < rounds; r++) {
  for (const network of nets) {
    for (const w of workloads) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        try {
          const got = await visit(hosts[i].url, network, w, wants[i][w.name]);
          samples.push({ build: i, network, measure: 'navigation to first table', ms: got.nav_ms });
          samples.push({ build: i, network, measure: `drop ${w.name} to every card`, ms: got.drop_ms });
          if (got.errors.length) failures.push({ build: i, network, workload: w.name, console_errors: got.errors });
          log(`round ${r + 1} ${network} ${w.name} ${'AB'[i]}: navigation ${got.nav_ms.toFixed(0)} ms, drop ${got.drop_ms.toFixed(0)} ms`);
        } catch (e) {
          failures.push({ build: i, network, workload: w.name, error: String(e.message || e) });
          log(`round ${r + 1} ${network} ${w.name} ${'AB'[i]}: FAILED ${e.message || e}`);
        }
      }
    }
  }
}
for (const h of hosts) h.server.close();

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
const measures = ['navigation to first table', ...workloads.map((w) => `drop ${w.name} to every card`)];
console.log(`| measure | network | A min | A median | B min | B median | B/A (medians) | samples |`);
console.log(`|---|---|---|---|---|---|---|---|`);
for (const m of measures) {
  for (const network of nets) {
    const of = (i) => samples.filter((s) => s.build === i && s.network === network && s.measure === m).map((s) => s.ms);
    const [a, b] = [of(0), of(1)];
    if (!a.length || !b.length) { console.log(`| ${m} | ${network} | – | – | – | – | – | ${a.length} / ${b.length} |`); continue; }
    console.log(`| ${m} | ${network === 'throttled' ? '10 Mbit/s, 40 ms' : 'loopback'} | ${fmt(Math.min(...a))} | ${fmt(median(a))} | ${fmt(Math.min(...b))} | ${fmt(median(b))} | ${(median(b) / median(a)).toFixed(3)} | ${a.length} / ${b.length} |`);
  }
}
console.log(`\n${labels.join('; ')}; load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after, ${os.cpus().length} cores. Every card: ${workloads.map((w) => `${w.name}: ${wants[0][w.name].cards.length} (A), ${wants[1][w.name].cards.length} (B)`).join('; ')}.`);
if (failures.length) console.log(`\n${failures.length} visit(s) with errors:\n${failures.map((f) => `- ${JSON.stringify(f)}`).join('\n')}`);
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ dists, dataDir, rounds, nets, settleMs, wants, samples, failures }, null, 1));
