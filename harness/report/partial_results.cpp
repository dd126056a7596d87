#include "harness/report/partial_results.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/core/errors.hpp"
#include "harness/report/results_json_detail.hpp"

namespace vlb {

namespace {

struct PartialLines {
  std::vector<std::string> lines;
  bool last_line_complete = true;  // the file ends with a newline
};

PartialLines read_lines(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read partial results file " + path.string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
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
  const PartialLines file = read_lines(partial_path);
  if (file.lines.empty()) throw InputError(partial_path.string() + ": empty (no header line)");
  RunRecord run;
  for (std::size_t i = 0; i < file.lines.size(); ++i) {
    const std::string source = partial_path.string() + ":" + std::to_string(i + 1);
    const bool cut_short = i + 1 == file.lines.size() && !file.last_line_complete;
    nlohmann::json document;
    try {
      document = nlohmann::json::parse(file.lines[i]);
    } catch (const nlohmann::json::parse_error& error) {
      if (cut_short && i > 0) break;  // the crash interrupted this line; every earlier case is whole
      throw InputError(source + ": not valid JSON (" + error.what() + ")");
    }
    const report_detail::JsonNode node(document, source);
    if (i == 0) {
      run = report_detail::run_record_from_node(node);
      if (!run.cases.empty() || run.summary) node.fail("the header line of a partial file has no cases and no summary");
      continue;
    }
    CaseResult result = report_detail::case_result_from_node(node);
    report_detail::check_case_rules(result, node);
    run.cases.push_back(std::move(result));
  }
  return run;
}

}  // namespace vlb
