// Dump files are named after the workload's uuid, or after the shape of a custom case.
#include <catch2/catch.hpp>

#include "harness/report/case_dump.hpp"

namespace vlb {

TEST_CASE("dump files are named by uuid, or B_Lq_Lv for a custom case", "[safetensors]") {
  const std::filesystem::path dir = "dumps/run 1";
  const ProblemShape shape{2, 541, 980};
  CHECK(dump_file_name(dir, "d48e8b5b-db2e-598e-9168-8e5c1b78d484", shape) ==
        dir / "d48e8b5b-db2e-598e-9168-8e5c1b78d484.safetensors");
  CHECK(dump_file_name(dir, "", shape) == dir / "2_541_980.safetensors");
}

}  // namespace vlb
