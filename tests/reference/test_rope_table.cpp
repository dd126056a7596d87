// The reference's RoPE inverse frequencies are the stored official table, bit for bit: the table file is parsed here
// as text (independently of the macros the reference compiles) and compared with what the reference returns.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "reference/rope_math.hpp"

namespace rope = vlb::reference::rope;

namespace {

struct StoredTable {
  std::string device;                        // "cuda" (official) or "cpu" (provisional)
  std::map<int, std::vector<float>> values;  // per width
};

StoredTable read_stored_table() {
  std::ifstream in(std::string(VLBENCH_SOURCE_DIR) + "/reference/rope_inv_freq_table.hpp");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string contents = text.str();
  StoredTable table;
  std::smatch match;
  REQUIRE(std::regex_search(contents, match, std::regex(R"re(#define VLB_ROPE_INV_FREQ_DEVICE "(\w+)")re")));
  table.device = match[1];
  const std::regex block(R"(#define VLB_ROPE_INV_FREQ_WIDTH_(\d+) \\\n((?:  .*\n)+))");
  const std::regex literal(R"((-?0x[0-9a-fA-F.]+p[-+]\d+)f)");
  for (auto it = std::sregex_iterator(contents.begin(), contents.end(), block); it != std::sregex_iterator(); ++it) {
    const std::string body = (*it)[2];
    std::vector<float>& values = table.values[std::stoi((*it)[1])];
    for (auto v = std::sregex_iterator(body.begin(), body.end(), literal); v != std::sregex_iterator(); ++v) {
      values.push_back(std::strtof((*v)[1].str().c_str(), nullptr));
    }
  }
  return table;
}

std::int64_t ulp_distance(float a, float b) {
  return std::abs(static_cast<std::int64_t>(std::bit_cast<std::int32_t>(a)) - std::bit_cast<std::int32_t>(b));
}

}  // namespace

TEST_CASE("the reference's inverse frequencies are the stored official table, bit for bit", "[rope]") {
  const StoredTable stored = read_stored_table();
  CHECK((stored.device == "cuda" || stored.device == "cpu"));
  if (stored.device != "cuda") {
    WARN("reference/rope_inv_freq_table.hpp was made with --device " << stored.device
         << " (provisional): regenerate it on a GPU with scripts/rope_inv_freq_table.py --device cuda");
  }
  for (const int width : {128, 42, 44}) {
    INFO("width " << width);
    REQUIRE(stored.values.count(width) == 1);
    const std::vector<float>& values = stored.values.at(width);
    REQUIRE(values.size() == static_cast<std::size_t>(width / 2));
    for (int i = 0; i < width / 2; ++i) {
      INFO("i " << i);
      CHECK(std::bit_cast<std::uint32_t>(rope::inv_freq_fp32(i, width)) == std::bit_cast<std::uint32_t>(values[i]));
      // The official fp32 computation rounds the exponent 2i/w first: a few ulp from 10000^(-2i/w), never more.
      CHECK(ulp_distance(values[i], static_cast<float>(rope::inv_freq_exact(i, width))) <= 8);
    }
    CHECK(values[0] == 1.0f);
  }
}
