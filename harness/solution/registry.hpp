#pragma once
// Solutions register themselves with one line in their own folder:
//     VLBENCH_REGISTER_SOLUTION(MySolution);   // MySolution has `static SolutionInfo describe();`
// CMake links every solution folder as a whole archive, so the static registration cannot be dropped.
// Registration runs before main, where an exception would terminate the program: a registration that fails (a
// duplicate or empty name, a name other than its folder's, a describe() that throws) is recorded instead, and the CLI
// reports it (exit 2). Each registration knows its source file, so a duplicate names both folders.
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

  // A duplicate or empty name is recorded as a registration error (a build mistake), not added. `source_file`: where
  // the registration line is (for messages).
  void add(SolutionInfo info, Factory factory, std::string source_file = {});
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
  // Where the registration of `name` is (its VLBENCH_REGISTER_SOLUTION line's file); empty for an unknown name.
  std::string source_file(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  struct Entry {
    SolutionInfo info;
    Factory factory;
    std::string source_file;
  };
  std::vector<Entry> entries_;
  std::vector<std::string> registration_errors_;
};

// "solutions/template/" for "<source tree>/solutions/template/template_solution.cu": a registration's folder, for
// messages.
std::string registration_folder(const std::string& source_file);

namespace detail {
struct SolutionRegistration {
  // Never throws: whatever describe() or the registry throws becomes a registration error. `folder_name`: the NAME that
  // vlbench_add_solution gave the solution's folder (nullptr outside solutions/), which describe() must repeat.
  SolutionRegistration(const char* type_name, SolutionInfo (*describe)(), SolutionRegistry::Factory factory,
                       const char* source_file, const char* folder_name) noexcept;
};
}  // namespace detail

}  // namespace vlb

// vlbench_add_solution (cmake/VlbenchSolution.cmake) defines VLBENCH_SOLUTION_FOLDER_NAME for a solution folder's files.
#ifdef VLBENCH_SOLUTION_FOLDER_NAME
#define VLB_REGISTRATION_FOLDER_NAME VLBENCH_SOLUTION_FOLDER_NAME
#else
#define VLB_REGISTRATION_FOLDER_NAME nullptr
#endif
#define VLB_REGISTRATION_CONCAT_INNER(a, b) a##b
#define VLB_REGISTRATION_CONCAT(a, b) VLB_REGISTRATION_CONCAT_INNER(a, b)
#define VLBENCH_REGISTER_SOLUTION(SolutionType)                                                           \
  static const ::vlb::detail::SolutionRegistration VLB_REGISTRATION_CONCAT(vlb_registration_, __LINE__)( \
      #SolutionType, &SolutionType::describe,                                                             \
      [] { return std::unique_ptr<::vlb::Solution>(new SolutionType()); }, __FILE__, VLB_REGISTRATION_FOLDER_NAME)
