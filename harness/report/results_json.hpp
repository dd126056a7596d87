#pragma once
// The results JSON: conversion both ways (by the field lists of results_schema.hpp), schema validation, and the
// incremental, atomic writer.
// Strict JSON: non-finite numbers are written as null, never NaN.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "harness/report/results.hpp"

namespace vlb {

nlohmann::json to_json(const RunRecord& run);
nlohmann::json to_json(const CaseResult& result);
RunRecord run_record_from_json(const nlohmann::json& document);  // throws InputError naming the JSON path
// Checks a parsed document against the schema; throws InputError naming the first bad JSON path.
void validate_results_json(const nlohmann::json& document);
// Reads, validates (the whole file: docs/results-schema.md, "Validation rules"), converts. A partial file
// (PATH.partial.jsonl) or a file of several JSON values is refused with what to do instead.
RunRecord read_results_file(const std::filesystem::path& path);
// Where a run writing PATH keeps its partial file: PATH.partial.jsonl.
std::filesystem::path partial_results_path(const std::filesystem::path& path);
// PATH.partial.jsonl, or PATH.partial.jsonl.~N~ where a later run kept one.
bool is_partial_results_path(const std::filesystem::path& path);
// "cannot write results to PATH: ", how every message about writing PATH starts.
std::string results_error_prefix(const std::filesystem::path& path);
// Writes a complete results file at once, atomically (a temporary file beside it, renamed over it). An existing file
// at PATH is kept as PATH.~N~ (core/output_file.hpp): returns where, if there was one.
std::optional<std::filesystem::path> write_results_file(const std::filesystem::path& path, const RunRecord& run);

// Writes PATH atomically at the end (temporary file + rename), and keeps PATH.partial.jsonl up to date while the run
// goes: the header line first, then one line per finished case, flushed, so a crash keeps every finished case.
// The constructor fails early (UsageError, exit 2) when PATH's folder cannot be written, before any GPU work.
// Nothing of an earlier run is lost: its partial file is kept as PATH.partial.jsonl.~N~ when the writer starts, its
// results file as PATH.~N~ when the new one replaces it.
class ResultsWriter {
 public:
  ResultsWriter(std::filesystem::path path, const RunRecord& header);
  void append_case(const CaseResult& result);
  void finish(const RunRecord& complete_run);  // writes PATH, then removes the partial file
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path partial_path() const;
  // Where the earlier run's files went (empty when there were none).
  const std::optional<std::filesystem::path>& kept_partial() const { return kept_partial_; }
  const std::optional<std::filesystem::path>& kept_results() const { return kept_results_; }

 private:
  std::filesystem::path path_;
  std::ofstream partial_;
  std::optional<std::filesystem::path> kept_partial_, kept_results_;
};

}  // namespace vlb
