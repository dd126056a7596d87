#!/usr/bin/env bash
# Everything that needs a GPU, in one go: the GPU-labelled tests, then the whole suite for each given solution,
# with logs and results JSON in OUT_DIR. Usage: scripts/run_gpu_checks.sh OUT_DIR [SOLUTION...]
# (BUILD_DIR defaults to build/; VLBENCH_ARGS adds options to every suite run.)
set -uo pipefail
usage() { sed -n '2,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  ""|-*) usage >&2; exit 2 ;;
esac
out_dir="$1"
shift
solutions=("$@")
[ ${#solutions[@]} -gt 0 ] || solutions=(reference)
build_dir="${BUILD_DIR:-build}"
mkdir -p "$out_dir"
status=0

nvidia-smi > "$out_dir/nvidia-smi.txt" 2>&1 || true
(cd "$build_dir" && ctest -L gpu --output-on-failure --timeout 900) > "$out_dir/gpu-tests.log" 2>&1 || status=1
tail -n 25 "$out_dir/gpu-tests.log"

for solution in "${solutions[@]}"; do
  # shellcheck disable=SC2086
  "$build_dir/vlbench" --suite all --solution "$solution" --json "$out_dir/$solution.json" ${VLBENCH_ARGS:-} \
    > "$out_dir/$solution.log" 2>&1 || status=1
  tail -n 30 "$out_dir/$solution.log"
done
exit $status
