// The incremental, atomic results writer: PATH.partial.jsonl grows one flushed line per case; PATH appears whole, by
// rename, only at the end (write_results_file, also used to write a merged file). Files of earlier runs at PATH or
// PATH.partial.jsonl are kept as PATH.~N~ (core/output_file.hpp), never replaced.
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/output_file.hpp"
#include "harness/report/results_json.hpp"

namespace vlb {

namespace {

namespace fs = std::filesystem;

void write_line(std::ofstream& out, const nlohmann::json& document, const fs::path& path) {
  out << dump_json(document) << '\n';
  out.flush();
  if (!out) throw SystemError("cannot write to " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

std::optional<std::filesystem::path> write_results_file(const std::filesystem::path& path, const RunRecord& run) {
  return write_output_file(path, dump_json(to_json(run), 2) + "\n", results_error_prefix(path));
}

std::string results_error_prefix(const std::filesystem::path& path) {
  return "cannot write results to " + path.string() + ": ";
}

ResultsWriter::ResultsWriter(std::filesystem::path path, const RunRecord& header) : path_(std::move(path)) {
  check_output_file(path_, results_error_prefix(path_));
  kept_partial_ = keep_existing_file(partial_path());  // an earlier run's unfinished cases
  partial_.open(partial_path(), std::ios::out | std::ios::trunc);
  if (!partial_) {
    throw UsageError("cannot write results to " + path_.string() + ": cannot create " + partial_path().string() +
                     ": " + std::strerror(errno));
  }
  RunRecord header_only = header;
  header_only.cases.clear();
  header_only.summary.reset();
  write_line(partial_, to_json(header_only), partial_path());
}

constexpr std::string_view kPartialSuffix = ".partial.jsonl";

std::filesystem::path partial_results_path(const std::filesystem::path& path) {
  fs::path partial = path;
  partial += kPartialSuffix;
  return partial;
}

// PATH.partial.jsonl, or one kept by a later run as PATH.partial.jsonl.~N~ (core/output_file.hpp).
bool is_partial_results_path(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  if (name.ends_with('~')) {
    const std::size_t mark = name.rfind(".~", name.size() - 2);
    const bool numbered = mark != std::string::npos && mark + 3 < name.size() &&
                          name.find_first_not_of("0123456789", mark + 2) == name.size() - 1;
    if (numbered) name.resize(mark);
  }
  return name.ends_with(kPartialSuffix);
}

std::filesystem::path ResultsWriter::partial_path() const { return partial_results_path(path_); }

void ResultsWriter::append_case(const CaseResult& result) {
  if (!partial_.is_open()) throw std::logic_error("ResultsWriter::append_case after finish");
  write_line(partial_, to_json(result), partial_path());
}

void ResultsWriter::finish(const RunRecord& complete_run) {
  if (!partial_.is_open()) throw std::logic_error("ResultsWriter::finish called twice");
  kept_results_ = write_results_file(path_, complete_run);
  partial_.close();
  // PATH is complete and holds every case of the partial file, which this run created: removing it loses nothing.
  std::error_code ignored;
  fs::remove(partial_path(), ignored);
}

}  // namespace vlb
