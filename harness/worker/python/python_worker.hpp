#pragma once
// The C boundary of libvlbench_python_worker.so, the worker core that vlbench_python_worker.py (the Python worker's
// main program) loads with ctypes. The library runs the same session as vlbench-worker (worker_session.hpp: the
// judge's buffers, the go/done handshake, the timer, the sandbox); the Python side only opens the package and makes
// each call. Python mirrors these structures in vlbench_python_worker.py: change both together, and the ABI tag.
#include <cstddef>
#include <cstdint>

extern "C" {

enum VlbPyDtype : std::int32_t { kVlbPyBfloat16 = 0, kVlbPyInt64 = 1 };

struct VlbPyTensor {
  std::uint64_t data;  // a device address in the worker's mapping of the judge's buffer
  std::int32_t dtype;  // VlbPyDtype
  std::int32_t rank;
  std::int64_t shape[3];  // row-major, contiguous
};

struct VlbPyCall {
  VlbPyTensor tensors[12];  // the eleven inputs in the definition's order, then the output
};

// Each returns 0 when it went well; load returns 1 when the solution cannot run here (the message is the reason:
// SKIPPED), and any callback 2 when the solution's code failed (the message is the error: RUNTIME_ERROR). A message
// is written NUL-terminated into `message` (`message_bytes` long), cut where it does not fit.
struct VlbPyCallbacks {
  // `extension`: a C++ group package's built module (its entry point's function is looked up there), else "".
  int (*load)(const char* folder, const char* entry_point, const char* extension, int destination_passing_style,
              int device, std::uint64_t stream, char* message, std::size_t message_bytes);
  int (*prepare)(const VlbPyCall* call, char* message, std::size_t message_bytes);
  int (*run)(char* message, std::size_t message_bytes);
};

// The ABI tag the Python side checks before it calls vlbench_python_serve.
const char* vlbench_python_abi();

// The worker process's whole life (serve_judge): returns its exit code. `shared_cache` is the package's cache folder
// for this run (writable beside `scratch`), or empty.
int vlbench_python_serve(int channel_fd, int handshake_fd, const char* scratch, const char* shared_cache, int device,
                         const VlbPyCallbacks* callbacks);
}
