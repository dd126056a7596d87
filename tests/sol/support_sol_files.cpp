#include "support_sol_files.hpp"

#include <fstream>
#include <random>
#include <stdexcept>

namespace vlb::testing {

std::string project_file(const std::string& relative_path) {
  return (std::filesystem::path(VLBENCH_SOURCE_DIR) / relative_path).string();
}

ScratchFile::ScratchFile(const std::string& name, const std::string& text) {
  std::random_device entropy;
  folder_ = std::filesystem::temp_directory_path() / ("vlbench-sol-test-" + std::to_string(entropy()));
  std::filesystem::create_directories(folder_);
  path_ = folder_ / name;
  std::ofstream stream(path_);
  stream << text;
  if (!stream) throw std::runtime_error("cannot write the scratch file " + path_.string());
}

ScratchFile::~ScratchFile() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

}  // namespace vlb::testing
