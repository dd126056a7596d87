#include "harness/report/partial_results.hpp"

#include <string>
#include <vector>

#include "harness/core/errors.hpp"
#include "harness/core/text_file.hpp"
#include "harness/report/results_json_detail.hpp"

namespace vlb {

namespace {

struct PartialLines {
  std::vector<std::string> lines;
  bool last_line_complete = true;  // the file ends with a newline
};

PartialLines split_lines(const std::string& content) {
  PartialLines result;
  std::size_t start = 0;
  while (start < content.size()) {
    const std::size_t end = content.find('\n', start);
    if (end == std::string::npos) {
      result.lines.push_back(content.substr(start));
      result.last_line_complete = false;
      break;
    }
    result.lines.push_back(content.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

}  // namespace

RunRecord read_partial_results(const std::filesystem::path& partial_path) {
  const PartialLines file = split_lines(read_text_file(partial_path, "partial results file"));
  if (file.lines.empty()) throw InputError(partial_path.string() + ": empty (no header line)");
  RunRecord run;
  std::int64_t version = kResultsSchemaVersion;
  report_detail::UniqueCases unique;
  for (std::size_t i = 0; i < file.lines.size(); ++i) {
    const std::string source = partial_path.string() + ":" + std::to_string(i + 1);
    const bool cut_short = i + 1 == file.lines.size() && !file.last_line_complete;
    JsonDocument document;
    try {
      document = parse_json(file.lines[i], source);
    } catch (const InputError&) {
      if (cut_short && i > 0) break;  // the crash interrupted this line; every earlier case is whole
      throw;
    }
    if (i > 0 && version < kResultsSchemaVersion) report_detail::add_later_case_fields(document, version);
    const JsonValue node(document, source);
    if (i == 0) {
      version = report_detail::schema_version_of(node);
      run = report_detail::read_run_record(node);
      if (!run.cases.empty() || run.summary) node.fail("the header line of a partial file has no cases and no summary");
      continue;
    }
    CaseResult result = report_detail::read_case_result(node);
    report_detail::check_case_rules(result, node);
    unique.check(result, node, "line " + std::to_string(i + 1));
    run.cases.push_back(std::move(result));
  }
  return run;
}

}  // namespace vlb
