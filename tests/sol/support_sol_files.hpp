#pragma once
// Files for the sol tests: the project's own tables, and scratch JSON files written per test.
#include <filesystem>
#include <string>

#include "support/scratch_folder.hpp"

namespace vlb::testing {

std::string project_file(const std::string& relative_path);  // under the source tree

// A JSON file with the given text in a fresh temporary folder, removed with the object.
class ScratchFile {
 public:
  ScratchFile(const std::string& name, const std::string& text);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  ScratchFolder folder_;
  std::filesystem::path path_;
};

}  // namespace vlb::testing
