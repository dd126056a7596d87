#pragma once
// The CLI edge: runs a request and maps every error to its documented exit code (README, "Exit codes").
#include <cstdio>
#include <string>
#include <vector>

namespace vlb::cli {

int vlbench_main(const std::vector<std::string>& arguments, std::FILE* out, std::FILE* err);

}  // namespace vlb::cli
