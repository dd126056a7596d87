"""The shell commands that README.md, docs/*.md and `vlbench --help` show, and the folder they are run in.

A command is a line of a ```sh (or unlabelled) code block, or an inline `code span` that is a whole command (a program
with arguments), that starts with vlbench, build/vlbench, scripts/..., python3 scripts/..., cmake or pip; lines joined
by && are one command of several steps. Syntax descriptions, with placeholders or optional parts in brackets
(`vlbench --json PATH`, `compare A.json B.json [--json]`), are not commands; OUT_DIR is, and stands for a folder. docs/adding-a-solution.md is followed and run by
tests/solution/test_adding_a_solution.py, which builds the solution it describes.

Each step is classified (how_to_run): a vlbench command that needs no GPU runs as written; a run of a solution runs
with --dry-run on the CPU and as written on the GPU; scripts run as written where they need no GPU. The folder
(make_user_folder) is what a user has after following the README: build/vlbench, copies of scripts/ and workloads/
(so nothing a command writes reaches the repository; harness/ and solutions/ are linked, for `vlbench package`),
results files, and the files the docs' examples name.
"""
import json
import os
import random
import re
import shutil
import struct
import subprocess
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY_DIR = Path(os.environ.get("VLBENCH_BINARY_DIR", SOURCE_DIR / "build"))
VLBENCH = Path(os.environ.get("VLBENCH_BINARY", BINARY_DIR / "vlbench"))
DOCUMENTS = [SOURCE_DIR / "README.md"] + sorted(p for p in (SOURCE_DIR / "docs").glob("*.md")
                                               if p.name != "adding-a-solution.md")
COMMAND_START = re.compile(r"^(?:(?:build/)?vlbench|scripts/\S+|python3 scripts/\S+|cmake|pip install)(?: |$)")
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]{2,}\b")
FOLDER_PLACEHOLDERS = {"OUT_DIR": "out"}

# How each kind of step runs.
CPU = "cpu"            # as written, no GPU needed
DRY_RUN = "dry-run"    # a run of a solution: --dry-run on the CPU, as written on the GPU
GPU = "gpu"            # needs a GPU (and torch where it is Python): as written, on the GPU only
CI = "ci"              # configures, builds or tests the project itself: what .ci/run does (checked, not re-run)
INSTALL = "install"    # pip install X: checked by importing X (scripts/setup.sh installs it for the tests)
ENCLOSING = "enclosing"  # scripts/run_gpu_checks.sh: runs ctest -L gpu, this test's GPU half among them (neither runs it)
SLURM = "slurm"        # scripts/slurm/: needs a Slurm cluster; tests/slurm runs it on a single-node Slurm of its own


def fenced_commands(text):
    for match in re.finditer(r"^ *```(\w*)\n(.*?)^ *```", text, re.S | re.M):
        if match.group(1) not in ("", "sh", "bash"):
            continue
        first_line = text[:match.start(2)].count("\n") + 1
        for offset, line in enumerate(match.group(2).splitlines()):
            command = re.split(r"\s+# ", line.strip())[0].strip()
            if COMMAND_START.match(command):
                yield first_line + offset, command


def inline_commands(text):
    for match in re.finditer(r"`([^`\n]+)`", text):
        command = match.group(1).strip()
        words = command.split()
        if not COMMAND_START.match(command) or len(words) < 2:
            continue
        if words[0] in ("vlbench", "build/vlbench") and len(words) == 2 and not words[1].startswith("-"):
            continue  # the name of a subcommand (`vlbench export`), not a command
        if any(p not in FOLDER_PLACEHOLDERS for p in PLACEHOLDER.findall(command)) or \
                re.search(r"\[.*\]|\.\.\.", command):
            continue  # a syntax description (`vlbench --json PATH`, `compare A.json B.json [--json]`, `merge A B ...`)
        yield text[:match.start()].count("\n") + 1, command


HELP_COMMANDS = ("compare", "export", "package", "merge", "show", "profile", "help")


def help_examples(command=None):
    """The examples `vlbench --help` (or `vlbench COMMAND --help`) ends with."""
    arguments = [str(VLBENCH)] + ([command] if command else []) + ["--help"]
    output = subprocess.run(arguments, capture_output=True, text=True, check=True).stdout
    examples = output.split("Examples:\n", 1)[1]
    return [line.strip() for line in examples.splitlines() if line.strip().startswith("vlbench")]


def documented_commands():
    """[(where, command)] in document order; `where` is 'README.md:33' or 'vlbench --help'."""
    found = []
    for document in DOCUMENTS:
        text = document.read_text()
        name = document.relative_to(SOURCE_DIR)
        lines = sorted(set(fenced_commands(text)) | set(inline_commands(text)))
        found += [(f"{name}:{line}", command) for line, command in lines]
    found += [("vlbench --help", command) for command in help_examples()]
    for name in HELP_COMMANDS:
        found += [(f"vlbench {name} --help", command) for command in help_examples(name)]
    return found


def same_command(step):
    """build/vlbench ... and vlbench ... are one command (vlbench on PATH is build/vlbench)."""
    return re.sub(r"^build/vlbench\b", "vlbench", step)


def steps(command):
    return [step.strip() for step in command.split("&&")]


def how_to_run(step):
    words = step.split()
    if words[0] in ("vlbench", "build/vlbench"):
        arguments = words[1:]
        if arguments and arguments[0] == "profile" and "--help" not in arguments:
            return GPU  # a profiler and a GPU: the GPU half runs it
        if not arguments or arguments[0] in HELP_COMMANDS or \
                {"--list", "--help", "--version", "--dry-run"} & set(arguments):
            return CPU
        return DRY_RUN
    if words[0] == "cmake":
        return CI
    if words[0] == "pip":
        return INSTALL
    script = words[1] if words[0] == "python3" else words[0]
    if script == "scripts/run_gpu_checks.sh":
        return ENCLOSING
    if script.startswith("scripts/slurm/"):
        return SLURM
    if script == "scripts/pytorch_baseline.py" or (script == "scripts/upstream_check.sh" and words[1:2] == ["run"]):
        return GPU
    if script.startswith("scripts/"):
        return CPU
    raise ValueError(f"no rule for the documented step {step!r}: add one to tests/docs/documented_commands.py")


def cache_value(name):
    cache = (BINARY_DIR / "CMakeCache.txt").read_text()
    found = re.search(rf"^{name}:[A-Z]+=(.*)$", cache, re.M)
    return found.group(1) if found else ""


def python_path():
    """The Python packages scripts/setup.sh installed into third_party/python (pydantic, matplotlib), for the tests'
    own imports (the documented commands run without it)."""
    parts = [str(SOURCE_DIR / "third_party" / "python")]
    return os.pathsep.join(parts + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))


def bf16_bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0] >> 16  # truncation: any bf16 value will do


def write_safetensors(path, tensors):
    """A safetensors file (the format the `safetensors` package writes): {name: (dtype, shape, little-endian bytes)}."""
    header, blobs, offset = {}, [], 0
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(blobs))


def cross_check_inputs(folder, seed):
    """inputs/my_case.safetensors as docs/python-cross-check.md makes it with PyTorch (B=1, Lq=64, Lv=196)."""
    rng = random.Random(seed)
    lang = struct.pack(f"<{64 * 4096}H", *(bf16_bits(rng.gauss(0.0, 1.0)) for _ in range(64 * 4096)))
    pos = struct.pack("<64q", *range(64))
    thw = struct.pack(f"<{196 * 3}q", *(v for i in range(196) for v in (i // 196, (i % 196) // 14, i % 14)))
    write_safetensors(folder / "inputs" / "my_case.safetensors",
                      {"lang": ("BF16", [1, 64, 4096], lang), "pos": ("I64", [1, 64], pos),
                       "thw": ("I64", [1, 196, 3], thw)})


def write_shards(results_file, folder, names):
    """The results of one run split case by case into len(names) files, as shards of it would have written them."""
    run = json.loads(Path(results_file).read_text())
    for position, name in enumerate(names):
        cases = run["cases"][position::len(names)]
        passed = sum(case["status"] == "PASSED" for case in cases)  # the template's run: every case PASSED
        summary = dict(run["summary"], cases=len(cases), passed=passed, failed=len(cases) - passed, skipped=0)
        shard = dict(run, cases=cases, summary=summary)
        (Path(folder) / name).write_text(json.dumps(shard, indent=2))


def make_user_folder(folder, seed, with_prepared_upstream_check=False):
    """A folder as a user's checkout looks after the README's first steps, with the files the docs' examples use.
    with_prepared_upstream_check: link the repository's .whl and .carry (what `scripts/upstream_check.sh prepare`
    left there), for the GPU half; the CPU half prepares its own."""
    folder = Path(folder)
    (folder / "build").symlink_to(BINARY_DIR)  # build/vlbench, and what scripts/run_gpu_checks.sh runs ctest in
    for name in ("scripts", "workloads"):
        shutil.copytree(SOURCE_DIR / name, folder / name, symlinks=True)
    for name in ("harness", "solutions"):  # what `vlbench package` reads
        (folder / name).symlink_to(SOURCE_DIR / name)
    linked = ("third_party", ".whl", ".carry") if with_prepared_upstream_check else ("third_party",)
    for name in linked:
        if (SOURCE_DIR / name).exists():
            (folder / name).symlink_to(SOURCE_DIR / name)
    results = folder / "results"
    shutil.copytree(SOURCE_DIR / "results" / "h200", results / "h200")
    for name in ("run.json", "template.json"):
        shutil.copy(SOURCE_DIR / "results" / "h200" / "template.json", results / name)
    shutil.copy(SOURCE_DIR / "results" / "h200" / "reference.json", results / "reference.json")
    for name in ("A.json", "B.json"):
        shutil.copy(SOURCE_DIR / "results" / "h200" / "template.json", folder / name)
    write_shards(SOURCE_DIR / "results" / "h200" / "template.json", folder, ("shard-0.json", "shard-1.json"))
    official = [line for line in (SOURCE_DIR / "workloads" / "workloads.jsonl").read_text().splitlines() if line]
    (folder / "path" / "to").mkdir(parents=True)
    (folder / "path" / "to" / "my_cases.jsonl").write_text(official[15] + "\n" + official[8] + "\n")
    # docs/python-cross-check.md: its workload line, as the page shows it, and the tensors its PyTorch code saves.
    page = (SOURCE_DIR / "docs" / "python-cross-check.md").read_text()
    (folder / "my.jsonl").write_text(re.search(r"```json\n(.*?my-case-0001.*?)\n```", page, re.S).group(1) + "\n")
    cross_check_inputs(folder, seed)
    (folder / "out").mkdir()
    return folder


def environment(folder):
    """What a user's shell has after the README's two set-up commands: vlbench on PATH, the user folder's workloads.
    No PYTHONPATH: a script that needs what scripts/setup.sh installed into third_party/python finds it itself."""
    tools = Path(folder) / ".tools"
    tools.mkdir(exist_ok=True)
    if not (tools / "vlbench").exists():
        (tools / "vlbench").symlink_to(VLBENCH)
    env = dict(os.environ)
    env["PATH"] = f"{tools}{os.pathsep}{env.get('PATH', '')}"
    env["VLBENCH_WORKLOADS_DIR"] = str(Path(folder) / "workloads")
    env.pop("PYTHONPATH", None)
    if cache_value("CUTLASS_DIR"):
        env["CUTLASS_DIR"] = cache_value("CUTLASS_DIR")
    return env


def run_step(step, folder, dry_run=False, timeout=1800):
    for placeholder, value in FOLDER_PLACEHOLDERS.items():
        step = re.sub(rf"\b{placeholder}\b", value, step)
    if dry_run:
        step += " --dry-run"
    return subprocess.run(["bash", "-c", step], cwd=folder, env=environment(folder), capture_output=True, text=True,
                          timeout=timeout)
