#!/usr/bin/env bash
# Set-up command 2: install test dependencies and run every test:
# formatting and lints; native unit, integration and property tests; the Python package and Spark;
# the core in wasm under headless
# Chromium (wasm-bindgen-test); browser end-to-end tests against the built dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh --test
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "format and lints (cargo fmt --check; clippy -D warnings, native and wasm)"
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
cargo clippy --locked -p rankscope-python -- -D warnings
cargo clippy --locked --target wasm32-unknown-unknown --bins -- -D warnings

step "native tests (cargo test)"
cargo test --locked

step "the core compiled to wasm, in headless Chromium (wasm-bindgen-test)"
cargo test --locked --target wasm32-unknown-unknown --test wasm

step "release build of the app"
bash scripts/build.sh

step "the Python package: built with maturin into tools/venv, tested against the CLI and the built app (pytest; Spark in local[2] mode)"
(cd python && VIRTUAL_ENV="$PWD/../tools/venv" ../tools/venv/bin/maturin develop --release --locked -q)
RANKSCOPE_CLI="$PWD/target/debug/rankscope" tools/venv/bin/python -m pytest -q -p no:cacheprovider \
  -W ignore::UserWarning -W ignore::FutureWarning python/tests

step "browser end-to-end tests (playwright-core + Debian chromium)"
node --test tests/e2e/
