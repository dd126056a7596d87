#!/bin/bash
# The headline run at commit c7daf8a (v20 code, every binary built from the clean commit): the suite with -v, the
# parts bench, the K/V split-K probe, the whole fused_b200 GPU test binary.
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
save() { tar czf $OUT/run.tgz -C $o .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
tar xJf .carry/bins_v20c.tar.xz -C /tmp/bins
rm -rf build-90 && mkdir -p build-90 && cp -r /tmp/bins/c/. build-90/ && cp build-90/modules.md5 $o/
[ "$root" != /work/main ] && mkdir -p /work/main && ln -sfn "$root/build-90" /work/main/build-90
echo "== suite $(date +%T)"
timeout 120 build-90/vlbench --suite all --solution fused_b200 -v --json $o/fused_b200.json > $o/fused_b200.txt 2>&1
echo "rc=$? $(grep 'mean latency' $o/fused_b200.txt)"
save
echo "== parts $(date +%T)"
timeout 90 /opt/torch/.venv/bin/python3 bench/fused_b200/parts_bench.py --library build-90/bench/fused_b200/libfused_b200_c_entry.so --json $o/parts_bench.json > $o/parts_bench.txt 2>&1; echo "rc=$?"; tail -1 $o/parts_bench.txt
save
echo "== probe $(date +%T)"
timeout 150 build-90/bench/fused_b200/fused_b200_cublas_algo_probe --rows 1568,784,3136 --candidates 8 --split-k 2,3,4 > $o/algo_probe.jsonl 2> $o/algo_probe.err; echo "rc=$?"; wc -l $o/algo_probe.jsonl
save
echo "== gpu tests $(date +%T)"
timeout 280 build-90/tests/tests_fused_b200_gpu > $o/tests_fused_b200_gpu.log 2>&1; echo "rc=$?"; tail -3 $o/tests_fused_b200_gpu.log
save
echo "== done $(date +%T)"
