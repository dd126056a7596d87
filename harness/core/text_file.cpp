#include "harness/core/text_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "harness/core/errors.hpp"

namespace vlb {

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code status;
  if (!std::filesystem::is_regular_file(path, status)) {
    const bool folder = std::filesystem::is_directory(path, status);
    throw InputError(fmt::format("cannot read {} {}: {}", what, path.string(),
                                 folder ? "it is a folder, not a file" : "not found (no such file)"));
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw InputError(fmt::format("cannot read {} {}: {}", what, path.string(), std::strerror(errno)));
  std::ostringstream contents;
  contents << stream.rdbuf();
  if (stream.bad()) throw InputError(fmt::format("cannot read {} {}: {}", what, path.string(), std::strerror(errno)));
  return contents.str();
}

}  // namespace vlb
