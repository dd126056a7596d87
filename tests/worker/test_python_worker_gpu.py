#!/usr/bin/env python3
"""Packages on a GPU, through vlbench's Python worker: solutions/torch_sdpa PASSES, as a folder and as a
solution.json with its source inline; torch_compile and triton_attention PASS; the Python adversaries of
python_adversaries/ are caught (batch element 0 only on a random share of the calls, a first output served again:
INCORRECT_NUMERICAL; a done written early into the handshake: INCORRECT_NUMERICAL, the output read before the work
ran; a forged report on the channel: REWARD_HACK); and the round trip of the compiled solutions: `vlbench package
-s template` (and fused_b200) run as a C++ group package (built as a torch extension, then found in the cache) gives
the compiled solution's verdicts.
H200 runs: results/h200/python/.

Needs a CUDA GPU and a Python with torch (VLBENCH_PYTHON, else python3) and pydantic for SOL-ExecBench's models;
reports SKIPPED (exit 77) with the reason otherwise. Environment (set by ctest): VLBENCH_BINARY, VLBENCH_SOURCE_DIR.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
VLBENCH = os.environ.get("VLBENCH_BINARY", str(SOURCE_DIR / "build" / "vlbench"))
ADVERSARIES = Path(__file__).resolve().parent / "python_adversaries"
TORCH_SDPA = SOURCE_DIR / "solutions" / "torch_sdpa"


def skip_reason():
    gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True) if shutil.which("nvidia-smi") else None
    if gpus is None or gpus.returncode != 0 or "GPU" not in gpus.stdout:
        return "no CUDA GPU (nvidia-smi -L lists none)"
    python = os.environ.get("VLBENCH_PYTHON") or shutil.which("python3")
    has_torch = subprocess.run([python, "-c", "import torch; assert torch.cuda.is_available()"], capture_output=True)
    if has_torch.returncode != 0:
        return f"{python} has no torch that sees the GPU (set VLBENCH_PYTHON to one)"
    return None


def vlbench(*arguments):
    return subprocess.run([VLBENCH, *arguments], capture_output=True, text=True, timeout=900)


def statuses(results_file):
    return [case["status"] for case in json.loads(Path(results_file).read_text())["cases"]]


class PythonSolutionsOnTheGpu(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.folder = Path(self.scratch.name)

    def tearDown(self):
        self.scratch.cleanup()

    def run_cases(self, solution, cases):
        results = self.folder / "results.json"
        result = vlbench("-s", str(solution), "-c", cases, "--json", str(results))
        self.assertIn(result.returncode, (0, 1), result.stdout + result.stderr)
        return statuses(results), result.stdout

    def test_torch_sdpa_passes_as_a_folder_and_as_one_file(self):
        self.assertEqual(self.run_cases(TORCH_SDPA, "0,15")[0], ["PASSED", "PASSED"])
        package = json.loads((TORCH_SDPA / "solution.json").read_text())
        package["sources"] = [{"path": "main.py", "content": (TORCH_SDPA / "main.py").read_text()}]
        (self.folder / "torch_sdpa.json").write_text(json.dumps(package))
        self.assertEqual(self.run_cases(self.folder / "torch_sdpa.json", "3")[0], ["PASSED"])

    def test_torch_compile_and_triton_pass(self):
        for name in ("torch_compile", "triton_attention"):
            with self.subTest(solution=name):
                found, output = self.run_cases(SOURCE_DIR / "solutions" / name, "15,3")
                self.assertEqual(found, ["PASSED", "PASSED"], output)

    def test_the_python_adversaries_are_caught(self):
        expected = {"skip_some": "INCORRECT_NUMERICAL", "stale": "INCORRECT_NUMERICAL",
                    "forged_done": "INCORRECT_NUMERICAL", "forged_report": "REWARD_HACK"}
        for name, status in expected.items():
            with self.subTest(adversary=name):
                package = self.folder / name
                shutil.copytree(ADVERSARIES / name, package)
                shutil.copy(TORCH_SDPA / "main.py", package / "torch_sdpa_main.py")
                found, output = self.run_cases(package, "15,0")
                self.assertEqual(found, [status, status], output)

    def test_a_packaged_compiled_solution_builds_once_and_keeps_its_verdicts(self):
        for name in ("template", "fused_b200"):
            with self.subTest(solution=name):
                package = self.folder / f"{name}.json"
                written = vlbench("package", "-s", name, "-o", str(package))
                self.assertEqual(written.returncode, 0, written.stderr)
                os.environ["VLBENCH_CACHE_DIR"] = str(self.folder / "cache")
                try:
                    first = vlbench("-s", str(package), "-c", "15,3", "--json", str(self.folder / "first.json"))
                    second = vlbench("-s", str(package), "-c", "15,3", "--json", str(self.folder / "second.json"))
                finally:
                    del os.environ["VLBENCH_CACHE_DIR"]
                self.assertIn("built in", first.stderr, first.stdout + first.stderr)
                self.assertIn("was built before", second.stderr, second.stdout + second.stderr)
                compiled = self.run_cases(name, "15,3")[0]
                self.assertEqual(compiled, ["PASSED", "PASSED"])
                self.assertEqual(statuses(self.folder / "first.json"), compiled)
                self.assertEqual(statuses(self.folder / "second.json"), compiled)


if __name__ == "__main__":
    reason = skip_reason()
    if reason:
        print(f"SKIPPED: {reason}")
        sys.exit(77)
    unittest.main(verbosity=2)
