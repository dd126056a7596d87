#!/usr/bin/env bash
# The fresh-seed miss at 2x1x19 (8,192 output elements; round 3, random positions): flash-p on the same inputs.
set -u
mkdir -p /tmp/b && tar -xJf .carry/bins.tar.xz -C /tmp/b
L="$OUT/tiny"; mkdir -p "$L" /tmp/dumps
/tmp/b/c/vlbench -s fused_b200 --check-only --shape 2x1x19 --shape 2x3x24 --shape 1x1x7 --dump /tmp/dumps --json "$L/check.json" > "$L/check.log" 2>&1; echo "check rc=$?"
/opt/torch/.venv/bin/python bench/fused_b200/tolerance_probe.py --dumps /tmp/dumps > "$L/probe_dumps.log" 2>&1; echo "probe rc=$?"
tail -6 "$L/probe_dumps.log"; grep -A5 "# uuid" "$L/check.log"
cd "$OUT" && tar -czf tiny.tgz tiny && rm -rf tiny
