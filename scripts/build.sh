#!/usr/bin/env bash
# Builds the release app into dist/ (size-tuned wasm, wasm-opt -Oz).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
cargo fetch --locked >/dev/null
trunk build --release "$@"
# the bundled example parsed ahead (the page shows it without starting a worker;
# without this file it has a worker generate and parse it)
cargo run --locked --quiet --bin rankscope -- generate --preset example --kind parsed --out dist
# the teaching page: its own wasm in dist/learn/, so the dashboard never loads it
trunk build learn/index.html --release --dist dist/learn "$@"
# the leaderboard page: its own wasm in dist/board/ (index.html?catalog=URL sends the user there)
trunk build board/index.html --release --dist dist/board "$@"
# a strict Content-Security-Policy for the built pages (hash of Trunk's inline loader)
node scripts/csp.mjs dist/index.html
node scripts/csp.mjs dist/learn/index.html
node scripts/csp.mjs dist/board/index.html
for wasm in dist/*_bg.wasm dist/learn/*_bg.wasm dist/board/*_bg.wasm; do
  printf '[build] %s: %s bytes, %s gzipped\n' "$wasm" "$(wc -c < "$wasm")" "$(gzip -9c "$wasm" | wc -c)"
done
# the Python package's report() and show() embed the built app and its loading worker (python/rankscope/_dist)
rm -rf python/rankscope/_dist
mkdir -p python/rankscope/_dist
cp dist/index.html dist/main-*.css dist/rankscope-web-*.js dist/rankscope-web-*_bg.wasm \
  dist/rankscope-worker.js dist/rankscope-worker_bg.wasm python/rankscope/_dist/
