#pragma once
// A test that cannot run its check here (no CUPTI, no kernels for this GPU, no landlock) says so and ends: never a
// pass. The tests' main (catch_main_cpu.cpp, catch_main_gpu.cpp) then exits 77, so that ctest reports the executable
// SKIPPED with the reasons printed, unless a test failed (then it fails, as always).
#include <string>

namespace vlb::testing {

// Records that the running test case could not check what it is for, and why (printed at once).
void mark_skipped(const std::string& reason);
int skipped_count();
// A test main's exit code: `failed` when a test failed or none skipped, else 77 (ctest: Skipped).
int finish_run(int failed);

}  // namespace vlb::testing

// Ends the running test case as skipped.
#define VLB_SKIP(reason)                         \
  do {                                           \
    ::vlb::testing::mark_skipped(reason);        \
    return;                                      \
  } while (false)
