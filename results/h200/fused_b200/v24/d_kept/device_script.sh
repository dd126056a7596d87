#!/bin/bash
# v24, fourth form (K's biases loaded before the pass waits on the GEMM): per-kernel
# breakdowns of v23 and A2 on the judge's layout, v23 / A / A2 alternated on both layouts, then A's suite, parts
# bench and the fused_b200 GPU tests.
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
save() { tar czf $OUT/run.tgz -C $o .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
tar xJf .carry/bins_v24d.tar.xz -C /tmp/bins
rm -rf build-90 && mkdir -p build-90 && cp -r /tmp/bins/c/. build-90/
[ "$root" != /work/main ] && mkdir -p /work/main && ln -sfn "$root/build-90" /work/main/build-90
md5sum build-90/solution_modules/*.so build-90/bench/fused_b200/libfused_b200_c_entry.so /tmp/bins/*/*.so > $o/modules.md5
for round in 1; do for v in base A2; do
  cp /tmp/bins/$v/vlbench_solution_fused_b200.so build-90/solution_modules/vlbench_solution_fused_b200.so
  echo "== breakdown $v $round $(date +%T)"
  timeout 60 build-90/vlbench --solution fused_b200 -c 8,7,3,0 -v --json $o/breakdown_${v}_$round.json > $o/breakdown_${v}_$round.txt 2>&1
  echo "rc=$? $(grep 'mean latency' $o/breakdown_${v}_$round.txt)"
done; done
save
cp /tmp/bins/c/solution_modules/vlbench_solution_fused_b200.so build-90/solution_modules/
L=base=/tmp/bins/base/libfused_b200_c_entry.so,A=/tmp/bins/A/libfused_b200_c_entry.so,A2=/tmp/bins/A2/libfused_b200_c_entry.so
echo "== variants $(date +%T)"
LIBS=$L OUT_JSON=$o/variants.json CASES=8,7,11,0,2,3,6,9,13,14,15,4,12,1,5,10 REVERSED_CASES=8,7,11,0,2,3,6,9,13,14 \
  timeout 200 /opt/torch/.venv/bin/python3 .carry/v24_bench.py > $o/variants.txt 2>&1
echo "rc=$?"; grep -v Warn $o/variants.txt | grep -v "return F" | tail -17
save
echo "== suite A $(date +%T)"
timeout 110 build-90/vlbench --suite all --solution fused_b200 --json $o/suite_A.json > $o/suite_A.txt 2>&1
echo "rc=$? $(grep 'mean latency' $o/suite_A.txt)"
save
echo "== parts A $(date +%T)"
timeout 90 /opt/torch/.venv/bin/python3 bench/fused_b200/parts_bench.py --library /tmp/bins/A/libfused_b200_c_entry.so --json $o/parts_A.json > $o/parts_A.txt 2>&1; echo "rc=$?"; grep -A18 "^  #" $o/parts_A.txt
save
echo "== gpu tests A $(date +%T)"
timeout 300 build-90/tests/tests_fused_b200_gpu > $o/tests_fused_b200_gpu.log 2>&1; echo "rc=$?"; tail -3 $o/tests_fused_b200_gpu.log
save
echo "== done $(date +%T)"
