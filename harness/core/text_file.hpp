#pragma once
// Reading a whole file the user named (a suite file, a results file, a source file to package).
#include <filesystem>
#include <string>
#include <string_view>

namespace vlb {

// The file's bytes. A missing or unreadable file is an InputError "cannot read <what> <path>: <why>".
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace vlb
