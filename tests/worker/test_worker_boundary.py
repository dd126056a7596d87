#!/usr/bin/env python3
"""The code that runs beside solution code never holds a reference output: no file of harness/worker or
harness/isolation includes the reference, the judge, the plan or the scale-out, and the built vlbench-worker carries no
reference code (no symbol of namespace vlb::reference), nor does the Python worker's library. Also: nothing under
harness/ but the judge includes the reference.

Environment (set by ctest): VLBENCH_SOURCE_DIR, VLBENCH_BINARY_DIR.
"""
import os
import re
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY_DIR = Path(os.environ.get("VLBENCH_BINARY_DIR", SOURCE_DIR / "build"))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = ("*.hpp", "*.cpp", "*.cu", "*.cuh")


def includes(folder):
    for pattern in SOURCES:
        for path in sorted((SOURCE_DIR / folder).glob(pattern)):
            for included in INCLUDE.findall(path.read_text()):
                yield path.relative_to(SOURCE_DIR), included


class WorkerBoundary(unittest.TestCase):
    def test_the_worker_side_includes_nothing_of_the_judge(self):
        forbidden = ("reference/", "harness/judge/", "harness/plan/", "harness/scaleout/")
        folders = ("harness/worker", "harness/worker/python", "harness/isolation")
        found = [f"{path} includes {included}" for folder in folders
                 for path, included in includes(folder) if included.startswith(forbidden)]
        self.assertEqual(found, [])

    def test_only_the_judge_includes_the_reference(self):
        found = [f"{path} includes {included}" for folder in sorted((SOURCE_DIR / "harness").iterdir())
                 if folder.is_dir() and folder.name != "judge"
                 for path, included in includes(folder.relative_to(SOURCE_DIR)) if included.startswith("reference/")]
        self.assertEqual(found, [])

    def test_the_worker_binary_carries_no_reference_code(self):
        self.check_no_reference_code(BINARY_DIR / "vlbench-worker")

    def test_the_python_workers_library_carries_no_reference_code(self):
        self.check_no_reference_code(BINARY_DIR / "python_worker" / "libvlbench_python_worker.so")

    def check_no_reference_code(self, worker):
        self.assertTrue(worker.is_file(), f"{worker} is not built")
        symbols = subprocess.run([shutil.which("nm"), "-C", str(worker)], capture_output=True, text=True, check=True)
        self.assertGreater(len(symbols.stdout.splitlines()), 100, "nm listed (almost) no symbols")
        self.assertIn("vlb::WorkerSession", symbols.stdout)  # what it must carry, so the check below means something
        reference = [line for line in symbols.stdout.splitlines() if "vlb::reference::" in line]
        self.assertEqual(reference, [])


if __name__ == "__main__":
    if shutil.which("nm") is None:
        print("SKIPPED: nm (binutils) is not installed: the worker binary's symbols cannot be read")
        sys.exit(77)
    unittest.main(verbosity=2)
