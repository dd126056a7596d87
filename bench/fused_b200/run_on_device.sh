#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with binaries built elsewhere (carried): the fused_b200 CPU and
# GPU tests, the stage benchmark and a SASS check of the sm90 kernels. Logs and JSON go to $OUT.
#   usage: bench/fused_b200/run_on_device.sh [build folder]
set -uo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
build=${1:-build-fused}
out=${OUT:-/tmp/fused_b200_out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$out/gpu.txt"
object=$build/bench/fused_b200/fused_b200_stage_bench  # the kernels are linked in; object files are not carried
if command -v cuobjdump >/dev/null; then
  cuobjdump --dump-sass "$object" > /tmp/fused_sass.txt 2>&1
  { echo "HGMMA:"; grep -oE "HGMMA\.[A-Za-z0-9_.]+" /tmp/fused_sass.txt | sort | uniq -c
    echo "local memory (LDL/STL):"; grep -cE "\b(LDL|STL)\b" /tmp/fused_sass.txt
    echo "TMA loads:"; grep -cE "UTMALDG" /tmp/fused_sass.txt; } | tee "$out/sass_summary.txt"
fi
"$build/tests/tests_fused_b200" 2>&1 | tail -3
timeout 170 "$build/tests/tests_fused_b200_gpu" 2>&1 | tee "$out/gpu_tests.log" | tail -60
timeout 200 "$build/bench/fused_b200/fused_b200_stage_bench" --workloads workloads --json "$out/stage_bench.json" \
  2>&1 | tee "$out/stage_bench.txt"
