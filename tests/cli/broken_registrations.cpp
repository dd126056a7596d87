// Registrations that fail before main, built only into the test executable vlbench_broken_registration: a second
// solution named "template" and a solution whose describe() throws. vlbench must report both and exit 2 (never
// terminate during static initialization).
#include <stdexcept>

#include "harness/solution/registry.hpp"

namespace vlb::broken {
namespace {

class SecondTemplate final : public Solution {
 public:
  static SolutionInfo describe() { return {.name = "template", .author = "vlbench tests", .description = "a duplicate"}; }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs&) override {}
};

class ThrowingDescribe final : public Solution {
 public:
  static SolutionInfo describe() { throw std::runtime_error("metadata file missing"); }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs&) override {}
};

}  // namespace
}  // namespace vlb::broken

VLBENCH_REGISTER_SOLUTION(vlb::broken::SecondTemplate);
VLBENCH_REGISTER_SOLUTION(vlb::broken::ThrowingDescribe);
