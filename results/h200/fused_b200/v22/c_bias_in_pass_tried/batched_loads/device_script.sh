#!/bin/bash
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
save() { tar czf $OUT/run.tgz -C $o .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
tar xJf .carry/bins_v22.tar.xz -C /tmp/bins
rm -rf build-90 && mkdir -p build-90 && cp -r /tmp/bins/c/. build-90/
[ "$root" != /work/main ] && mkdir -p /work/main && ln -sfn "$root/build-90" /work/main/build-90
md5sum build-90/solution_modules/*.so build-90/bench/fused_b200/libfused_b200_c_entry.so /tmp/bins/base/libfused_b200_c_entry.so > $o/modules.md5
echo "== layouts $(date +%T)"
BASE_LIB=/tmp/bins/base/libfused_b200_c_entry.so NEW_LIB=build-90/bench/fused_b200/libfused_b200_c_entry.so \
  OUT_JSON=$o/layouts.json CASES=8,7,11,0,2,3,6,5 timeout 150 /opt/torch/.venv/bin/python3 .carry/layout_bench.py > $o/layouts.txt 2>&1
echo "rc=$?"; grep -v Warn $o/layouts.txt | grep -v "return F" | tail -9
save
echo "== tests $(date +%T)"
timeout 120 build-90/tests/tests_fused_b200_gpu "staged epilogue*" "K and V on cuBLAS*" > $o/tests_subset.log 2>&1; echo "rc=$?"; tail -2 $o/tests_subset.log
save
echo "== done $(date +%T)"
