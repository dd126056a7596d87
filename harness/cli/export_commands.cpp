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

int run_package_command(const PackageRequest& request, std::FILE* out) {
  const PackagedSolution packaged = package_solution(request, SolutionCatalog::instance().list());
  fmt::print(out, "wrote {}: solution '{}', {} source file(s), entry point {}\n",
             printable_text(packaged.path.string()), request.solution, packaged.source_files, packaged.entry_point);
  print_kept_file(out, packaged.path, packaged.kept);
  return 0;
}

}  // namespace vlb::cli
