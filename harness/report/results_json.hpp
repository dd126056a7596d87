#pragma once
// The results JSON: conversion both ways (by the field lists of results_schema.hpp), schema validation, and the
// incremental, atomic writer.
// Strict JSON: non-finite numbers are written as null, never NaN.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/report/results.hpp"

namespace vlb {

nlohmann::json to_json(const RunRecord& run);
nlohmann::json to_json(const CaseResult& result);
RunRecord run_record_from_json(const nlohmann::json& document);  // throws InputError naming the JSON path
// Checks a parsed document against the schema; throws InputError naming the first bad JSON path.
void validate_results_json(const nlohmann::json& document);
RunRecord read_results_file(const std::filesystem::path& path);  // reads, validates, converts
// Where a run writing PATH keeps its partial file: PATH.partial.jsonl.
std::filesystem::path partial_results_path(const std::filesystem::path& path);
// Writes a complete results file at once, atomically (a temporary file beside it, renamed over it).
void write_results_file(const std::filesystem::path& path, const RunRecord& run);

// Writes PATH atomically at the end (temporary file + rename), and keeps PATH.partial.jsonl up to date while the run
// goes: the header line first, then one line per finished case, flushed, so a crash keeps every finished case.
// The constructor fails early (UsageError, exit 2) when PATH's folder cannot be written, before any GPU work.
class ResultsWriter {
 public:
  ResultsWriter(std::filesystem::path path, const RunRecord& header);
  void append_case(const CaseResult& result);
  void finish(const RunRecord& complete_run);  // writes PATH, then removes the partial file
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path partial_path() const;

 private:
  std::filesystem::path path_;
  std::ofstream partial_;
};

}  // namespace vlb
