#!/usr/bin/env python3
"""docs/adding-a-solution.md followed literally: its shell block copies the template in a scratch tree, its CMake line
becomes the new folder's CMakeLists.txt, the class is renamed and describe() and the registration line are taken from
its C++ block; the folder is then built against this build's libraries (tests/solution/solution_project) and the
page's commands run (step 4 with --dry-run, as no GPU is needed for it). Also: CMake refuses a folder whose name is
not the solution's, and the built vlbench refuses a describe() that names another solution.

Environment (set by ctest): VLBENCH_SOURCE_DIR, VLBENCH_BINARY_DIR.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY_DIR = Path(os.environ.get("VLBENCH_BINARY_DIR", SOURCE_DIR / "build"))
DOC = (SOURCE_DIR / "docs" / "adding-a-solution.md").read_text()
PROJECT = SOURCE_DIR / "tests" / "solution" / "solution_project"


def fenced_block(language, containing):
    """The first ``` block of the page in `language` whose text contains `containing`, without its indentation."""
    for match in re.finditer(r"^( *)```" + language + r"\n(.*?)^ *```", DOC, re.S | re.M):
        indent = len(match.group(1))
        text = "\n".join(line[indent:] for line in match.group(2).splitlines()) + "\n"
        if containing in text:
            return text
    raise AssertionError(f"docs/adding-a-solution.md has no ```{language} block containing {containing!r}")


def cache_value(name):
    cache = (BINARY_DIR / "CMakeCache.txt").read_text()
    found = re.search(rf"^{name}:[A-Z]+=(.*)$", cache, re.M)
    if not found:
        raise AssertionError(f"{BINARY_DIR}/CMakeCache.txt holds no {name}")
    return found.group(1)


def run(command, cwd, env=None, check=True, timeout=1800):
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                            env={**os.environ, **(env or {})}, shell=isinstance(command, str))
    if check and result.returncode != 0:
        raise AssertionError(f"{command} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def follow_the_page(root):
    """Steps 1-3 in a scratch tree `root` that holds the template and links to the rest of the project."""
    shutil.copytree(SOURCE_DIR / "solutions" / "template", root / "solutions" / "template")
    for name in ("harness", "workloads", "cmake"):
        (root / name).symlink_to(SOURCE_DIR / name)
    run(["bash", "-euo", "pipefail", "-c", fenced_block("sh", "cp -r solutions/template")], cwd=root)
    folder = root / "solutions" / "my_kernel"
    (folder / "CMakeLists.txt").write_text(fenced_block("cmake", "vlbench_add_solution"))

    snippet = fenced_block("cpp", "VLBENCH_REGISTER_SOLUTION")
    describe = re.search(r"static SolutionInfo describe\(\) \{\n(.*?)\n\}", snippet, re.S).group(1)
    registration = re.search(r"^VLBENCH_REGISTER_SOLUTION\(.*\);$", snippet, re.M).group(0)
    source = (folder / "my_kernel.cu").read_text()
    source = source.replace("TemplateSolution", "MyKernel")
    source, described = re.subn(r"(static SolutionInfo describe\(\) \{\n).*?(\n  \})",
                                lambda m: m.group(1) + "    " + describe.strip() + m.group(2), source, count=1,
                                flags=re.S)
    source, registered = re.subn(r"^VLBENCH_REGISTER_SOLUTION\(.*\);$", registration, source, flags=re.M)
    assert (described, registered) == (1, 1), "the template no longer has one describe() and one registration line"
    (folder / "my_kernel.cu").write_text(source)
    return folder


def configure(root, folder, build):
    return run(["cmake", "-S", str(PROJECT), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                f"-DCMAKE_CUDA_COMPILER={cache_value('CMAKE_CUDA_COMPILER')}",
                f"-DCUTLASS_DIR={cache_value('CUTLASS_DIR')}",
                f"-DVLBENCH_GPU_TARGETS={cache_value('VLBENCH_GPU_TARGETS')}",
                f"-DVLBENCH_SOURCE_DIR={SOURCE_DIR}", f"-DVLBENCH_BUILD_DIR={BINARY_DIR}",
                f"-DSOLUTION_DIR={folder}"], cwd=root, check=False, timeout=600)


class AddingASolution(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        cls.root = Path(cls.scratch.name)
        cls.folder = follow_the_page(cls.root)
        configured = configure(cls.root, cls.folder, cls.root / "build")
        if configured.returncode != 0:
            raise AssertionError(f"configure failed:\n{configured.stdout}\n{configured.stderr}")
        # Step 4's build (the page builds the whole project; here the project's libraries are already built).
        run(["cmake", "--build", "build", "--target", "vlbench"], cwd=cls.root)
        cls.env = {"VLBENCH_WORKLOADS_DIR": str(cls.root / "workloads")}

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def test_step_4_runs_the_new_solution(self):
        command = re.search(r"`cmake --build build && (build/vlbench [^`]*)`", DOC).group(1)
        result = run(command + " --dry-run", cwd=self.root, env=self.env)
        self.assertIn("would run my_kernel", result.stdout)
        self.assertIn("#15 f36740f8", result.stdout)

    def test_the_new_solution_is_listed_with_its_description(self):
        listing = run("build/vlbench --list", cwd=self.root, env=self.env).stdout
        self.assertRegex(listing, r"my_kernel\s+one line for --list")
        self.assertIn("author: you; targets: sm_90, sm_100", listing)

    def test_the_page_s_other_commands_work_on_it(self):
        for command in re.findall(r"`(vlbench (?:--list|--solution my_kernel|package --solution my_kernel)[^`]*)`", DOC):
            with self.subTest(command=command):
                arguments = command.split()[1:]
                if "package" not in arguments and "--list" not in arguments:
                    arguments.append("--dry-run")
                result = run(["build/vlbench", *arguments], cwd=self.root, env=self.env)
                if "package" in arguments:
                    self.assertTrue((self.root / "my_kernel.solution.json").is_file())
                    self.assertIn("solution 'my_kernel'", result.stdout)

    def test_a_folder_not_named_after_its_solution_stops_cmake(self):
        renamed = self.root / "solutions" / "other_name"
        shutil.copytree(self.folder, renamed)
        configured = configure(self.root, renamed, self.root / "build-renamed")
        self.assertNotEqual(configured.returncode, 0)
        output = configured.stdout + configured.stderr
        self.assertIn("vlbench_add_solution(NAME my_kernel) is in the folder 'other_name'", output)

    def test_a_describe_that_names_another_solution_is_refused_naming_the_folder(self):
        with tempfile.TemporaryDirectory() as other:
            root = Path(other)
            folder = follow_the_page(root)
            source = (folder / "my_kernel.cu").read_text()
            (folder / "my_kernel.cu").write_text(source.replace('.name = "my_kernel"', '.name = "template"'))
            configured = configure(root, folder, root / "build")
            self.assertEqual(configured.returncode, 0, configured.stdout + configured.stderr)
            run(["cmake", "--build", "build", "--target", "vlbench"], cwd=root)
            result = run("build/vlbench --list", cwd=root, env=self.env, check=False)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("names the solution 'template', but its folder", result.stderr)
        self.assertIn("registers it as 'my_kernel'", result.stderr)



class PythonSolutionSection(unittest.TestCase):
    """The page's Python folder and downloaded package, made from its blocks and run with its commands (--dry-run:
    the checks, SOL-ExecBench's models among them, need no GPU; the H200 runs are in results/h200/python/)."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        cls.root = Path(cls.scratch.name)
        cls.folder = cls.root / "solutions" / "my_torch"
        cls.folder.mkdir(parents=True)
        (cls.folder / "solution.json").write_text(fenced_block("json", '"entry_point"'))
        (cls.folder / "main.py").write_text(fenced_block("python", "def run("))
        (cls.root / "build").symlink_to(BINARY_DIR)
        cls.env = {"VLBENCH_SOLUTION_PACKAGES": str(cls.folder)}  # the page: it names folders outside solutions/

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def page_command(self, pattern):
        found = re.search(r"`(build/vlbench --solution " + pattern + r" --case 15)`", DOC)
        self.assertIsNotNone(found, f"the page shows no command for {pattern}")
        return found.group(1)

    def dry_run(self, command, env=None):
        return run(command + " --dry-run", cwd=self.root, env={**self.env, **(env or {})}, check=False)

    def inline_package(self, transform=lambda package: None):
        package = json.loads((self.folder / "solution.json").read_text())
        package["sources"] = [{"path": "main.py", "content": (self.folder / "main.py").read_text()}]
        transform(package)
        (self.root / "my_solution.json").write_text(json.dumps(package))

    def test_the_folder_runs_by_its_name_and_by_its_path(self):
        by_name = self.dry_run(self.page_command("my_torch"))
        self.assertEqual(by_name.returncode, 0, by_name.stdout + by_name.stderr)
        self.assertIn("would run my_torch", by_name.stdout)
        by_path = self.dry_run(self.page_command("path/to/my_torch").replace("path/to/", "solutions/"))
        self.assertEqual(by_path.returncode, 0, by_path.stdout + by_path.stderr)
        self.assertIn("would run", by_path.stdout)

    def test_the_folder_is_listed_with_where_it_comes_from(self):
        listing = run("build/vlbench --list", cwd=self.root, env=self.env).stdout
        self.assertRegex(listing, r"my_torch\s+one line for --list")
        self.assertIn("languages: pytorch", listing)
        self.assertIn(f"from: Python package {self.folder / 'solution.json'}", listing)

    def test_the_downloaded_package_runs_by_its_path(self):
        self.inline_package()
        result = self.dry_run(self.page_command("my_solution.json"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("would run my_torch", result.stdout)

    def test_sol_execbenchs_models_refuse_what_they_refuse_by_field(self):
        def stream_word(package):
            package["sources"][0]["content"] += "\n# the side stream\n"

        def unknown_hardware(package):
            package["spec"]["target_hardware"] = ["H9000"]

        for transform, field in ((stream_word, "sources.0: "), (unknown_hardware, "spec.target_hardware.0: ")):
            with self.subTest(field=field):
                self.inline_package(transform)
                result = self.dry_run("build/vlbench --solution my_solution.json --case 15")
                self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                self.assertIn("SOL-ExecBench's models reject the package", result.stderr)
                self.assertIn(f"my_solution.json: SOL-ExecBench's models reject the package: {field}", result.stderr)

    def test_vlbench_refuses_what_it_cannot_run_by_field(self):
        cases = (
            (lambda p: p["spec"].update(languages=["pytorch", "cuda_cpp"]),
             "spec.languages: mixes the Python group"),
            (lambda p: p["spec"].update(languages=["cuda_cpp"]),
             "spec.entry_point: 'main.py::run' is not of the form '<file>.cu::<function>'"),
            (lambda p: p["spec"].update(entry_point="kernel.py::run"), "its file kernel.py is not among the package's"),
            (lambda p: p["spec"].update(entry_point="main.py"), "spec.entry_point: 'main.py' is not of the form"),
            (lambda p: p.update(definition="rmsnorm"), "definition: 'rmsnorm' is not this suite's definition"),
            (lambda p: p["sources"][0].update(path="../main.py"), "'../main.py' is not a path inside the package"),
            (lambda p: p["sources"][0].pop("content"), "content: required field is missing"),
            (lambda p: p.update(name="my torch"), "name: a solution name has letters"),
        )
        for transform, words in cases:
            with self.subTest(words=words):
                self.inline_package(transform)
                result = self.dry_run("build/vlbench --solution my_solution.json --case 15")
                self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                self.assertIn(words, result.stderr)
                self.assertNotIn("internal error", result.stderr)

    def test_a_python_solution_never_runs_in_vlbenchs_own_process(self):
        result = self.dry_run(self.page_command("my_torch") + " --no-isolation")
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("is a Python package, which runs in its own worker only", result.stderr)
        profiled = run("build/vlbench profile -s my_torch -c 15 --tool ncu -o prof", cwd=self.root, env=self.env,
                       check=False)
        self.assertEqual(profiled.returncode, 2, profiled.stdout + profiled.stderr)
        self.assertIn("vlbench profile run solution code in vlbench's own process", profiled.stderr)

    def test_a_python_that_is_not_there_stops_the_run_before_it_starts(self):
        result = self.dry_run(self.page_command("my_torch"), env={"VLBENCH_PYTHON": str(self.root / "no-python")})
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn("VLBENCH_PYTHON is", result.stderr)
        self.assertIn("which is no file", result.stderr)

    def test_package_writes_the_folder_as_one_file_that_runs_by_its_path(self):
        command = re.search(r"`(build/vlbench package --solution my_torch)`", DOC).group(1)
        written = run(command, cwd=self.root, env=self.env)
        self.assertIn("wrote my_torch.solution.json: solution 'my_torch', 1 source file(s) inline", written.stdout)
        package = json.loads((self.root / "my_torch.solution.json").read_text())
        self.assertEqual(package["sources"], [{"path": "main.py", "content": (self.folder / "main.py").read_text()}])
        result = self.dry_run("build/vlbench --solution my_torch.solution.json --case 15")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        over_source = run("build/vlbench package --solution my_torch -o solutions/my_torch/main.py", cwd=self.root,
                          env=self.env, check=False)
        self.assertEqual(over_source.returncode, 2, over_source.stdout + over_source.stderr)
        self.assertIn("it is also a source of the package", over_source.stderr)


class CppPackageSection(unittest.TestCase):
    """The page's downloaded C++ package: its two commands, the second with --dry-run (the build and the run need
    torch and a GPU; tests/worker/test_python_worker_gpu.py builds and runs one)."""

    def test_a_packaged_compiled_solution_runs_by_its_path(self):
        commands = re.search(r"`(build/vlbench package --solution template -o template.json)`, then\s+"
                             r"`(build/vlbench --solution template.json --case 15)`", DOC)
        self.assertIsNotNone(commands, "the page shows no package-then-run commands for a C++ package")
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            (root / "build").symlink_to(BINARY_DIR)
            run(commands.group(1), cwd=root)
            package = json.loads((root / "template.json").read_text())
            self.assertEqual(package["spec"]["languages"][0], "cuda_cpp")
            result = run(commands.group(2) + " --dry-run", cwd=root, check=False)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("would run template", result.stdout)
            self.assertIn("template is built as a torch extension before its first case", result.stdout)
            listing = run("build/vlbench --list --solution template.json", cwd=root).stdout
            self.assertIn("from: C++ package (built as a torch extension)", listing)


if __name__ == "__main__":
    unittest.main(verbosity=2)
