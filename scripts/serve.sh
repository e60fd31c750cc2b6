#!/usr/bin/env bash
# Set-up command 1: install what is missing, build the release app, and serve it
# on http://127.0.0.1:${PORT:-8080} with the bundled example already loaded.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
port="${PORT:-8080}"
echo "[serve] Rankscope on http://127.0.0.1:$port/ (Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory dist
