#include "support_fatbin.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace vlb::fused_b200::testing {
namespace {

constexpr std::uint32_t kContainerMagic = 0xBA55ED50u;
constexpr std::uint16_t kElfKind = 2;
constexpr std::uint64_t kArchSpecificFlag = 0x100000u;
constexpr std::uint64_t kCompressedFlag = 0x2000u;

template <class T>
T read_at(const std::string& bytes, std::size_t offset, const std::filesystem::path& file) {
  if (offset + sizeof(T) > bytes.size()) {
    throw std::runtime_error(file.string() + ": truncated at byte " + std::to_string(offset));
  }
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// [offset, offset + size) of the section named `name` in an ELF64 little-endian file.
std::pair<std::size_t, std::size_t> find_section(const std::string& bytes, const std::string& name,
                                                 const std::filesystem::path& file) {
  if (bytes.size() < 64 || bytes.compare(0, 4, "\x7f" "ELF") != 0 || bytes[4] != 2) {
    throw std::runtime_error(file.string() + " is not an ELF64 file");
  }
  const auto section_headers = read_at<std::uint64_t>(bytes, 0x28, file);
  const auto header_size = read_at<std::uint16_t>(bytes, 0x3A, file);
  const auto count = read_at<std::uint16_t>(bytes, 0x3C, file);
  const auto names_index = read_at<std::uint16_t>(bytes, 0x3E, file);
  const auto header = [&](int index) { return static_cast<std::size_t>(section_headers + index * header_size); };
  const auto names_offset = read_at<std::uint64_t>(bytes, header(names_index) + 0x18, file);
  for (int index = 0; index < count; ++index) {
    const auto name_offset = read_at<std::uint32_t>(bytes, header(index), file);
    if (bytes.compare(names_offset + name_offset, name.size() + 1, std::string(name.c_str(), name.size() + 1)) == 0) {
      return {read_at<std::uint64_t>(bytes, header(index) + 0x18, file),
              read_at<std::uint64_t>(bytes, header(index) + 0x20, file)};
    }
  }
  throw std::runtime_error(file.string() + " has no " + name + " section (no device code linked in)");
}

}  // namespace

std::vector<FatbinEntry> read_fatbin_entries(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto [section, section_size] = find_section(bytes, ".nv_fatbin", file);
  std::vector<FatbinEntry> entries;
  std::size_t container = section;
  while (container + 16 <= section + section_size) {
    if (read_at<std::uint32_t>(bytes, container, file) != kContainerMagic) {
      container += 8;  // containers are 8-byte aligned; padding between them
      continue;
    }
    const auto container_header = read_at<std::uint16_t>(bytes, container + 6, file);
    const auto container_size = read_at<std::uint64_t>(bytes, container + 8, file);
    const std::size_t end = container + container_header + container_size;
    for (std::size_t entry = container + container_header; entry < end;) {
      const auto kind = read_at<std::uint16_t>(bytes, entry, file);
      const auto entry_header = read_at<std::uint32_t>(bytes, entry + 4, file);
      const auto payload_size = read_at<std::uint64_t>(bytes, entry + 8, file);
      const auto flags = read_at<std::uint64_t>(bytes, entry + 40, file);
      FatbinEntry parsed;
      parsed.elf = kind == kElfKind;
      parsed.sm = static_cast<int>(read_at<std::uint32_t>(bytes, entry + 28, file));
      parsed.arch_specific = (flags & kArchSpecificFlag) != 0;
      parsed.compressed = (flags & kCompressedFlag) != 0;
      if (entry + entry_header + payload_size > bytes.size()) {
        throw std::runtime_error(file.string() + ": fatbin entry at byte " + std::to_string(entry) +
                                 " overruns the file");
      }
      parsed.payload = bytes.substr(entry + entry_header, payload_size);
      entries.push_back(std::move(parsed));
      entry += entry_header + payload_size;
    }
    container = end;
  }
  return entries;
}

std::string target_name(const FatbinEntry& entry) {
  return "sm_" + std::to_string(entry.sm) + (entry.arch_specific ? "a" : "");
}

}  // namespace vlb::fused_b200::testing
