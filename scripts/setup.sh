#!/usr/bin/env bash
# Installs what Rankscope needs on a fresh Debian machine with rustup and npm.
# Idempotent: everything already present at the right version is skipped.
#   scripts/setup.sh          build tools (wasm target, trunk, wasm-bindgen-cli, wasm-opt)
#   scripts/setup.sh --test   and test tools (Debian chromium + chromedriver, playwright-core)
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if ! trunk --version 2>/dev/null | grep -q '^trunk 0\.21\.'; then
  say "installing trunk 0.21 (takes several minutes the first time)"
  cargo install trunk --version '~0.21' --locked
fi

# wasm-bindgen-cli must match the wasm-bindgen of Cargo.lock exactly
wbg=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wbg"; then
  say "installing wasm-bindgen-cli $wbg"
  # not --locked: its lock pins a crate the registry lacks
  cargo install wasm-bindgen-cli --version "$wbg"
fi

# wasm-opt (binaryen) and playwright-core from npm, into tools/
if [ ! -x tools/node_modules/.bin/wasm-opt ] || [ ! -d tools/node_modules/playwright-core ]; then
  say "installing npm tools (binaryen, playwright-core) into tools/"
  (cd tools && npm ci --no-audit --no-fund)
fi

if [ "${1:-}" = "--test" ]; then
  if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
    say "adding rustfmt and clippy"
    rustup component add rustfmt clippy
  fi
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    say "installing Debian chromium and chromium-driver"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
  # the Python package's tests: a venv with maturin, pandas, pyarrow, pyspark, ranx
  if [ ! -x tools/venv/bin/python ]; then
    say "creating the Python venv tools/venv"
    python3 -m venv tools/venv
  fi
  if ! cmp -s python/requirements-test.txt tools/venv/.requirements-test.txt; then
    say "installing python/requirements-test.txt into tools/venv (pyspark is large: a few minutes)"
    tools/venv/bin/pip install -q --disable-pip-version-check -r python/requirements-test.txt
    cp python/requirements-test.txt tools/venv/.requirements-test.txt
  fi
  # Spark runs on Java 17
  if ! command -v java >/dev/null 2>&1; then
    say "installing Debian openjdk-17-jre-headless (for Spark)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  fi
fi
say "tools ready"
