"""Builds a SOL-ExecBench C++ group package as a torch extension, the way upstream's build step does
(sol_execbench/driver/templates/build_ext.py): its sources written into one folder, the .cu/.cpp/.cc/.cxx/.c files at
that folder's top compiled with torch.utils.cpp_extension, the folder and CUTLASS on the include path, the package's
compile_options as the flags, -gencode flags added for the target hardware when the package names none.

    python3 build_extension.py key PACKAGE_JSON COMPUTE_CAPABILITY CUTLASS_DIR
        one JSON line on stdout: {"key": the content hash of everything the build depends on, "torch": version}
    python3 build_extension.py build PACKAGE_JSON COMPUTE_CAPABILITY CUTLASS_DIR FOLDER
        builds FOLDER/benchmark_kernel.so (FOLDER empty and the only place it may write), then FOLDER/built.json

COMPUTE_CAPABILITY is the GPU's as one number (90 for sm_90); CUTLASS_DIR holds include/cutlass (upstream's
$CUTLASS_DIR).

Unlike upstream, the module is never imported here: the package's code first runs in vlbench's sandboxed worker.
Exit codes: 0 built (or keyed), 1 the build failed (the compiler's output is on stdout/stderr), 2 a bad call,
3 this Python cannot build extensions (no torch, or no CUDA build of it): the reason on stderr.
"""
import hashlib
import json
import os
import sys
import time

BUILDER_VERSION = 1  # part of the key: a change here rebuilds every cached package
MODULE = "benchmark_kernel"
TRANSLATION_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c")
# SOL-ExecBench's CompileOptions defaults, for a compile_options object that leaves a list out.
DEFAULT_CUDA_CFLAGS = ["-O3", "--use_fast_math"]
DEFAULT_LD_FLAGS = ["-lcuda"]


def flags_of(spec, compute_capability):
    """cflags, cuda_cflags, ld_flags as upstream passes them, with its -gencode injection (problem_packager.py):
    sm_100a for a B200 target, the local GPU's sm_XY for LOCAL, when the package names no architecture itself."""
    options = spec.get("compile_options")
    if options is None:
        cflags, cuda_cflags, ld_flags = [], [], []
    else:
        cflags = list(options.get("cflags", []))
        cuda_cflags = list(options.get("cuda_cflags", DEFAULT_CUDA_CFLAGS))
        ld_flags = list(options.get("ld_flags", DEFAULT_LD_FLAGS))
    if not any("-gencode" in flag or "-arch" in flag for flag in cuda_cflags):
        hardware = {name.upper() for name in spec.get("target_hardware", [])}
        targets = []
        if "B200" in hardware:
            targets.append("sm_100a")
        if "LOCAL" in hardware:
            targets.append(f"sm_{compute_capability}")
        gencodes = [f"-gencode=arch=compute_{t[3:]},code={t}" for t in dict.fromkeys(targets)]
        cuda_cflags = gencodes + cuda_cflags
    return cflags, cuda_cflags, ld_flags


def import_torch_builder():
    try:
        import torch
        import torch.utils.cpp_extension as extension
    except ModuleNotFoundError as missing:
        print(f"{sys.executable} has no torch ({missing}): set VLBENCH_PYTHON to a Python with torch, which builds "
              "C++ packages", file=sys.stderr)
        sys.exit(3)
    if torch.version.cuda is None:
        print(f"{sys.executable}'s torch {torch.__version__} is not a CUDA build: it cannot build CUDA extensions",
              file=sys.stderr)
        sys.exit(3)
    return torch, extension


def build_key(package, compute_capability, cutlass_dir, torch):
    """The hash of everything the built module depends on: the sources, the flags, the toolchain's versions."""
    cflags, cuda_cflags, ld_flags = flags_of(package["spec"], compute_capability)
    sources = sorted((source["path"], source["content"]) for source in package["sources"])
    material = {"builder": BUILDER_VERSION, "sources": sources, "cflags": cflags, "cuda_cflags": cuda_cflags,
                "ld_flags": ld_flags, "python": sys.version, "executable": sys.executable,
                "torch": torch.__version__, "cuda": torch.version.cuda, "cutlass_dir": cutlass_dir,
                "cuda_home": os.environ.get("CUDA_HOME", "")}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]


def write_sources(package, folder):
    for source in package["sources"]:
        path = os.path.join(folder, source["path"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(source["content"])


def build(package, compute_capability, cutlass_dir, folder, torch, extension):
    write_sources(package, folder)
    sources = sorted(os.path.join(folder, name) for name in os.listdir(folder)
                     if name.endswith(TRANSLATION_UNITS) and os.path.isfile(os.path.join(folder, name)))
    if not sources:
        print("the package has no .cu/.cpp/.cc/.cxx/.c file at its top: SOL-ExecBench's build compiles only those",
              file=sys.stderr)
        return 1
    cflags, cuda_cflags, ld_flags = flags_of(package["spec"], compute_capability)
    includes = [folder, os.path.join(cutlass_dir, "include"), os.path.join(cutlass_dir, "tools", "util", "include")]
    # The build only: torch's loader would import the module here, outside the sandbox.
    extension._import_module_from_library = lambda *arguments, **keywords: None
    started = time.monotonic()
    try:
        extension.load(name=MODULE, sources=sources, extra_cflags=cflags, extra_cuda_cflags=cuda_cflags,
                       extra_ldflags=ld_flags, extra_include_paths=includes, build_directory=folder, verbose=True)
    except Exception as error:  # the compiler's output is above, on stdout/stderr
        print(f"the build failed: {error}", file=sys.stderr)
        return 1
    built = [name for name in os.listdir(folder) if name.startswith(MODULE) and name.endswith(".so")]
    if not built:
        print(f"the build produced no {MODULE}*.so", file=sys.stderr)
        return 1
    if f"{MODULE}.so" not in built:
        os.rename(os.path.join(folder, built[0]), os.path.join(folder, f"{MODULE}.so"))
    record = {"key": build_key(package, compute_capability, cutlass_dir, torch),
              "build_s": round(time.monotonic() - started, 3), "torch": torch.__version__, "sources": len(sources)}
    with open(os.path.join(folder, "built.json"), "w", encoding="utf-8") as out:
        json.dump(record, out)
    print(json.dumps(record))
    return 0


def main(argv):
    if len(argv) < 5 or argv[1] not in ("key", "build") or (argv[1] == "build") != (len(argv) == 6):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[2], encoding="utf-8") as file:
        package = json.load(file)
    compute_capability, cutlass_dir = argv[3], argv[4]
    torch, extension = import_torch_builder()
    if argv[1] == "key":
        key = build_key(package, compute_capability, cutlass_dir, torch)
        print(json.dumps({"key": key, "torch": torch.__version__}))
        return 0
    os.environ["TMPDIR"] = argv[5]  # the compilers' temporary files, where the build may write
    return build(package, compute_capability, cutlass_dir, argv[5], torch, extension)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
