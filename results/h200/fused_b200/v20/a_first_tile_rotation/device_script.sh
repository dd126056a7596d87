#!/bin/bash
# v20 form a on the H200: tests of the new build, then base/new suites alternated twice, -v breakdowns, parts bench.
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
save() { tar czf $OUT/run.tgz -C $o .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
tar xJf .carry/bins_v20.tar.xz -C /tmp/bins
rm -rf build-base build-new && mkdir -p build-base build-new
cp -r /tmp/bins/base/. build-base/ && cp -r /tmp/bins/base/. build-new/
cp /tmp/bins/new/vlbench_solution_fused_b200.so build-new/solution_modules/
cp /tmp/bins/new/libfused_b200_c_entry.so build-new/bench/fused_b200/
cp /tmp/bins/new/tests_fused_b200_gpu build-new/tests/
md5sum build-*/solution_modules/vlbench_solution_fused_b200.so build-*/bench/fused_b200/libfused_b200_c_entry.so > $o/modules.md5
for v in base new; do
  f=build-$v/solution_modules/vlbench_solution_fused_b200.so
  { echo "## $v"; cuobjdump -res-usage $f 2>&1 | grep -A1 attention_kernel | grep -oE 'REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+' | sort | uniq -c
    echo "LDL/STL: $(cuobjdump -sass $f 2>/dev/null | grep -cE '\b(LDL|STL)\b')"; } >> $o/resources.txt 2>&1
done
cat $o/resources.txt
echo "== attention tests $(date +%T)"
timeout 120 build-new/tests/tests_fused_b200_gpu "attention: *" > $o/tests_attention.log 2>&1; echo "rc=$?"; tail -3 $o/tests_attention.log
save
for r in 1 2; do
  for v in base new; do
    echo "== suite $v $r $(date +%T)"
    timeout 100 build-$v/vlbench --suite all --solution fused_b200 --json $o/suite_${v}_$r.json > $o/suite_${v}_$r.txt 2>&1
    echo "rc=$? $(grep 'mean latency' $o/suite_${v}_$r.txt)"
    save
  done
done
for v in base new; do
  echo "== -v $v $(date +%T)"
  timeout 60 build-$v/vlbench -s fused_b200 -c 0,2,7,8,14,15 -v > $o/gaps_$v.txt 2>&1; echo "rc=$?"
done
save
echo "== parts $(date +%T)"
timeout 90 /opt/torch/.venv/bin/python3 bench/fused_b200/parts_bench.py --library build-new/bench/fused_b200/libfused_b200_c_entry.so --json $o/parts_new.json > $o/parts_new.txt 2>&1; echo "rc=$?"; tail -3 $o/parts_new.txt
save
echo "== suite and shape tests $(date +%T)"
timeout 200 build-new/tests/tests_fused_b200_gpu "fused_b200: the 16 workloads pass the default 3 rounds*,fused_b200: 20 shapes drawn at random*,fused_b200: 20 more shapes*" > $o/tests_suite_shapes.log 2>&1; echo "rc=$?"; tail -3 $o/tests_suite_shapes.log
save
echo "== done $(date +%T)"
