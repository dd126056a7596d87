#pragma once
// `vlbench ... --dry-run`: check_plan (everything that needs no GPU), then what would run, and exit 0.
#include <cstdio>

#include "harness/plan/run_plan.hpp"

namespace vlb::cli {

int run_dry_run_command(const RunPlan& plan, std::FILE* out);  // errors are thrown (exit 2)

}  // namespace vlb::cli
