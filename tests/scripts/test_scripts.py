#!/usr/bin/env python3
"""Every script of scripts/ and bench/: `--help` prints its usage, exits 0 and does nothing else (no file appears or
changes, no installs, no downloads); a Python script whose package is missing says so in one line naming it.

Environment (set by ctest): VLBENCH_SOURCE_DIR.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCRIPTS = sorted([*SOURCE_DIR.glob("scripts/*.sh"), *SOURCE_DIR.glob("scripts/*.py"), *SOURCE_DIR.glob("bench/*/*.sh")])
# The packages each Python script needs beyond the standard library, and arguments that get it past parsing.
NEEDS = {"pytorch_baseline.py": ("torch", []), "rope_inv_freq_table.py": ("torch", ["--check"]),
         "plot.py": ("matplotlib", ["results/h200/template.json", "--out", "plots"])}


def snapshot(folder):
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def copy_of_the_project(folder):
    for name in ("scripts", "workloads", "bench", "results"):
        shutil.copytree(SOURCE_DIR / name, folder / name)
    return folder


def importable(package):
    probe = subprocess.run([sys.executable, "-c", f"import {package}"], capture_output=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    return probe.returncode == 0


class Scripts(unittest.TestCase):
    def test_the_scripts_are_found(self):
        names = {p.name for p in SCRIPTS}
        for expected in ("setup.sh", "run_gpu_checks.sh", "upstream_check.sh", "pytorch_baseline.py", "plot.py"):
            self.assertIn(expected, names)

    def test_help_prints_the_usage_and_does_nothing_else(self):
        with tempfile.TemporaryDirectory() as scratch:
            folder = copy_of_the_project(Path(scratch))
            before = snapshot(folder)
            for script in SCRIPTS:
                relative = script.relative_to(SOURCE_DIR)
                command = [sys.executable, str(relative)] if script.suffix == ".py" else ["bash", str(relative)]
                with self.subTest(script=str(relative)):
                    # No PATH beyond the basics: a script that tried to install or download would fail loudly.
                    result = subprocess.run([*command, "--help"], cwd=folder, capture_output=True, text=True,
                                            timeout=60, env={**os.environ, "PATH": "/usr/bin:/bin"})
                    self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
                    self.assertGreater(len(result.stdout.strip().splitlines()), 0)
                    self.assertRegex(result.stdout.lower(), r"usage|\bruns?\b|installs|writes|evaluates|copies")
                    self.assertEqual(result.stderr, "")
            self.assertEqual(snapshot(folder), before, "a script's --help changed files")

    def test_a_missing_package_is_one_line_naming_it(self):
        with tempfile.TemporaryDirectory() as scratch:
            folder = copy_of_the_project(Path(scratch))
            for name, (package, arguments) in NEEDS.items():
                if importable(package):
                    continue  # the package is there on this machine: nothing to report
                with self.subTest(script=name, package=package):
                    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
                    result = subprocess.run([sys.executable, f"scripts/{name}", *arguments], cwd=folder,
                                            capture_output=True, text=True, timeout=60, env=env)
                    self.assertNotEqual(result.returncode, 0)
                    lines = result.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, result.stderr)
                    self.assertIn(f"needs the Python package {package}", lines[0])
                    self.assertIn(f"pip install {package}", lines[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
