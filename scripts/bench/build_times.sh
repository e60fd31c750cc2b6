#!/usr/bin/env bash
# Incremental build times after one kernel file changes, in a checkout (default:
# this one): the native test build and the page's wasm build, each brought up
# to date first (untimed), then the kernel file touched and the build timed.
# Run on demand (not in CI); two builds on a warm target/:
#
#   bash scripts/bench/build_times.sh [CHECKOUT] [--file PATH] [--runs N]
#
# PATH is relative to the checkout; by default the tracked file named
# ranking_metrics.rs (the ranking kernels, wherever the crates keep it).
# The native build is `cargo test --locked --no-run`, the test binaries that
# scripts/test.sh's `cargo test --locked` runs (the workspace's default
# members); the wasm build is the page's binary with the profile and target
# scripts/build.sh uses through Trunk (no wasm-bindgen or wasm-opt: those take
# the same time whatever changed).
set -euo pipefail
checkout=.
file=
runs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --file) file=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) checkout=$1; shift ;;
  esac
done
cd "$checkout"
export PATH="$HOME/.cargo/bin:$PATH"
if [ -z "$file" ]; then
  file=$(git ls-files '*ranking_metrics.rs' | head -n 1)
fi
if [ -z "$file" ] || [ ! -f "$file" ]; then
  echo "no kernel file to touch (give one with --file PATH)" >&2
  exit 2
fi
native=(cargo test --locked --no-run)
wasm=(cargo build --locked --target wasm32-unknown-unknown --profile wasm-release --bin rankscope-web)

# seconds that "$@" takes, its output kept in a log; fails with the log's tail
timed() {
  local log start end
  log=$(mktemp)
  start=$(date +%s.%N)
  if ! "$@" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    rm -f "$log"
    echo "failed: $*" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  rm -f "$log"
  echo "$end - $start" | bc
}

commit=$(git rev-parse --short HEAD)
echo "checkout $(pwd) at $commit$(git diff --quiet HEAD || echo ' (with uncommitted changes)'); touching $file; $(nproc) cores" >&2
echo "bringing both builds up to date (untimed)..." >&2
timed "${native[@]}" >/dev/null
timed "${wasm[@]}" >/dev/null
printf '| build after `touch %s` | command | seconds |\n|---|---|---|\n' "$file"
for _ in $(seq "$runs"); do
  touch "$file"
  printf '| native tests | `%s` | %.1f |\n' "${native[*]}" "$(timed "${native[@]}")"
  touch "$file"
  printf '| page wasm | `%s` | %.1f |\n' "${wasm[*]}" "$(timed "${wasm[@]}")"
done
