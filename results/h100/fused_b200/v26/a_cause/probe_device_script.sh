#!/usr/bin/env bash
# The few-key margin misses (48x114x51, 2x3x24): is flash-style attention at that level too, on vlbench's inputs?
set -u
mkdir -p /tmp/b && tar -xJf .carry/bins.tar.xz -C /tmp/b
L="$OUT/probe"; mkdir -p "$L" /tmp/dumps
/tmp/b/c/vlbench -s fused_b200 --check-only --shape 48x114x51 --shape 2x3x24 --shape 13x1012x16 --dump /tmp/dumps > "$L/dump_run.log" 2>&1; echo "dump rc=$?" | tee -a "$L/summary.txt"
ls -la /tmp/dumps >> "$L/dump_run.log"
/opt/torch/.venv/bin/python bench/fused_b200/tolerance_probe.py --dumps /tmp/dumps > "$L/probe_dumps.log" 2>&1; echo "probe rc=$?" | tee -a "$L/summary.txt"
cat "$L/probe_dumps.log" | tail -30
cd "$OUT" && tar -czf probe.tgz probe && rm -rf probe
