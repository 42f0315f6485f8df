#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs them, seeded with the built-in presets, fuzz/corpus/
# and tests/data/ (hf/, the training configs in torchtune/, axolotl/ and deepspeed/, and readouts/). A crash leaves its
# input in build/fuzz/findings/.
# Time: the scenario, GPU and command-line targets run FUZZ_SECONDS (default 60) each; the four reader
# targets (fuzz_megatron, fuzz_hfconfig, fuzz_trainconfig, fuzz_measured) run FUZZ_SECONDS/2 each, so CI's
# FUZZ_SECONDS=12 costs 3·12 + 4·6 = 60 s of fuzzing in all (CI's 15-minute budget on a 2-core machine). The reader
# targets reach their code quickly (fuzz_megatron with fuzz/megatron.dict); run longer by hand with
# FUZZ_SECONDS=600 after changing a reader.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAINMEM_WITH_CLANG=1 scripts/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
seconds=${FUZZ_SECONDS:-60}
half=$(( seconds / 2 > 0 ? seconds / 2 : 1 ))
out=build/fuzz/findings
mkdir -p "$out" build/fuzz/corpus/{scenario,gpus,cli,megatron,hfconfig,trainconfig,measured}
export ASAN_OPTIONS=detect_leaks=0 QT_QPA_PLATFORM=offscreen
run() {
  local name=$1 time=$2; shift 2
  echo "fuzz: $name for ${time}s"
  local log="build/fuzz/$name.log" status=0
  "build/fuzz/fuzz/$name" -max_total_time="$time" -max_len=4096 -artifact_prefix="$out/$name-" \
    -print_final_stats=1 "$@" >"$log" 2>&1 || status=$?
  grep -E "^(Done [0-9]+ runs|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)" "$log" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $name failed (exit $status); its input is in $out/, the log in $log" >&2
    tail -40 "$log" >&2
    return "$status"
  fi
}
run fuzz_scenario "$seconds" build/fuzz/corpus/scenario presets
run fuzz_gpus "$seconds" build/fuzz/corpus/gpus presets
[ -x build/fuzz/fuzz/fuzz_cli ] && run fuzz_cli "$seconds" build/fuzz/corpus/cli fuzz/corpus/cli
run fuzz_megatron "$half" -dict=fuzz/megatron.dict build/fuzz/corpus/megatron fuzz/corpus/megatron
run fuzz_hfconfig "$half" build/fuzz/corpus/hfconfig tests/data/hf
run fuzz_trainconfig "$half" build/fuzz/corpus/trainconfig tests/data/torchtune tests/data/axolotl tests/data/deepspeed
run fuzz_measured "$half" build/fuzz/corpus/measured tests/data/readouts
echo "fuzz: no crashes"
