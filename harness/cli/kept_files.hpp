#pragma once
// What the commands say about earlier files at their output paths, which they keep as PATH.~N~ rather than replace
// (core/output_file.hpp).
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace vlb::cli {

// "kept the earlier PATH as PATH.~1~", when there was one.
void print_kept_file(std::FILE* out, const std::filesystem::path& path,
                     const std::optional<std::filesystem::path>& kept);

// The files of an earlier run at a results path (PATH, PATH.partial.jsonl) and where a run will keep each.
struct EarlierFile {
  std::filesystem::path path, kept_as;
  bool partial = false;
};
std::vector<EarlierFile> earlier_results_files(const std::filesystem::path& results_path);

// For --dry-run: what a run would do with each, one line each.
std::vector<std::string> describe_earlier_files(const std::vector<EarlierFile>& files);

}  // namespace vlb::cli
