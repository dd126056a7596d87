// Writing then reading gives back every tensor bit for bit, with the metadata; the layout is the one the Python
// package expects (padded header, aligned data); a file built byte by byte as Python writes it reads correctly.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>

#include "harness/inputs/safetensors.hpp"
#include "safetensors/support_safetensors_files.hpp"

namespace vlb {
namespace {

using testing::random_bf16_bytes;
using testing::random_int64_bytes;

std::uint64_t little_endian_u64(const std::vector<std::byte>& bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (int b = 0; b < 8; ++b) value |= static_cast<std::uint64_t>(bytes[at + b]) << (8 * b);
  return value;
}

SafetensorsTensorView view_of(const SafetensorsTensor& tensor) { return {tensor.dtype, tensor.shape, tensor.data}; }

std::map<std::string, SafetensorsTensor> sample_tensors(std::uint32_t seed) {
  std::map<std::string, SafetensorsTensor> tensors;
  tensors["weight"] = {"BF16", {3, 5}, random_bf16_bytes(15, seed)};
  tensors["bias"] = {"BF16", {7}, random_bf16_bytes(7, seed + 1)};  // odd byte count: I64 data must still align
  tensors["positions"] = {"I64", {2, 3, 3}, random_int64_bytes(18, seed + 2)};
  tensors["scalar"] = {"I64", {}, random_int64_bytes(1, seed + 3)};
  tensors["empty"] = {"BF16", {0, 4}, {}};
  return tensors;
}

}  // namespace

TEST_CASE("write then read gives bit-identical BF16 and I64 tensors and the metadata", "[safetensors]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const testing::ScratchFolder folder;
  const auto tensors = sample_tensors(seed);
  std::map<std::string, SafetensorsTensorView> views;
  for (const auto& [name, tensor] : tensors) views.emplace(name, view_of(tensor));
  const SafetensorsMetadata metadata = {{"uuid", "d48e8b5b"}, {"seed", std::to_string(seed)}, {"note", "é \"quoted\""}};
  const auto file = folder.file("round_trip.safetensors");

  write_safetensors(file, views, metadata);
  const SafetensorsFile read = read_safetensors(file);

  CHECK(read.metadata == metadata);
  REQUIRE(read.tensors.size() == tensors.size());
  for (const auto& [name, tensor] : tensors) {
    INFO("tensor " << name);
    REQUIRE(read.tensors.contains(name));
    const SafetensorsTensor& back = read.tensors.at(name);
    CHECK(back.dtype == tensor.dtype);
    CHECK(back.shape == tensor.shape);
    CHECK(testing::byte_difference(back.data, tensor.data) == "");
  }
  CHECK_FALSE(std::filesystem::exists(folder.file("round_trip.safetensors.partial")));
}

TEST_CASE("the written header is padded with spaces to 8 bytes and every tensor is aligned", "[safetensors]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const testing::ScratchFolder folder;
  const auto tensors = sample_tensors(seed);
  std::map<std::string, SafetensorsTensorView> views;
  for (const auto& [name, tensor] : tensors) views.emplace(name, view_of(tensor));
  const auto file = folder.file("layout.safetensors");
  write_safetensors(file, views, {{"k", "v"}});

  const auto bytes = testing::read_bytes(file);
  const std::uint64_t header_bytes = little_endian_u64(bytes, 0);
  CHECK(header_bytes % 8 == 0);
  const std::string header(reinterpret_cast<const char*>(bytes.data()) + 8, header_bytes);
  CHECK(header.front() == '{');
  const auto last_brace = header.find_last_of('}');
  CHECK(header.find_first_not_of(' ', last_brace + 1) == std::string::npos);
  CHECK(header.size() - last_brace - 1 < 8);

  const SafetensorsReader reader(file);
  std::uint64_t total = 0;
  for (const auto& [name, entry] : reader.entries()) {
    INFO("tensor " << name);
    CHECK(entry.begin % safetensors_dtype_bytes(entry.dtype) == 0);
    total += entry.bytes();
  }
  CHECK(8 + header_bytes + total == bytes.size());  // no holes, no trailing bytes
}

TEST_CASE("rewriting a file replaces it whole", "[safetensors]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const testing::ScratchFolder folder;
  const auto file = folder.file("rewrite.safetensors");
  const auto first = random_bf16_bytes(64, seed);
  write_safetensors(file, {{"a", {"BF16", {64}, first}}}, {{"pass", "1"}});
  const auto second = random_int64_bytes(2, seed + 1);
  write_safetensors(file, {{"b", {"I64", {2}, second}}}, {});

  const SafetensorsFile read = read_safetensors(file);
  CHECK(read.metadata.empty());
  REQUIRE(read.tensors.size() == 1);
  CHECK(testing::byte_difference(read.tensors.at("b").data, second) == "");
}

TEST_CASE("the reader reads one tensor without the others", "[safetensors]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const testing::ScratchFolder folder;
  const auto tensors = sample_tensors(seed);
  std::map<std::string, SafetensorsTensorView> views;
  for (const auto& [name, tensor] : tensors) views.emplace(name, view_of(tensor));
  const auto file = folder.file("lazy.safetensors");
  write_safetensors(file, views);

  const SafetensorsReader reader(file);
  CHECK(reader.contains("positions"));
  CHECK_FALSE(reader.contains("missing"));
  CHECK(testing::byte_difference(reader.read("positions"), tensors.at("positions").data) == "");
  std::vector<std::byte> destination(tensors.at("weight").data.size(), std::byte{0x5A});
  reader.read_into("weight", destination);
  CHECK(testing::byte_difference(destination, tensors.at("weight").data) == "");
  std::vector<std::byte> wrong_size(destination.size() + 2);
  CHECK_THROWS_AS(reader.read_into("weight", wrong_size), std::invalid_argument);
}

TEST_CASE("a file laid out as the Python package writes it reads back its values", "[safetensors]") {
  // What safetensors.torch.save_file({"lang": bf16 [[1, -2], [0.5, 3]], "pos": int64 [7, -3]}) produces: compact
  // JSON with __metadata__ first, tensors in layout order (8-byte dtypes before 2-byte ones), spaces to 8 bytes.
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"pos":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},)"
      R"("lang":{"dtype":"BF16","shape":[2,2],"data_offsets":[16,24]}})";
  std::vector<std::byte> data;
  auto push_le = [&](std::uint64_t value, int width) {
    for (int b = 0; b < width; ++b) data.push_back(static_cast<std::byte>((value >> (8 * b)) & 0xFF));
  };
  push_le(7, 8);
  push_le(static_cast<std::uint64_t>(std::int64_t{-3}), 8);
  for (const std::uint16_t bf16_bits : {0x3F80, 0xC000, 0x3F00, 0x4040}) push_le(bf16_bits, 2);  // 1, -2, 0.5, 3
  const testing::ScratchFolder folder;
  const auto file = folder.file("from_python.safetensors");
  testing::write_bytes(file, testing::safetensors_bytes(header, data));

  const SafetensorsFile read = read_safetensors(file);
  CHECK(read.metadata == SafetensorsMetadata{{"format", "pt"}});
  const SafetensorsTensor& positions = read.tensors.at("pos");
  CHECK(positions.dtype == "I64");
  CHECK(positions.shape == std::vector<std::int64_t>{2});
  std::int64_t position_values[2];
  std::memcpy(position_values, positions.data.data(), sizeof(position_values));
  CHECK(position_values[0] == 7);
  CHECK(position_values[1] == -3);
  const SafetensorsTensor& lang = read.tensors.at("lang");
  CHECK(lang.dtype == "BF16");
  CHECK(lang.shape == std::vector<std::int64_t>{2, 2});
  std::uint16_t lang_bits[4];
  std::memcpy(lang_bits, lang.data.data(), sizeof(lang_bits));
  CHECK(lang_bits[0] == 0x3F80);
  CHECK(lang_bits[1] == 0xC000);
  CHECK(lang_bits[2] == 0x3F00);
  CHECK(lang_bits[3] == 0x4040);
}

TEST_CASE("dtype names and sizes follow the safetensors spelling", "[safetensors]") {
  CHECK(safetensors_dtype_name(DType::kBFloat16) == "BF16");
  CHECK(safetensors_dtype_name(DType::kInt64) == "I64");
  CHECK(safetensors_dtype_bytes("BF16") == 2);
  CHECK(safetensors_dtype_bytes("I64") == 8);
  CHECK(safetensors_dtype_bytes("F32") == 4);
  CHECK(safetensors_dtype_bytes("U8") == 1);
  CHECK(safetensors_dtype_bytes("bfloat16") == 0);
  CHECK(safetensors_dtype_bytes("F4") == 0);
}

TEST_CASE("writing a view whose bytes do not match its dtype and shape is refused", "[safetensors]") {
  const testing::ScratchFolder folder;
  const auto data = random_bf16_bytes(6, testing::fresh_seed());
  const auto file = folder.file("bad_view.safetensors");
  CHECK_THROWS_AS(write_safetensors(file, {{"a", {"BF16", {7}, data}}}), std::invalid_argument);
  CHECK_THROWS_AS(write_safetensors(file, {{"a", {"bf16", {6}, data}}}), std::invalid_argument);
  CHECK_THROWS_AS(write_safetensors(file, {{"__metadata__", {"BF16", {6}, data}}}), std::invalid_argument);
  CHECK_FALSE(std::filesystem::exists(file));
}

}  // namespace vlb
