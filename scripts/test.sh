#!/usr/bin/env bash
# Quick start 2: install what is missing, build with warnings as errors, run every test.
# .ci/run calls this verbatim.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci
