#pragma once
#include <cstdio>

#include "harness/plan/run_plan.hpp"

namespace vlb::cli {

// The suite's cases and the registered solutions (no GPU needed).
void print_listing(std::FILE* out, const RunPlan& plan);
// The same for machines (`--list --json`): {"suite": {...}, "cases": [...], "solutions": [...]}.
void print_listing_json(std::FILE* out, const RunPlan& plan);

}  // namespace vlb::cli
