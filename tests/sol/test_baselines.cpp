// Baseline tables: the published B200 file, and errors that name the file and field.
#include <catch2/catch.hpp>

#include <string>

#include "harness/core/errors.hpp"
#include "harness/sol/baselines.hpp"
#include "support_sol_files.hpp"

namespace {

std::string load_error(const std::string& text) {
  const vlb::testing::ScratchFile file("baselines.json", text);
  try {
    vlb::load_baselines(file.path());
  } catch (const vlb::InputError& error) {
    return error.what();
  }
  FAIL("no InputError for: " << text);
  return {};
}

}  // namespace

TEST_CASE("the published B200 baselines hold all 16 workloads", "[sol]") {
  const vlb::BaselineTable table = vlb::load_baselines(vlb::testing::project_file("workloads/baselines/b200-published.json"));
  CHECK(table.gpu_key == "B200");
  CHECK(table.method == "pytorch (published by NVIDIA SOL-ExecBench)");
  CHECK(table.latency_ms.size() == 16);
  CHECK(table.published_t_sol_ms.size() == 16);
  CHECK(table.latency_for("d48e8b5b-db2e-598e-9168-8e5c1b78d484").value() == Approx(0.190256));
  CHECK(table.latency_for("c87d0d68-ad71-5c8a-8666-5428ae78cfa3").value() == Approx(2.016772));
  CHECK(table.published_t_sol_ms.at("f36740f8-c877-5855-af92-5f7fd3522d9b") == Approx(0.014));
  CHECK_FALSE(table.latency_for("00000000-0000-0000-0000-000000000000").has_value());
  for (const auto& [uuid, latency] : table.latency_ms) {
    INFO(uuid);
    CHECK(latency > table.published_t_sol_ms.at(uuid));  // the score is defined for every workload
  }
}

TEST_CASE("a baseline table without published T_SOL loads", "[sol]") {
  const vlb::testing::ScratchFile file("h200.json", R"({"gpu_key": "H200_SXM", "source": "scripts/pytorch_baseline.py",
      "method": "pytorch-eager", "workloads": {"u1": {"latency_ms": 0.25}}})");
  const vlb::BaselineTable table = vlb::load_baselines(file.path());
  CHECK(table.gpu_key == "H200_SXM");
  CHECK(table.latency_for("u1").value() == Approx(0.25));
  CHECK(table.published_t_sol_ms.empty());
}

TEST_CASE("malformed baseline files are input errors naming file and field", "[sol]") {
  const std::string head = R"({"gpu_key": "B200", "source": "s", "method": "m", )";
  CHECK_THAT(load_error("{"), Catch::Contains("baselines.json") && Catch::Contains("not valid JSON"));
  CHECK_THAT(load_error("[]"), Catch::Contains("JSON object"));
  CHECK_THAT(load_error(R"({"source": "s", "method": "m", "workloads": {"u": {"latency_ms": 1}}})"),
             Catch::Contains("gpu_key") && Catch::Contains("missing"));
  CHECK_THAT(load_error(head + R"("workloads": {}})"), Catch::Contains("workloads"));
  CHECK_THAT(load_error(head + R"("workloads": {"u1": {"latency_ms": 0}}})"),
             Catch::Contains("baselines.json") && Catch::Contains("workloads.u1.latency_ms") && Catch::Contains("positive"));
  CHECK_THAT(load_error(head + R"("workloads": {"u1": {"t_sol_ms": 0.1}}})"),
             Catch::Contains("workloads.u1.latency_ms") && Catch::Contains("missing"));
  CHECK_THAT(load_error(head + R"("workloads": {"u1": {"latency_ms": 1, "t_sol_ms": "x"}}})"),
             Catch::Contains("workloads.u1.t_sol_ms"));
  CHECK_THAT(load_error(head + R"("workloads": {"u1": {"latency": 1}}})"),
             Catch::Contains("workloads.u1.latency") && Catch::Contains("unknown field"));
}
