#include "harness/core/text_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "harness/core/errors.hpp"

namespace vlb {

namespace {

namespace fs = std::filesystem;

// Why `path` cannot be read as a file, or empty when it is a regular file.
std::string why_not_a_file(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    if (error == std::errc::too_many_symbolic_link_levels) return "it is a symbolic link that leads in a loop";
    return error.message();
  }
  if (!fs::exists(status)) {
    std::error_code ignored;
    const bool dangling_link = fs::is_symlink(fs::symlink_status(path, ignored));
    return dangling_link ? "it is a symbolic link to a file that does not exist" : "not found (no such file)";
  }
  if (fs::is_directory(status)) return "it is a folder, not a file";
  if (!fs::is_regular_file(status)) return "it is not a regular file (a device, a pipe or a socket)";
  return {};
}

std::string too_large(std::uintmax_t bytes, std::uintmax_t max_bytes, std::string_view what) {
  return fmt::format("it holds {}, more than the {} a {} may hold (is it the right file?)",
                     bytes > max_bytes ? describe_byte_count(bytes) : "more", describe_byte_count(max_bytes), what);
}

}  // namespace

std::string describe_byte_count(std::uintmax_t bytes) {
  constexpr std::uintmax_t kKiB = 1024;
  if (bytes >= kKiB * kKiB * kKiB) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (kKiB * kKiB * kKiB));
  if (bytes >= kKiB * kKiB) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (kKiB * kKiB));
  if (bytes >= kKiB) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / kKiB);
  return fmt::format("{} bytes", bytes);
}

std::string read_text_file(const fs::path& path, std::string_view what, std::uintmax_t max_bytes) {
  const auto cannot = [&](const std::string& why) {
    return InputError(fmt::format("cannot read {} {}: {}", what, path.string(), why));
  };
  if (const std::string why = why_not_a_file(path); !why.empty()) throw cannot(why);
  std::error_code error;
  const std::uintmax_t size = fs::file_size(path, error);
  if (!error && size > max_bytes) throw cannot(too_large(size, max_bytes, what));

  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw cannot(std::strerror(errno));
  // Read in pieces up to the limit, so that a file that grows while it is read cannot take all memory.
  std::string contents;
  char buffer[1 << 16];
  while (stream.read(buffer, sizeof buffer) || stream.gcount() > 0) {
    contents.append(buffer, static_cast<std::size_t>(stream.gcount()));
    if (contents.size() > max_bytes) throw cannot(too_large(contents.size(), max_bytes, what));
  }
  if (stream.bad()) throw cannot(std::strerror(errno));
  return contents;
}

}  // namespace vlb
