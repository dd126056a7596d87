#!/usr/bin/env python3
"""plan/build_extension.py, the build of a C++ group package, with a stand-in torch (fake_torch/: its load() writes
what it was asked to build): the flags are upstream's (its CompileOptions defaults, its -gencode injection), the key
follows every input of the build and nothing else, the module is never imported, and a failed build says what the
compiler said. The real build runs on the GPU machine (tests/worker/test_python_worker_gpu.py).
"""
import json
import os
import random
import string
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILDER = SOURCE_DIR / "harness" / "plan" / "build_extension.py"
FAKE_TORCH = Path(__file__).resolve().parent / "fake_torch"


def random_text(rng, length=40):
    return "".join(rng.choice(string.ascii_letters) for _ in range(length))


def package(rng, **spec):
    body = random_text(rng)
    return {"name": "p", "definition": "034_vision_language_cross_attention_fusion", "author": "a",
            "spec": {"languages": ["cuda_cpp"], "target_hardware": ["LOCAL"], "entry_point": "binding.cu::run",
                     **spec},
            "sources": [{"path": "binding.cu", "content": f"// {body}\nint run() {{ return 0; }}\n"},
                        {"path": "include/kernel.cuh", "content": f"// {random_text(rng)}\n"},
                        {"path": "helper.cpp", "content": "int helper() { return 1; }\n"}]}


class BuildExtension(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.folder = Path(self.scratch.name)
        self.rng = random.Random(int.from_bytes(os.urandom(8), "little"))
        self.env = {**os.environ, "PYTHONPATH": str(FAKE_TORCH)}

    def tearDown(self):
        self.scratch.cleanup()

    def builder(self, *arguments, document, env=None):
        path = self.folder / f"package-{self.rng.getrandbits(32)}.json"
        path.write_text(json.dumps(document))
        return subprocess.run([sys.executable, "-B", str(BUILDER), arguments[0], str(path), *arguments[1:]],
                              capture_output=True, text=True, env=env or self.env, timeout=120)

    def key(self, document, capability="90", cutlass="/cutlass"):
        result = self.builder("key", capability, cutlass, document=document)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)["key"]

    def build(self, document, capability="90"):
        out = self.folder / f"build-{self.rng.getrandbits(32)}"
        out.mkdir()
        return self.builder("build", capability, "/cutlass", str(out), document=document), out

    def test_the_key_follows_every_input_of_the_build(self):
        document = package(self.rng)
        key = self.key(document)
        self.assertEqual(self.key(json.loads(json.dumps(document))), key)  # the same package, the same key
        changed_source = json.loads(json.dumps(document))
        changed_source["sources"][1]["content"] += " "
        changed_flags = json.loads(json.dumps(document))
        changed_flags["spec"]["compile_options"] = {"cuda_cflags": ["-O2"]}
        self.assertNotEqual(self.key(changed_source), key)
        self.assertNotEqual(self.key(changed_flags), key)
        self.assertNotEqual(self.key(document, capability="100"), key)
        self.assertNotEqual(self.key(document, cutlass="/other/cutlass"), key)
        renamed = json.loads(json.dumps(document))
        renamed["description"] = random_text(self.rng)  # not an input of the build
        self.assertEqual(self.key(renamed), key)

    def test_the_build_gets_upstreams_flags_and_is_never_imported(self):
        document = package(self.rng)
        result, out = self.build(document)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        built = json.loads((out / "benchmark_kernel.so").read_text())
        self.assertEqual(built["name"], "benchmark_kernel")
        self.assertEqual(built["sources"], ["binding.cu", "helper.cpp"])  # top-level translation units only
        self.assertEqual(built["includes"], [str(out), "/cutlass/include", "/cutlass/tools/util/include"])
        # No compile_options: upstream's build passes no flags, its packager adds the local GPU's architecture.
        self.assertEqual(built["cuda_cflags"], ["-gencode=arch=compute_90,code=sm_90"])
        self.assertEqual((built["cflags"], built["ld_flags"]), ([], []))
        self.assertEqual(json.loads((out / "built.json").read_text())["key"], self.key(document))
        self.assertNotIn("imported", result.stdout + result.stderr)

    def test_compile_options_keep_their_defaults_and_a_named_architecture_is_left_alone(self):
        options = {"cflags": ["-DX=1"]}
        result, out = self.build(package(self.rng, compile_options=options, target_hardware=["B200", "LOCAL"]))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        built = json.loads((out / "benchmark_kernel.so").read_text())
        self.assertEqual(built["cuda_cflags"], ["-gencode=arch=compute_100a,code=sm_100a",
                                                "-gencode=arch=compute_90,code=sm_90", "-O3", "--use_fast_math"])
        self.assertEqual(built["ld_flags"], ["-lcuda"])
        named = {"cuda_cflags": ["-gencode=arch=compute_90a,code=sm_90a"]}
        result, out = self.build(package(self.rng, compile_options=named, target_hardware=["B200"]))
        self.assertEqual(json.loads((out / "benchmark_kernel.so").read_text())["cuda_cflags"], named["cuda_cflags"])

    def test_a_failed_build_says_what_the_compiler_said(self):
        document = package(self.rng)
        document["sources"][0]["content"] += "#error the kernel is not written yet\n"
        result, out = self.build(document)
        self.assertEqual(result.returncode, 1)
        self.assertIn("binding.cu:3: error: #error the kernel is not written yet", result.stdout)
        self.assertIn("the build failed", result.stderr)
        self.assertFalse((out / "built.json").exists())

    def test_a_python_without_torch_cannot_build(self):
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        env["PYTHONPATH"] = str(self.folder)  # no torch there
        result = self.builder("key", "90", "/cutlass", document=package(self.rng), env=env)
        if result.returncode == 0:
            self.skipTest(f"{sys.executable} has a torch of its own")
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn("has no torch", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
