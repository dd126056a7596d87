#!/usr/bin/env python3
"""Converts a PyTorch baseline measured on our H200 (per case, keyed by B/Lq/Lv, in microseconds) into vlbench
baseline tables (workloads/baselines/*.json: latency in ms keyed by workload uuid), one per method.

    scripts/convert_shared_baseline.py /work/shared/baselines/h200-pytorch.json --out-dir workloads/baselines

Writes h200-pytorch-cudagraph.json (pytorch_cuda_graph_us) and h200-pytorch-eager.json (pytorch_eager_us), and in
components/ (a folder the harness does not take score baselines from) h200-sdpa-attention.json (sdpa_attention_us: the
attention alone) and h200-components-sum.json (components_sum_us: cuBLAS GEMMs + SDPA, no RoPE, no launch gaps), which
fused_b200_operation_bench prints beside its stages. Standard library only.
"""
import argparse
import json
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# (output file, field of the measured file, vlbench method name, what the method is, how many timed iterations)
METHODS = [
    ("h200-pytorch-cudagraph.json", "pytorch_cuda_graph_us", "pytorch-sdpa-cudagraph",
     "F.linear with bias, RoPE as elementwise ops, F.scaled_dot_product_attention with enable_gqa, F.linear, "
     "captured in a CUDA graph", "50"),
    ("h200-pytorch-eager.json", "pytorch_eager_us", "pytorch-eager",
     "F.linear with bias, RoPE as elementwise ops, F.scaled_dot_product_attention with enable_gqa, F.linear, "
     "eager", "50"),
    ("components/h200-sdpa-attention.json", "sdpa_attention_us", "sdpa-attention-alone",
     "F.scaled_dot_product_attention with enable_gqa alone on random Q/K/V (cuDNN's backend)", "30"),
    ("components/h200-components-sum.json", "components_sum_us", "cublas-sdpa-components-sum",
     "2 x the cuBLAS Q projection (Q and O) + the cuBLAS K/V projection (one 2048-wide GEMM) + SDPA attention alone, "
     "each timed alone, no RoPE and no launch gaps", "30"),
]


def fail(message):
    sys.exit(f"convert_shared_baseline.py: {message}")


def workload_uuids(workloads_path):
    """(B, Lq, Lv) -> uuid, in file order; a shape listed twice would make the mapping ambiguous."""
    uuids = {}
    for number, line in enumerate(workloads_path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        workload = json.loads(line)["workload"]
        axes = workload["axes"]
        key = (axes["batch_size"], axes["lang_seq_len"], axes["vision_seq_len"])
        if key in uuids:
            fail(f"{workloads_path}:{number}: shape B={key[0]} Lq={key[1]} Lv={key[2]} appears twice")
        uuids[key] = workload["uuid"]
    return uuids


def measurement_facts(description):
    """Driver, torch version and date, as the measured file's description states them."""
    facts = {}
    for name, pattern in [("driver", r"driver ([0-9.]+)"), ("torch", r"torch ([0-9A-Za-z.+]+)"),
                          ("date", r"on (\d{4}-\d{2}-\d{2})")]:
        match = re.search(pattern, description)
        if not match:
            fail(f"the description does not state the {name} (looked for /{pattern}/)")
        facts[name] = match.group(1)
    return facts


def convert(measured, measured_name, uuids, field, method, what, iterations):
    by_shape = {}
    for index, case in enumerate(measured["cases"]):
        key = (case["batch_size"], case["lang_seq_len"], case["vision_seq_len"])
        if key not in uuids:
            fail(f"cases[{index}]: B={key[0]} Lq={key[1]} Lv={key[2]} is not a workload of the suite")
        if key in by_shape:
            fail(f"cases[{index}]: B={key[0]} Lq={key[1]} Lv={key[2]} is measured twice")
        value = case.get(field)
        if not isinstance(value, (int, float)) or value <= 0:
            fail(f"cases[{index}].{field}: expected a positive latency in us, got {value!r}")
        by_shape[key] = value
    missing = [key for key in uuids if key not in by_shape]
    if missing:
        fail(f"no {field} for workloads {missing}")
    facts = measurement_facts(measured["description"])
    source = (f"{measured_name}: measured on one {measured['gpu']} (driver {facts['driver']}, torch {facts['torch']}) "
              f"on {facts['date']}; {what}; median of {iterations} CUDA-event-timed iterations, L2 flushed before each")
    return {
        "gpu_key": "H200_SXM",
        "source": source,
        "method": method,
        # In the suite's order; microseconds to milliseconds.
        "workloads": {uuids[key]: {"latency_ms": round(by_shape[key] / 1000.0, 7)} for key in uuids},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("measured", type=Path, help="the measured file (per-case latencies in us, keyed by B/Lq/Lv)")
    parser.add_argument("--workloads", type=Path, default=REPO_ROOT / "workloads" / "workloads.jsonl")
    parser.add_argument("--out-dir", type=Path, default=REPO_ROOT / "workloads" / "baselines")
    args = parser.parse_args()

    measured = json.loads(args.measured.read_text())
    uuids = workload_uuids(args.workloads)
    for file_name, field, method, what, iterations in METHODS:
        table = convert(measured, args.measured.name, uuids, field, method, what, iterations)
        out = args.out_dir / file_name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(table, indent=2) + "\n")
        print(f"wrote {out} ({len(table['workloads'])} workloads, {method})")


if __name__ == "__main__":
    main()
