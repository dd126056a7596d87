#!/bin/bash
# v21 (the first Q tile loaded before the attention's grid wait) on the H200 against v20 at c7daf8a: suites
# alternated twice, -v, the parts bench, then the fused_b200 GPU tests of the new build.
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
save() { tar czf $OUT/run.tgz -C $o .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
tar xJf .carry/bins_v21.tar.xz -C /tmp/bins
for v in base new; do
  rm -rf build-$v && mkdir -p build-$v && cp -r /tmp/bins/c/. build-$v/
done
cp /tmp/bins/new/vlbench_solution_fused_b200.so build-new/solution_modules/
cp /tmp/bins/new/libfused_b200_c_entry.so build-new/bench/fused_b200/
cp /tmp/bins/new/tests_fused_b200_gpu build-new/tests/
md5sum build-*/solution_modules/vlbench_solution_fused_b200.so build-*/bench/fused_b200/libfused_b200_c_entry.so > $o/modules.md5
for r in 1 2; do
  for v in base new; do
    echo "== suite $v $r $(date +%T)"
    timeout 100 build-$v/vlbench --suite all --solution fused_b200 --json $o/suite_${v}_$r.json > $o/suite_${v}_$r.txt 2>&1
    echo "rc=$? $(grep 'mean latency' $o/suite_${v}_$r.txt)"
  done
  save
done
for v in base new; do
  timeout 60 build-$v/vlbench -s fused_b200 -c 0,2,7,8,14 -v > $o/gaps_$v.txt 2>&1; echo "-v $v rc=$?"
done
echo "== parts $(date +%T)"
timeout 90 /opt/torch/.venv/bin/python3 bench/fused_b200/parts_bench.py --library build-new/bench/fused_b200/libfused_b200_c_entry.so --json $o/parts_new.json > $o/parts_new.txt 2>&1; echo "rc=$?"; tail -1 $o/parts_new.txt
save
echo "== gpu tests new $(date +%T)"
rm -rf build-90 && cp -r build-new build-90
[ "$root" != /work/main ] && mkdir -p /work/main && ln -sfn "$root/build-90" /work/main/build-90
timeout 280 build-90/tests/tests_fused_b200_gpu > $o/tests_fused_b200_gpu.log 2>&1; echo "rc=$?"; tail -3 $o/tests_fused_b200_gpu.log
save
echo "== done $(date +%T)"
