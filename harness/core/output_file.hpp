#pragma once
// Files the user names for vlbench to write (--json, -o): checked before any work, written atomically, and never
// destroying a file vlbench did not create in this run. The policy (README, "Files vlbench writes"): an output path
// equal to an input is refused; an existing file at an output path is kept beside it as PATH.~N~ (the first free N),
// as `mv --backup=numbered` names it, and the command says so.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vlb {

// Throws UsageError "<error_prefix><why>" unless a file can be written at `path`: the path names a file (not a folder,
// no trailing slash), its folder exists, and a trial file can be created there (and is removed again), so that a
// read-only folder, /proc or /sys fail before any work rather than after it.
void check_output_file(const std::filesystem::path& path, const std::string& error_prefix);

// Why no file can be created in `folder` (it is no folder, or a trial file cannot be created there), or empty when
// one can.
std::string folder_write_problem(const std::filesystem::path& folder);

// Where an existing file at `path` is kept: PATH.~N~ for the first N for which nothing exists yet.
std::filesystem::path kept_file_path(const std::filesystem::path& path);

// Moves an existing file (or symbolic link) at `path` to kept_file_path(path) and returns that place; nullopt when
// nothing was there. Throws SystemError when it cannot be moved.
std::optional<std::filesystem::path> keep_existing_file(const std::filesystem::path& path);

// check_output_file, then writes `contents` atomically (write_file_atomically). An existing file at `path` is kept as
// PATH.~N~: it stays at `path` until the new file replaces it, and is back in place if writing fails. Returns where
// the earlier file is kept.
std::optional<std::filesystem::path> write_output_file(const std::filesystem::path& path, std::string_view contents,
                                                       const std::string& error_prefix);

// Whether `a` and `b` name the same file: the same file system object when both exist, else the same absolute,
// normalised path (a file not written yet).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Throws UsageError "<error_prefix>it is also <role> of this command; ..." when `output` is the same file as one of
// `inputs` (role, path): writing it would destroy what the command reads.
struct NamedInput {
  std::string role;  // "the results file it reads", "the suite file"
  std::filesystem::path path;
};
void refuse_output_over_input(const std::filesystem::path& output, const std::vector<NamedInput>& inputs,
                              const std::string& error_prefix);

}  // namespace vlb
