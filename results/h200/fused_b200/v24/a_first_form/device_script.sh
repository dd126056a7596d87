#!/bin/bash
# v24 (biases out of the cuBLAS GEMMs: K's in its RoPE pass, V's added to the attention output, Q's by the rotating
# warps) against v23 at 9c94448: variants alternated in one process on both layouts, the suite for two variants, the
# parts bench for two, then the fused_b200 GPU tests (built with the AB variant).
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
save() { tar czf $OUT/run.tgz -C $o .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
tar xJf .carry/bins_v24.tar.xz -C /tmp/bins
rm -rf build-90 && mkdir -p build-90 && cp -r /tmp/bins/c/. build-90/
[ "$root" != /work/main ] && mkdir -p /work/main && ln -sfn "$root/build-90" /work/main/build-90
md5sum build-90/solution_modules/*.so build-90/bench/fused_b200/libfused_b200_c_entry.so /tmp/bins/*/lib*.so > $o/modules.md5
L=base=/tmp/bins/base/libfused_b200_c_entry.so,A=/tmp/bins/A/libfused_b200_c_entry.so,A2=/tmp/bins/A2/libfused_b200_c_entry.so,AB=/tmp/bins/AB/libfused_b200_c_entry.so
echo "== variants $(date +%T)"
LIBS=$L OUT_JSON=$o/variants.json CASES=8,7,11,0,2,3,6,9,13,14,15,4,12,1,5,10 REVERSED_CASES=8,7,11,0,2,3,6,9,13,14 \
  timeout 240 /opt/torch/.venv/bin/python3 .carry/v24_bench.py > $o/variants.txt 2>&1
echo "rc=$?"; grep -v Warn $o/variants.txt | grep -v "return F" | tail -17
save
for v in AB A; do
  cp /tmp/bins/$v/vlbench_solution_fused_b200.so build-90/solution_modules/vlbench_solution_fused_b200.so
  echo "== suite $v $(date +%T)"
  timeout 110 build-90/vlbench --suite all --solution fused_b200 --json $o/suite_$v.json > $o/suite_$v.txt 2>&1
  echo "rc=$? $(grep 'mean latency' $o/suite_$v.txt)"
  save
done
for v in AB A; do
  echo "== parts $v $(date +%T)"
  timeout 90 /opt/torch/.venv/bin/python3 bench/fused_b200/parts_bench.py --library /tmp/bins/$v/libfused_b200_c_entry.so --json $o/parts_$v.json > $o/parts_$v.txt 2>&1; echo "rc=$?"; grep -A18 "^  #" $o/parts_$v.txt
  save
done
cp /tmp/bins/AB/vlbench_solution_fused_b200.so build-90/solution_modules/vlbench_solution_fused_b200.so
echo "== gpu tests AB $(date +%T)"
timeout 330 build-90/tests/tests_fused_b200_gpu > $o/tests_fused_b200_gpu.log 2>&1; echo "rc=$?"; tail -3 $o/tests_fused_b200_gpu.log
save
echo "== done $(date +%T)"
