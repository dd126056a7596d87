#!/usr/bin/env python3
"""Every documented command that needs a GPU, run exactly as written on the GPU (the CPU half,
test_documented_commands.py, runs them with --dry-run). Exit 77 (SKIPPED) where there is no CUDA GPU.

scripts/run_gpu_checks.sh is left out: it runs `ctest -L gpu`, this test among them, so starting it from here would
start a second ctest in the same build tree while the first still runs; it is the command that runs this test.
`scripts/upstream_check.sh run` needs what `prepare` left in .whl and .carry (README, docs/leaderboard.md section 3).

Environment (set by ctest): VLBENCH_BINARY, VLBENCH_SOURCE_DIR, VLBENCH_BINARY_DIR.
"""
import random
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import documented_commands as docs  # noqa: E402


def has_gpu():
    probe = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True) if \
        subprocess.run(["which", "nvidia-smi"], capture_output=True).returncode == 0 else None
    return probe is not None and probe.returncode == 0 and "GPU" in probe.stdout


class DocumentedGpuCommands(unittest.TestCase):
    def test_every_step_that_needs_a_gpu_runs_as_written(self):
        seed = random.SystemRandom().randrange(1 << 32)
        ran = set()
        with tempfile.TemporaryDirectory() as scratch:
            folder = docs.make_user_folder(scratch, seed, with_prepared_upstream_check=True)
            for where, command in docs.documented_commands():
                for step in docs.steps(command):
                    kind = docs.how_to_run(step)
                    if kind not in (docs.DRY_RUN, docs.GPU):
                        continue
                    if docs.same_command(step) in ran:
                        continue  # shown in several places (build/vlbench or vlbench): run once
                    ran.add(docs.same_command(step))
                    with self.subTest(where=where, step=step):
                        started = time.monotonic()
                        result = docs.run_step(step, folder)
                        # A line per step as it ends: the whole test takes long, and a killed run still shows these.
                        print(f"[exit {result.returncode}, {time.monotonic() - started:.0f} s] {where}: {step}",
                              file=sys.stderr, flush=True)
                        self.assertEqual(result.returncode, 0, f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")


if __name__ == "__main__":
    if not has_gpu():
        print("SKIPPED: no CUDA GPU (nvidia-smi -L lists none)")
        sys.exit(77)
    unittest.main(verbosity=2)
