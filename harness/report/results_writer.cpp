// The incremental, atomic results writer: PATH.partial.jsonl grows one flushed line per case; PATH appears whole, by
// rename, only at the end (write_results_file, also used to write a merged file).
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "harness/core/atomic_file.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/report/results_json.hpp"

namespace vlb {

namespace {

namespace fs = std::filesystem;

fs::path folder_of(const fs::path& path) {
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Fails early, before any GPU work, with what the user must fix.
void check_target(const fs::path& path) {
  const std::string prefix = "cannot write results to " + path.string() + ": ";
  if (!path.has_filename()) throw UsageError(prefix + "the path names a folder, not a file");
  const fs::path folder = folder_of(path);
  std::error_code error;
  if (!fs::exists(folder, error)) throw UsageError(prefix + "folder " + folder.string() + " does not exist");
  if (!fs::is_directory(folder, error)) throw UsageError(prefix + folder.string() + " is not a folder");
  if (fs::is_directory(path, error)) throw UsageError(prefix + "it is an existing folder");
}

void write_line(std::ofstream& out, const nlohmann::json& document, const fs::path& path) {
  out << dump_json(document) << '\n';
  out.flush();
  if (!out) throw SystemError("cannot write to " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

void write_results_file(const std::filesystem::path& path, const RunRecord& run) {
  write_file_atomically(path, dump_json(to_json(run), 2) + "\n", "cannot write results to " + path.string() + ": ");
}

ResultsWriter::ResultsWriter(std::filesystem::path path, const RunRecord& header) : path_(std::move(path)) {
  check_target(path_);
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

std::filesystem::path partial_results_path(const std::filesystem::path& path) {
  fs::path partial = path;
  partial += ".partial.jsonl";
  return partial;
}

std::filesystem::path ResultsWriter::partial_path() const { return partial_results_path(path_); }

void ResultsWriter::append_case(const CaseResult& result) {
  if (!partial_.is_open()) throw std::logic_error("ResultsWriter::append_case after finish");
  write_line(partial_, to_json(result), partial_path());
}

void ResultsWriter::finish(const RunRecord& complete_run) {
  if (!partial_.is_open()) throw std::logic_error("ResultsWriter::finish called twice");
  write_results_file(path_, complete_run);
  partial_.close();
  // PATH is complete; a partial file that cannot be removed is stale but harmless (the next run truncates it).
  std::error_code ignored;
  fs::remove(partial_path(), ignored);
}

}  // namespace vlb
