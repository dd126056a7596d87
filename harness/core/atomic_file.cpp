#include "harness/core/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "harness/core/errors.hpp"

namespace vlb {

namespace fs = std::filesystem;

void write_file_atomically(const fs::path& path, std::string_view contents, const std::string& error_prefix) {
  if (!path.has_filename()) throw UsageError(error_prefix + "the path names a folder, not a file");
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw UsageError(error_prefix + "folder " + folder.string() + " does not exist");
  }
  if (fs::is_directory(path, error)) throw UsageError(error_prefix + "it is an existing folder");

  // Same folder as PATH, so that the rename is atomic (one file system).
  const fs::path temporary = folder / ("." + path.filename().string() + ".tmp");
  {
    std::ofstream out(temporary, std::ios::out | std::ios::binary | std::ios::trunc);
    if (!out) throw SystemError(error_prefix + "cannot create " + temporary.string() + ": " + std::strerror(errno));
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    if (out.fail()) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw SystemError(error_prefix + "cannot write " + temporary.string() + ": " + std::strerror(errno));
    }
  }
  fs::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw SystemError(error_prefix + "cannot rename " + temporary.string() + ": " + error.message());
  }
}

}  // namespace vlb
