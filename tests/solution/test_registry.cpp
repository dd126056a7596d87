#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "harness/core/errors.hpp"
#include "harness/plan/solution_catalog.hpp"
#include "harness/solution/registry.hpp"
#include "support/scratch_folder.hpp"

namespace {

int constructed = 0;

// A registry-only solution: counts constructions, so we can see that listing never constructs one.
class CountingSolution final : public vlb::Solution {
 public:
  CountingSolution() { ++constructed; }
  static vlb::SolutionInfo describe() {
    return {.name = "counting", .author = "tests", .description = "counts", .target_compute_capabilities = {90}};
  }
  std::size_t workspace_bytes(const vlb::ProblemShape& shape) const override {
    return static_cast<std::size_t>(shape.lang_rows());
  }
  void run(const vlb::FusionArgs&) override {}
};

vlb::DeviceInfo device_with(int major, int minor) {
  vlb::DeviceInfo device;
  device.name = "Test GPU";
  device.compute_major = major;
  device.compute_minor = minor;
  return device;
}

}  // namespace

TEST_CASE("a registry lists solutions without constructing them and creates fresh ones", "[registry]") {
  vlb::SolutionRegistry registry;
  constructed = 0;
  registry.add(CountingSolution::describe(), [] { return std::make_unique<CountingSolution>(); });
  CHECK(constructed == 0);
  REQUIRE(registry.list().size() == 1);
  CHECK(registry.list().front().description == "counts");
  CHECK(registry.contains("counting"));

  auto first = registry.create("counting");
  auto second = registry.create("counting");
  CHECK(constructed == 2);
  CHECK(first.get() != second.get());
  CHECK(first->info().name == "counting");
  CHECK(first->workspace_bytes({2, 3, 4}) == 6);
}

TEST_CASE("a duplicate names the folders of both registrations", "[registry]") {
  vlb::SolutionRegistry registry;
  const std::string root = std::filesystem::path(VLBENCH_SOURCE_DIR).string();
  registry.add(CountingSolution::describe(), [] { return std::make_unique<CountingSolution>(); },
               root + "/solutions/counting/counting.cu");
  registry.add(CountingSolution::describe(), [] { return std::make_unique<CountingSolution>(); },
               "/elsewhere/my_copy/counting.cu");
  REQUIRE(registry.registration_errors().size() == 1);
  const std::string& message = registry.registration_errors()[0];
  CHECK_THAT(message, Catch::Contains("'counting' is registered twice: in solutions/counting/ ("));
  CHECK_THAT(message, Catch::Contains("and in /elsewhere/my_copy/ (/elsewhere/my_copy/counting.cu)"));
}

TEST_CASE("duplicate names and empty names are recorded as registration errors, never thrown", "[registry]") {
  vlb::SolutionRegistry registry;
  registry.add(CountingSolution::describe(), [] { return std::make_unique<CountingSolution>(); });
  CHECK_NOTHROW(registry.require_clean_registration());
  CHECK_NOTHROW(registry.add(CountingSolution::describe(), [] { return std::make_unique<CountingSolution>(); }));
  vlb::SolutionInfo unnamed;
  CHECK_NOTHROW(registry.add(unnamed, [] { return std::make_unique<CountingSolution>(); }));
  REQUIRE(registry.registration_errors().size() == 2);
  CHECK_THAT(registry.registration_errors()[0], Catch::Contains("'counting' is registered twice"));
  CHECK_THAT(registry.registration_errors()[1], Catch::Contains("empty name"));
  CHECK(registry.names() == std::vector<std::string>{"counting"});
  try {
    registry.require_clean_registration();
    FAIL("require_clean_registration() accepted a registry with errors");
  } catch (const vlb::UsageError& error) {
    CHECK(error.exit_code() == vlb::ExitCode::kBadInput);
    CHECK_THAT(error.message(), Catch::Contains("registered twice"));
    CHECK_THAT(error.message(), Catch::Contains("empty name"));
  }
}

namespace {
vlb::SolutionInfo describe_throws() { throw std::runtime_error("no metadata file"); }
}  // namespace

TEST_CASE("a describe() that throws during static registration becomes a registration error", "[registry]") {
  const std::size_t errors_before = vlb::SolutionRegistry::instance().registration_errors().size();
  // What VLBENCH_REGISTER_SOLUTION expands to, run here instead of before main.
  const vlb::detail::SolutionRegistration registration("BrokenSolution", &describe_throws,
                                                       [] { return std::make_unique<CountingSolution>(); },
                                                       __FILE__, nullptr);
  auto& registry = vlb::SolutionRegistry::instance();
  REQUIRE(registry.registration_errors().size() == errors_before + 1);
  CHECK_THAT(registry.registration_errors().back(), Catch::Contains("BrokenSolution::describe() threw: no metadata file"));
}

TEST_CASE("a describe() that names another solution than its folder is a registration error", "[registry]") {
  auto& registry = vlb::SolutionRegistry::instance();
  const std::size_t errors_before = registry.registration_errors().size();
  const std::string root = std::filesystem::path(VLBENCH_SOURCE_DIR).string();
  // As vlbench_add_solution(NAME my_kernel) compiles solutions/my_kernel/, whose describe() says "counting".
  const vlb::detail::SolutionRegistration registration(
      "MyKernel", &CountingSolution::describe, [] { return std::make_unique<CountingSolution>(); },
      (root + "/solutions/my_kernel/my_kernel.cu").c_str(), "my_kernel");
  REQUIRE(registry.registration_errors().size() == errors_before + 1);
  CHECK_THAT(registry.registration_errors().back(),
             Catch::Contains("MyKernel::describe() names the solution 'counting', but its folder solutions/my_kernel/ "
                             "registers it as 'my_kernel'"));
  CHECK_FALSE(registry.contains("counting"));
}

TEST_CASE("an unknown solution name is a usage error that lists the registered ones", "[registry]") {
  vlb::SolutionRegistry registry;
  registry.add(CountingSolution::describe(), [] { return std::make_unique<CountingSolution>(); });
  try {
    registry.create("fast_but_missing");
    FAIL("create() accepted an unknown name");
  } catch (const vlb::UsageError& error) {
    CHECK_THAT(error.message(), Catch::Contains("fast_but_missing"));
    CHECK_THAT(error.message(), Catch::Contains("counting"));
  }
}

TEST_CASE("a solution is skipped on architectures it does not target", "[registry]") {
  vlb::SolutionRegistry registry;
  registry.add(CountingSolution::describe(), [] { return std::make_unique<CountingSolution>(); });
  auto solution = registry.create("counting");
  CHECK_FALSE(solution->unsupported_reason(device_with(9, 0), {1, 1, 1}).has_value());
  const auto reason = solution->unsupported_reason(device_with(10, 0), {1, 1, 1});
  REQUIRE(reason.has_value());
  CHECK_THAT(*reason, Catch::Contains("sm_90"));
  CHECK_THAT(*reason, Catch::Contains("sm_100"));
}

TEST_CASE("the catalog reads the build's modules through the sandboxed describer", "[registry][catalog]") {
  const vlb::SolutionCatalog& catalog = vlb::SolutionCatalog::instance();
  catalog.require_clean();
  const auto names = catalog.names();
  for (const char* shipped : {"fused_b200", "reference", "template"}) {
    INFO(shipped);
    CHECK(std::find(names.begin(), names.end(), shipped) != names.end());
    const vlb::CatalogEntry& entry = catalog.at(shipped);
    CHECK(entry.module.filename() == std::string("vlbench_solution_") + shipped + ".so");
    CHECK_THAT(entry.source_file, Catch::Contains(std::string("/") + shipped));
  }
  CHECK(catalog.at("fused_b200").info.target_compute_capabilities == std::vector<int>{90, 100});
  CHECK_THROWS_AS(catalog.require("no_such_solution"), vlb::UsageError);
}

TEST_CASE("a file that is no solution module is a registration error, not a crash", "[registry][catalog]") {
  const vlb::testing::ScratchFolder scratch;
  const auto not_a_module = scratch.file("vlbench_solution_fake.so");
  std::ofstream(not_a_module) << "not an ELF file";
  const vlb::SolutionCatalog catalog = vlb::SolutionCatalog::describe({not_a_module});
  REQUIRE(catalog.errors().size() == 1);
  CHECK_THAT(catalog.errors().front(), Catch::Contains("cannot load the solution module") &&
                                           Catch::Contains("vlbench_solution_fake.so"));
  CHECK(catalog.entries().empty());
  CHECK_THROWS_AS(catalog.require_clean(), vlb::UsageError);
}
