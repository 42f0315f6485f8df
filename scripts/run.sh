#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run TrainMem on the default preset.
# With a display it opens the window; without one it prints the breakdown and writes the
# dashboard PNG, saying where. Extra arguments go to trainmem (e.g. --preset llama3-70b).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target trainmem
exe=build/release/app/trainmem
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${1:-}" != "--headless" ]; then
  exec "$exe" "$@"
fi
[ "${1:-}" = "--headless" ] && shift
mkdir -p out
exec "$exe" --export-png out/dashboard.png --chart dashboard "$@"
