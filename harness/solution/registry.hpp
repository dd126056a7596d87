#pragma once
// Solutions register themselves with one line in their own folder:
//     VLBENCH_REGISTER_SOLUTION(MySolution);   // MySolution has `static SolutionInfo describe();`
// CMake links every solution folder as a whole archive, so the static registration cannot be dropped.
// Registration runs before main, where an exception would terminate the program: a registration that fails (a
// duplicate or empty name, a describe() that throws) is recorded instead, and the CLI reports it (exit 2).
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

  // A duplicate or empty name is recorded as a registration error (a build mistake), not added.
  void add(SolutionInfo info, Factory factory);
  void add_registration_error(std::string message);
  const std::vector<std::string>& registration_errors() const { return registration_errors_; }
  // Throws UsageError listing every registration error, if there is any.
  void require_clean_registration() const;
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
  std::vector<std::string> registration_errors_;
};

namespace detail {
struct SolutionRegistration {
  // Never throws: whatever describe() or the registry throws becomes a registration error.
  SolutionRegistration(const char* type_name, SolutionInfo (*describe)(), SolutionRegistry::Factory factory) noexcept;
};
}  // namespace detail

}  // namespace vlb

#define VLB_REGISTRATION_CONCAT_INNER(a, b) a##b
#define VLB_REGISTRATION_CONCAT(a, b) VLB_REGISTRATION_CONCAT_INNER(a, b)
#define VLBENCH_REGISTER_SOLUTION(SolutionType)                                                           \
  static const ::vlb::detail::SolutionRegistration VLB_REGISTRATION_CONCAT(vlb_registration_, __LINE__)( \
      #SolutionType, &SolutionType::describe, [] { return std::unique_ptr<::vlb::Solution>(new SolutionType()); })
