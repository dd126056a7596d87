#!/bin/bash
P=.carry/fused_b200_cublas_pair_probe
for rows in 1568 784 3136 2975 25088 85; do
  for bs in 1024 -1024 -2048 -16384 -536870912 -1073740800 -1073741824 -1073742848 -2147483648; do
    $P --rows $rows --bias-stride $bs
  done
done > $OUT/neg.jsonl 2>&1
for bs in -1024 -1073740800; do
  compute-sanitizer --tool memcheck $P --rows 1568 --bias-stride $bs
done > $OUT/sanitizer.txt 2>&1
