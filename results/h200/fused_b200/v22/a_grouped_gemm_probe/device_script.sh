#!/bin/bash
set -x
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/nvidia-smi.txt
P=.carry/fused_b200_grouped_gemm_probe
$P --shapes 1024:1568,512:784,256:392,2048:3136,2164:3920,4096:6272,8192:12544,11936:18816,16384:25088 > $OUT/grouped.jsonl 2> $OUT/grouped.err
$P --shapes 1024:1568,512:784 >> $OUT/grouped.jsonl 2>> $OUT/grouped.err
timeout 200 ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size --launch-skip 0 --launch-count 60 $P --shapes 1024:1568 --iterations 2 > $OUT/ncu_kernels.txt 2>&1
ls -la $OUT
