// Every way a safetensors input can be wrong is an InputError (exit 2) whose message names the file and the key.
#include <catch2/catch.hpp>

#include "harness/inputs/safetensors.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "safetensors/support_safetensors_files.hpp"

namespace vlb {
namespace {

// language_position_ids of this shape is int64 [2, 3]: 48 bytes.
const ProblemShape kShape{2, 3, 196};
const std::string kKey = "pos";

struct BadFile {
  std::string problem;                // what the test case is about
  std::vector<std::byte> bytes;       // the file's content
  std::vector<std::string> mentions;  // what the message must say besides file and key
};

std::vector<std::byte> file_with(const std::string& header, std::size_t data_bytes, std::uint32_t seed) {
  return testing::safetensors_bytes(header, testing::random_int64_bytes(data_bytes / 8, seed));
}

std::vector<BadFile> bad_files(std::uint32_t seed) {
  const std::string good_entry = R"("pos":{"dtype":"I64","shape":[2,3],"data_offsets":[0,48]})";
  std::vector<std::byte> length_past_end = testing::safetensors_bytes("{" + good_entry + "}", {});
  length_past_end[0] = std::byte{0xE8};  // header length 1000 in a file of a few dozen bytes
  length_past_end[1] = std::byte{0x03};
  std::vector<std::byte> truncated = testing::random_int64_bytes(1, seed);
  truncated.resize(5);  // shorter than the 8-byte header length
  return {
      {"truncated file", truncated, {"truncated", "5 bytes"}},
      {"header length past the end", length_past_end, {"header length 1000", "past the end"}},
      {"malformed JSON header", file_with(R"({"pos":{"dtype":"I64",)", 48, seed), {"not valid JSON"}},
      {"header not an object", file_with(R"([1, 2])", 48, seed), {"must be a JSON object"}},
      {"unknown dtype", file_with(R"({"pos":{"dtype":"Q64","shape":[2,3],"data_offsets":[0,48]}})", 48, seed),
       {"unknown", "Q64"}},
      {"wrong dtype for the input",
       file_with(R"({"pos":{"dtype":"I32","shape":[2,3],"data_offsets":[0,24]}})", 24, seed),
       {"dtype I32", "language_position_ids", "int64", "I64"}},
      {"wrong shape for the input",
       file_with(R"({"pos":{"dtype":"I64","shape":[3,2],"data_offsets":[0,48]}})", 48, seed),
       {"shape [3, 2]", "language_position_ids", "[2, 3]"}},
      {"unknown key", file_with(R"({"other":{"dtype":"I64","shape":[2,3],"data_offsets":[0,48]}})", 48, seed),
       {"no such tensor", "other"}},
      {"data_offsets past the end", file_with("{" + good_entry + "}", 40, seed), {"past the end", "truncated"}},
      {"data_offsets inconsistent with shape and dtype",
       file_with(R"({"pos":{"dtype":"I64","shape":[2,3],"data_offsets":[0,40]}})", 48, seed), {"40 bytes", "need 48"}},
      {"offsets that end before they begin",
       file_with(R"({"pos":{"dtype":"I64","shape":[2,3],"data_offsets":[48,0]}})", 48, seed), {"end before"}},
      {"negative shape", file_with(R"({"pos":{"dtype":"I64","shape":[-2,3],"data_offsets":[0,48]}})", 48, seed),
       {"shape", "non-negative"}},
      {"metadata that is not text",
       file_with(R"({"__metadata__":{"seed":7},)" + good_entry + "}", 48, seed), {"__metadata__", "seed"}},
  };
}

InputDescriptor descriptor_for(const std::filesystem::path& file) {
  return InputDescriptor{"safetensors", file, kKey};
}

}  // namespace

TEST_CASE("a bad safetensors input is an InputError naming the file and the key", "[safetensors]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const testing::ScratchFolder folder;
  for (const BadFile& bad : bad_files(seed)) {
    SECTION(bad.problem) {
      const auto file = folder.file("bad input.safetensors");
      testing::write_bytes(file, bad.bytes);
      const InputError error = testing::capture_input_error(
          [&] { (void)load_file_input(descriptor_for(file), TensorId::kLanguagePositionIds, kShape); });
      INFO(error.message());
      CHECK(error.exit_code() == ExitCode::kBadInput);
      CHECK(static_cast<int>(error.exit_code()) == 2);
      CHECK_THAT(error.message(), Catch::Contains(file.string()));
      CHECK_THAT(error.message(), Catch::Contains("\"" + kKey + "\""));
      for (const std::string& mention : bad.mentions) CHECK_THAT(error.message(), Catch::Contains(mention));
    }
  }
}

TEST_CASE("a missing safetensors file is an InputError naming it", "[safetensors]") {
  const testing::ScratchFolder folder;
  const auto file = folder.file("absent.safetensors");
  const InputError error = testing::capture_input_error(
      [&] { (void)load_file_input(descriptor_for(file), TensorId::kLanguagePositionIds, kShape); });
  CHECK(error.exit_code() == ExitCode::kBadInput);
  CHECK_THAT(error.message(), Catch::Contains(file.string()));
  CHECK_THAT(error.message(), Catch::Contains(kKey));
  CHECK_THAT(error.message(), Catch::Contains("no such file"));
}

TEST_CASE("reading a whole file names the tensor whose entry is wrong", "[safetensors]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const testing::ScratchFolder folder;
  const auto file = folder.file("whole.safetensors");
  testing::write_bytes(file, file_with(R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]},)"
                                       R"("b":{"dtype":"I64","shape":[4],"data_offsets":[8,40]}})",
                                       32, seed));
  const InputError error = testing::capture_input_error([&] { (void)read_safetensors(file); });
  CHECK(error.exit_code() == ExitCode::kBadInput);
  CHECK_THAT(error.message(), Catch::Contains(file.string()));
  CHECK_THAT(error.message(), Catch::Contains("tensor \"b\""));
  CHECK_THAT(error.message(), Catch::Contains("past the end"));
}

}  // namespace vlb

namespace vlb {

TEST_CASE("a header longer than the format's 100 MB limit is refused before it is read", "[safetensors]") {
  const testing::ScratchFolder folder;
  const auto file = folder.file("huge_header.safetensors");
  std::vector<std::byte> length(8);
  const std::uint64_t header_bytes = 200'000'000;
  for (int b = 0; b < 8; ++b) length[b] = static_cast<std::byte>((header_bytes >> (8 * b)) & 0xFF);
  testing::write_bytes(file, length);
  std::filesystem::resize_file(file, 8 + header_bytes + 16);  // sparse: no disk used
  const InputError error = testing::capture_input_error([&] { (void)SafetensorsReader(file); });
  CHECK(error.exit_code() == ExitCode::kBadInput);
  CHECK_THAT(error.message(), Catch::Contains(file.string()));
  CHECK_THAT(error.message(), Catch::Contains("exceeds the format's limit"));
}

}  // namespace vlb
