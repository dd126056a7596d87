#!/usr/bin/env python3
"""The Python worker's side of the protocol, without a GPU: the callbacks that libvlbench_python_worker.so calls,
called here through the same ctypes function pointers, on packages written for each test. torch is a recording
double here (the GPU tests run the real one): what matters on this side is which device addresses, shapes and types
reach torch, in which order the entry point gets its tensors, and how every failure of the package's code comes back
(SKIPPED for a missing framework, the traceback's tail for anything else).

Environment (set by ctest): VLBENCH_BINARY_DIR (the build's python_worker/vlbench_python_worker.py).
"""
import ctypes
import importlib.util
import os
import random
import sys
import tempfile
import textwrap
import types
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("VLBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY_DIR = Path(os.environ.get("VLBENCH_BINARY_DIR", SOURCE_DIR / "build"))
PROGRAM = BINARY_DIR / "python_worker" / "vlbench_python_worker.py"
MESSAGE_BYTES = 16384


def load_program():
    spec = importlib.util.spec_from_file_location("vlbench_python_worker", PROGRAM)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


worker = load_program()


class FakeTensor:
    """What torch.as_tensor would return: it remembers the array interface it viewed and every view taken of it."""

    def __init__(self, interface, device):
        self.interface = interface
        self.device = device
        self.dtype = "int16" if interface["typestr"] == "<i2" else "int64"
        self.copied_from = None

    def view(self, dtype):
        viewed = FakeTensor(self.interface, self.device)
        viewed.dtype = dtype
        return viewed

    def copy_(self, source):
        self.copied_from = source


def fake_torch():
    """A torch double that records the calls the worker makes."""
    torch = types.ModuleType("torch")
    torch.bfloat16 = "bfloat16"
    torch.calls = []
    torch.as_tensor = lambda array, device: FakeTensor(dict(array.__cuda_array_interface__), device)

    class NoGrad:
        def __enter__(self):
            torch.calls.append("no_grad")

        def __exit__(self, *exception):
            return False

    torch.no_grad = NoGrad
    cuda = types.SimpleNamespace()
    cuda.set_device = lambda device: torch.calls.append(("set_device", device))
    cuda.ExternalStream = lambda handle, device: ("external", handle, device)
    cuda.set_stream = lambda handle: torch.calls.append(("set_stream", handle))
    torch.cuda = cuda
    return torch


def write_package(folder, source):
    Path(folder, "main.py").write_text(textwrap.dedent(source))


def message_buffer():
    return ctypes.create_string_buffer(MESSAGE_BYTES)


def random_call(rng):
    """A call as the C side fills it: eleven inputs and the output at distinct random addresses, the suite's shapes."""
    batch, lang, vision = rng.randint(1, 4), rng.randint(1, 4000), rng.randint(1, 9000)
    shapes = [(batch, lang, 4096), (batch, vision, 4096), (batch, lang), (batch, vision, 3), (4096, 4096), (4096,),
              (1024, 4096), (1024,), (1024, 4096), (1024,), (4096, 4096), (batch, lang, 4096)]
    types_ = [worker.INT64 if i in (2, 3) else worker.BFLOAT16 for i in range(12)]
    call = worker.Call()
    addresses = rng.sample(range(1 << 20, 1 << 40, 256), 12)
    for i, (shape, dtype) in enumerate(zip(shapes, types_)):
        tensor = call.tensors[i]
        tensor.data, tensor.dtype, tensor.rank = addresses[i], dtype, len(shape)
        for d, extent in enumerate(shape):
            tensor.shape[d] = extent
    return call, addresses, shapes, types_


class PythonWorkerSide(unittest.TestCase):
    def setUp(self):
        self.saved_modules = dict(sys.modules)
        self.saved_path = list(sys.path)
        self.folder = tempfile.mkdtemp(prefix="vlbench-python-worker-")
        self.rng = random.Random(int.from_bytes(os.urandom(8), "little"))
        self.torch = fake_torch()
        sys.modules["torch"] = self.torch
        self.runner = worker.PackageRunner()
        self.callbacks = worker.make_callbacks(self.runner)

    def tearDown(self):
        sys.modules.clear()
        sys.modules.update(self.saved_modules)
        sys.path[:] = self.saved_path

    def load(self, entry_point="main.py::run", destination_passing_style=1, stream_handle=0x7F00, extension=""):
        message = message_buffer()
        status = self.callbacks.load(self.folder.encode(), entry_point.encode(), extension.encode(),
                                     destination_passing_style, 0, stream_handle, message, len(message))
        return status, message.value.decode()

    def prepare(self, call):
        message = message_buffer()
        return self.callbacks.prepare(ctypes.pointer(call), message, len(message)), message.value.decode()

    def call_entry(self):
        message = message_buffer()
        return self.callbacks.run(message, len(message)), message.value.decode()

    def test_the_structures_have_the_c_layout(self):
        # python_worker.hpp: uint64, int32, int32, int64[3] (no padding); twelve of them.
        self.assertEqual(ctypes.sizeof(worker.Tensor), 40)
        self.assertEqual(worker.Tensor.shape.offset, 16)
        self.assertEqual(ctypes.sizeof(worker.Call), 12 * 40)
        self.assertEqual(len(worker.TENSOR_NAMES), 12)
        self.assertEqual(worker.TENSOR_NAMES[-1], "output")

    def test_the_entry_point_gets_views_of_the_judges_buffers_in_the_definitions_order(self):
        write_package(self.folder, """
            received = []
            def run(*tensors):
                received.append(tensors)
        """)
        self.assertEqual(self.load(stream_handle=0x5A5A00), (worker.LOADED, ""))
        self.assertIn(("set_device", 0), self.torch.calls)
        self.assertIn(("set_stream", ("external", 0x5A5A00, 0)), self.torch.calls)
        call, addresses, shapes, types_ = random_call(self.rng)
        self.assertEqual(self.prepare(call), (worker.LOADED, ""))
        self.assertEqual(self.call_entry(), (worker.LOADED, ""))
        received = sys.modules["main"].received
        self.assertEqual(len(received), 1)
        tensors = received[0]
        self.assertEqual(len(tensors), 12)
        for tensor, address, shape, dtype in zip(tensors, addresses, shapes, types_):
            self.assertEqual(tensor.interface["data"], (address, False))
            self.assertEqual(tensor.interface["shape"], shape)
            self.assertIsNone(tensor.interface["strides"])  # contiguous, row-major
            self.assertEqual(tensor.dtype, "bfloat16" if dtype == worker.BFLOAT16 else "int64")
            self.assertEqual(tensor.device, "cuda:0")
        self.assertIn("no_grad", self.torch.calls)

    def test_every_call_gets_its_own_tensors(self):
        write_package(self.folder, """
            received = []
            def run(*tensors):
                received.append(tensors[-1].interface["data"][0])
        """)
        self.assertEqual(self.load()[0], worker.LOADED)
        outputs = []
        for _ in range(3):
            call, addresses, _, _ = random_call(self.rng)
            outputs.append(addresses[-1])
            self.prepare(call)
            self.call_entry()
        self.assertEqual(sys.modules["main"].received, outputs)

    def test_an_entry_point_that_returns_its_output_has_it_copied_into_the_harnesss(self):
        write_package(self.folder, """
            def run(*inputs):
                assert len(inputs) == 11
                return ("returned", inputs[0].interface["data"][0])
        """)
        self.assertEqual(self.load(destination_passing_style=0)[0], worker.LOADED)
        call, addresses, _, _ = random_call(self.rng)
        self.prepare(call)
        self.assertEqual(self.call_entry(), (worker.LOADED, ""))
        self.assertEqual(self.runner.arguments[-1].copied_from, ("returned", addresses[0]))

    def test_an_exception_in_the_entry_point_comes_back_with_its_traceback(self):
        write_package(self.folder, """
            def run(*tensors):
                return helper()

            def helper():
                return 1 / 0
        """)
        self.assertEqual(self.load()[0], worker.LOADED)
        self.prepare(random_call(self.rng)[0])
        status, message = self.call_entry()
        self.assertEqual(status, worker.FAILED)
        self.assertTrue(message.startswith("the entry point raised:"), message)
        self.assertIn("ZeroDivisionError: division by zero", message)
        self.assertIn("in helper", message)
        self.assertIn("main.py", message)

    def test_a_missing_torch_is_unsupported_with_the_python_named(self):
        sys.modules["torch"] = None  # import torch raises ModuleNotFoundError
        write_package(self.folder, "def run(*tensors):\n    pass\n")
        status, message = self.load()
        self.assertEqual(status, worker.UNSUPPORTED)
        self.assertIn(sys.executable, message)
        self.assertIn("no torch", message)
        self.assertIn("VLBENCH_PYTHON", message)

    def test_a_missing_triton_is_unsupported_and_a_missing_module_of_the_package_a_failure(self):
        sys.modules["triton"] = None
        write_package(self.folder, "import triton\ndef run(*tensors):\n    pass\n")
        status, message = self.load()
        self.assertEqual(status, worker.UNSUPPORTED)
        self.assertIn("needs triton", message)
        sys.modules.pop("main", None)
        write_package(self.folder, "import helpers_the_package_forgot\ndef run(*tensors):\n    pass\n")
        status, message = self.load()
        self.assertEqual(status, worker.FAILED)
        self.assertIn("loading the package raised:", message)
        self.assertIn("No module named 'helpers_the_package_forgot'", message)

    def test_the_packages_own_modules_import_from_its_folder(self):
        Path(self.folder, "kernels.py").write_text("def scale():\n    return 7\n")
        write_package(self.folder, "import kernels\nSCALE = kernels.scale()\ndef run(*tensors):\n    pass\n")
        self.assertEqual(self.load()[0], worker.LOADED)
        self.assertEqual(sys.modules["main"].SCALE, 7)

    def test_a_cpp_packages_function_comes_from_its_built_module_not_its_entry_file(self):
        # The built module stands in as a Python file: the worker imports whatever path the judge names, as
        # upstream's evaluator imports benchmark_kernel.so.
        built = Path(self.folder, "built", "benchmark_kernel.py")
        built.parent.mkdir()
        marker = self.rng.getrandbits(48)
        built.write_text(f"MARKER = {marker}\ndef run(*tensors):\n    tensors[-1].copy_(MARKER)\n")
        Path(self.folder, "binding.cu").write_text("// never imported\n")
        self.assertEqual(self.load("binding.cu::run", extension=str(built))[0], worker.LOADED)
        call = random_call(self.rng)[0]
        self.assertEqual(self.prepare(call)[0], worker.LOADED)
        self.assertEqual(self.call_entry()[0], worker.LOADED)
        self.assertEqual(self.runner.arguments[-1].copied_from, marker)
        status, message = self.load("binding.cu::forward", extension=str(built))
        self.assertEqual(status, worker.FAILED)
        self.assertIn("defines no function 'forward'", message)

    def test_compile_caches_go_to_the_packages_shared_folder_and_the_rest_to_scratch(self):
        saved = dict(os.environ)
        try:
            worker.use_scratch("/scratch", "/shared")
            self.assertEqual(os.environ["TMPDIR"], "/scratch")
            self.assertEqual(os.environ["TRITON_CACHE_DIR"], "/shared/triton")
            self.assertEqual(os.environ["TORCHINDUCTOR_CACHE_DIR"], "/shared/inductor")
            worker.use_scratch("/scratch", "")
            self.assertEqual(os.environ["TRITON_CACHE_DIR"], "/scratch/triton")
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def test_an_entry_function_that_is_not_there_fails_the_load_by_name(self):
        write_package(self.folder, "def kernel(*tensors):\n    pass\n")
        status, message = self.load("main.py::forward")
        self.assertEqual(status, worker.FAILED)
        self.assertIn("defines no function 'forward'", message)

    def test_a_package_that_exits_at_import_fails_its_case_only(self):
        write_package(self.folder, "import sys\nsys.exit(3)\n")
        status, message = self.load()
        self.assertEqual(status, worker.FAILED)
        self.assertIn("SystemExit: 3", message)

    def test_a_long_message_is_cut_to_the_buffer_on_a_character_boundary(self):
        buffer = ctypes.create_string_buffer(64)
        text = "é" * 100
        worker.write_message(ctypes.cast(buffer, worker.MessageBuffer), len(buffer), text)
        written = buffer.value
        self.assertLessEqual(len(written), 63)
        self.assertEqual(written.decode("utf-8"), "é" * (len(written) // 2))  # whole characters only

    def test_the_program_refuses_a_hand_start_and_an_old_python(self):
        self.assertEqual(worker.main(["vlbench_python_worker.py"]), 2)
        self.assertEqual(worker.MINIMUM_PYTHON, (3, 10))


if __name__ == "__main__":
    if not PROGRAM.is_file():
        print(f"SKIPPED: {PROGRAM} is not built")
        sys.exit(77)
    unittest.main(verbosity=2)
