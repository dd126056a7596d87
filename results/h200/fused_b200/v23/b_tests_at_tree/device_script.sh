#!/bin/bash
# The whole tests_fused_b200_gpu of the v23 tree with the copy's programmatic-order test.
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
tar xJf .carry/bins_v23.tar.xz -C /tmp/bins
rm -rf build-90 && mkdir -p build-90 && cp -r /tmp/bins/c/. build-90/
[ "$root" != /work/main ] && mkdir -p /work/main && ln -sfn "$root/build-90" /work/main/build-90
md5sum build-90/solution_modules/*.so build-90/tests/tests_fused_b200_gpu > $o/modules.md5
timeout 300 build-90/tests/tests_fused_b200_gpu > $o/tests_fused_b200_gpu.log 2>&1; echo "rc=$?"; tail -3 $o/tests_fused_b200_gpu.log
tar czf $OUT/run.tgz -C $o .
