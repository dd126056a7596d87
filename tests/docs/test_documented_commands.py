#!/usr/bin/env python3
"""Every command of README.md, docs/ and `vlbench --help`, run on the CPU (tests/docs/documented_commands.py says
how each is found and run): vlbench commands that need no GPU as written, runs of a solution with --dry-run (their GPU
form, as written, is test_documented_commands_gpu.py), scripts as written where they need no GPU. The build and test
steps (cmake) are what .ci/run runs; this checks that they are.

Environment (set by ctest): VLBENCH_BINARY, VLBENCH_SOURCE_DIR, VLBENCH_BINARY_DIR.
"""
import json
import random
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import documented_commands as docs  # noqa: E402


class DocumentedCommands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.commands = docs.documented_commands()
        cls.steps = [(where, step) for where, command in cls.commands for step in docs.steps(command)]
        cls.seed = random.SystemRandom().randrange(1 << 32)

    def test_the_documents_show_the_commands_this_test_knows_of(self):
        # A guard against an extraction that silently finds nothing: the README's main commands are among them.
        commands = {command for _, command in self.commands}
        self.assertIn("scripts/setup.sh && cmake --preset default && cmake --build --preset default && "
                      "build/vlbench --suite all --solution fused_b200", commands)
        self.assertIn("vlbench -s template -c 0,15 --shape 2x373x588", commands)
        self.assertIn("vlbench --suite all --solution fused_b200", commands)  # from --help
        self.assertGreater(len(self.steps), 30)
        for where, step in self.steps:
            with self.subTest(where=where, step=step):
                docs.how_to_run(step)  # raises for a step no rule covers

    def test_every_step_that_needs_no_gpu_runs_as_written(self):
        ran = set()
        with tempfile.TemporaryDirectory() as scratch:
            folder = docs.make_user_folder(scratch, self.seed)
            for where, step in self.steps:
                kind = docs.how_to_run(step)
                if kind not in (docs.CPU, docs.DRY_RUN) or docs.same_command(step) in ran:
                    continue
                ran.add(docs.same_command(step))
                with self.subTest(where=where, step=step):
                    result = docs.run_step(step, folder, dry_run=kind == docs.DRY_RUN)
                    self.assertEqual(result.returncode, 0, f"seed {self.seed}\n{result.stdout}\n{result.stderr}")
                    if kind == docs.DRY_RUN:
                        self.assertIn("would run", result.stdout)

    def test_the_readme_plot_command_finds_matplotlib_where_setup_put_it(self):
        # Issue 24: the README's command failed with "needs matplotlib" outside the tests' PYTHONPATH.
        command = "python3 scripts/plot.py results/h200/*.json --out results/h200/plots"
        self.assertIn(command, {step for _, step in self.steps})
        with tempfile.TemporaryDirectory() as scratch:
            folder = docs.make_user_folder(scratch, self.seed)
            plots = folder / "results" / "h200" / "plots"
            for png in plots.glob("*.png"):
                png.unlink()
            self.assertNotIn("PYTHONPATH", docs.environment(folder))
            result = docs.run_step(command, folder)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertTrue((plots / "latency.png").stat().st_size > 0)
            self.assertTrue((plots / "sol_percent.png").stat().st_size > 0)

    def test_the_build_and_test_steps_are_what_ci_runs(self):
        root = docs.SOURCE_DIR
        ci = (root / ".ci" / "run").read_text()
        readme = (root / "README.md").read_text()
        test_command = "scripts/setup.sh && scripts/setup_test_tools.sh && cmake --workflow --preset default"
        self.assertIn(test_command, readme)
        self.assertIn("\n" + test_command + "\n", ci)
        presets = json.loads((root / "CMakePresets.json").read_text())
        workflow = next(p for p in presets["workflowPresets"] if p["name"] == "default")
        self.assertEqual([(s["type"], s["name"]) for s in workflow["steps"]],
                         [("configure", "default"), ("build", "default"), ("test", "default")])
        known = {"cmake --preset default", "cmake --build --preset default", "cmake --workflow --preset default"}
        for where, step in self.steps:
            if docs.how_to_run(step) == docs.CI:
                with self.subTest(where=where):
                    self.assertIn(step, known)  # the workflow's configure and build steps, or the workflow itself

    def test_the_slurm_scripts_the_docs_show_are_run_by_the_slurm_test(self):
        slurm_test = (docs.SOURCE_DIR / "tests" / "slurm" / "test_slurm_scripts.cpp").read_text()
        for where, step in self.steps:
            if docs.how_to_run(step) == docs.SLURM:
                with self.subTest(where=where, step=step):
                    self.assertIn(f'script("{Path(step.split()[0]).name}")', slurm_test)

    def test_packages_the_docs_ask_to_install_are_installed_for_the_tests(self):
        for where, step in self.steps:
            if docs.how_to_run(step) != docs.INSTALL:
                continue
            for package in step.split()[2:]:
                with self.subTest(where=where, package=package):
                    probe = docs.subprocess.run([sys.executable, "-c", f"import {package}"], capture_output=True,
                                                text=True, env={**docs.os.environ, "PYTHONPATH": docs.python_path()})
                    self.assertEqual(probe.returncode, 0, f"{package}: run scripts/setup.sh\n{probe.stderr}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
