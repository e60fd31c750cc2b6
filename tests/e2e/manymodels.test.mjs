// Twelve runs of one system family on one page (issue 57's "Many models"):
// colours told apart by a measured colour distance, chart texts that never
// print over each other, the legend off the curves and inside its card, the
// table scrolling inside its card, one notice per drop, one line per warning,
// a rename that keeps the baseline's marks, an exact query filter the
// histograms follow, the LaTeX export of the chosen columns and differences,
// and users and items for lists keyed by users.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, drop, waitForModels, clearAll } from './harness.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve('/')); browser = await launch(); });
after(async () => { await browser?.close(); server?.close(); });

const shots = process.env.RANKSCOPE_SHOTS || '/work/notes/shots';

// ---------------------------------------------------------------- data

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
}

const QUERIES = 120;
const RUNS = 12;
const names = Array.from({ length: RUNS }, (_, i) => `sys-${String(i + 1).padStart(2, '0')}`);

/** Judgments: per query d1 (grade 2), d2 and d3 (grade 1) relevant, d4..d8 judged not. */
function qrels() {
  const lines = [];
  for (let q = 1; q <= QUERIES; q++) {
    for (let d = 1; d <= 8; d++) lines.push(`user_${q} 0 d${d} ${d === 1 ? 2 : d <= 3 ? 1 : 0}`);
  }
  return { name: 'judgments.qrels', data: lines.join('\n') + '\n' };
}

/** Run r: relevant documents lifted by 0.04 r, scores to two decimals (ties,
 * some between a relevant and a non-relevant document). */
function run(r) {
  const rand = rng(1000 + r);
  const lines = [];
  for (let q = 1; q <= QUERIES; q++) {
    const docs = [];
    for (let d = 1; d <= 20; d++) {
      const lift = d <= 3 ? 0.1 + 0.04 * r : 0;
      docs.push([`d${d}`, Math.round((lift + rand() * 0.7) * 100) / 100]);
    }
    // every run ties d1 with d4 in some queries (mixed grades)
    if (q % (3 + (r % 4)) === 0) docs[3][1] = docs[0][1];
    docs.sort((a, b) => b[1] - a[1]);
    docs.forEach(([d, s], i) => lines.push(`user_${q} Q0 ${d} ${i + 1} ${s.toFixed(2)} ${names[r]}`));
  }
  return { name: `${names[r]}.run`, data: lines.join('\n') + '\n' };
}

// ---------------------------------------------------------------- colour

function lab([r, g, b]) {
  const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const x = (0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / 0.95047;
  const y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const z = (0.0193339 * R + 0.119192 * G + 0.9503041 * B) / 1.08883;
  const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** CIEDE2000 (Sharma, Wu and Dalal 2005). */
function ciede2000([L1, a1, b1], [L2, a2, b2]) {
  const rad = Math.PI / 180;
  const p7 = (c) => Math.sqrt(c ** 7 / (c ** 7 + 25 ** 7));
  const G = 0.5 * (1 - p7((Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2));
  const A1 = (1 + G) * a1, A2 = (1 + G) * a2;
  const C1 = Math.hypot(A1, b1), C2 = Math.hypot(A2, b2);
  const hue = (b, a) => (a === 0 && b === 0 ? 0 : ((Math.atan2(b, a) / rad) % 360 + 360) % 360);
  const h1 = hue(b1, A1), h2 = hue(b2, A2);
  let dh = 0;
  if (C1 * C2 !== 0) dh = Math.abs(h2 - h1) <= 180 ? h2 - h1 : h2 <= h1 ? h2 - h1 + 360 : h2 - h1 - 360;
  const dH = 2 * Math.sqrt(C1 * C2) * Math.sin(dh * rad / 2);
  const Lb = (L1 + L2) / 2, Cb = (C1 + C2) / 2;
  let hb = h1 + h2;
  if (C1 * C2 !== 0) hb = Math.abs(h1 - h2) <= 180 ? (h1 + h2) / 2 : h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
  const T = 1 - 0.17 * Math.cos((hb - 30) * rad) + 0.24 * Math.cos(2 * hb * rad) + 0.32 * Math.cos((3 * hb + 6) * rad) - 0.2 * Math.cos((4 * hb - 63) * rad);
  const dt = 30 * Math.exp(-(((hb - 275) / 25) ** 2));
  const SL = 1 + 0.015 * (Lb - 50) ** 2 / Math.sqrt(20 + (Lb - 50) ** 2), SC = 1 + 0.045 * Cb, SH = 1 + 0.015 * Cb * T;
  const RT = -Math.sin(2 * dt * rad) * 2 * p7(Cb);
  const dL = (L2 - L1) / SL, dC = (C2 - C1) / SC, dh2 = dH / SH;
  return Math.sqrt(dL * dL + dC * dC + dh2 * dh2 + RT * dC * dh2);
}

function contrast(a, b) {
  const lum = ([r, g, b]) => {
    const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const [x, y] = [lum(a), lum(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

const rgb = (css) => css.match(/[\d.]+/g).slice(0, 3).map(Number);

// ---------------------------------------------------------------- what the canvas draws

// Every text a canvas draws (its box measured by the browser, in the
// canvas' pixels) and every filled rectangle, from the latest full drawing
// of each canvas; the lines in each series colour, as points.
const RECORDER = () => {
  const drawn = new Map();
  window.__drawn = drawn;
  const of = (ctx) => {
    let d = drawn.get(ctx.canvas);
    if (!d) { d = { texts: [], rects: [], points: [], full: null }; drawn.set(ctx.canvas, d); }
    return d;
  };
  const corners = (ctx, box) => {
    const m = ctx.getTransform();
    const pts = [[box[0], box[1]], [box[2], box[1]], [box[0], box[3]], [box[2], box[3]]].map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  };
  const proto = CanvasRenderingContext2D.prototype;
  const fillText = proto.fillText;
  proto.fillText = function (text, x, y, ...rest) {
    if (String(text).trim() !== '') {
      const m = this.measureText(text);
      const box = [x - m.actualBoundingBoxLeft, y - m.actualBoundingBoxAscent, x + m.actualBoundingBoxRight, y + m.actualBoundingBoxDescent];
      of(this).texts.push({ text: String(text), box: corners(this, box) });
    }
    return fillText.call(this, text, x, y, ...rest);
  };
  const fillRect = proto.fillRect;
  proto.fillRect = function (x, y, w, h) {
    of(this).rects.push({ style: String(this.fillStyle), box: corners(this, [x, y, x + w, y + h]) });
    return fillRect.call(this, x, y, w, h);
  };
  for (const name of ['moveTo', 'lineTo']) {
    const f = proto[name];
    proto[name] = function (x, y) {
      const m = this.getTransform();
      of(this).points.push({ style: String(this.strokeStyle), at: [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f] });
      return f.call(this, x, y);
    };
  }
  // setting a canvas' width clears it: a drawing with text is kept as the last full one
  const width = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'width');
  Object.defineProperty(HTMLCanvasElement.prototype, 'width', {
    get() { return width.get.call(this); },
    set(v) {
      const d = [...drawn.entries()].find(([c]) => c === this)?.[1];
      if (d && d.texts.length) d.full = { texts: d.texts, rects: d.rects, points: d.points };
      if (d) { d.texts = []; d.rects = []; d.points = []; }
      width.set.call(this, v);
    },
  });
};

/** The last full drawing of the canvas labelled `label`, in CSS pixels of the canvas. */
async function drawing(page, label) {
  return page.evaluate((label) => {
    const canvas = document.querySelector(`canvas[aria-label="${label}"]`);
    const d = window.__drawn.get(canvas);
    const now = d.texts.length ? d : d.full;
    const k = canvas.getBoundingClientRect().width / canvas.width;
    const scale = (b) => b.map((v) => v * k);
    return {
      texts: now.texts.map((t) => ({ text: t.text, box: scale(t.box) })),
      rects: now.rects.map((r) => ({ style: r.style, box: scale(r.box) })),
      points: now.points.map((p) => ({ style: p.style, at: p.at.map((v) => v * k) })),
      canvas: canvas.getBoundingClientRect().toJSON(),
      card: canvas.closest('section.card').getBoundingClientRect().toJSON(),
    };
  }, label);
}

const overlap = (a, b) => a[0] < b[2] - 0.5 && b[0] < a[2] - 0.5 && a[1] < b[3] - 0.5 && b[1] < a[3] - 0.5;

// ---------------------------------------------------------------- the tests

test('twelve runs: told apart, legends and labels clear, tables in their cards, one notice, one warning line', async () => {
  const { page, errors } = await open(browser, url);
  await page.addInitScript(RECORDER);
  await page.reload();
  await page.waitForSelector('td[data-metric]');
  await clearAll(page);
  await drop(page, [qrels(), ...names.map((_, r) => run(r))]);
  await waitForModels(page, names);
  await page.waitForTimeout(500);

  // one notice for the drop of 13 files, naming each
  const notices = await page.$$eval('.messages .msg', (ms) => ms.map((m) => m.textContent));
  assert.equal(notices.length, 1, notices.join('\n---\n'));
  assert.match(notices[0], /Loaded 13 files/);
  for (const n of names) assert.ok(notices[0].includes(`${n}.run: read as`), n);

  // the tie-rule warning of every run: one line naming the twelve
  const warnings = await page.$$eval('ul.warnings li', (ls) => ls.map((l) => l.textContent));
  const ties = warnings.filter((w) => /equal scores tie documents/.test(w));
  assert.equal(ties.length, 1, warnings.join('\n'));
  for (const n of names) assert.ok(ties[0].includes(n), `${n} in: ${ties[0]}`);

  // colours: every pair of swatches drawn alike (both plain or both striped)
  // at least 20 apart in CIEDE2000, each at least 3:1 against the card
  const swatches = await page.$$eval('.models li[data-model-item] .swatch', (ss) => ss.map((s) => { const c = getComputedStyle(s); return { color: c.backgroundColor, image: c.backgroundImage }; }));
  const card = rgb(await page.$eval('.models', (c) => getComputedStyle(c).backgroundColor));
  assert.equal(swatches.length, 12);
  for (let i = 0; i < 12; i++) {
    assert.ok(contrast(rgb(swatches[i].color), card) >= 3, `model ${i + 1}: ${swatches[i].color} on ${card}`);
    for (let j = 0; j < i; j++) {
      if (swatches[i].image !== swatches[j].image) continue;
      const d = ciede2000(lab(rgb(swatches[i].color)), lab(rgb(swatches[j].color)));
      assert.ok(d >= 20, `models ${j + 1} and ${i + 1}: ${swatches[j].color} ${swatches[i].color}, ΔE00 ${d.toFixed(1)}`);
    }
  }
  assert.ok(swatches.slice(8).every((s) => s.image.includes('gradient')), 'past eight, striped as their lines are dashed');

  // the elbow chart: the card's width, no text over another, the legend off the curves and inside the card
  const elbow = await drawing(page, 'elbow curve');
  assert.ok(elbow.canvas.width > 0.9 * (elbow.card.width - 30), `chart ${elbow.canvas.width} px in a ${elbow.card.width} px card`);
  const legend = elbow.texts.filter((t) => names.some((n) => t.text.startsWith(n)));
  assert.equal(legend.length, 12, elbow.texts.map((t) => t.text).join(' | '));
  assert.ok(legend.every((t) => /elbow p=\d+|^sys-\d+$/.test(t.text)));
  for (let i = 0; i < elbow.texts.length; i++) {
    for (let j = 0; j < i; j++) {
      const [a, b] = [elbow.texts[i], elbow.texts[j]];
      assert.ok(!overlap(a.box, b.box), `'${a.text}' ${a.box.map(Math.round)} over '${b.text}' ${b.box.map(Math.round)}`);
    }
  }
  const box = elbow.rects.find((r) => /128, 128, 128|#808080/.test(r.style))?.box;
  assert.ok(box, elbow.rects.map((r) => r.style).join(' '));
  for (const t of legend) assert.ok(t.box[0] >= box[0] - 1 && t.box[2] <= box[2] + 1, `'${t.text}' in the legend box`);
  assert.ok(box[2] <= elbow.canvas.width + 0.5 && box[3] <= elbow.canvas.height + 0.5, `legend ${box} in the canvas`);
  const palette = new Set(swatches.map((s) => s.color.replace(/\s/g, '')));
  const hex = (s) => { const m = s.match(/^#([0-9a-f]{6})$/i); return m ? `rgb(${parseInt(m[1].slice(0, 2), 16)},${parseInt(m[1].slice(2, 4), 16)},${parseInt(m[1].slice(4), 16)})` : s.replace(/\s/g, ''); };
  const curve = elbow.points.filter((p) => palette.has(hex(p.style)) && !(p.at[0] >= box[0] - 1 && p.at[0] <= box[2] + 1 && p.at[1] >= box[1] - 1 && p.at[1] <= box[3] + 1 && p.at[0] - box[0] < 40));
  assert.ok(curve.length > 100, `${curve.length} curve points`);
  const inside = elbow.points.filter((p) => palette.has(hex(p.style)) && p.at[0] > box[0] + 40 && p.at[0] < box[2] && p.at[1] > box[1] && p.at[1] < box[3]);
  assert.equal(inside.length, 0, `curve points under the legend: ${JSON.stringify(inside.slice(0, 3))}`);

  // the metric table scrolls inside its card, the model column kept in view
  const table = await page.evaluate(() => {
    const scroll = document.querySelector('table.metrics').closest('.table-scroll');
    const card = scroll.closest('section.card').getBoundingClientRect();
    const before = scroll.getBoundingClientRect();
    scroll.scrollLeft = scroll.scrollWidth;
    const th = scroll.querySelector('tbody th[scope=row]').getBoundingClientRect();
    return { card: card.toJSON(), box: before.toJSON(), scrolls: scroll.scrollWidth > scroll.clientWidth, th: th.toJSON(), left: scroll.scrollLeft };
  });
  assert.ok(table.box.right <= table.card.right + 0.5 && table.box.left >= table.card.left - 0.5, JSON.stringify(table));
  assert.ok(table.left > 0 && Math.abs(table.th.left - table.box.left) < 1, `model column kept in view: ${JSON.stringify(table)}`);
  await page.evaluate(() => { document.querySelector('table.metrics').closest('.table-scroll').scrollLeft = 0; });
  assert.ok(await page.$eval('body', (b) => document.documentElement.scrollWidth <= window.innerWidth), 'the page does not scroll sideways');

  fs.mkdirSync(shots, { recursive: true });
  const cards = async (theme) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(shots, `manymodels-first-screen-${theme}.png`) });
    await page.locator('section.card:has(table.metrics)').screenshot({ path: path.join(shots, `manymodels-table-${theme}.png`) });
    await page.locator('section.card:has(canvas[aria-label="elbow curve"])').screenshot({ path: path.join(shots, `manymodels-elbow-${theme}.png`) });
  };
  await cards('light');
  // the dark theme: the chart drawn again in its ink
  await page.click('header.top button:has-text("system")');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  await page.waitForTimeout(500);
  await cards('dark');
  const dark = rgb(await page.$eval('.models', (c) => getComputedStyle(c).backgroundColor));
  const darkSwatches = await page.$$eval('.models li[data-model-item] .swatch', (ss) => ss.map((s) => getComputedStyle(s).backgroundColor));
  for (const c of darkSwatches) assert.ok(contrast(rgb(c), dark) >= 3, `${c} on the dark card ${dark}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a renamed baseline keeps its marks; the filter is exact and the histograms follow; the LaTeX export has the chosen columns', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  await drop(page, [qrels(), ...names.slice(0, 6).map((_, r) => run(r))]);
  await waitForModels(page, names.slice(0, 6));
  const baseline = 'label:has-text("Baseline") select';
  await page.selectOption(baseline, 'sys-01');
  await page.waitForSelector('table.metrics .mark', { timeout: 60000 });
  const marks = await page.$$eval('table.metrics .mark', (ms) => ms.length);
  assert.ok(marks > 10, `${marks} marks`);

  // rename the baseline: still the baseline, the marks come back against it
  const input = page.locator('li[data-model-item="sys-01"] input.name');
  await input.fill('bm25 tuned');
  await input.press('Enter');
  await page.waitForSelector('li[data-model-item="bm25 tuned"]');
  assert.equal(await page.$eval(baseline, (s) => s.value), 'bm25 tuned');
  await page.waitForFunction((n) => document.querySelectorAll('table.metrics .mark').length === n, marks, { timeout: 60000 });
  assert.ok(await page.$eval('tr.baseline th', (th) => th.textContent.includes('bm25 tuned')));
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('baseline=bm25 tuned'));
  await page.locator('section.card:has(table.metrics)').screenshot({ path: path.join(shots, 'manymodels-renamed-baseline.png') });

  // the query filter: a query id whole; * for any text; the histograms count the rows shown
  const filter = 'input[aria-label="filter query id"]';
  const shown = async () => page.evaluate(() => {
    const rows = document.querySelectorAll('table.rr tbody tr').length;
    const hists = [...document.querySelectorAll('.hist[data-hist-model]')].map((h) => [...h.querySelectorAll('.bar')].map((b) => Number(b.title.match(/: (\d+) /)[1])).reduce((a, b) => a + b, 0));
    return { rows, hists };
  });
  assert.deepEqual((await shown()).hists, Array(6).fill(QUERIES));
  await page.fill(filter, 'user_1');
  await page.waitForFunction(() => document.querySelectorAll('table.rr tbody tr').length === 1);
  assert.deepEqual(await shown(), { rows: 1, hists: Array(6).fill(1) });
  await page.fill(filter, 'user_1*');
  await page.waitForFunction(() => /\(32 queries\)/.test(document.querySelector('.pager').textContent));
  assert.deepEqual((await shown()).hists, Array(6).fill(32));
  await page.fill(filter, '');

  // the Share menu closes on a choice (it covered the notice it brings)
  await page.click('#share-menu summary');
  assert.equal(await page.$eval('#share-menu', (d) => d.open), true);
  await page.click('#copy-link');
  await page.waitForSelector('.msg >> text=Link copied');
  assert.equal(await page.$eval('#share-menu', (d) => d.open), false);

  // LaTeX: the columns shown and the differences when shown; the package the marks need
  const latex = async () => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="tex"]')]);
    return fs.readFileSync(await file.path(), 'utf8');
  };
  const columns = (tex) => tex.match(/\\begin\{tabular\}\{l(r*)\}/)[1].length;
  const all = await latex();
  assert.match(all, /\(\+\d+\.\d\\%\)/, 'differences shown, differences exported');
  assert.match(all.split('\n')[0], /^% needs \\usepackage\{amssymb\}/);
  // the columns chosen in the picker (here: the cutoffs) are the exported ones
  const cutoffs = page.locator('input[aria-label="cutoffs"]').first();
  const before = await cutoffs.inputValue();
  await cutoffs.fill('5,10');
  await cutoffs.dispatchEvent('change');
  await page.waitForFunction(() => !document.querySelector('td[data-metric="ndcg@20"]'));
  await page.uncheck('#show-diff');
  await page.waitForFunction(() => !document.querySelector('table.metrics .delta'));
  // the new columns' tests are run again in a worker: their marks first
  await page.waitForTimeout(300);
  await page.waitForFunction(() => !document.querySelector('p.testing') && document.querySelector('td[data-metric="ndcg@10"][data-p]'));
  const chosen = await latex();
  assert.ok(columns(chosen) < columns(all), `${columns(chosen)} of ${columns(all)} columns`);
  assert.doesNotMatch(chosen, /@20/, 'no column left out of the table');
  assert.doesNotMatch(chosen, /\\%\)/, 'no differences');
  assert.match(chosen, /blacktriangle/, 'the marks stay');
  await cutoffs.fill(before);
  await cutoffs.dispatchEvent('change');
  await page.waitForSelector('td[data-metric="ndcg@20"]');
  assert.deepEqual(errors, []);
  await page.close();
});

test('lists keyed by users speak of users and items', async () => {
  const { page, errors } = await open(browser, url);
  await clearAll(page);
  const rows = ['user_id,item_id,score,relevance'];
  for (let u = 1; u <= 12; u++) for (let i = 1; i <= 6; i++) rows.push(`u${u},sku-${i},${(1 - i / 10).toFixed(2)},${(u + i) % 4 === 0 ? 1 : 0}`);
  await drop(page, [{ name: 'recs.csv', data: rows.join('\n') + '\n' }]);
  await waitForModels(page, ['recs']);
  const card = page.locator('section.card:has(table.rr)');
  assert.equal(await card.locator('h2').first().textContent(), 'Per user');
  assert.equal((await card.locator('table.rr thead th').first().textContent()).trim(), 'user');
  assert.match(await card.locator('.pager').textContent(), /\(12 users\)/);
  assert.match(await page.locator('.models').textContent(), /12 users judged/);
  assert.match(await page.locator('.messages').textContent(), /'user_id'\): users and items/);
  assert.deepEqual(errors, []);
  await page.close();
});
