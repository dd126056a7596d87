#!/usr/bin/env python3
"""A/B of two fused_b200 C-entry builds in one process: both checked against torch_sdpa, timed in turns (both orders)."""
import json, sys, statistics, importlib.util
from pathlib import Path
import torch
ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("parts_bench", ROOT / "bench/fused_b200/parts_bench.py")
pb = importlib.util.module_from_spec(spec); spec.loader.exec_module(pb)

libs = dict(item.split("=", 1) for item in sys.argv[1].split(","))  # name=path,...
cases = [int(c) for c in sys.argv[2].split(",")]
out = Path(sys.argv[3])
fused = {name: pb.FusedLibrary(path) for name, path in libs.items()}
timer = pb.ColdL2Timer(10, 60)
workloads = [json.loads(l) for l in (ROOT / "workloads/workloads.jsonl").read_text().splitlines() if l.strip()]
rows = []
for index in cases:
    axes = workloads[index]["workload"]["axes"]
    b, lq, lv = axes["batch_size"], axes["lang_seq_len"], axes["vision_seq_len"]
    g = torch.Generator(device="cuda").manual_seed(4242 + index)
    inputs = pb.make_inputs(b, lq, lv, g)
    expected = torch.empty(b, lq, pb.HIDDEN, dtype=torch.bfloat16, device="cuda")
    pb.torch_sdpa.run(*inputs, expected)
    tol = workloads[index]["workload"]["tolerance"]
    calls, matched = {}, {}
    for name, lib in fused.items():
        output = torch.full_like(expected, float("nan"))
        ws = torch.empty(lib.workspace_bytes(b, lq, lv), dtype=torch.uint8, device="cuda")
        calls[name] = lib.caller(inputs, output, ws)
        calls[name](); torch.cuda.synchronize()
        matched[name] = pb.matched_fraction(output, expected, tol["max_atol"], tol["max_rtol"])
        calls[name + "_out"] = output
    names = list(libs)
    forward = timer.medians({n: calls[n] for n in names})
    backward = timer.medians({n: calls[n] for n in reversed(names)})
    row = {"index": index, "shape": [b, lq, lv], "matched": matched, "forward_us": forward, "reversed_us": backward}
    rows.append(row)
    print(json.dumps(row), flush=True)
out.write_text(json.dumps({"device": torch.cuda.get_device_name(0), "libs": {n: fused[n].build() for n in names},
                           "timer": "parts_bench.ColdL2Timer(10, 60), in turns, then reversed order", "rows": rows},
                          indent=2) + "\n")
