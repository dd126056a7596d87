#!/usr/bin/env python3
"""scripts/plot.py's roofline, computed from real results files (no matplotlib needed): each timed case is a point at
work.flops / work.bytes and work.flops / latency, the baseline T_b is a series of its own, a case that did not pass has
no point, and the ceilings are every gpus.json entry of the results' GPU.

Environment (set by ctest): VLBENCH_SOURCE_DIR.
"""
import copy
import importlib.util
import json
import os
import random
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def load_plot_module():
    spec = importlib.util.spec_from_file_location("vlbench_plot", SOURCE_DIR / "scripts" / "plot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plot = load_plot_module()


class Roofline(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.folder = Path(self.scratch.name)
        self.document = json.loads((SOURCE_DIR / "results" / "h200" / "fused_b200.json").read_text())

    def tearDown(self):
        self.scratch.cleanup()

    def write(self, document, name="results.json"):
        path = self.folder / name
        path.write_text(json.dumps(document))
        return str(path)

    def test_each_timed_case_is_a_point_at_its_intensity_and_throughput(self):
        document = copy.deepcopy(self.document)
        rng = random.Random()
        seed = rng.randrange(1 << 30)
        rng.seed(seed)
        expected = {}
        for case in document["cases"]:
            # Fresh latencies each run, so the points come from the file and not from anything remembered.
            latency = rng.uniform(0.05, 5.0)
            case["timing"]["stats"]["median"] = latency
            expected[f"#{case['case_index']}"] = (case["work"]["flops"] / case["work"]["bytes"],
                                                  case["work"]["flops"] / (latency * 1e-3) / 1e12)
        workloads, series, gpu_keys, _ = plot.load_results([self.write(document)], "median")
        groups = dict(plot.roofline_points(workloads, series, "pytorch"))
        self.assertIn("fused_b200", groups, f"seed {seed}")
        points = {name: (x, y) for name, x, y in groups["fused_b200"]}
        self.assertEqual(set(points), set(expected))
        for name, (x, y) in expected.items():
            self.assertAlmostEqual(points[name][0], x, delta=1e-9 * x)
            self.assertAlmostEqual(points[name][1], y, delta=1e-9 * y)
        self.assertEqual(gpu_keys, ["H200_SXM"])

    def test_the_baseline_is_a_series_and_a_failed_case_has_no_point(self):
        document = copy.deepcopy(self.document)
        failed = document["cases"][3]
        failed["status"] = "INCORRECT_NUMERICAL"
        failed["reason"] = "1.2% of the elements outside the tolerance"
        workloads, series, _, _ = plot.load_results([self.write(document)], "median")
        groups = dict(plot.roofline_points(workloads, series, "pytorch"))
        names = {name for name, _, _ in groups["fused_b200"]}
        self.assertNotIn(f"#{failed['case_index']}", names)
        self.assertEqual(len(names), len(document["cases"]) - 1)
        baseline = groups["baseline T_b (pytorch)"]
        by_name = {name: y for name, _, y in baseline}
        for case in document["cases"]:
            expected = case["work"]["flops"] / (case["baseline_ms"] * 1e-3) / 1e12
            self.assertAlmostEqual(by_name[f"#{case['case_index']}"], expected, delta=1e-9 * expected)

    def test_the_ceilings_are_every_entry_of_the_gpu(self):
        keys = [key for key, _, _ in plot.gpu_ceilings(["H200_SXM"])]
        self.assertEqual(keys, ["H200_SXM", "H200_measured"])
        by_key = {key: (tflops, bandwidth) for key, tflops, bandwidth in plot.gpu_ceilings(["B200"])}
        self.assertEqual(set(by_key), {"B200", "B200_datasheet"})
        self.assertEqual(by_key["B200_datasheet"], (2250.0, 8.0))
        self.assertEqual(plot.gpu_ceilings(["NoSuchGPU"]), [])
        self.assertEqual(plot.gpu_ceilings(["H200_SXM"], self.folder / "missing.json"), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
