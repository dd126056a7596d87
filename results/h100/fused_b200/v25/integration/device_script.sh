#!/usr/bin/env bash
# Device run for the K/V pair on CUTLASS (v25 integration): part 1 = A/B + suite; part 2 = GPU tests.
set -u
part="$1"; R="$PWD"; cd "$R"
mkdir -p /tmp/b && tar -xJf .carry/bins.tar.xz -C /tmp/b
ln -sfn /tmp/b/c "$R/build-90"
PY=/opt/torch/.venv/bin/python
L="$OUT/part$part"; mkdir -p "$L"
nvidia-smi > "$L/gpu.txt" 2>&1; git -C "$R" rev-parse HEAD > "$L/commit.txt" 2>&1; git -C "$R" status --short >> "$L/commit.txt" 2>&1
# base tree: the same binaries with the baseline module
mkdir -p /tmp/b/base_tree/solution_modules
cp /tmp/b/c/vlbench /tmp/b/c/vlbench-worker /tmp/b/base_tree/
cp /tmp/b/c/solution_modules/*.so /tmp/b/base_tree/solution_modules/
cp /tmp/b/base/vlbench_solution_fused_b200.so /tmp/b/base_tree/solution_modules/
[ -d /tmp/b/c/python_worker ] && cp -r /tmp/b/c/python_worker /tmp/b/base_tree/
if [ "$part" = 1 ]; then
  (cd /tmp/b/c && ./tests/tests_fused_b200_gpu "K and V on cuBLAS*" -s -d yes) > "$L/kv_tests.log" 2>&1; echo "kv_tests rc=$?" >> "$L/summary.txt"
  for i in 1 2; do
    /tmp/b/base_tree/vlbench -s fused_b200 -c 8,7,11 -v --json "$L/breakdown_base_$i.json" > "$L/breakdown_base_$i.log" 2>&1; echo "base $i rc=$?" >> "$L/summary.txt"
    /tmp/b/c/vlbench -s fused_b200 -c 8,7,11 -v --json "$L/breakdown_new_$i.json" > "$L/breakdown_new_$i.log" 2>&1; echo "new $i rc=$?" >> "$L/summary.txt"
  done
  $PY .carry/ab_bench.py base=/tmp/b/base/libfused_b200_c_entry.so,new=/tmp/b/c/bench/fused_b200/libfused_b200_c_entry.so 8,7,11,0,3,9 "$L/ab.json" > "$L/ab.log" 2>&1; echo "ab rc=$?" >> "$L/summary.txt"
  /tmp/b/c/vlbench --suite all --solution fused_b200 --json "$L/suite_new.json" > "$L/suite_new.log" 2>&1; echo "suite rc=$?" >> "$L/summary.txt"
  $PY bench/fused_b200/parts_bench.py --library /tmp/b/c/bench/fused_b200/libfused_b200_c_entry.so --json "$L/parts_new.json" > "$L/parts_new.log" 2>&1; echo "parts rc=$?" >> "$L/summary.txt"
elif [ "$part" = 3 ]; then
  (cd /tmp/b/c && ./tests/tests_fused_b200_gpu "K and V on cuBLAS*" -s -d yes) > "$L/kv_tests.log" 2>&1; echo "kv_tests rc=$?" >> "$L/summary.txt"
  /tmp/b/c/vlbench -s fused_b200 -c 8,7,11 -v --json "$L/breakdown_new_2.json" > "$L/breakdown_new_2.log" 2>&1; echo "new 2 rc=$?" >> "$L/summary.txt"
  /tmp/b/base_tree/vlbench --suite all --solution fused_b200 --json "$L/suite_base.json" > "$L/suite_base.log" 2>&1; echo "suite base rc=$?" >> "$L/summary.txt"
  /tmp/b/c/vlbench --suite all --solution fused_b200 --json "$L/suite_new.json" > "$L/suite_new.log" 2>&1; echo "suite new rc=$?" >> "$L/summary.txt"
  $PY bench/fused_b200/parts_bench.py --library /tmp/b/c/bench/fused_b200/libfused_b200_c_entry.so --json "$L/parts_new.json" > "$L/parts_new.log" 2>&1; echo "parts rc=$?" >> "$L/summary.txt"
  (cd /tmp/b/c && timeout 330 ./tests/tests_fused_b200_gpu -d yes) > "$L/gpu_tests.log" 2>&1; echo "gpu_tests rc=$?" >> "$L/summary.txt"
  nvidia-smi >> "$L/gpu.txt" 2>&1
  cat "$L/summary.txt"; cd "$OUT" && tar -czf part$part.tgz part$part && rm -rf part$part; exit 0
else
  (cd /tmp/b/c && timeout 500 ./tests/tests_fused_b200_gpu -d yes) > "$L/gpu_tests.log" 2>&1; echo "gpu_tests rc=$?" >> "$L/summary.txt"
fi
cat "$L/summary.txt"
