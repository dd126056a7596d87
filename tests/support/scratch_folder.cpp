#include "support/scratch_folder.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace vlb::testing {

ScratchFolder::ScratchFolder() {
  static std::atomic<int> counter{0};
  std::random_device entropy;
  const auto base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const auto candidate = base / ("vlbench-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) +
                                   "-" + std::to_string(entropy()));
    if (std::filesystem::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("could not create a scratch folder under " + base.string());
}

ScratchFolder::~ScratchFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path ScratchFolder::write(const std::string& name, const std::string& contents) const {
  const std::filesystem::path file = path_ / name;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream stream(file, std::ios::binary | std::ios::trunc);
  stream << contents;
  stream.close();
  if (!stream) throw std::runtime_error("could not write the test file " + file.string());
  return file;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw std::runtime_error("could not read the test file " + path.string());
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

}  // namespace vlb::testing
