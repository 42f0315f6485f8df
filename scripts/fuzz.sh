#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for FUZZ_SECONDS (default 60) seconds,
# seeded with the built-in presets and fuzz/corpus/. A crash leaves its input in build/fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAINMEM_WITH_CLANG=1 scripts/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
seconds=${FUZZ_SECONDS:-60}
out=build/fuzz/findings
mkdir -p "$out" build/fuzz/corpus/{scenario,gpus,cli}
export ASAN_OPTIONS=detect_leaks=0 QT_QPA_PLATFORM=offscreen
run() {
  local name=$1; shift
  echo "fuzz: $name for ${seconds}s"
  local log="build/fuzz/$name.log" status=0
  "build/fuzz/fuzz/$name" -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$out/$name-" \
    -print_final_stats=1 "$@" >"$log" 2>&1 || status=$?
  grep -E "^(Done [0-9]+ runs|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)" "$log" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $name failed (exit $status); its input is in $out/, the log in $log" >&2
    tail -40 "$log" >&2
    return "$status"
  fi
}
run fuzz_scenario build/fuzz/corpus/scenario presets
run fuzz_gpus build/fuzz/corpus/gpus presets
[ -x build/fuzz/fuzz/fuzz_cli ] && run fuzz_cli build/fuzz/corpus/cli fuzz/corpus/cli
echo "fuzz: no crashes"
