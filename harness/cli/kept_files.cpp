#include "harness/cli/kept_files.hpp"

#include <fmt/format.h>

#include <system_error>

#include "harness/core/output_file.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/report/results_json.hpp"

namespace vlb::cli {

void print_kept_file(std::FILE* out, const std::filesystem::path& path,
                     const std::optional<std::filesystem::path>& kept) {
  if (!kept) return;
  fmt::print(out, "kept the earlier {} as {}\n", printable_text(path.string()), printable_text(kept->string()));
}

std::vector<EarlierFile> earlier_results_files(const std::filesystem::path& results_path) {
  std::vector<EarlierFile> files;
  for (const std::filesystem::path& path : {results_path, partial_results_path(results_path)}) {
    std::error_code error;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, error))) continue;
    files.push_back({path, kept_file_path(path), path != results_path});
  }
  return files;
}

std::vector<std::string> describe_earlier_files(const std::vector<EarlierFile>& files) {
  std::vector<std::string> lines;
  for (const EarlierFile& file : files) {
    const std::string path = printable_text(file.path.string()), kept = printable_text(file.kept_as.string());
    lines.push_back(file.partial
                        ? fmt::format("{} exists (a run that did not finish left it): a run keeps it as {} (vlbench "
                                      "merge reads it) before it starts its own",
                                      path, kept)
                        : fmt::format("{} exists: a run keeps it as {} when it writes its own results there", path,
                                      kept));
  }
  return lines;
}

}  // namespace vlb::cli
