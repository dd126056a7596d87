#include "harness/core/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "harness/core/atomic_file.hpp"
#include "harness/core/errors.hpp"

namespace vlb {

namespace {

namespace fs = std::filesystem;

fs::path folder_of(const fs::path& path) { return path.parent_path().empty() ? fs::path(".") : path.parent_path(); }

bool something_at(const fs::path& path) {
  std::error_code error;
  return fs::exists(fs::symlink_status(path, error));
}

fs::path numbered(const fs::path& path, int number) {
  fs::path kept = path;
  kept += ".~" + std::to_string(number) + "~";
  return kept;
}

// Creates and removes a file in `folder`: the one test of writability that holds for root, read-only mounts and
// pseudo file systems alike (access(2) answers yes for root everywhere).
std::string trial_create(const fs::path& folder) {
  const fs::path probe = folder / (".vlbench-write-test-" + std::to_string(::getpid()));
  const int descriptor = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (descriptor < 0) return std::strerror(errno);
  ::close(descriptor);
  ::unlink(probe.c_str());
  return {};
}

// A second name for the file at `path` (a hard link), so that `path` can be replaced while the earlier file lives
// on; where the file system has no hard links, the file is moved instead.
struct KeptAside {
  fs::path kept;
  bool moved = false;  // `path` is gone until the new file arrives
};

std::optional<KeptAside> keep_aside(const fs::path& path) {
  if (!something_at(path)) return std::nullopt;
  for (int number = 1;; ++number) {
    const fs::path candidate = numbered(path, number);
    if (something_at(candidate)) continue;
    if (::link(path.c_str(), candidate.c_str()) == 0) return KeptAside{candidate, false};
    if (errno == EEXIST) continue;  // taken meanwhile
    std::error_code error;
    fs::rename(path, candidate, error);
    if (error) throw SystemError("cannot keep " + path.string() + " as " + candidate.string() + ": " + error.message());
    return KeptAside{candidate, true};
  }
}

void undo(const KeptAside& aside, const fs::path& path) {
  std::error_code ignored;
  if (aside.moved) {
    fs::rename(aside.kept, path, ignored);
  } else {
    fs::remove(aside.kept, ignored);
  }
}

}  // namespace

void check_output_file(const fs::path& path, const std::string& error_prefix) {
  if (path.empty() || !path.has_filename()) throw UsageError(error_prefix + "the path names a folder, not a file");
  std::error_code error;
  if (fs::is_directory(path, error)) throw UsageError(error_prefix + "it is an existing folder");
  const fs::path folder = folder_of(path);
  if (!fs::exists(folder, error)) throw UsageError(error_prefix + "folder " + folder.string() + " does not exist");
  if (!fs::is_directory(folder, error)) throw UsageError(error_prefix + folder.string() + " is not a folder");
  if (const std::string why = trial_create(folder); !why.empty()) {
    throw UsageError(error_prefix + "no file can be created in folder " + folder.string() + ": " + why);
  }
}

std::string folder_write_problem(const fs::path& folder) {
  std::error_code error;
  if (!fs::is_directory(folder, error)) return "it is not a folder";
  return trial_create(folder);
}

fs::path kept_file_path(const fs::path& path) {
  for (int number = 1;; ++number) {
    if (!something_at(numbered(path, number))) return numbered(path, number);
  }
}

std::optional<fs::path> keep_existing_file(const fs::path& path) {
  std::optional<KeptAside> aside = keep_aside(path);
  if (!aside) return std::nullopt;
  if (!aside->moved) {
    std::error_code error;
    fs::remove(path, error);
    if (error) {
      undo(*aside, path);
      throw SystemError("cannot keep " + path.string() + " as " + aside->kept.string() + ": " + error.message());
    }
  }
  return aside->kept;
}

std::optional<fs::path> write_output_file(const fs::path& path, std::string_view contents,
                                          const std::string& error_prefix) {
  check_output_file(path, error_prefix);
  const std::optional<KeptAside> aside = keep_aside(path);
  try {
    write_file_atomically(path, contents, error_prefix);
  } catch (...) {
    if (aside) undo(*aside, path);
    throw;
  }
  if (!aside) return std::nullopt;
  return aside->kept;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) {
    const bool same = fs::equivalent(a, b, error);
    if (!error) return same;
  }
  const fs::path left = fs::weakly_canonical(fs::absolute(a, error), error);
  const fs::path right = fs::weakly_canonical(fs::absolute(b, error), error);
  return left.lexically_normal() == right.lexically_normal();
}

void refuse_output_over_input(const fs::path& output, const std::vector<NamedInput>& inputs,
                              const std::string& error_prefix) {
  for (const NamedInput& input : inputs) {
    if (same_file(output, input.path)) {
      throw UsageError(error_prefix + "it is also " + input.role + " (" + input.path.string() +
                       "), which writing it would destroy: give another output path");
    }
  }
}

}  // namespace vlb
