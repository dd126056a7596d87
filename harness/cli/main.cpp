#include <cstdio>
#include <string>
#include <vector>

#include "harness/cli/vlbench_main.hpp"

int main(int argc, char* argv[]) {
  return vlb::cli::vlbench_main(std::vector<std::string>(argv + 1, argv + argc), stdout, stderr);
}
