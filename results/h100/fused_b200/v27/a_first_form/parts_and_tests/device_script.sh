#!/usr/bin/env bash
# v27 on the same machine after call_a: the parts bench (fused_b200 against cuBLAS + the best attention, in turns),
# then the whole fused_b200 GPU test binary (20 + 20 random shapes, the fresh seed's printed).
set -u
R="$PWD"; mkdir -p /work /tmp/b; [ -e /work/main ] || ln -s "$R" /work/main
[ -d /tmp/b/v27 ] || { mkdir -p /tmp/b/v27 && tar -xJf .carry/v27.tar.xz -C /tmp/b/v27; }
ln -sfn /tmp/b/v27 "$R/build-90"
L="$OUT/b"; mkdir -p "$L"; S="$L/summary.txt"
nvidia-smi > "$L/gpu.txt" 2>&1
timeout 150 /opt/torch/.venv/bin/python bench/fused_b200/parts_bench.py --library /tmp/b/v27/bench/fused_b200/libfused_b200_c_entry.so --json "$L/parts_bench.json" > "$L/parts_bench.txt" 2>&1; echo "parts rc=$?" >> "$S"
(cd /tmp/b/v27 && timeout 400 ./tests/tests_fused_b200_gpu -d yes) > "$L/tests_fused_b200_gpu.log" 2>&1; echo "gpu_tests rc=$?" >> "$S"
cat "$S"; grep "^mean:" "$L/parts_bench.txt"; tail -4 "$L/tests_fused_b200_gpu.log"
cd "$OUT" && tar -czf b.tgz b && rm -rf b
