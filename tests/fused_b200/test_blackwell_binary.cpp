// The built fused_b200 solution module (what vlbench runs it from) carries its device code for every configured
// target: for 100a an sm_100a cubin (arch-specific, ELF, EM_CUDA for SM 100) holding our tcgen05 attention kernel,
// CUTLASS's sm100 GEMM mainloop and the staged epilogue kernel; for 90a the same check on the sm_90a cubins. Read from
// the module's fat binary without cuobjdump and without a GPU (support_fatbin.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support_fatbin.hpp"

using vlb::fused_b200::testing::FatbinEntry;
using vlb::fused_b200::testing::read_fatbin_entries;

namespace {

constexpr std::uint16_t kElfMachineCuda = 190;

std::vector<std::string> configured_targets() {
  std::vector<std::string> targets;
  std::stringstream list(VLBENCH_GPU_TARGETS_CSV);
  for (std::string target; std::getline(list, target, ',');) targets.push_back(target);
  return targets;
}

bool configured(const std::string& target) {
  const auto targets = configured_targets();
  return std::find(targets.begin(), targets.end(), target) != targets.end();
}

std::string describe(const std::vector<FatbinEntry>& entries) {
  std::string text;
  for (const auto& entry : entries) {
    text += vlb::fused_b200::testing::target_name(entry) + (entry.elf ? " cubin" : " ptx") +
            (entry.compressed ? " (compressed)" : "") + ", ";
  }
  return text;
}

// The cubins of one target, checked to be ELF files for that SM (their e_flags carry the SM number in bits 8-15).
std::vector<const FatbinEntry*> cubins_for(const std::vector<FatbinEntry>& entries, int sm) {
  std::vector<const FatbinEntry*> cubins;
  for (const auto& entry : entries) {
    if (!entry.elf || entry.sm != sm || !entry.arch_specific) continue;
    REQUIRE_FALSE(entry.compressed);
    REQUIRE(entry.payload.size() > 64);
    CHECK(entry.payload.compare(0, 4, "\x7f" "ELF") == 0);
    std::uint16_t machine = 0;
    std::uint32_t flags = 0;
    std::memcpy(&machine, entry.payload.data() + 18, sizeof(machine));
    std::memcpy(&flags, entry.payload.data() + 0x30, sizeof(flags));
    CHECK(machine == kElfMachineCuda);
    CHECK(static_cast<int>((flags >> 8) & 0xff) == sm);
    cubins.push_back(&entry);
  }
  return cubins;
}

// The solution module vlbench runs fused_b200 from.
std::string fused_module() { return vlb::testing::build_modules_folder() + "/vlbench_solution_fused_b200.so"; }

bool any_holds(const std::vector<const FatbinEntry*>& cubins, const std::string& symbol_part) {
  return std::any_of(cubins.begin(), cubins.end(),
                     [&](const FatbinEntry* cubin) { return cubin->payload.find(symbol_part) != std::string::npos; });
}

}  // namespace

TEST_CASE("the fused_b200 module carries sm_100a code when 100a is configured", "[fused_b200][blackwell]") {
  const auto entries = read_fatbin_entries(fused_module());
  INFO("fat binary entries: " << describe(entries));
  const auto cubins = cubins_for(entries, 100);
  if (!configured("100a")) {
    CHECK(cubins.empty());
    return;
  }
  REQUIRE_FALSE(cubins.empty());
  CHECK(any_holds(cubins, "5sm10016attention_kernel"));             // vlb::fused_b200::sm100::attention_kernel
  CHECK(any_holds(cubins, "MainloopSm100TmaUmmaWarpSpecialized"));  // the sm100 projection GEMMs
  CHECK(any_holds(cubins, "SM100_MMA_F16BF16_SS"));                 // ... on tcgen05.mma
  CHECK(any_holds(cubins, "staged_epilogue_kernel"));               // bias / RoPE after them
  CHECK_FALSE(any_holds(cubins, "4sm9016attention_kernel"));        // no Hopper kernel in Blackwell code
}

TEST_CASE("the fused_b200 module carries sm_90a code when 90a is configured", "[fused_b200][blackwell]") {
  const auto entries = read_fatbin_entries(fused_module());
  INFO("fat binary entries: " << describe(entries));
  const auto cubins = cubins_for(entries, 90);
  if (!configured("90a")) {
    CHECK(cubins.empty());
    return;
  }
  REQUIRE_FALSE(cubins.empty());
  CHECK(any_holds(cubins, "4sm9016attention_kernel"));  // vlb::fused_b200::sm90::attention_kernel
  CHECK(any_holds(cubins, "staged_epilogue_kernel"));   // architecture-neutral, built for every target
  CHECK_FALSE(any_holds(cubins, "5sm10016attention_kernel"));
}

TEST_CASE("the fat binary reader refuses what is not an ELF executable", "[fused_b200][blackwell]") {
  REQUIRE_THROWS_WITH(read_fatbin_entries(VLBENCH_SOURCE_DIR "/README.md"), Catch::Contains("is not an ELF64 file"));
  REQUIRE_THROWS_WITH(read_fatbin_entries(VLBENCH_SOURCE_DIR "/no-such-file"), Catch::Contains("cannot read"));
}
