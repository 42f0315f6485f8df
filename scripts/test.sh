#!/usr/bin/env bash
# Quick start 2: install what is missing, build with warnings as errors, run every test; then the
# core suites again under AddressSanitizer + UndefinedBehaviorSanitizer, and each fuzz target for
# FUZZ_SECONDS (default 12: 3 × 12 + 4 readers × 6 = 60 s of fuzzing, for CI's 15 minutes).
# .ci/run calls this verbatim. TRAINMEM_QUICK=1 stops after the first part. The builds run one job per core, not
# Ninja's cores + 2: most files load a precompiled header of a few hundred MB, and on 2 cores the suites built in
# 184 s at -j2 against 194 s at -j4.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAINMEM_WITH_CLANG=1 scripts/install-deps.sh
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci
[ "${TRAINMEM_QUICK:-0}" = 1 ] && exit 0

echo "== core suites under ASan + UBSan"
cmake --preset asan >/dev/null
cmake --build --preset asan-core -j "$(nproc)"
ctest --preset asan-core

echo "== fuzzing, ${FUZZ_SECONDS:-12}s per target"
FUZZ_SECONDS=${FUZZ_SECONDS:-12} scripts/fuzz.sh
