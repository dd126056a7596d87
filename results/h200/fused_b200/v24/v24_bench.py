# fused_b200 v24 variants against v23 (base), alternated in one process with parts_bench.py's timer, on two input
# layouts: in_order (K's weight and bias below V's, each pair in one buffer) and biases_reversed (the same weights,
# V's bias below K's: what PyTorch's allocator does in parts_bench.py). LIBS="name=path,...", CASES, OUT_JSON.
import sys, os, json, importlib.util
from pathlib import Path
import torch
sys.argv = ["x"]
spec = importlib.util.spec_from_file_location("pb", "bench/fused_b200/parts_bench.py")
pb = importlib.util.module_from_spec(spec); spec.loader.exec_module(pb)
libs = {}
for item in os.environ["LIBS"].split(","):
    name, path = item.split("=")
    libs[name] = pb.FusedLibrary(Path(path))
timer = pb.ColdL2Timer(5, 30)
workloads = [json.loads(l) for l in Path("workloads/workloads.jsonl").read_text().splitlines() if l.strip()]
reversed_cases = {int(x) for x in os.environ.get("REVERSED_CASES", "").split(",") if x}
results = []
for index in [int(x) for x in os.environ["CASES"].split(",")]:
    axes = workloads[index]["workload"]["axes"]
    b, lq, lv = axes["batch_size"], axes["lang_seq_len"], axes["vision_seq_len"]
    g = torch.Generator(device="cuda").manual_seed(2026 + index)
    inputs = pb.make_inputs(b, lq, lv, g)
    wkv = torch.cat([inputs[6], inputs[8]])
    b_in_order = torch.cat([inputs[7], inputs[9]])
    b_reversed = torch.cat([inputs[9], inputs[7]])
    layouts = {"in_order": list(inputs)}
    if index in reversed_cases: layouts["biases_reversed"] = list(inputs)
    for name, lay in layouts.items():
        lay[6], lay[8] = wkv[:1024], wkv[1024:]
        lay[7], lay[9] = (b_in_order[:1024], b_in_order[1024:]) if name == "in_order" else (b_reversed[1024:], b_reversed[:1024])
        assert torch.equal(lay[7], inputs[7]) and torch.equal(lay[9], inputs[9])
    expected = torch.empty(b, lq, 4096, dtype=torch.bfloat16, device="cuda")
    pb.torch_sdpa.run(*inputs, expected)
    tol = workloads[index]["workload"]["tolerance"]
    calls, outs = {}, {}
    for lib_name, lib in libs.items():
        for lay_name, lay in layouts.items():
            ws = torch.empty(lib.workspace_bytes(b, lq, lv), dtype=torch.uint8, device="cuda")
            out = torch.empty_like(expected)
            key = f"{lib_name}_{lay_name}"
            calls[key] = lib.caller(lay, out, ws)
            outs[key] = out
    for c in calls.values(): c()
    torch.cuda.synchronize()
    matched = {k: pb.matched_fraction(o, expected, tol["max_atol"], tol["max_rtol"]) for k, o in outs.items()}
    first = timer.medians(calls); second = timer.medians(calls)
    row = {"index": index, "shape": [b, lq, lv], "median_us": first, "median_us_second": second, "matched": matched}
    results.append(row)
    print(index, b, lq, lv, " ".join(f"{k} {first[k]:.1f}/{second[k]:.1f}" for k in calls), "matched min",
          f"{min(matched.values()):.5f}", flush=True)
    del calls, outs, inputs, layouts
    torch.cuda.empty_cache()
Path(os.environ["OUT_JSON"]).write_text(json.dumps({"builds": {n: l.build() for n, l in libs.items()}, "cases": results}, indent=1))
