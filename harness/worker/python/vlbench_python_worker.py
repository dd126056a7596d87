"""vlbench's Python worker: the process in which a Python solution package runs, started by vlbench only.

    python3 vlbench_python_worker.py --serve SCRATCH DEVICE [SHARED_CACHE]

The judge's channel is descriptor 3 and the handshake page descriptor 4, as for vlbench-worker. This program loads
libvlbench_python_worker.so (beside it), which runs the same worker session as vlbench-worker: it maps the judge's
buffers, enters the sandbox, and runs every call between the judge's go and done with the same timer. This side only
opens the package (its entry file, or the module vlbench built of a C++ package) and makes each call: the tensors it
hands the entry point are views of the judge's own device buffers (zero copy, through the CUDA array interface), and
the worker's stream is torch's current stream, so the L2 flush, the poisoned output and the timing are those of a
compiled solution.

Runs under any CPython 3.10 or newer; torch is imported when a package is loaded, never before the sandbox.
"""
import ctypes
import importlib.util
import os
import sys
import tempfile
import traceback

MINIMUM_PYTHON = (3, 10)
ABI_SUFFIX = "-python-2"  # python_worker.cpp's vlbench_python_abi() ends with it
LIBRARY = "libvlbench_python_worker.so"
CHANNEL_FD, HANDSHAKE_FD = 3, 4
LOADED, UNSUPPORTED, FAILED = 0, 1, 2
TRACEBACK_LINES = 12
# Frameworks a package may need that a machine may lack: their absence is a SKIPPED, not a failure.
OPTIONAL_FRAMEWORKS = ("torch", "triton", "cutlass", "cuda", "cudnn", "cuda_tile")
# The definition's inputs in its order, then the output (python_worker.hpp's VlbPyCall).
TENSOR_NAMES = ("language_hidden_states", "vision_hidden_states", "language_position_ids", "vision_grid_thw",
                "q_proj_weight", "q_proj_bias", "k_proj_weight", "k_proj_bias", "v_proj_weight", "v_proj_bias",
                "o_proj_weight", "output")
BFLOAT16, INT64 = 0, 1


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 3)]


class Call(ctypes.Structure):
    _fields_ = [("tensors", Tensor * len(TENSOR_NAMES))]


MessageBuffer = ctypes.POINTER(ctypes.c_char)
LoadFunction = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                ctypes.c_int, ctypes.c_uint64, MessageBuffer, ctypes.c_size_t)
PrepareFunction = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Call), MessageBuffer, ctypes.c_size_t)
RunFunction = ctypes.CFUNCTYPE(ctypes.c_int, MessageBuffer, ctypes.c_size_t)


class Callbacks(ctypes.Structure):
    _fields_ = [("load", LoadFunction), ("prepare", PrepareFunction), ("run", RunFunction)]


def write_message(buffer, size, text):
    """`text` into the C side's buffer, NUL-terminated, cut at a character boundary where it does not fit."""
    data = text.encode("utf-8", "replace")[: max(size - 1, 0)].decode("utf-8", "ignore").encode("utf-8")
    ctypes.memmove(buffer, data, len(data))
    buffer[len(data)] = b"\0"


def traceback_tail(error):
    """The last lines of `error`'s traceback: where it was raised and what it says."""
    lines = "".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip().splitlines()
    return "\n".join(lines[-TRACEBACK_LINES:])


class DeviceArray:
    """A device buffer as the CUDA array interface describes it (version 3), for torch.as_tensor to view."""

    def __init__(self, address, shape, typestr):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (address, False),
                                         "version": 3, "strides": None}


class PackageRunner:
    """One package's entry point, called once per call the judge prepares."""

    def __init__(self):
        self.torch = None
        self.function = None
        self.destination_passing_style = True
        self.device = 0
        self.worker_stream = None
        self.arguments = None

    def load(self, folder, entry_point, extension, destination_passing_style, device, stream_handle):
        """LOADED, or UNSUPPORTED with the reason; raises what the package's own code raised. `extension` is a C++
        group package's built module (the entry point's function is its binding's), or empty."""
        try:
            import torch
        except ModuleNotFoundError as missing:
            return UNSUPPORTED, f"{sys.executable} has no torch ({missing}): set VLBENCH_PYTHON to a Python with it"
        self.torch = torch
        self.device = device
        self.destination_passing_style = bool(destination_passing_style)
        torch.cuda.set_device(device)
        self.worker_stream = torch.cuda.ExternalStream(stream_handle, device=device)
        torch.cuda.set_stream(self.worker_stream)
        file_name, function_name = entry_point.split("::")
        try:
            module = import_extension(extension) if extension else import_entry_file(folder, file_name)
        except ModuleNotFoundError as missing:
            if (missing.name or "").split(".")[0] in OPTIONAL_FRAMEWORKS:
                return UNSUPPORTED, f"the package needs {missing.name}, which {sys.executable} lacks ({missing})"
            raise
        function = getattr(module, function_name, None)
        if not callable(function):
            raise LookupError(f"{file_name} defines no function '{function_name}' (its entry point is {entry_point})")
        self.function = function
        return LOADED, ""

    def prepare(self, call):
        """The call's tensors: views of the judge's buffers, made before the call's go (outside the timing)."""
        torch = self.torch
        arguments = []
        for tensor in call.tensors:
            shape = tuple(tensor.shape[d] for d in range(tensor.rank))
            if tensor.dtype == BFLOAT16:  # the interface has no bfloat16: 16-bit integers, viewed as bfloat16
                view = torch.as_tensor(DeviceArray(tensor.data, shape, "<i2"), device=f"cuda:{self.device}")
                arguments.append(view.view(torch.bfloat16))
            else:
                arguments.append(torch.as_tensor(DeviceArray(tensor.data, shape, "<i8"), device=f"cuda:{self.device}"))
        self.arguments = arguments
        torch.cuda.set_stream(self.worker_stream)

    def run(self):
        """The entry point on the call's tensors: the output written in place (or returned, then copied into it)."""
        *inputs, output = self.arguments
        with self.torch.no_grad():
            if self.destination_passing_style:
                self.function(*inputs, output)
            else:
                output.copy_(self.function(*inputs))


def import_entry_file(folder, file_name):
    """The package's entry file as a module, with its folder first on sys.path for its own imports."""
    if folder not in sys.path:
        sys.path.insert(0, folder)
    path = os.path.join(folder, file_name)
    module_name = os.path.splitext(file_name)[0].replace(os.sep, ".")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def import_extension(path):
    """A built torch extension, imported as upstream's evaluator imports benchmark_kernel.so."""
    spec = importlib.util.spec_from_file_location("benchmark_kernel", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import the built module {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_callbacks(runner):
    """The three C callbacks over `runner`; each turns a Python exception into FAILED with its traceback's tail."""

    def load(folder, entry_point, extension, destination_passing_style, device, stream_handle, message, size):
        try:
            status, text = runner.load(folder.decode(), entry_point.decode(), extension.decode(),
                                       destination_passing_style, device, stream_handle)
            write_message(message, size, text)
            return status
        except BaseException as error:  # everything the package's import may raise, SystemExit included
            write_message(message, size, f"loading the package raised:\n{traceback_tail(error)}")
            return FAILED

    def prepare(call, message, size):
        try:
            runner.prepare(call.contents)
            return LOADED
        except BaseException as error:
            write_message(message, size, f"making the call's tensors raised:\n{traceback_tail(error)}")
            return FAILED

    def run(message, size):
        try:
            runner.run()
            return LOADED
        except BaseException as error:
            write_message(message, size, f"the entry point raised:\n{traceback_tail(error)}")
            return FAILED

    return Callbacks(LoadFunction(load), PrepareFunction(prepare), RunFunction(run))


def use_scratch(scratch, shared_cache):
    """Every cache and temporary file a framework writes goes where the sandbox lets the worker write: compile caches
    (Triton's, Inductor's) to the package's shared cache, which its later cases' workers find again, when there is
    one; the rest to the worker's own scratch folder."""
    caches = shared_cache or scratch
    folders = (("TMPDIR", scratch, ""), ("TRITON_CACHE_DIR", caches, "triton"),
               ("TORCHINDUCTOR_CACHE_DIR", caches, "inductor"), ("XDG_CACHE_HOME", scratch, "cache"),
               ("CUDA_CACHE_PATH", caches, "cuda-cache"))
    for variable, root, sub_folder in folders:
        os.environ[variable] = os.path.join(root, sub_folder) if sub_folder else root
    tempfile.tempdir = None


def main(argv):
    if len(argv) not in (4, 5) or argv[1] != "--serve":
        print("vlbench_python_worker.py is started by vlbench, not by hand:\n"
              "  python3 vlbench_python_worker.py --serve SCRATCH DEVICE [SHARED_CACHE]", file=sys.stderr)
        return 2
    if sys.version_info < MINIMUM_PYTHON:
        print(f"vlbench's Python worker needs CPython {MINIMUM_PYTHON[0]}.{MINIMUM_PYTHON[1]} or newer; "
              f"{sys.executable} is {sys.version.split()[0]}: set VLBENCH_PYTHON to another", file=sys.stderr)
        return 2
    scratch, device = argv[2], int(argv[3])
    shared_cache = argv[4] if len(argv) == 5 else ""
    sys.dont_write_bytecode = True
    use_scratch(scratch, shared_cache)
    library = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY))
    library.vlbench_python_abi.restype = ctypes.c_char_p
    abi = library.vlbench_python_abi().decode()
    if not abi.endswith(ABI_SUFFIX):
        print(f"{LIBRARY} speaks ABI {abi}, this program {ABI_SUFFIX}: they come from different builds",
              file=sys.stderr)
        return 2
    library.vlbench_python_serve.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                                             ctypes.c_int, ctypes.POINTER(Callbacks)]
    callbacks = make_callbacks(PackageRunner())
    return library.vlbench_python_serve(CHANNEL_FD, HANDSHAKE_FD, scratch.encode(), shared_cache.encode(), device,
                                        ctypes.byref(callbacks))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
