#!/usr/bin/env python3
"""Plots vlbench results files (docs/results-schema.md): per workload, each solution's latency beside T_SOL and the
baseline T_b, then SOL% and, where the results carry it, the leaderboard score. Writes PNGs into --out.

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
    """-> (workloads: key -> {label, t_sol, baseline}, series: solution label -> key -> case summary)."""
    workloads, series = {}, OrderedDict()
    solutions_seen = {}
    for path in paths:
        document = read_document(path)
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
                                               "index": case["case_index"]})
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
    return ordered, series


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
    workloads, series = load_results(args.results, args.statistic)  # bad input is reported with or without matplotlib
    import_matplotlib()
    args.out.mkdir(parents=True, exist_ok=True)
    written = [args.out / "latency.png", args.out / "sol_percent.png"]
    plot_latency(workloads, series, args.statistic, written[0])
    plot_metric(workloads, series, "sol_percent", "SOL % (T_SOL / latency)", "Speed of light reached per workload",
                100.0, written[1])
    if any(c["score"] is not None for cases in series.values() for c in cases.values()):
        written.append(args.out / "score.png")
        plot_metric(workloads, series, "score", "score S (0.5 = baseline, 1 = T_SOL)", "Leaderboard score per workload",
                    0.5, written[2])
    for path in written:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
