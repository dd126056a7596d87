#!/usr/bin/env bash
# One device call that decides a fused_b200 change: two builds, `base` and `new`, on the same GPU, the most needed
# step first, each only while the call's time allows. Run from the repository root on the device machine:
#   bash bench/fused_b200/device_ab.sh [SECONDS]      (default 300; the steps that would run past it are skipped)
# with each build's `vlbench vlbench-worker solution_modules python_worker bench/fused_b200/libfused_b200_c_entry.so
# tests/tests_fused_b200_gpu generated` packed (from inside its build folder) as .carry/base.tar.xz and
# .carry/new.tar.xz, and .carry carried. The tests run `new` as build-90 (the path the test binary was built with, so
# build both in build-90 here). Steps: EXTRA_TESTS (a Catch2 test spec of tests_fused_b200_gpu, new), if given; the new
# build's attention tests; the suite with base, then new; the parts bench with base, then new; five few-key shapes
# with each; 65 small outputs under the judge (new, 8 rounds); the new build's [suite] tests (the 16 workloads and
# 2 x 20 random shapes); the suite and the parts bench with base and new again. Everything lands in $OUT/ab.tgz
# (summary.txt says which steps ran and their exit codes). Without .carry/base.tar.xz the base steps are skipped: one
# build measured. Each suite run prints its per-kernel breakdown (-v). EXTRA_SHAPES="--shape BxLqxLv ..." adds shapes
# to the five few-key ones.
set -u
case "${1:-}" in
  -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
BUDGET=${1:-300}
R="$PWD"; mkdir -p /work /tmp/b; [ -e /work/main ] || ln -s "$R" /work/main
BUILDS="new"; [ -e .carry/base.tar.xz ] && BUILDS="base new"
for v in $BUILDS; do mkdir -p /tmp/b/$v && tar -xJf .carry/$v.tar.xz -C /tmp/b/$v; done
ln -sfn /tmp/b/new "$R/build-90"
L="$OUT/ab"; mkdir -p "$L"; S="$L/summary.txt"
fits() { [ $((BUDGET - SECONDS)) -ge "$1" ] || { echo "skipped (needs $1 s, $((BUDGET - SECONDS)) left): $2" >> "$S"; return 1; }; }
nvidia-smi > "$L/gpu.txt" 2>&1; md5sum /tmp/b/*/solution_modules/vlbench_solution_fused_b200.so > "$L/modules.md5"
[ -n "${EXTRA_TESTS:-}" ] && fits 120 "extra tests" && {
  (cd /tmp/b/new && timeout 300 ./tests/tests_fused_b200_gpu "$EXTRA_TESTS" -d yes) > "$L/extra_tests.log" 2>&1
  echo "extra tests rc=$?" >> "$S"; }
fits 60 attention && { (cd /tmp/b/new && timeout 90 ./tests/tests_fused_b200_gpu "[attention]" -d yes) > "$L/attention_tests.log" 2>&1; echo "attention tests rc=$?" >> "$S"; }
suite() { [ -d /tmp/b/$1 ] && fits 25 "suite $1 $2" && { timeout 45 /tmp/b/$1/vlbench --suite all -s fused_b200 -v --json "$L/suite_$1_$2.json" > "$L/suite_$1_$2.txt" 2>&1; echo "suite $1 $2 rc=$?" >> "$S"; }; }
suite base 1; suite new 1
parts() { [ -d /tmp/b/$1 ] && fits 40 "parts $1 $2" && {
  timeout 80 /opt/torch/.venv/bin/python bench/fused_b200/parts_bench.py \
    --library /tmp/b/$1/bench/fused_b200/libfused_b200_c_entry.so --json "$L/parts_$1_$2.json" \
    > "$L/parts_$1_$2.txt" 2>&1
  echo "parts $1 $2 rc=$?" >> "$S"; }; }
parts base 1; parts new 1
F="--shape 48x114x51 --shape 30x64x28 --shape 8x128x98 --shape 64x1024x100 --shape 2x1x19 ${EXTRA_SHAPES:-}"
for v in $BUILDS; do
  fits 12 "few keys $v" && { timeout 30 /tmp/b/$v/vlbench -s fused_b200 $F --json "$L/few_keys_$v.json" > "$L/few_keys_$v.log" 2>&1; echo "few keys $v rc=$?" >> "$S"; }
done
T=""; for bq in 1x1 2x1 1x3 2x3 3x2; do for lv in 7 19 24 51 100 128 130 160 250 300 400 700 1000; do T="$T --shape ${bq}x$lv"; done; done
fits 40 small && { timeout 60 /tmp/b/new/vlbench -s fused_b200 --check-only --rounds 8 $T --json "$L/small_new.json" > "$L/small_new.log" 2>&1; echo "small new rc=$?" >> "$S"; }
fits 50 "suite tests" && { (cd /tmp/b/new && timeout 80 ./tests/tests_fused_b200_gpu "[suite]" -d yes) > "$L/suite_tests.log" 2>&1; echo "suite tests rc=$?" >> "$S"; }
suite base 2; suite new 2
parts base 2; parts new 2
cat "$S"; grep -E "KV block|reference rounding" "$L/attention_tests.log" 2>/dev/null; tail -3 "$L/attention_tests.log" "$L/suite_tests.log" 2>/dev/null
grep -h "^mean latency" "$L"/suite_*.txt 2>/dev/null; grep -H "^mean:" "$L"/parts_*.txt 2>/dev/null
tail -3 "$L/extra_tests.log" 2>/dev/null
cd "$OUT" && tar -czf ab.tgz ab && rm -rf ab
