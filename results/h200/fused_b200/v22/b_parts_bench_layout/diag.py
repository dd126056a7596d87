# Which kernels fused_b200 launches on the parts bench's inputs, and the addresses that decide the K/V path.
import sys, importlib.util, json
from pathlib import Path
import torch
import os; sys.argv_cases = os.environ.get("CASES", "8,14,15"); sys.argv = ["x"]
spec = importlib.util.spec_from_file_location("pb", "bench/fused_b200/parts_bench.py")
pb = importlib.util.module_from_spec(spec); spec.loader.exec_module(pb)
lib = pb.FusedLibrary(Path(sys_lib := "build-90/bench/fused_b200/libfused_b200_c_entry.so"))
timer = pb.ColdL2Timer(5, 30)
workloads = [json.loads(l) for l in Path("workloads/workloads.jsonl").read_text().splitlines() if l.strip()]
for index in [int(x) for x in (sys.argv_cases if hasattr(sys, "argv_cases") else "8,14,15").split(",")]:
    axes = workloads[index]["workload"]["axes"]
    b, lq, lv = axes["batch_size"], axes["lang_seq_len"], axes["vision_seq_len"]
    g = torch.Generator(device="cuda").manual_seed(2026 + index)
    inputs = pb.make_inputs(b, lq, lv, g)
    names = "lang vis pos thw wq bq wk bk wv bv wo".split()
    addr = {n: t.data_ptr() for n, t in zip(names, inputs)}
    print(index, {n: hex(a) for n, a in addr.items()})
    print("  wv-wk", addr["wv"] - addr["wk"], "bv-bk", addr["bv"] - addr["bk"])
    out = torch.empty(b, lq, 4096, dtype=torch.bfloat16, device="cuda")
    ws = torch.empty(lib.workspace_bytes(b, lq, lv), dtype=torch.uint8, device="cuda")
    call = lib.caller(inputs, out, ws)
    # a second set with K/V weights and biases adjacent, in order (the layout the batched pair reads directly)
    wkv = torch.cat([inputs[6], inputs[8]]); bkv = torch.cat([inputs[7], inputs[9]])
    inputs2 = list(inputs); inputs2[6], inputs2[8] = wkv[:1024], wkv[1024:]; inputs2[7], inputs2[9] = bkv[:1024], bkv[1024:]
    out2 = torch.empty_like(out)
    call2 = lib.caller(inputs2, out2, ws)
    call(); call2(); torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for c in (call, call2):
            for _ in range(2):
                c()
        torch.cuda.synchronize()
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            print("   ", f"{e.device_time:8.1f}", e.name[:90])
    m = timer.medians({"as_bench": call, "adjacent": call2}); m2 = timer.medians({"as_bench": call, "adjacent": call2})
    print("  medians", m, m2)
