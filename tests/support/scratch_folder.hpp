#pragma once
// A private scratch folder for tests, and reading a whole file as text.
#include <filesystem>
#include <string>

namespace vlb::testing {

// A fresh, empty folder under the system's temporary folder, removed with everything in it on destruction.
class ScratchFolder {
 public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // path() / name; nothing is created.
  std::filesystem::path file(const std::string& name) const { return path_ / name; }
  // Writes `contents` to path() / name (creating its parent folders) and returns that path.
  std::filesystem::path write(const std::string& name, const std::string& contents) const;

 private:
  std::filesystem::path path_;
};

// The whole file, byte for byte; throws std::runtime_error naming the file when it cannot be read.
std::string read_text(const std::filesystem::path& path);

}  // namespace vlb::testing
