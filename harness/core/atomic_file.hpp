#pragma once
// Writing a whole file so that a reader never sees it half-written: the contents go to a temporary file beside the
// target, which is then renamed over it.
#include <filesystem>
#include <string>
#include <string_view>

namespace vlb {

// Writes `contents` (text or bytes) to `path` through `.NAME.tmp` in the same folder, then renames it over `path`;
// the temporary is removed on failure. Every message starts with `error_prefix`. Throws UsageError when the folder of
// `path` does not exist or `path` names a folder, SystemError when the temporary cannot be created, written or
// renamed.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents,
                           const std::string& error_prefix);

}  // namespace vlb
