#pragma once
// Reading a whole file the user named (a suite file, a results file, a source file to package).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace vlb {

// The largest file vlbench reads whole. Its biggest files are results files: 16 cases x 3 timers x 10000 adaptive
// samples per solution are a few tens of MiB; a file beyond this is not one of vlbench's (a disk image, a log).
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{256} << 20;

// The file's bytes. Anything that keeps it from being read is an InputError "cannot read <what> <path>: <why>", each
// with its own reason: not found, a folder, a symbolic link that loops or dangles, not a regular file (a device, a
// pipe), no permission, larger than `max_bytes` (checked before reading, and again while reading a file that grows).
std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::uintmax_t max_bytes = kMaxInputFileBytes);

// "1.0 GiB", "3.2 MiB", "512 bytes".
std::string describe_byte_count(std::uintmax_t bytes);

}  // namespace vlb
