#!/usr/bin/env python3
"""PyTorch baselines T_b for the vlbench suite on this machine's GPU, written as a vlbench baseline table
(workloads/baselines/*.json) for `vlbench --baseline FILE`.

Methods (--method), and the method name each writes:
  eager       the reference of workloads/definition_reference.py (docs/operation.md), op by op with its bf16
              rounding points, eager mode ("pytorch-reference-eager")
  sdpa-eager  the way a PyTorch user writes it: F.linear with bias, RoPE as elementwise ops,
              F.scaled_dot_product_attention(enable_gqa=True), F.linear; eager ("pytorch-eager")
  cudagraph   the same, captured once in a CUDA graph and replayed ("pytorch-sdpa-cudagraph")
  both        eager and cudagraph;   all: the three

Inputs follow the suite's rule: hidden states N(0,1), weights and biases 0.02*N(0,1), official positions
(language position i; vision token i at (i/196, (i%196)/14, i%14)). Every optimized output is checked against the
reference semantics with the workload's tolerance (|out-ref| <= atol + 0.05|ref| for 99% of elements) before it is
timed. Timing: CUDA events around each call, an L2 flush (a write of twice the L2 size) before each timed iteration,
10 warm-up and 50 timed iterations, median. Needs only torch (>= 2.5 for enable_gqa) and a CUDA GPU.

Default output: workloads/baselines/<gpu>-pytorch-cudagraph.json, <gpu>-pytorch-reference-eager.json,
<gpu>-pytorch-eager.json (<gpu>: the GPU key's first part, h200 for H200_SXM). vlbench picks the first file of the
folder (by name) whose gpu_key matches the GPU, so the CUDA-graph table is the default where both exist.

    python3 scripts/pytorch_baseline.py --method both
    python3 scripts/pytorch_baseline.py --method cudagraph --cases 0-3,15 --out /tmp/h200-graph.json
"""
import argparse
import ctypes
import datetime
import json
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
try:  # the reference's own code (it imports torch); missing torch is reported in one line by main()
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, str(REPO_ROOT / "workloads"))
    import definition_reference as definition
except ImportError:
    torch = None
HEADS, KV_HEADS, HEAD_DIM = 32, 8, 128
RTOL, REQUIRED_MATCH_RATIO = 0.05, 0.99

METHODS = {
    "eager": "pytorch-reference-eager",
    "sdpa-eager": "pytorch-eager",
    "cudagraph": "pytorch-sdpa-cudagraph",
}
FILE_SUFFIX = {"eager": "pytorch-reference-eager", "sdpa-eager": "pytorch-eager", "cudagraph": "pytorch-cudagraph"}
METHOD_TEXT = {
    "eager": "the reference semantics (bf16 rounding points of docs/operation.md) in eager mode",
    "sdpa-eager": "F.linear with bias, RoPE as elementwise ops, F.scaled_dot_product_attention with enable_gqa, "
                  "F.linear, eager",
    "cudagraph": "F.linear with bias, RoPE as elementwise ops, F.scaled_dot_product_attention with enable_gqa, "
                 "F.linear, captured in a CUDA graph",
}


def fail(message, code=2):
    """Exit codes as vlbench's: 2 bad usage or input (the default), 1 a check failed, 3 the system lacks something."""
    print(f"pytorch_baseline.py: {message}", file=sys.stderr)
    sys.exit(code)


# ----------------------------------------------------------------------------------------------- suite and inputs

def load_workloads(path):
    workloads = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        workload = json.loads(line)["workload"]
        axes = workload["axes"]
        workloads.append({"index": len(workloads), "uuid": workload["uuid"], "line": number,
                          "shape": (axes["batch_size"], axes["lang_seq_len"], axes["vision_seq_len"]),
                          "atol": workload["tolerance"]["max_atol"]})
    return workloads


def select_cases(workloads, spec):
    """'0-3,7,<uuid>' -> the selected workloads, in suite order."""
    if not spec:
        return workloads
    chosen = set()
    for item in spec.split(","):
        item = item.strip()
        if any(w["uuid"] == item for w in workloads):
            chosen.update(w["index"] for w in workloads if w["uuid"] == item)
        elif "-" in item and item.replace("-", "").isdigit():
            low, high = (int(part) for part in item.split("-"))
            chosen.update(range(low, high + 1))
        elif item.isdigit():
            chosen.add(int(item))
        else:
            fail(f"--cases: '{item}' is neither an index, a range such as 0-3, nor a workload uuid")
    unknown = sorted(i for i in chosen if i >= len(workloads))
    if unknown:
        fail(f"--cases: indices {unknown} do not exist (the suite has {len(workloads)} workloads, "
             f"0..{len(workloads) - 1})")
    return [w for w in workloads if w["index"] in chosen]


def make_inputs(shape, device, seed):
    """The definition's custom inputs (workloads/definition_reference.py, make_inputs), from a seeded generator."""
    batch, lang_seq, vision_seq = shape
    torch.manual_seed(seed)
    return definition.make_inputs({"batch_size": batch, "lang_seq_len": lang_seq, "vision_seq_len": vision_seq}, device)


# ------------------------------------------------------------------------------------------------------- the math

def reference_semantics(t):
    """The definition's reference, with its rounding points."""
    return definition.run(*t.values())


def optimized(t):
    """What a PyTorch user writes: fused-bias GEMMs, elementwise RoPE, SDPA with GQA."""
    batch, lang_seq, _ = t["language_hidden_states"].shape
    vision_seq = t["vision_hidden_states"].shape[1]
    q = F.linear(t["language_hidden_states"], t["q_proj_weight"], t["q_proj_bias"]).view(batch, lang_seq, HEADS, HEAD_DIM)
    k = F.linear(t["vision_hidden_states"], t["k_proj_weight"], t["k_proj_bias"]).view(batch, vision_seq, KV_HEADS,
                                                                                       HEAD_DIM)
    v = F.linear(t["vision_hidden_states"], t["v_proj_weight"], t["v_proj_bias"]).view(batch, vision_seq, KV_HEADS,
                                                                                       HEAD_DIM)
    q = definition.rope_language(q, t["language_position_ids"]).transpose(1, 2)
    k = definition.rope_vision(k, t["vision_grid_thw"]).transpose(1, 2)
    attention = F.scaled_dot_product_attention(q, k, v.transpose(1, 2), enable_gqa=True)
    return F.linear(attention.transpose(1, 2).reshape(batch, lang_seq, HEADS * HEAD_DIM), t["o_proj_weight"])


def check(output, reference, atol, label):
    difference = (output.float() - reference.float()).abs()
    within = difference <= atol + RTOL * reference.float().abs()
    ratio = within.float().mean().item()
    finite = torch.isfinite(output.float()).all().item()
    if not finite or ratio < REQUIRED_MATCH_RATIO:
        fail(f"{label}: the optimized output does not match the reference semantics ({100 * ratio:.3f}% of elements "
             f"within tolerance, finite: {finite}); refusing to time a different computation", code=1)
    return ratio


# ------------------------------------------------------------------------------------------------------- timing

class L2Flush:
    """Writes a buffer of twice the L2 size, so that no input stays cached between iterations."""

    def __init__(self, device):
        properties = torch.cuda.get_device_properties(device)
        l2_bytes = getattr(properties, "L2_cache_size", 0)
        if not l2_bytes:
            fail("torch does not report the L2 size (torch.cuda.get_device_properties(...).L2_cache_size); "
                 "upgrade torch", code=3)
        self.bytes = 2 * l2_bytes
        self.buffer = torch.empty(self.bytes, dtype=torch.uint8, device=device)

    def __call__(self):
        self.buffer.fill_(1)


def median_latency_ms(call, flush, warmup, iterations):
    for _ in range(warmup):
        call()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    for start, end in zip(starts, ends):
        flush()
        start.record()
        call()
        end.record()
    torch.cuda.synchronize()
    samples = sorted(start.elapsed_time(end) for start, end in zip(starts, ends))
    middle = len(samples) // 2
    return samples[middle] if len(samples) % 2 else 0.5 * (samples[middle - 1] + samples[middle])


def graph_of(function, tensors):
    """Captures function(tensors) once; replaying the graph recomputes it from the same (static) input buffers."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # lazy initialization (cuBLAS handles, SDPA kernel choice) outside the capture
            function(tensors)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        output = function(tensors)
    return graph, output


def measure_case(workload, methods, device, seed, flush, warmup, iterations):
    tensors = make_inputs(workload["shape"], device, seed + workload["index"])
    label = f"case {workload['index']} (B={workload['shape'][0]} Lq={workload['shape'][1]} Lv={workload['shape'][2]})"
    with torch.no_grad():
        reference = reference_semantics(tensors)
        check(optimized(tensors), reference, workload["atol"], label + " eager")
        latencies = {}
        for method in methods:
            if method == "eager":
                latencies[method] = median_latency_ms(lambda: reference_semantics(tensors), flush, warmup, iterations)
            elif method == "sdpa-eager":
                latencies[method] = median_latency_ms(lambda: optimized(tensors), flush, warmup, iterations)
            else:
                graph, output = graph_of(optimized, tensors)
                graph.replay()
                check(output, reference, workload["atol"], label + " CUDA graph")
                latencies[method] = median_latency_ms(graph.replay, flush, warmup, iterations)
                del graph, output
    del tensors, reference
    torch.cuda.empty_cache()
    return latencies


# ------------------------------------------------------------------------------------------------------- output

def default_gpu_key(name):
    for needle, key in (("H200", "H200_SXM"), ("H100", "H100_SXM"), ("B200", "B200")):
        if needle in name:
            return key
    fail(f"no GPU key known for '{name}': pass --gpu-key (a key of workloads/gpus.json)")


def driver_text():
    try:
        query = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=20, check=True)
        return query.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    try:  # the CUDA driver API version, when nvidia-smi is absent
        version = ctypes.c_int()
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(version))
        return f"CUDA driver API {version.value // 1000}.{(version.value % 1000) // 10}"
    except OSError:
        return "unknown"


def output_paths(methods, out, gpu_key):
    if out is None:
        folder = REPO_ROOT / "workloads" / "baselines"
        prefix = gpu_key.lower().split("_")[0]
        return {m: folder / f"{prefix}-{FILE_SUFFIX[m]}.json" for m in methods}
    out = Path(out)
    if len(methods) == 1:
        return {methods[0]: out}
    return {m: out.with_name(f"{out.stem}-{m}{out.suffix or '.json'}") for m in methods}


def write_table(path, gpu_key, method, latencies, device, flush, warmup, iterations):
    properties = torch.cuda.get_device_properties(device)
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    source = (f"scripts/pytorch_baseline.py on {properties.name} ({properties.multi_processor_count} SMs, driver "
              f"{driver_text()}, torch {torch.__version__}, CUDA {torch.version.cuda}) on {today}: "
              f"{METHOD_TEXT[method]}; median of {iterations} CUDA-event-timed iterations after {warmup} warm-up, "
              f"L2 flushed ({flush.bytes // (1 << 20)} MiB written) before each; clocks as the driver set them")
    table = {"gpu_key": gpu_key, "source": source, "method": METHODS[method],
             "workloads": {uuid: {"latency_ms": round(ms, 6)} for uuid, ms in latencies.items()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name("." + path.name + ".tmp")
    temporary.write_text(json.dumps(table, indent=2) + "\n")
    temporary.replace(path)
    print(f"wrote {path} ({len(latencies)} workloads, method {METHODS[method]})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--method", choices=["eager", "sdpa-eager", "cudagraph", "both", "all"], default="both")
    parser.add_argument("--out", help="output file (with several methods: -<method> is added to its name); default "
                                      "workloads/baselines/<gpu>-pytorch-<method>.json")
    parser.add_argument("--gpu-key", help="GpuSpec key (workloads/gpus.json); default from the device name")
    parser.add_argument("--cases", help="indices, ranges or uuids, comma-separated (default: all 16)")
    parser.add_argument("--workloads", type=Path, default=REPO_ROOT / "workloads" / "workloads.jsonl")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=50)
    args = parser.parse_args()

    if torch is None:
        fail("needs the Python package torch (>= 2.5, with CUDA): pip install torch", code=3)
    if not torch.cuda.is_available():
        fail("no CUDA GPU visible to torch", code=3)
    if args.warmup < 0 or args.iterations < 1:
        fail("--warmup must be >= 0 and --iterations >= 1")
    groups = {"both": ["eager", "cudagraph"], "all": ["eager", "sdpa-eager", "cudagraph"]}
    methods = groups.get(args.method, [args.method])
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    gpu_key = args.gpu_key or default_gpu_key(torch.cuda.get_device_name(device))
    workloads = select_cases(load_workloads(args.workloads), args.cases)
    flush = L2Flush(device)

    latencies = {method: {} for method in methods}
    for workload in workloads:
        measured = measure_case(workload, methods, device, args.seed, flush, args.warmup, args.iterations)
        for method, ms in measured.items():
            latencies[method][workload["uuid"]] = ms
        shape = workload["shape"]
        print(f"case {workload['index']:2d} B={shape[0]:<3d} Lq={shape[1]:<5d} Lv={shape[2]:<6d} " +
              "  ".join(f"{m} {ms:9.4f} ms" for m, ms in measured.items()), flush=True)
    for method, path in output_paths(methods, args.out, gpu_key).items():
        write_table(path, gpu_key, method, latencies[method], device, flush, args.warmup, args.iterations)


if __name__ == "__main__":
    main()
