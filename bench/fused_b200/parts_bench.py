#!/usr/bin/env python3
"""fused_b200 against the library parts a user would assemble, in one process and one run (issue 26's bench).

On every suite workload (or those --case picks), each of these is timed alone, L2 flushed and the GPU held by a
lead-in spin before every call (so that host time is not counted), all of them in turns (one call of each per
iteration, so that clocks and power drift alike for all), median of the timed iterations:
  fused           fused_b200's whole operation (bench/fused_b200/c_entry.cpp, loaded with ctypes), on torch's stream
  q, k, v, o      the projections with cuBLAS through F.linear (bias in cuBLASLt's epilogue; o has no bias)
  kv              K and V as one 2048-wide GEMM (the weights concatenated beforehand), as a user could do
  attention       F.scaled_dot_product_attention with enable_gqa, once per backend PyTorch has here (cuDNN, flash,
                  memory-efficient), GQA read in place; a backend that refuses the shapes is left out
  parts_graph     q, kv, the best attention and o in sequence, captured in one CUDA graph (no RoPE)
  torch_graph     solutions/torch_sdpa's whole layer (with RoPE) captured in one CUDA graph
parts = q + min(k + v, kv) + the fastest attention + o: the library parts, no RoPE, no launch gaps. The ratio
fused / parts is what the issue's target reads: at or under 1 on every workload. The graphs are timed in a round of
their own, in turns with fused once more (fused_g): compare parts_g and torch_g with fused_g, the same round's.
fused's output is compared with torch_sdpa's eager output under the workload's tolerance; below the workload's
required ratio the bench stops.

Every call goes to torch's current stream: its default stream (the legacy NULL stream, where a framework's caller
usually leaves it), or with --stream created, one stream this script creates (as vlbench's judge does).

Usage (GPU, torch): python3 bench/fused_b200/parts_bench.py --library build/bench/fused_b200/libfused_b200_c_entry.so
                    [--case 10,1] [--iterations 30] [--warmup 5] [--stream default|created] [--json FILE]
"""
import argparse
import ctypes
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

ROOT = Path(__file__).resolve().parents[2]
HIDDEN, Q_DIM, KV_DIM, HEADS, KV_HEADS, HEAD_DIM = 4096, 4096, 1024, 32, 8, 128
BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


torch_sdpa = load_module("torch_sdpa_main", ROOT / "solutions" / "torch_sdpa" / "main.py")


class FusedLibrary:
    """fused_b200 through its C entry: workspace size and one enqueued call on torch's current stream."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        self.lib.vlb_fused_b200_build.restype = ctypes.c_char_p
        self.lib.vlb_fused_b200_workspace_bytes.argtypes = [ctypes.c_longlong] * 3 + [
            ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p, ctypes.c_size_t]
        self.lib.vlb_fused_b200_run.argtypes = [ctypes.c_longlong] * 3 + [
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
            ctypes.c_char_p, ctypes.c_size_t]
        self.error = ctypes.create_string_buffer(1024)

    def build(self):
        return self.lib.vlb_fused_b200_build().decode()

    def check(self, status):
        if status != 0:
            raise RuntimeError(f"fused_b200: {self.error.value.decode()}")

    def workspace_bytes(self, batch, lang_seq, vision_seq):
        size = ctypes.c_size_t()
        self.check(self.lib.vlb_fused_b200_workspace_bytes(batch, lang_seq, vision_seq, ctypes.byref(size),
                                                           self.error, len(self.error)))
        return size.value

    def caller(self, inputs, output, workspace):
        """A function that enqueues one call; the argument arrays are built once, outside the timed window."""
        batch, lang_seq, _ = inputs[0].shape
        vision_seq = inputs[1].shape[1]
        pointers = (ctypes.c_void_p * len(inputs))(*[tensor.data_ptr() for tensor in inputs])
        arguments = (batch, lang_seq, vision_seq, pointers, output.data_ptr(), workspace.data_ptr(),
                     workspace.numel(), torch.cuda.current_stream().cuda_stream, self.error, len(self.error))
        return lambda: self.check(self.lib.vlb_fused_b200_run(*arguments))


def make_inputs(batch, lang_seq, vision_seq, generator):
    """The definition's eleven inputs: hidden states ~ N(0, 1), weights and biases ~ N(0, 0.02^2), language positions
    0..Lq-1, vision (t, h, w) positions random in [0, 64)."""
    def normal(*shape, scale=1.0):
        return (torch.randn(*shape, generator=generator, device="cuda") * scale).to(torch.bfloat16)
    positions = torch.arange(lang_seq, device="cuda").expand(batch, lang_seq).contiguous()
    grid = torch.randint(0, 64, (batch, vision_seq, 3), generator=generator, device="cuda")
    return [normal(batch, lang_seq, HIDDEN), normal(batch, vision_seq, HIDDEN), positions, grid,
            normal(Q_DIM, HIDDEN, scale=0.02), normal(Q_DIM, scale=0.02), normal(KV_DIM, HIDDEN, scale=0.02),
            normal(KV_DIM, scale=0.02), normal(KV_DIM, HIDDEN, scale=0.02), normal(KV_DIM, scale=0.02),
            normal(HIDDEN, Q_DIM, scale=0.02)]


def attention_views(batch, lang_seq, vision_seq, generator):
    """Q [B, 32, Lq, 128] and K, V [B, 8, Lv, 128] as the projections leave them (token-major, heads transposed)."""
    def heads(rows, count):
        data = torch.randn(batch, rows, count, HEAD_DIM, generator=generator, device="cuda").to(torch.bfloat16)
        return data.transpose(1, 2)
    return heads(lang_seq, HEADS), heads(vision_seq, KV_HEADS), heads(vision_seq, KV_HEADS)


def sdpa_call(backend, q, k, v):
    def call():
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    return call


def available_attention(q, k, v):
    """The SDPA backends that accept these shapes here, each as a call."""
    calls = {}
    for name, backend in BACKENDS.items():
        call = sdpa_call(backend, q, k, v)
        try:
            call()
            torch.cuda.synchronize()
            calls[name] = call
        except RuntimeError:
            pass
    return calls


def captured(body):
    """body() captured in a CUDA graph (after a warm-up on a side stream, as torch's docs ask), as a call."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        body()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        body()
    return graph.replay


def capture_first(bodies):
    """(name, graph call) of the first body, in the given order, that a CUDA graph can capture."""
    failures = []
    for name, body in bodies.items():
        try:
            return name, captured(body)
        except RuntimeError as error:
            failures.append(f"{name}: {error}")
    raise RuntimeError("no attention backend could be captured in a CUDA graph: " + "; ".join(failures))


class ColdL2Timer:
    """CUDA events around each call, after a write of twice the L2 (as vlbench's L2Flusher does) and a lead-in spin on
    the GPU, all calls in turns; the median microseconds of each. The lead-in (as vlbench's judge and nvbench's
    blocking kernel do) keeps the GPU busy while the host enqueues the call, so that a call's host time (cuDNN's
    graph lookup in SDPA, say: up to ~100 us here, longer than the flush) is not counted as GPU time."""

    LEAD_IN_CYCLES = 400_000  # ~200 us at the H200's 1.98 GHz, ~280 us when it throttles to 1.4 GHz

    def __init__(self, warmup, iterations):
        l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush_buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device="cuda")
        self.warmup, self.iterations = warmup, iterations

    def medians(self, calls):
        names = list(calls)
        events = {name: [] for name in names}
        for iteration in range(self.warmup + self.iterations):
            for name in names:
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                self.flush_buffer.zero_()
                torch.cuda._sleep(self.LEAD_IN_CYCLES)
                start.record()
                calls[name]()
                stop.record()
                if iteration >= self.warmup:
                    events[name].append((start, stop))
        torch.cuda.synchronize()
        return {name: 1000.0 * statistics.median(a.elapsed_time(b) for a, b in pairs) for name, pairs in events.items()}


def matched_fraction(output, expected, atol, rtol):
    error = (output.float() - expected.float()).abs()
    return (error <= atol + rtol * expected.float().abs()).float().mean().item()


def bench_workload(index, workload, fused, timer, seed):
    axes = workload["workload"]["axes"]
    batch, lang_seq, vision_seq = axes["batch_size"], axes["lang_seq_len"], axes["vision_seq_len"]
    generator = torch.Generator(device="cuda").manual_seed(seed + index)
    inputs = make_inputs(batch, lang_seq, vision_seq, generator)
    (language, vision, _, _, wq, bq, wk, bk, wv, bv, wo) = inputs
    wkv, bkv = torch.cat([wk, wv]), torch.cat([bk, bv])

    output = torch.empty(batch, lang_seq, HIDDEN, dtype=torch.bfloat16, device="cuda")
    workspace = torch.empty(fused.workspace_bytes(batch, lang_seq, vision_seq), dtype=torch.uint8, device="cuda")
    fused_call = fused.caller(inputs, output, workspace)
    fused_call()
    expected = torch.empty_like(output)
    torch_sdpa.run(*inputs, expected)
    tolerance = workload["workload"]["tolerance"]
    matched = matched_fraction(output, expected, tolerance["max_atol"], tolerance["max_rtol"])
    if matched < tolerance["required_match_ratio"]:
        raise RuntimeError(f"workload {index}: fused_b200's output matches torch_sdpa's on only {100 * matched:.2f}% "
                           f"of the elements (the workload asks {100 * tolerance['required_match_ratio']:.0f}%): "
                           "its time would mean nothing")

    q, k, v = attention_views(batch, lang_seq, vision_seq, generator)
    attention = available_attention(q, k, v)
    attention_out = torch.randn(batch, lang_seq, Q_DIM, generator=generator, device="cuda").to(torch.bfloat16)
    calls = {"fused": fused_call,
             "q": lambda: F.linear(language, wq, bq), "k": lambda: F.linear(vision, wk, bk),
             "v": lambda: F.linear(vision, wv, bv), "kv": lambda: F.linear(vision, wkv, bkv),
             "o": lambda: F.linear(attention_out, wo)}
    calls.update({f"attention_{name}": call for name, call in attention.items()})
    first = timer.medians(calls)
    best_attention = min(attention, key=lambda name: first[f"attention_{name}"])

    def parts_chain(attention_call):
        def chain():
            F.linear(language, wq, bq)
            F.linear(vision, wkv, bkv)
            attention_call()
            F.linear(attention_out, wo)
        return chain
    graph_attention, parts_graph = capture_first(
        {name: parts_chain(attention[name]) for name in sorted(attention, key=lambda n: first[f"attention_{n}"])})
    graph_output = torch.empty_like(output)
    graphs = {"fused": fused_call, "parts_graph": parts_graph,
              "torch_graph": captured(lambda: torch_sdpa.run(*inputs, graph_output))}
    second = timer.medians(graphs)
    torch.cuda.synchronize()
    graph_matched = matched_fraction(graph_output, expected, tolerance["max_atol"], tolerance["max_rtol"])
    if graph_matched < 0.999:
        raise RuntimeError(f"workload {index}: the captured torch_sdpa layer matches its eager run on only "
                           f"{100 * graph_matched:.2f}% of the elements")

    parts = first["q"] + min(first["k"] + first["v"], first["kv"]) + first[f"attention_{best_attention}"] + first["o"]
    return {"index": index, "uuid": workload["workload"]["uuid"], "batch_size": batch, "lang_seq_len": lang_seq,
            "vision_seq_len": vision_seq, "matched_vs_torch_sdpa": matched,
            "fused_us": first["fused"], "fused_us_second_round": second["fused"],
            "parts_us": parts, "fused_over_parts": first["fused"] / parts, "best_attention": best_attention,
            "parts_graph_us": second["parts_graph"], "parts_graph_attention": graph_attention,
            "fused_over_parts_graph": second["fused"] / second["parts_graph"],
            "torch_graph_us": second["torch_graph"],
            "fused_over_torch_graph": second["fused"] / second["torch_graph"],
            "timed_alone_us": {name: value for name, value in first.items() if name != "fused"},
            # Where the allocator put V's weight and bias against K's: fused_b200's K/V path depends on it
            # (projection_cublas.hpp: the biases in the batched GEMM only where they step as the weights do).
            "v_minus_k_bytes": {"weight": wv.data_ptr() - wk.data_ptr(), "bias": bv.data_ptr() - bk.data_ptr()}}


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, default=ROOT / "build" / "bench" / "fused_b200" /
                        "libfused_b200_c_entry.so", help="libfused_b200_c_entry.so of a vlbench build")
    parser.add_argument("--workloads", type=Path, default=ROOT / "workloads" / "workloads.jsonl")
    parser.add_argument("--case", default="", help="comma-separated workload indices (default: all 16)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--stream", choices=("default", "created"), default="default",
                        help="enqueue on torch's default stream (the legacy NULL stream) or on one created here")
    parser.add_argument("--json", type=Path, help="write the results here")
    arguments = parser.parse_args()
    if arguments.warmup < 0 or arguments.iterations < 1:
        parser.error("--warmup must be >= 0 and --iterations >= 1")
    if not arguments.library.is_file():
        parser.error(f"--library {arguments.library} is not a file (build the target fused_b200_c_entry)")
    return arguments


def print_table(rows):
    print(f"{'#':>3} {'B,Lq,Lv':<14} {'fused':>8} {'parts':>8} {'ratio':>6} {'attn':>9} {'fused_g':>8} "
          f"{'parts_g':>8} {'ratio_g':>7} {'torch_g':>8} {'matched':>8}")
    for r in rows:
        shape = f"{r['batch_size']},{r['lang_seq_len']},{r['vision_seq_len']}"
        print(f"{r['index']:>3} {shape:<14} {r['fused_us']:8.1f} {r['parts_us']:8.1f} {r['fused_over_parts']:6.3f} "
              f"{r['best_attention']:>9} {r['fused_us_second_round']:8.1f} {r['parts_graph_us']:8.1f} "
              f"{r['fused_over_parts_graph']:7.3f} {r['torch_graph_us']:8.1f} {100 * r['matched_vs_torch_sdpa']:7.2f}%")
    mean = lambda key: statistics.fmean(r[key] for r in rows)
    over = [r["index"] for r in rows if r["fused_over_parts"] > 1.0]
    over_graph = [r["index"] for r in rows if r["fused_over_parts_graph"] > 1.0]
    print(f"mean: fused {mean('fused_us'):.1f} us, parts {mean('parts_us'):.1f} us; in the graphs' round fused "
          f"{mean('fused_us_second_round'):.1f} us, parts in a graph {mean('parts_graph_us'):.1f} us, torch_sdpa in a "
          f"graph {mean('torch_graph_us'):.1f} us; fused above the parts on {len(over)} of {len(rows)} workloads "
          f"{over}, above the parts in a graph on {len(over_graph)} {over_graph}")


def main():
    arguments = parse_arguments()
    if not torch.cuda.is_available():
        print("SKIPPED: torch sees no CUDA GPU")
        return 77
    workloads = [json.loads(line) for line in arguments.workloads.read_text().splitlines() if line.strip()]
    chosen = [int(part) for part in arguments.case.split(",") if part] or list(range(len(workloads)))
    unknown = [index for index in chosen if not 0 <= index < len(workloads)]
    if unknown:
        print(f"error: --case {unknown} is not a workload index (0-{len(workloads) - 1})", file=sys.stderr)
        return 2
    fused = FusedLibrary(arguments.library)
    timer = ColdL2Timer(arguments.warmup, arguments.iterations)
    started = time.monotonic()
    stream = torch.cuda.Stream() if arguments.stream == "created" else torch.cuda.default_stream()
    with torch.cuda.stream(stream):
        rows = [bench_workload(index, workloads[index], fused, timer, arguments.seed) for index in chosen]
    print(f"{torch.cuda.get_device_name(0)}; torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}; "
          f"fused_b200 built from {fused.build()}; {arguments.warmup} warm-up + {arguments.iterations} timed calls "
          f"each, L2 flushed, median, on the {arguments.stream} stream; {time.monotonic() - started:.1f} s")
    print_table(rows)
    if arguments.json:
        arguments.json.write_text(json.dumps({
            "argv": sys.argv, "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "cudnn": torch.backends.cudnn.version(), "fused_b200_build": fused.build(), "seed": arguments.seed,
            "warmup_iterations": arguments.warmup, "timed_iterations": arguments.iterations,
            "stream": arguments.stream,
            "timer": "CUDA events, L2 flushed (2x L2 zeroed) and a GPU lead-in spin of "
                     f"{ColdL2Timer.LEAD_IN_CYCLES} cycles before each call, every call in turns, median",
            "workloads": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
