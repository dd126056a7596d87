#!/usr/bin/env python3
"""Plots vlbench results files (docs/results-schema.md): per workload, each solution's latency beside T_SOL and the
baseline T_b, then SOL% and, where the results carry it, the leaderboard score, and a roofline: each case a point
(arithmetic intensity FLOPs/bytes, achieved TFLOP/s = FLOPs / latency) under the GPU's ceilings, every entry of
workloads/gpus.json for the results' GPU (datasheet and measured), one colour per solution and one for the baseline
T_b. Writes PNGs into --out.

    python3 scripts/plot.py results/h200-fused.json results/h200-template.json --out plots/

Needs matplotlib: scripts/setup.sh installs it into third_party/python, where this script finds it when python3 itself
has none (elsewhere: pip install matplotlib). A case that did not pass or was not timed has no bar; its status is
written where the bar would be. Exit codes as vlbench's: 2 for a file that is not a valid results file (a partial file,
an impossible latency), 3 when matplotlib is missing.
"""
import argparse
import json
import sys
from collections import OrderedDict
from pathlib import Path

plt = None  # matplotlib.pyplot, imported once the arguments are read (so that --help needs no matplotlib)


# The GPUs' ceilings (dense bf16 TFLOP/s, TB/s) that vlbench's SOL figures use.
GPU_SPECS = Path(__file__).resolve().parents[1] / "workloads" / "gpus.json"
# Where scripts/setup.sh installs the Python packages python3 lacks.
SETUP_SITE = Path(__file__).resolve().parents[1] / "third_party" / "python"
# No call takes longer than the longest --case-timeout (86400 s): vlbench's readers reject longer latencies too.
MAX_LATENCY_MS = 86400.0 * 1000.0


def import_matplotlib():
    global plt
    try:
        import matplotlib
    except ImportError:
        if SETUP_SITE.is_dir():
            # What scripts/setup.sh installed: so the README's command runs as written, with no PYTHONPATH.
            sys.path.insert(0, str(SETUP_SITE))
        try:
            import matplotlib
        except ImportError:
            print("plot.py: needs the Python package matplotlib: run scripts/setup.sh, or pip install matplotlib",
                  file=sys.stderr)
            sys.exit(3)
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    plt = pyplot

STATUS_MARK = {"INCORRECT_NUMERICAL": "WRONG", "INCORRECT_SHAPE": "SHAPE", "RUNTIME_ERROR": "ERROR",
               "TIMEOUT": "TIMEOUT", "REWARD_HACK": "HACK", "SKIPPED": "SKIP"}


def fail(message):
    """Bad input: exit 2, as vlbench does; the message quotes file contents safely (no control characters)."""
    print(f"plot.py: {message}".encode("ascii", "backslashreplace").decode("ascii"), file=sys.stderr)
    sys.exit(2)


def read_document(path):
    if str(path).endswith(".partial.jsonl"):
        fail(f"{path}: a partial file (what a run that did not finish leaves), not a results file: make one of it "
             f"first with vlbench merge {path} -o RESULTS.json")
    try:
        document = json.loads(Path(path).read_text())
    except (OSError, ValueError, RecursionError) as error:
        fail(f"{path}: not a vlbench results file ({error})")
    if not isinstance(document, dict) or document.get("schema") != "vlbench-results":
        fail(f"{path}: not a vlbench results file (no \"schema\": \"vlbench-results\")")
    return document


def checked_latency(path, index, case, statistic):
    """The case's latency statistic, or None; an impossible one (not a positive number, beyond a day) fails."""
    timing = case.get("timing") or {}
    latency = (timing.get("stats") or {}).get(statistic)
    if latency is None or case["status"] != "PASSED":
        return None
    if isinstance(latency, bool) or not isinstance(latency, (int, float)) or not 0 < latency <= MAX_LATENCY_MS:
        fail(f"{path}: /cases/{index}/timing/stats/{statistic}: {latency!r} ms is not a possible latency (a PASSED "
             f"case's is positive and at most {MAX_LATENCY_MS:g} ms)")
    return latency


def load_results(paths, statistic):
    """-> (workloads: key -> {label, t_sol, baseline, flops, bytes}, series: solution label -> key -> case summary,
    gpu_keys: the gpus.json keys the files' SOL figures used, baseline_name: what T_b is)."""
    workloads, series = {}, OrderedDict()
    solutions_seen, gpu_keys, baseline_names = {}, [], []
    for path in paths:
        document = read_document(path)
        gpu_key = (document.get("environment") or {}).get("gpu_spec_key")
        if isinstance(gpu_key, str) and gpu_key and gpu_key not in gpu_keys:
            gpu_keys.append(gpu_key)
        baseline_source = (document.get("settings") or {}).get("baseline_source")
        if isinstance(baseline_source, str) and baseline_source and baseline_source not in baseline_names:
            baseline_names.append(baseline_source)
        cases = document.get("cases")
        if not isinstance(cases, list):
            fail(f"{path}: /cases: missing, or not an array")
        for index, case in enumerate(cases):
            try:
                shape = case["shape"]
                dims = (shape["batch_size"], shape["lang_seq_len"], shape["vision_seq_len"])
                key = case["uuid"] or "custom B={} Lq={} Lv={}".format(*dims)
                order = case["case_index"] if case["case_index"] >= 0 else 1000 + len(workloads)
                solution = case["solution"]
                case["status"]
            except (KeyError, TypeError) as error:
                fail(f"{path}: /cases/{index}: missing field {error}")
            # The same solution in two files (two GPUs, two commits): tell them apart by file.
            label = solution if solutions_seen.setdefault(solution, path) == path else f"{solution} ({Path(path).stem})"
            entry = workloads.setdefault(key, {"order": order, "dims": dims, "t_sol": None, "baseline": None,
                                               "index": case["case_index"], "flops": None, "bytes": None})
            work = case.get("work") or {}
            if all(is_positive_number(work.get(field)) for field in ("flops", "bytes")):
                entry["flops"], entry["bytes"] = work["flops"], work["bytes"]
            if case.get("sol") and case["sol"].get("t_sol_ms") is not None:
                entry["t_sol"] = case["sol"]["t_sol_ms"]
            if case.get("baseline_ms") is not None:
                entry["baseline"] = case["baseline_ms"]
            latency = checked_latency(path, index, case, statistic)
            fraction = case.get("sol_fraction")
            series.setdefault(label, {})[key] = {
                "status": case["status"],
                "latency": latency,
                "sol_percent": 100.0 * fraction if fraction is not None and case["status"] == "PASSED" else None,
                "score": case.get("score") if case["status"] == "PASSED" else None,
            }
    if not series:
        fail("the results files hold no case")
    ordered = OrderedDict(sorted(workloads.items(), key=lambda item: item[1]["order"]))
    return ordered, series, gpu_keys, baseline_names


def is_positive_number(value):
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value > 0


def gpu_ceilings(gpu_keys, specs_path=GPU_SPECS):
    """[(key, TFLOP/s, TB/s)]: every gpus.json entry of the results' GPUs, a GPU being a key up to its first '_'
    (H200_SXM, the datasheet the SOL figures use, brings H200_measured). Empty when the file or the keys are missing:
    the roofline is then drawn without ceilings, and says so."""
    try:
        specs = json.loads(Path(specs_path).read_text())
    except (OSError, ValueError):
        return []
    families = {key.split("_")[0] for key in gpu_keys}
    ceilings = []
    for spec in specs if isinstance(specs, list) else []:
        key = spec.get("key") if isinstance(spec, dict) else None
        if not isinstance(key, str) or key.split("_")[0] not in families:
            continue
        tflops, bandwidth = spec.get("dense_bf16_tflops"), spec.get("memory_tb_per_s")
        if is_positive_number(tflops) and is_positive_number(bandwidth):
            ceilings.append((key, float(tflops), float(bandwidth)))
    return ceilings


def roofline_points(workloads, series, baseline_name):
    """[(label, [(case label, FLOPs per byte, achieved TFLOP/s)])]: one entry per solution with a timed case, then
    the baseline T_b where the results carry it."""
    def points(latencies):
        drawn = []
        for key, latency in latencies.items():
            entry = workloads[key]
            if latency is None or entry["flops"] is None:
                continue
            label = f"#{entry['index']}" if entry["index"] >= 0 else "custom"
            drawn.append((label, entry["flops"] / entry["bytes"], entry["flops"] / (latency * 1e-3) / 1e12))
        return drawn
    result = [(label, points({k: c["latency"] for k, c in cases.items()})) for label, cases in series.items()]
    baseline = points({k: w["baseline"] for k, w in workloads.items()})
    if baseline:
        result.append((f"baseline T_b ({baseline_name})" if baseline_name else "baseline T_b", baseline))
    return [(label, drawn) for label, drawn in result if drawn]


def plot_roofline(workloads, series, gpu_keys, baseline_names, statistic, out):
    figure, axes = plt.subplots(figsize=(11.5, 6))
    # The baseline's source is a sentence: its first clause names it.
    baseline_name = baseline_names[0].split(":")[0] if len(baseline_names) == 1 else None
    groups = roofline_points(workloads, series, baseline_name)
    intensities = [x for _, drawn in groups for _, x, _ in drawn] or [1.0]
    low, high = min(intensities) / 3, max(intensities) * 3
    ceilings = gpu_ceilings(gpu_keys)
    for (key, tflops, bandwidth), style in zip(ceilings, ["-", "--", ":", "-."] * 4):
        ridge = tflops / bandwidth  # FLOP/byte where the memory roof meets the compute roof
        xs = sorted({low, high, min(max(ridge, low), high)})
        axes.plot(xs, [min(tflops, x * bandwidth) for x in xs], color="black", linestyle=style, linewidth=1,
                  label=f"{key}: {tflops:g} TFLOP/s, {bandwidth:g} TB/s")
    markers = ["o", "s", "^", "D", "v", "P", "X", "*"]
    for slot, (label, drawn) in enumerate(groups):
        axes.scatter([x for _, x, _ in drawn], [y for _, _, y in drawn], marker=markers[slot % len(markers)],
                     s=28, label=label, zorder=3)
        for name, x, y in drawn:
            axes.annotate(name, (x, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_xlabel("arithmetic intensity, FLOP per byte (the case's work.flops / work.bytes)")
    axes.set_ylabel(f"achieved TFLOP/s (work.flops / {statistic} latency)")
    title = "Roofline" + (f" ({', '.join(gpu_keys)})" if gpu_keys else "")
    if not ceilings:
        title += ": no ceilings (the results name no GPU of workloads/gpus.json)"
    axes.set_title(title)
    axes.grid(which="both", alpha=0.3)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the plot: no point hidden
    figure.tight_layout()
    figure.savefig(out, dpi=150)
    plt.close(figure)


def workload_label(entry):
    batch, lang, vision = entry["dims"]
    prefix = f"#{entry['index']}\n" if entry["index"] >= 0 else "custom\n"
    return f"{prefix}{batch}/{lang}/{vision}"


def grouped_bars(axes, workloads, bars):
    """bars: [(label, key -> value or None, status marks or None)], drawn side by side per workload."""
    keys = list(workloads)
    width = 0.8 / len(bars)
    for slot, (label, values, marks) in enumerate(bars):
        xs = [i - 0.4 + width * (slot + 0.5) for i in range(len(keys))]
        heights = [values.get(key) for key in keys]
        drawn = [(x, h) for x, h in zip(xs, heights) if h is not None]
        if drawn:
            axes.bar([x for x, _ in drawn], [h for _, h in drawn], width=width, label=label)
        else:
            axes.bar([], [], width=width, label=label)
        for x, key, height in zip(xs, keys, heights):
            if height is None and marks and key in marks:
                axes.text(x, 0.02, marks[key], rotation=90, fontsize=6, ha="center", va="bottom",
                          transform=axes.get_xaxis_transform())
    axes.set_xticks(range(len(keys)))
    axes.set_xticklabels([workload_label(workloads[key]) for key in keys], fontsize=7)
    axes.set_xlabel("workload (#index, B/Lq/Lv)")
    axes.legend(fontsize=8)
    axes.grid(axis="y", alpha=0.3)


def status_marks(cases):
    return {key: STATUS_MARK.get(case["status"], case["status"]) for key, case in cases.items()
            if case["status"] != "PASSED" or case["latency"] is None}


def plot_latency(workloads, series, statistic, out):
    figure, axes = plt.subplots(figsize=(max(10, 0.9 * len(workloads)), 5.5))
    bars = [(label, {k: c["latency"] for k, c in cases.items()}, status_marks(cases))
            for label, cases in series.items()]
    bars.append(("T_SOL", {k: w["t_sol"] for k, w in workloads.items()}, None))
    if any(w["baseline"] is not None for w in workloads.values()):
        bars.append(("baseline T_b", {k: w["baseline"] for k, w in workloads.items()}, None))
    grouped_bars(axes, workloads, bars)
    axes.set_yscale("log")
    axes.set_ylabel(f"latency, ms ({statistic}, log scale)")
    axes.set_title("Latency per workload")
    figure.tight_layout()
    figure.savefig(out, dpi=150)
    plt.close(figure)


def plot_metric(workloads, series, field, ylabel, title, reference_line, out):
    figure, axes = plt.subplots(figsize=(max(10, 0.9 * len(workloads)), 5))
    bars = [(label, {k: c[field] for k, c in cases.items()}, status_marks(cases)) for label, cases in series.items()]
    grouped_bars(axes, workloads, bars)
    if reference_line is not None:
        axes.axhline(reference_line, color="black", linewidth=0.8, linestyle="--")
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    figure.tight_layout()
    figure.savefig(out, dpi=150)
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="vlbench results JSON files")
    parser.add_argument("--out", type=Path, required=True, help="folder for the PNGs (created if missing)")
    parser.add_argument("--statistic", default="median", choices=["median", "mean", "min", "p10", "p90"],
                        help="which latency statistic to plot (default: median, the leaderboard's)")
    args = parser.parse_args()
    # Bad input is reported with or without matplotlib.
    workloads, series, gpu_keys, baseline_names = load_results(args.results, args.statistic)
    import_matplotlib()
    args.out.mkdir(parents=True, exist_ok=True)
    written = [args.out / "latency.png", args.out / "sol_percent.png", args.out / "roofline.png"]
    plot_latency(workloads, series, args.statistic, written[0])
    plot_roofline(workloads, series, gpu_keys, baseline_names, args.statistic, written[2])
    plot_metric(workloads, series, "sol_percent", "SOL % (T_SOL / latency)", "Speed of light reached per workload",
                100.0, written[1])
    if any(c["score"] is not None for cases in series.values() for c in cases.values()):
        written.append(args.out / "score.png")
        plot_metric(workloads, series, "score", "score S (0.5 = baseline, 1 = T_SOL)", "Leaderboard score per workload",
                    0.5, written[-1])
    for path in written:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
