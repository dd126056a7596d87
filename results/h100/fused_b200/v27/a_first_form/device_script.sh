#!/usr/bin/env bash
# v27 against v26 (base) on one machine: v27's attention tests; small outputs under the judge (10 rounds each, both
# builds); few-key shapes timed in turns; the suite in turns (v26, v27, v26, v27; -v on the first of each).
set -u
R="$PWD"; mkdir -p /work /tmp/b; [ -e /work/main ] || ln -s "$R" /work/main
for v in base v27; do mkdir -p /tmp/b/$v && tar -xJf .carry/$v.tar.xz -C /tmp/b/$v; done
ln -sfn /tmp/b/v27 "$R/build-90"
L="$OUT/a"; mkdir -p "$L"; S="$L/summary.txt"
nvidia-smi > "$L/gpu.txt" 2>&1; md5sum /tmp/b/*/solution_modules/vlbench_solution_fused_b200.so > "$L/modules.md5"
(cd /tmp/b/v27 && timeout 150 ./tests/tests_fused_b200_gpu "[attention]" -d yes) > "$L/attention_tests.log" 2>&1; echo "attention tests rc=$?" >> "$S"
T=""; for bq in 1x1 2x1 1x3 2x3 3x2; do for lv in 7 19 24 51 100 128 150 300 1500 12544; do T="$T --shape ${bq}x$lv"; done; done
for v in base v27; do
  timeout 170 /tmp/b/$v/vlbench -s fused_b200 --check-only --rounds 6 $T --json "$L/small_$v.json" > "$L/small_$v.log" 2>&1; echo "small $v rc=$?" >> "$S"
done
F="--shape 48x114x51 --shape 30x64x28 --shape 8x128x98 --shape 64x1024x100 --shape 2x1x19"
for i in 1 2; do for v in base v27; do
  timeout 60 /tmp/b/$v/vlbench -s fused_b200 $F --json "$L/few_keys_${v}_$i.json" > "$L/few_keys_${v}_$i.log" 2>&1; echo "few keys $v $i rc=$?" >> "$S"
done; done
for i in 1 2; do for v in base v27; do
  V=""; [ $i = 1 ] && V="-v"
  timeout 60 /tmp/b/$v/vlbench --suite all -s fused_b200 $V --json "$L/suite_${v}_$i.json" > "$L/suite_${v}_$i.txt" 2>&1; echo "suite $v $i rc=$?" >> "$S"
done; done
cat "$S"; tail -3 "$L/attention_tests.log"; grep -h "^mean latency" "$L"/suite_*.txt
cd "$OUT" && tar -czf a.tgz a && rm -rf a
