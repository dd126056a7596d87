// ResultsWriter: the partial file grows case by case, the final file appears whole, failures come early.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "harness/core/errors.hpp"
#include "harness/report/partial_results.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/results_merge.hpp"
#include "report/support_results.hpp"

namespace vlb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> lines_of(const fs::path& path) {
  std::istringstream text(testing::read_text(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  return lines;
}

RunRecord header_of(const RunRecord& run) {
  RunRecord header = run;
  header.cases.clear();
  header.summary.reset();
  return header;
}

void require_usage_error(const fs::path& path, const RunRecord& header, const std::string& expected) {
  try {
    ResultsWriter writer(path, header);
  } catch (const UsageError& error) {
    INFO("message: " << error.what());
    REQUIRE(std::string(error.what()).find("cannot write results to " + path.string() + ": ") == 0);
    REQUIRE(std::string(error.what()).find(expected) != std::string::npos);
    return;
  }
  FAIL("expected UsageError for " << path);
}

TEST_CASE("the partial file holds the header, then one flushed line per finished case", "[report][writer]") {
  testing::ScratchFolder folder;
  const RunRecord run = test::make_seeded_run(808);
  const fs::path path = folder.path() / "results.json";
  ResultsWriter writer(path, header_of(run));
  REQUIRE(writer.path() == path);
  REQUIRE(writer.partial_path() == folder.path() / "results.json.partial.jsonl");

  std::vector<std::string> lines = lines_of(writer.partial_path());
  REQUIRE(lines.size() == 1);
  const json header = json::parse(lines.at(0));
  REQUIRE(header.at("schema") == "vlbench-results");
  REQUIRE(header.at("cases").empty());
  REQUIRE(header.at("summary").is_null());
  REQUIRE(header.at("git_commit") == run.git_commit);

  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    writer.append_case(run.cases[i]);
    lines = lines_of(writer.partial_path());  // read while the writer is still open: the line must be flushed
    REQUIRE(lines.size() == i + 2);
    const json line = json::parse(lines.back());
    REQUIRE(line.at("uuid") == run.cases[i].uuid);
    REQUIRE(line.at("status") == std::string(status_name(run.cases[i].status)));
  }
  REQUIRE_FALSE(fs::exists(path));  // the final file appears only at the end

  writer.finish(run);
  REQUIRE(fs::exists(path));
  REQUIRE_FALSE(fs::exists(writer.partial_path()));
  const json document = json::parse(testing::read_text(path));
  REQUIRE_NOTHROW(validate_results_json(document));
  test::require_same_run(run, read_results_file(path));
  // No temporary file is left beside it.
  std::vector<fs::path> left;
  for (const auto& entry : fs::directory_iterator(folder.path())) left.push_back(entry.path().filename());
  REQUIRE(left == std::vector<fs::path>{"results.json"});
}

TEST_CASE("a writer destroyed without finish leaves the finished cases and no final file", "[report][writer]") {
  testing::ScratchFolder folder;
  const RunRecord run = test::make_seeded_run(1999);
  const fs::path path = folder.path() / "crashed.json";
  const std::size_t finished = 4;
  fs::path partial;
  {
    auto writer = std::make_unique<ResultsWriter>(path, header_of(run));
    partial = writer->partial_path();
    for (std::size_t i = 0; i < finished; ++i) writer->append_case(run.cases[i]);
  }  // the "crash": no finish
  REQUIRE_FALSE(fs::exists(path));
  REQUIRE(lines_of(partial).size() == finished + 1);

  const RunRecord recovered = read_partial_results(partial);
  REQUIRE_FALSE(recovered.summary.has_value());
  REQUIRE(recovered.git_commit == run.git_commit);
  REQUIRE(recovered.cases.size() == finished);
  for (std::size_t i = 0; i < finished; ++i) test::require_same_case(run.cases[i], recovered.cases[i]);

  SECTION("a line cut short by the crash is dropped") {
    std::ofstream(partial, std::ios::app) << R"({"solution": "naive", "case_index": 5, "uu)";
    REQUIRE(read_partial_results(partial).cases.size() == finished);
  }
  SECTION("a corrupt line in the middle is an error naming file and line") {
    std::ofstream(partial, std::ios::app) << "{not json\n" << json::object().dump() << "\n";
    try {
      read_partial_results(partial);
      FAIL("expected InputError");
    } catch (const InputError& error) {
      REQUIRE(std::string(error.what()).find(partial.string() + ":" + std::to_string(finished + 2)) == 0);
    }
  }
  SECTION("a case written twice is an error naming both lines") {
    std::ofstream(partial, std::ios::app) << to_json(run.cases[1]).dump() << "\n";
    try {
      read_partial_results(partial);
      FAIL("expected InputError");
    } catch (const InputError& error) {
      REQUIRE_THAT(error.what(), Catch::Contains("is listed twice (line 3 and line " + std::to_string(finished + 2)));
    }
  }
}

TEST_CASE("nothing of an earlier run is lost: its partial and its results file are kept as PATH.~N~",
          "[report][writer]") {
  testing::ScratchFolder folder;
  const fs::path path = folder.path() / "results.json";
  const RunRecord earlier = test::make_seeded_run(5);
  const RunRecord next = test::make_seeded_run(6);
  const std::string unfinished = to_json(header_of(earlier)).dump() + "\n" + to_json(earlier.cases[0]).dump() + "\n";
  folder.write("results.json.partial.jsonl", unfinished);
  write_results_file(path, earlier);
  const std::string earlier_text = testing::read_text(path);

  ResultsWriter writer(path, header_of(next));
  REQUIRE(writer.kept_partial() == folder.path() / "results.json.partial.jsonl.~1~");
  REQUIRE(testing::read_text(*writer.kept_partial()) == unfinished);
  REQUIRE(testing::read_text(path) == earlier_text);  // in place until the new file replaces it
  for (const CaseResult& result : next.cases) writer.append_case(result);
  writer.finish(next);
  REQUIRE(writer.kept_results() == folder.path() / "results.json.~1~");
  REQUIRE(testing::read_text(*writer.kept_results()) == earlier_text);
  test::require_same_run(next, read_results_file(path));
  // What merge reads as a partial file, and every other reader refuses as one.
  REQUIRE(is_partial_results_path(*writer.kept_partial()));
  REQUIRE(read_results_or_partial(*writer.kept_partial()).cases.size() == 1);
  REQUIRE_FALSE(is_partial_results_path(folder.path() / "results.json.~1~"));
  REQUIRE_FALSE(is_partial_results_path(folder.path() / "x.partial.jsonl.~a~"));
}

TEST_CASE("an earlier final file stays whole at PATH until the new one replaces it at finish", "[report][writer]") {
  testing::ScratchFolder folder;
  const fs::path path = folder.path() / "results.json";
  const RunRecord first = test::make_seeded_run(1);
  const RunRecord second = test::make_seeded_run(2);
  {
    ResultsWriter writer(path, header_of(first));
    for (const CaseResult& result : first.cases) writer.append_case(result);
    writer.finish(first);
  }
  ResultsWriter writer(path, header_of(second));
  writer.append_case(second.cases.at(0));
  REQUIRE(lines_of(writer.partial_path()).size() == 2);
  test::require_same_run(first, read_results_file(path));  // the old file stays whole until the new one replaces it
  for (std::size_t i = 1; i < second.cases.size(); ++i) writer.append_case(second.cases[i]);
  writer.finish(second);
  test::require_same_run(second, read_results_file(path));
  REQUIRE_THROWS_AS(writer.finish(second), std::logic_error);
}

TEST_CASE("a target that cannot be written fails at construction with UsageError", "[report][writer]") {
  const RunRecord header = header_of(test::make_seeded_run(3));
  testing::ScratchFolder folder;
  SECTION("missing folder") {
    require_usage_error(folder.path() / "no-such-folder" / "results.json", header, "does not exist");
  }
  SECTION("parent is a file") {
    const fs::path file = folder.path() / "plain-file";
    std::ofstream(file) << "x";
    require_usage_error(file / "results.json", header, "is not a folder");
  }
  SECTION("target is a folder") {
    fs::create_directory(folder.path() / "results.json");
    require_usage_error(folder.path() / "results.json", header, "existing folder");
  }
  SECTION("a folder that refuses new files, even to root") {
    require_usage_error("/proc/vlbench-results.json", header, "no file can be created in folder /proc");
  }
  SECTION("a folder without write permission") {
    if (::geteuid() == 0) {
      WARN("running as root: permission bits do not stop root; the /proc case above covers the unwritable folder");
      return;
    }
    const fs::path locked = folder.path() / "locked";
    fs::create_directory(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    require_usage_error(locked / "results.json", header, "no file can be created in folder");
    fs::permissions(locked, fs::perms::owner_all);
  }
}

}  // namespace
}  // namespace vlb
