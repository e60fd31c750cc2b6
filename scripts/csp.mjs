// Adds a strict Content-Security-Policy <meta> to dist/index.html after the
// build. Trunk writes one inline module script (the wasm loader) whose text
// changes with the hashed file names, so its sha256 is computed here and is the
// only inline script allowed. Policy:
//   default-src 'self'                  nothing from anywhere else
//   script-src 'self' 'sha256-…' 'wasm-unsafe-eval'   our scripts, the loader, wasm compilation (no eval)
//   style-src 'self' 'unsafe-inline'    the stylesheet and style attributes (series colours)
//   img-src 'self' data: blob:          the empty favicon, exported PNGs
//   connect-src 'self' http: https:     the app's own assets and data URLs the user puts in a
//                                       link (?run=…); the app requests no other URL
//   worker-src 'self'                   the loading worker and the offline service worker
//   object-src 'none'; base-uri 'self'; form-action 'none'
import fs from 'node:fs';
import crypto from 'node:crypto';

const file = process.argv[2] || 'dist/index.html';
let html = fs.readFileSync(file, 'utf8');
const scripts = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
if (scripts.length === 0) throw new Error(`${file}: no inline script found (Trunk's loader)`);
const hashes = scripts.map((s) => `'sha256-${crypto.createHash('sha256').update(s, 'utf8').digest('base64')}'`);
const policy = [
  "default-src 'self'",
  `script-src 'self' ${hashes.join(' ')} 'wasm-unsafe-eval'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' http: https:",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');
html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\s*/g, '');
html = html.replace('<meta charset="utf-8">', `<meta charset="utf-8">\n    <meta http-equiv="Content-Security-Policy" content="${policy}">`);
fs.writeFileSync(file, html);
console.log(`[csp] ${file}: ${policy}`);
