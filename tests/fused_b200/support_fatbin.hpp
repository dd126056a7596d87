#pragma once
// The CUDA fat binaries embedded in an ELF executable, read without cuobjdump (the toolkit here has none): the
// .nv_fatbin section holds containers (magic 0xBA55ED50), each a list of entries with a kind (ELF cubin or PTX),
// the SM number, and flags, of which 0x100000 marks arch-specific code ("a" targets such as sm_100a) and 0x2000 a
// compressed payload. The layout was read from nvcc 13.0's own output (tests check it on a file built here).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace vlb::fused_b200::testing {

struct FatbinEntry {
  bool elf = false;            // kind 2: a cubin (kind 1: PTX)
  int sm = 0;                  // 90, 100, ...
  bool arch_specific = false;  // an "a" target (sm_90a, sm_100a)
  bool compressed = false;
  std::string payload;         // the cubin itself unless compressed
};

// Every entry of every container in the file's .nv_fatbin section. Throws std::runtime_error naming the file for
// a file that is not an ELF64 executable or has no .nv_fatbin section, or for a malformed container.
std::vector<FatbinEntry> read_fatbin_entries(const std::filesystem::path& file);

// "sm_100a" for an arch-specific sm 100 entry.
std::string target_name(const FatbinEntry& entry);

}  // namespace vlb::fused_b200::testing
