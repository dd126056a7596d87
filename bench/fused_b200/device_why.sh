#!/usr/bin/env bash
# One device call that asks why, on one build of fused_b200 (no A/B), the most needed step first, each only while the
# call's time allows. Run from the repository root on the device machine:
#   bash bench/fused_b200/device_why.sh [SECONDS] [CASES]      (default 360 s; cases 8,7,11)
# with the build's `vlbench vlbench-worker solution_modules python_worker generated bench/fused_b200/
# {libfused_b200_c_entry.so,fused_b200_operation_bench}` packed (from inside its build folder) as .carry/why.tar.xz,
# and .carry carried. Steps: the operation bench (what Q's RoPE costs the attention) on CASES and 14, 0, 2; the
# parts bench on CASES and 15, on torch's default stream and on a created one, twice each in turns (whether the
# legacy NULL stream costs the programmatic launches); `vlbench -c CASES -v` (the per-kernel breakdown); Nsight
# Compute's full set on the first case, with its details page and the SASS stall samples of the attention and of
# CUTLASS's kernels. Everything lands in $OUT/why.tgz (summary.txt says which steps ran and their exit codes).
set -u
case "${1:-}" in
  -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
BUDGET=${1:-360}
CASES=${2:-8,7,11}
FIRST=${CASES%%,*}
R="$PWD"; export VLBENCH_WORKLOADS_DIR="$R/workloads"
B=/tmp/why; mkdir -p $B && tar -xJf .carry/why.tar.xz -C $B
L="$OUT/why"; mkdir -p "$L"; S="$L/summary.txt"
fits() {
  [ $((BUDGET - SECONDS)) -ge "$1" ] && return 0
  echo "skipped (needs $1 s, $((BUDGET - SECONDS)) left): $2" >> "$S"; return 1
}
step() { echo "$1 rc=$2 at ${SECONDS}s" >> "$S"; }
nvidia-smi > "$L/gpu.txt" 2>&1
P=/opt/torch/.venv/bin/python
fits 60 "operation bench" && { timeout 90 $B/bench/fused_b200/fused_b200_operation_bench --case "$CASES,14,0,2" \
  --json "$L/operation.json" > "$L/operation.txt" 2>&1; step "operation bench" $?; }
for round in 1 2; do
  for stream in default created; do
    fits 40 "parts $stream $round" && { timeout 60 $P bench/fused_b200/parts_bench.py --library \
      $B/bench/fused_b200/libfused_b200_c_entry.so --case "$CASES,15" --iterations 40 --stream $stream \
      --json "$L/parts_${stream}_$round.json" > /tmp/why_parts.txt 2>&1; step "parts $stream $round" $?; \
      grep -v -e Warning -e 'return F' /tmp/why_parts.txt > "$L/parts_${stream}_$round.txt"; }
  done
done
fits 30 "breakdown" && {
  timeout 60 $B/vlbench -s fused_b200 -c "$CASES" -v > "$L/breakdown.txt" 2>&1; step breakdown $?; }
if fits 150 "ncu case $FIRST"; then
  timeout 240 $B/vlbench profile -s fused_b200 -c "$FIRST" --tool ncu --set full -o /tmp/why_ncu > "$L/ncu.txt" 2>&1
  step "ncu" $?
  report=$(ls /tmp/why_ncu*.ncu-rep 2>/dev/null | head -1)
  if [ -n "$report" ]; then
    ncu --import "$report" --page details --print-units base > "$L/ncu_details.txt" 2>&1
    for kernel in attention device_kernel; do  # device_kernel: CUTLASS's, the K/V pair on cases 7, 8 and 11
      ncu --import "$report" --page source --csv --print-source sass --kernel-name regex:$kernel \
        > "$L/sass_$kernel.csv" 2>&1
    done
    gzip -f "$L"/sass_*.csv
  fi
fi
cat "$S"; grep -h "^ *[0-9]" "$L/operation.txt" 2>/dev/null; grep -h "^mean" "$L"/parts_*.txt 2>/dev/null
cd "$OUT" && tar -czf why.tgz why && rm -rf why
