#!/bin/bash
# v23 (the K/V biases copy launched programmatically after Q) against v20 at 9d95cdd: both layouts alternated,
# v20 at 9d95cdd: both layouts alternated in one process, the parts bench, the suite, then the fused_b200 GPU tests.
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
save() { tar czf $OUT/run.tgz -C $o .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
tar xJf .carry/bins_v23.tar.xz -C /tmp/bins
rm -rf build-90 && mkdir -p build-90 && cp -r /tmp/bins/c/. build-90/
[ "$root" != /work/main ] && mkdir -p /work/main && ln -sfn "$root/build-90" /work/main/build-90
md5sum build-90/solution_modules/*.so build-90/bench/fused_b200/libfused_b200_c_entry.so /tmp/bins/base/libfused_b200_c_entry.so > $o/modules.md5
echo "== layouts $(date +%T)"
BASE_LIB=/tmp/bins/base/libfused_b200_c_entry.so NEW_LIB=build-90/bench/fused_b200/libfused_b200_c_entry.so \
  OUT_JSON=$o/layouts.json CASES=8,7,11,0,3,6 timeout 150 /opt/torch/.venv/bin/python3 .carry/layout_bench.py > $o/layouts.txt 2>&1
echo "rc=$?"; grep -v Warn $o/layouts.txt | grep -v "return F" | tail -9
save
echo "== parts $(date +%T)"
timeout 90 /opt/torch/.venv/bin/python3 bench/fused_b200/parts_bench.py --library build-90/bench/fused_b200/libfused_b200_c_entry.so --json $o/parts_new.json > $o/parts_new.txt 2>&1; echo "rc=$?"; grep -A18 "^  #" $o/parts_new.txt
save
echo "== suite $(date +%T)"
timeout 100 build-90/vlbench --suite all --solution fused_b200 --json $o/suite_new.json > $o/suite_new.txt 2>&1
echo "rc=$? $(grep 'mean latency' $o/suite_new.txt)"
save
echo "== gpu tests new $(date +%T)"
timeout 300 build-90/tests/tests_fused_b200_gpu > $o/tests_fused_b200_gpu.log 2>&1; echo "rc=$?"; tail -3 $o/tests_fused_b200_gpu.log
save
echo "== done $(date +%T)"
