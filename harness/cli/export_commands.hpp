#pragma once
// The bodies of `vlbench export` and `vlbench package`: the export unit does the work and returns what it wrote;
// these say so in one line.
#include <cstdio>

#include "harness/export/package.hpp"
#include "harness/export/traces.hpp"

namespace vlb::cli {

int run_export_command(const ExportRequest& request, std::FILE* out);    // returns 0; errors are thrown
int run_package_command(const PackageRequest& request, std::FILE* out);  // returns 0; errors are thrown

}  // namespace vlb::cli
