// Probe (not a test): drops one file into the built page and reports how the
// load ends (message shown, page crash, console errors) with the page's wasm
// memory and the browser's resident memory. Used for files past a tab's memory.
//
//   node scripts/bench/huge.mjs FILE...
import { execSync } from 'node:child_process';
import { serve, launch } from '../../tests/e2e/harness.mjs';

const files = process.argv.slice(2);
const { server, url } = await serve('/');
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const logs = [];
page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') logs.push(m.text().slice(0, 300)); });
let crashed = false;
page.on('crash', () => { crashed = true; });
page.on('pageerror', (e) => logs.push('pageerror: ' + String(e).slice(0, 300)));
await page.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => { globalThis.rankscopeMemory = e.detail.wasm.memory; }));
await page.goto(url);
await page.waitForSelector('td[data-metric]', { timeout: 30000 });
let peak = 0;
const rss = () => execSync('ps -e -o rss=,comm=').toString().trim().split('\n')
  .filter((l) => /chrom/.test(l)).reduce((s, l) => s + Number(l.trim().split(/\s+/)[0]), 0);
const sampler = setInterval(() => { try { peak = Math.max(peak, rss()); } catch { /* gone */ } }, 200);
const t0 = Date.now();
await page.setInputFiles('#file-input', files);
// the load ends when the progress bar is gone
let outcome = 'timeout';
for (let i = 0; i < 1200 && !crashed; i++) {
  await new Promise((r) => setTimeout(r, 500));
  const busy = await page.evaluate(() => !!document.querySelector('progress')).catch(() => null);
  if (busy === false) { outcome = 'ended'; break; }
}
clearInterval(sampler);
const report = { outcome: crashed ? 'page crashed' : outcome, seconds: (Date.now() - t0) / 1000, peak_rss_mb: Math.round(peak / 1024) };
if (!crashed) {
  report.messages = await page.evaluate(() => [...document.querySelectorAll('.message, [role=alert], [role=status]')].map((e) => e.textContent.slice(0, 400)));
  report.page_wasm_mb = await page.evaluate(() => Math.round((globalThis.rankscopeMemory?.buffer.byteLength || 0) / 1048576));
  report.tables = await page.evaluate(() => document.querySelectorAll('td[data-metric]').length);
}
report.console = logs.slice(0, 10);
console.log(JSON.stringify(report, null, 1));
await browser.close();
server.close();
