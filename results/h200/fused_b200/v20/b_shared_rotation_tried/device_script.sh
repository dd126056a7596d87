#!/bin/bash
# v20 forms a and b on the H200 against base (HEAD 15f80ec): tests of b, suites base/a/b alternated twice, -v,
# parts bench of a and b, the suite and 40-shape tests of b and a.
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
save() { tar czf $OUT/run.tgz -C $o .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
tar xJf .carry/bins_v20b.tar.xz -C /tmp/bins
for v in base a b; do
  rm -rf build-$v && mkdir -p build-$v && cp -r /tmp/bins/base/. build-$v/
  if [ $v != base ]; then
    cp /tmp/bins/$v/vlbench_solution_fused_b200.so build-$v/solution_modules/
    cp /tmp/bins/$v/libfused_b200_c_entry.so build-$v/bench/fused_b200/
    cp /tmp/bins/$v/tests_fused_b200_gpu build-$v/tests/
  fi
  f=build-$v/solution_modules/vlbench_solution_fused_b200.so
  { echo "## $v $(md5sum < $f)"; cuobjdump -res-usage $f 2>&1 | grep -A1 attention_kernel | grep -oE 'REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+' | sort | uniq -c
    echo "LDL/STL: $(cuobjdump -sass $f 2>/dev/null | grep -cE '\b(LDL|STL)\b')"; } >> $o/resources.txt 2>&1
done
cat $o/resources.txt
echo "== attention tests b $(date +%T)"
timeout 120 build-b/tests/tests_fused_b200_gpu "attention: *" > $o/tests_attention_b.log 2>&1; echo "rc=$?"; tail -3 $o/tests_attention_b.log
save
for r in 1 2; do
  for v in base a b; do
    echo "== suite $v $r $(date +%T)"
    timeout 100 build-$v/vlbench --suite all --solution fused_b200 --json $o/suite_${v}_$r.json > $o/suite_${v}_$r.txt 2>&1
    echo "rc=$? $(grep 'mean latency' $o/suite_${v}_$r.txt)"
  done
  save
done
for v in a b; do
  echo "== -v $v $(date +%T)"
  timeout 60 build-$v/vlbench -s fused_b200 -c 0,2,7,8,14 -v > $o/gaps_$v.txt 2>&1; echo "rc=$?"
  echo "== parts $v $(date +%T)"
  timeout 90 /opt/torch/.venv/bin/python3 bench/fused_b200/parts_bench.py --library build-$v/bench/fused_b200/libfused_b200_c_entry.so --json $o/parts_$v.json > $o/parts_$v.txt 2>&1; echo "rc=$?"; tail -1 $o/parts_$v.txt
  save
done
# The suite tests run build-90/vlbench (the path compiled into them).
[ "$root" != /work/main ] && mkdir -p /work/main && ln -sfn "$root/build-90" /work/main/build-90
for v in b a; do
  echo "== suite and shape tests $v $(date +%T)"
  rm -rf build-90 && cp -r build-$v build-90
  timeout 170 build-90/tests/tests_fused_b200_gpu "fused_b200: the 16 workloads pass the default 3 rounds*,fused_b200: 20 shapes drawn at random*,fused_b200: 20 more shapes*" > $o/tests_suite_shapes_$v.log 2>&1; echo "rc=$?"; tail -3 $o/tests_suite_shapes_$v.log
  save
done
echo "== done $(date +%T)"
