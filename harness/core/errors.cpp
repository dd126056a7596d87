#include "harness/core/errors.hpp"

#include <filesystem>

namespace vlb {

Error::Error(const std::string& message, ExitCode code, std::source_location where)
    : std::runtime_error(message), message_(message), code_(code), where_(where) {}

std::string describe_location(const std::source_location& where) {
  return std::filesystem::path(where.file_name()).filename().string() + ":" + std::to_string(where.line());
}

}  // namespace vlb
