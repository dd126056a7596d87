#pragma once
// The status of one (solution, case), with SOL-ExecBench's names.
#include <string_view>

namespace vlb {

enum class CaseStatus {
  kPassed,
  kIncorrectNumerical,  // tolerance rule failed, NaN/Inf, or all-zero output
  kIncorrectShape,      // the solution's output does not have the definition's shape
  kRuntimeError,        // the solution threw, or a CUDA error / crash happened during its call
  kTimeout,             // the call (or the worker process) ran past its time limit
  kRewardHack,          // the solution cheated: modified an input, left work outside the stream, changed kernels...
  kSkipped,             // cannot run here (architecture, memory); the reason says why
  kCompileError,        // a C++ group package's build failed (the compiler's last lines in the reason)
};

std::string_view status_name(CaseStatus status);  // "PASSED", "INCORRECT_NUMERICAL", ...
CaseStatus parse_status(std::string_view name);   // throws InputError on an unknown name
bool is_failure(CaseStatus status);                // everything but PASSED and SKIPPED

}  // namespace vlb
