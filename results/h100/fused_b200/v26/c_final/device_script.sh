#!/usr/bin/env bash
# fused_b200 v26 (main) against v24 (0b81c18's module) on one machine: the alternated A/B of cases 7, 8, 11 (v25's
# cases) and 0, 3, 9; the suite in turns twice; the parts bench; the whole fused_b200 GPU test binary.
set -u
R="$PWD"; mkdir -p /tmp/b && tar -xJf .carry/bins.tar.xz -C /tmp/b && ln -sfn /tmp/b/c "$R/build-90"
mkdir -p /tmp/b/base_tree/solution_modules
cp /tmp/b/c/vlbench /tmp/b/c/vlbench-worker /tmp/b/base_tree/
cp /tmp/b/c/solution_modules/*.so /tmp/b/base_tree/solution_modules/
cp /tmp/b/base/vlbench_solution_fused_b200.so /tmp/b/base_tree/solution_modules/
cp -r /tmp/b/c/python_worker /tmp/b/base_tree/
PY=/opt/torch/.venv/bin/python
L="$OUT/final"; mkdir -p "$L"
nvidia-smi > "$L/gpu.txt" 2>&1; md5sum /tmp/b/c/solution_modules/*.so /tmp/b/base/*.so > "$L/modules.md5"
$PY .carry/ab_bench.py v24=/tmp/b/base/libfused_b200_c_entry.so,v26=/tmp/b/c/bench/fused_b200/libfused_b200_c_entry.so 8,7,11,0,3,9 "$L/ab.json" > "$L/ab.log" 2>&1; echo "ab rc=$?" >> "$L/summary.txt"
for i in 1 2; do
  /tmp/b/base_tree/vlbench --suite all --solution fused_b200 --json "$L/suite_v24_$i.json" > "$L/suite_v24_$i.txt" 2>&1; echo "suite v24 $i rc=$?" >> "$L/summary.txt"
  /tmp/b/c/vlbench --suite all --solution fused_b200 -v --json "$L/suite_v26_$i.json" > "$L/suite_v26_$i.txt" 2>&1; echo "suite v26 $i rc=$?" >> "$L/summary.txt"
done
$PY bench/fused_b200/parts_bench.py --library /tmp/b/c/bench/fused_b200/libfused_b200_c_entry.so --json "$L/parts_bench.json" > "$L/parts_bench.txt" 2>&1; echo "parts rc=$?" >> "$L/summary.txt"
(cd /tmp/b/c && timeout 330 ./tests/tests_fused_b200_gpu -d yes) > "$L/tests_fused_b200_gpu.log" 2>&1; echo "gpu_tests rc=$?" >> "$L/summary.txt"
cat "$L/summary.txt"; tail -3 "$L/tests_fused_b200_gpu.log"; grep -h "^mean latency" "$L"/suite_*.txt; grep "^mean:" "$L/parts_bench.txt"
cd "$OUT" && tar -czf final.tgz final && rm -rf final
