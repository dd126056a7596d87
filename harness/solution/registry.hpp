#pragma once
// Solutions register themselves with one line in their own folder:
//     VLBENCH_REGISTER_SOLUTION(MySolution);   // MySolution has `static SolutionInfo describe();`
// CMake links every solution folder as a whole archive, so the static registration cannot be dropped.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/solution/solution.hpp"

namespace vlb {

class SolutionRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Solution>()>;

  static SolutionRegistry& instance();

  // Throws std::logic_error on a duplicate or empty name (a build mistake, caught at start-up).
  void add(SolutionInfo info, Factory factory);
  bool contains(const std::string& name) const;
  // Throws the UsageError that create() would, without constructing anything (no GPU needed).
  void require(const std::string& name) const;
  // A fresh instance per call, so no state survives between cases. Throws UsageError naming the known solutions.
  std::unique_ptr<Solution> create(const std::string& name) const;
  std::vector<SolutionInfo> list() const;  // sorted by name
  std::vector<std::string> names() const;

 private:
  struct Entry {
    SolutionInfo info;
    Factory factory;
  };
  std::vector<Entry> entries_;
};

namespace detail {
struct SolutionRegistration {
  SolutionRegistration(SolutionInfo info, SolutionRegistry::Factory factory) {
    SolutionRegistry::instance().add(std::move(info), std::move(factory));
  }
};
}  // namespace detail

}  // namespace vlb

#define VLB_REGISTRATION_CONCAT_INNER(a, b) a##b
#define VLB_REGISTRATION_CONCAT(a, b) VLB_REGISTRATION_CONCAT_INNER(a, b)
#define VLBENCH_REGISTER_SOLUTION(SolutionType)                                                           \
  static const ::vlb::detail::SolutionRegistration VLB_REGISTRATION_CONCAT(vlb_registration_, __LINE__)( \
      SolutionType::describe(), [] { return std::unique_ptr<::vlb::Solution>(new SolutionType()); })
