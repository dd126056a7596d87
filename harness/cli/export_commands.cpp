#include "harness/cli/export_commands.hpp"

#include <fmt/format.h>

#include "harness/cli/kept_files.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/plan/solution_catalog.hpp"

namespace vlb::cli {

int run_export_command(const ExportRequest& request, std::FILE* out) {
  const ExportedTraces exported = export_traces(request);
  fmt::print(out, "wrote {} trace(s) to {}", exported.written, printable_text(request.output_path.string()));
  if (exported.left_out > 0) {
    fmt::print(out, " ({} case(s) left out: SKIPPED, custom shapes without a workload uuid, or PASSED without timing)",
               exported.left_out);
  }
  fmt::print(out, "\n");
  print_kept_file(out, request.output_path, exported.kept);
  return 0;
}

namespace {

// A Python package is a package already: written out with its sources inline, as the leaderboard takes it.
int write_python_package(const CatalogEntry& entry, const PackageRequest& request, std::FILE* out) {
  const SolutionPackage& package = *entry.package;
  const std::filesystem::path path =
      request.output_path.empty() ? std::filesystem::path(entry.info.name + ".solution.json") : request.output_path;
  const std::optional<std::filesystem::path> kept = write_inline_package(package, path);
  fmt::print(out, "wrote {}: solution '{}', {} source file(s) inline, entry point {}\n", printable_text(path.string()),
             printable_text(entry.info.name), package.document.at("sources").size(), printable_text(entry.entry_point));
  print_kept_file(out, path, kept);
  return 0;
}

}  // namespace

int run_package_command(const PackageRequest& request, std::FILE* out) {
  const SolutionCatalog& catalog = SolutionCatalog::instance();
  if (catalog.contains(request.solution) && catalog.at(request.solution).is_python_package()) {
    return write_python_package(catalog.at(request.solution), request, out);
  }
  const PackagedSolution packaged = package_solution(request, SolutionCatalog::instance().list());
  fmt::print(out, "wrote {}: solution '{}', {} source file(s), entry point {}\n",
             printable_text(packaged.path.string()), request.solution, packaged.source_files, packaged.entry_point);
  print_kept_file(out, packaged.path, packaged.kept);
  return 0;
}

}  // namespace vlb::cli
