#include "support_sol_files.hpp"

namespace vlb::testing {

std::string project_file(const std::string& relative_path) {
  return (std::filesystem::path(VLBENCH_SOURCE_DIR) / relative_path).string();
}

ScratchFile::ScratchFile(const std::string& name, const std::string& text) : path_(folder_.write(name, text)) {}

ScratchFile::~ScratchFile() = default;

}  // namespace vlb::testing
