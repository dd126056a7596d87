#!/usr/bin/env bash
# v26 on the device: the whole fused_b200 GPU test binary, the few-key shapes under the judge (v25 = base, v26 = new),
# their timings alternated, and the suite.
set -u
R="$PWD"; mkdir -p /tmp/b && tar -xJf .carry/bins.tar.xz -C /tmp/b && ln -sfn /tmp/b/c "$R/build-90"
mkdir -p /tmp/b/base_tree/solution_modules
cp /tmp/b/c/vlbench /tmp/b/c/vlbench-worker /tmp/b/base_tree/
cp /tmp/b/c/solution_modules/*.so /tmp/b/base_tree/solution_modules/
cp /tmp/b/base/vlbench_solution_fused_b200.so /tmp/b/base_tree/solution_modules/
cp -r /tmp/b/c/python_worker /tmp/b/base_tree/
L="$OUT/v26"; mkdir -p "$L"
nvidia-smi > "$L/gpu.txt" 2>&1; git -C "$R" log -1 --format=%H > "$L/commit.txt"; git -C "$R" status --short | grep -v "results/h200" >> "$L/commit.txt"
md5sum /tmp/b/c/solution_modules/*.so /tmp/b/base/*.so > "$L/modules.md5"
S="--shape 48x114x51 --shape 30x64x28 --shape 8x128x98 --shape 32x64x49"
for t in base new; do
  b=/tmp/b/c; [ $t = base ] && b=/tmp/b/base_tree
  $b/vlbench -s fused_b200 --check-only --rounds 5 $S --json "$L/few_keys_check_$t.json" > "$L/few_keys_check_$t.log" 2>&1; echo "check $t rc=$?" >> "$L/summary.txt"
done
for i in 1 2; do for t in base new; do
  b=/tmp/b/c; [ $t = base ] && b=/tmp/b/base_tree
  $b/vlbench -s fused_b200 $S --json "$L/few_keys_time_${t}_$i.json" > "$L/few_keys_time_${t}_$i.log" 2>&1; echo "time $t $i rc=$?" >> "$L/summary.txt"
done; done
/tmp/b/c/vlbench --suite all --solution fused_b200 --json "$L/suite_new.json" > "$L/suite_new.log" 2>&1; echo "suite rc=$?" >> "$L/summary.txt"
(cd /tmp/b/c && timeout 330 ./tests/tests_fused_b200_gpu -d yes) > "$L/tests_fused_b200_gpu.log" 2>&1; echo "gpu_tests rc=$?" >> "$L/summary.txt"
cat "$L/summary.txt"; tail -4 "$L/tests_fused_b200_gpu.log"; grep -h "^ *[0-9]* [0-9a-f-]* *[0-9]* " "$L"/few_keys_check_*.log | head
cd "$OUT" && tar -czf v26.tgz v26 && rm -rf v26
