// The JSON reading layer: every typed read either returns the value or throws an InputError naming the document, the
// path of the value and what was wrong with it.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/text_file.hpp"
#include "support/scratch_folder.hpp"

namespace vlb {
namespace {

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const InputError& error) {
    return error.message();
  }
  FAIL("expected an InputError");
  return {};
}

const JsonDocument kDocument = parse_json(
    R"({"name": "x", "axes": {"batch_size": 4, "lang_seq_len": -3, "ratio": 0.5},
        "list": [{"key": "a"}, {"key": 7}], "big": 18446744073709551615, "flag": true, "nothing": null,
        "zebra": 1, "apple": 2})",
    "suite.jsonl:7");

JsonValue root() { return JsonValue(kDocument, "suite.jsonl:7"); }

TEST_CASE("paths name object keys with dots and array elements with brackets", "[core][json]") {
  CHECK(root().path().empty());
  CHECK(root().at("axes").at("batch_size").path() == "axes.batch_size");
  CHECK(root().at("list").elements().at(1).at("key").path() == "list[1].key");
  CHECK(error_of([] { root().at("list").elements().at(1).at("key").as_string(); }) ==
        "suite.jsonl:7: list[1].key: must be a string, got an integer 7");
  CHECK(error_of([] { root().at("axes").at("lang_seq_len").as_positive_int64(); }) ==
        "suite.jsonl:7: axes.lang_seq_len: must be a positive integer, got -3");
  CHECK(error_of([] { root().at("list").fail("a problem at an array"); }) == "suite.jsonl:7: list: a problem at an array");
  CHECK(error_of([] { root().fail("a problem of the whole document"); }) ==
        "suite.jsonl:7: a problem of the whole document");
}

TEST_CASE("missing and unknown fields name their path", "[core][json]") {
  CHECK(error_of([] { root().at("axes").at("vision_seq_len"); }) ==
        "suite.jsonl:7: axes.vision_seq_len: required field is missing");
  CHECK(error_of([] { root().at("axes").at("vision_seq_len", "required axis is missing"); }) ==
        "suite.jsonl:7: axes.vision_seq_len: required axis is missing");
  CHECK_FALSE(root().at("axes").find("vision_seq_len").has_value());
  CHECK(root().at("axes").find("ratio")->as_number() == 0.5);
  CHECK(root().contains("flag"));
  CHECK(error_of([] { root().at("axes").reject_unknown_fields({"batch_size", "lang_seq_len"}); }) ==
        "suite.jsonl:7: axes.ratio: unknown field (allowed here: batch_size, lang_seq_len)");
  REQUIRE_NOTHROW(root().at("axes").reject_unknown_fields({"batch_size", "lang_seq_len", "ratio"}));
  CHECK(error_of([] { root().at("name").at("first"); }) == "suite.jsonl:7: name: must be a JSON object, got a string");
  CHECK(error_of([] { root().at("axes").elements(); }).find("axes: must be an array, got an object {") !=
        std::string::npos);
}

TEST_CASE("members come in file order", "[core][json]") {
  std::vector<std::string> keys;
  for (const auto& [key, value] : root().members()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"name", "axes", "list", "big", "flag", "nothing", "zebra", "apple"});
  CHECK(root().members().at(7).second.path() == "apple");
}

TEST_CASE("scalars are read with their type and range checked", "[core][json]") {
  CHECK(root().at("name").as_non_empty_string() == "x");
  CHECK(root().at("flag").as_bool());
  CHECK(root().at("nothing").is_null());
  CHECK(root().at("axes").at("batch_size").as_int64() == 4);
  CHECK(root().at("big").as_uint64() == std::numeric_limits<std::uint64_t>::max());
  CHECK(error_of([] { root().at("big").as_int64(); }) == "suite.jsonl:7: big: integer 18446744073709551615 is too large");
  CHECK(error_of([] { root().at("axes").at("lang_seq_len").as_uint64(); }) ==
        "suite.jsonl:7: axes.lang_seq_len: must be a non-negative integer, got -3");
  CHECK(error_of([] { root().at("axes").at("ratio").as_int64(); }) ==
        "suite.jsonl:7: axes.ratio: must be an integer, got 0.5");
  CHECK(error_of([] { root().at("name").as_number(); }) == "suite.jsonl:7: name: must be a number, got a string \"x\"");
  CHECK(error_of([] { root().at("nothing").as_bool(); }) == "suite.jsonl:7: nothing: must be true or false, got null");

  JsonDocument empty_name = {{"name", ""}, {"nan", std::numeric_limits<double>::quiet_NaN()}};
  const JsonValue other(empty_name, "made in memory");
  CHECK(error_of([&] { other.at("name").as_non_empty_string(); }) == "made in memory: name: must be a non-empty string");
  CHECK(std::isnan(other.at("nan").as_number()));
  CHECK(error_of([&] { other.at("nan").as_finite_number(); }).find("nan: must be finite") != std::string::npos);
}

TEST_CASE("a long value is cut short in messages", "[core][json]") {
  std::mt19937_64 rng(std::random_device{}());
  std::string long_text(200, 'a');
  for (char& c : long_text) c = static_cast<char>('a' + rng() % 26);
  const JsonDocument document = {{"text", long_text}};
  const std::string message = error_of([&] { JsonValue(document, "doc").at("text").as_int64(); });
  CHECK(message.size() < 120);
  CHECK(message.find(long_text.substr(0, 40)) != std::string::npos);
  CHECK(message.find("...") != std::string::npos);
}

TEST_CASE("parse and dump name what went wrong and never throw on bad UTF-8 when writing", "[core][json]") {
  CHECK(error_of([] { parse_json("{\"a\": [1, 2,", "broken.json"); }).rfind("broken.json: not valid JSON: ", 0) == 0);
  nlohmann::json document = {{"reason", std::string("solution said \xff\xfe")}};
  const std::string text = dump_json(document);
  CHECK(text.find("solution said") != std::string::npos);
  CHECK(parse_json(text, "back").at("reason").get<std::string>() != document.at("reason").get<std::string>());
  CHECK(dump_json(nlohmann::json{{"a", 1}}, 2) == "{\n  \"a\": 1\n}");
}

TEST_CASE("read_text_file returns the bytes or names the file and what it was for", "[core][text_file]") {
  testing::ScratchFolder folder;
  std::mt19937_64 rng(std::random_device{}());
  std::string bytes(1000, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  const auto file = folder.write("data.bin", bytes);
  CHECK(read_text_file(file, "data file") == bytes);
  CHECK(error_of([&] { read_text_file(folder.path() / "absent.json", "results file"); }) ==
        "cannot read results file " + (folder.path() / "absent.json").string() + ": not found (no such file)");
  CHECK(error_of([&] { read_text_file(folder.path(), "results file"); }).find("it is a folder") != std::string::npos);
}

TEST_CASE("read_text_file says why a path is no readable file, and refuses files past the limit", "[core][text_file]") {
  testing::ScratchFolder folder;
  const auto message = [&](const std::filesystem::path& path, std::uintmax_t limit = kMaxInputFileBytes) {
    return error_of([&] { read_text_file(path, "results file", limit); });
  };
  std::filesystem::create_symlink("loop-b.json", folder.file("loop-a.json"));
  std::filesystem::create_symlink("loop-a.json", folder.file("loop-b.json"));
  CHECK(message(folder.file("loop-a.json")) == "cannot read results file " + folder.file("loop-a.json").string() +
                                                   ": it is a symbolic link that leads in a loop");
  std::filesystem::create_symlink("absent.json", folder.file("dangling.json"));
  CHECK_THAT(message(folder.file("dangling.json")),
             Catch::EndsWith(": it is a symbolic link to a file that does not exist"));
  CHECK_THAT(message("/dev/null"), Catch::EndsWith(": it is not a regular file (a device, a pipe or a socket)"));

  // A sparse file of 1 GiB is refused from its size, without reading it (issue 24: read whole, 2.2 GB of memory).
  const auto big = folder.file("big.json");
  { std::ofstream(big) << ""; }
  std::filesystem::resize_file(big, std::uintmax_t{1} << 30);
  CHECK(message(big) == "cannot read results file " + big.string() +
                            ": it holds 1.0 GiB, more than the 256.0 MiB a results file may hold (is it the right "
                            "file?)");
  const auto small = folder.write("small.json", std::string(2000, 'x'));
  CHECK_THAT(message(small, 1024), Catch::EndsWith("it holds 2.0 KiB, more than the 1.0 KiB a results file may hold "
                                                   "(is it the right file?)"));
  CHECK(read_text_file(small, "results file", 2000).size() == 2000);
  CHECK(describe_byte_count(512) == "512 bytes");
}

}  // namespace
}  // namespace vlb
