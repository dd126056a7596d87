#!/usr/bin/env python3
"""scripts/plot.py as the README runs it, on the H200 results: it writes the latency, SOL%, score and roofline PNGs,
each a real picture (a PNG header, not empty), and nothing else. Exits 77 (SKIPPED) where matplotlib is missing
(scripts/setup.sh installs it).

Environment (set by ctest): VLBENCH_SOURCE_DIR.
"""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SETUP_SITE = SOURCE_DIR / "third_party" / "python"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def matplotlib_found():
    probe = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(SETUP_SITE)!r}); "
                            "import matplotlib"], capture_output=True)
    return probe.returncode == 0


class Pictures(unittest.TestCase):
    def test_the_readme_command_writes_four_pictures(self):
        results = sorted(str(p) for p in (SOURCE_DIR / "results" / "h200").glob("*.json"))
        self.assertGreaterEqual(len(results), 2)
        with tempfile.TemporaryDirectory() as scratch:
            out = Path(scratch) / "plots"
            run = subprocess.run([sys.executable, str(SOURCE_DIR / "scripts" / "plot.py"), *results, "--out",
                                  str(out)], capture_output=True, text=True, timeout=300)
            self.assertEqual(run.returncode, 0, run.stderr)
            names = {"latency.png", "sol_percent.png", "score.png", "roofline.png"}
            self.assertEqual({p.name for p in out.iterdir()}, names)
            for name in names:
                data = (out / name).read_bytes()
                self.assertTrue(data.startswith(PNG_SIGNATURE), name)
                self.assertGreater(len(data), 20000, f"{name}: too small to hold the plot")
                self.assertIn(f"wrote {out / name}", run.stdout)


if __name__ == "__main__":
    if not matplotlib_found():
        print("SKIPPED: matplotlib is missing (scripts/setup.sh installs it into third_party/python)")
        sys.exit(77)
    unittest.main(verbosity=2)
