#pragma once
// The safetensors file format (as written by the Python `safetensors` package): an 8-byte little-endian header
// length N, N bytes of JSON header {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}},
// then the raw little-endian tensor data; offsets count from the first byte after the header.
// Reading validates the whole header up front; every problem is an InputError naming the file (and the tensor).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/problem.hpp"

namespace vlb {

using SafetensorsMetadata = std::map<std::string, std::string>;

// "BF16", "I64": how safetensors spells our dtypes.
std::string_view safetensors_dtype_name(DType dtype);
// Bytes per element of a safetensors dtype ("BF16" -> 2, "I64" -> 8); 0 for an unknown or sub-byte dtype.
std::size_t safetensors_dtype_bytes(std::string_view dtype);

// One tensor's header entry: where its bytes lie in the data section.
struct SafetensorsEntry {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;  // data_offsets, relative to the data section
  std::uint64_t end = 0;

  std::uint64_t bytes() const { return end - begin; }
};

// A tensor in memory, owning its bytes.
struct SafetensorsTensor {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;
};

// A tensor to write, viewing bytes the caller keeps alive during the write.
struct SafetensorsTensorView {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::span<const std::byte> data;
};

// Parses and validates the header at construction; reads one tensor's bytes on demand.
class SafetensorsReader {
 public:
  explicit SafetensorsReader(std::filesystem::path path);

  const std::filesystem::path& path() const { return path_; }
  const std::map<std::string, SafetensorsEntry>& entries() const { return entries_; }
  const SafetensorsMetadata& metadata() const { return metadata_; }
  bool contains(const std::string& key) const { return entries_.contains(key); }
  // Throws InputError (naming the keys present) when the file has no such tensor.
  const SafetensorsEntry& entry(const std::string& key) const;
  std::vector<std::byte> read(const std::string& key) const;
  // `destination` must have exactly entry(key).bytes() bytes.
  void read_into(const std::string& key, std::span<std::byte> destination) const;

 private:
  std::filesystem::path path_;
  std::uint64_t data_start_ = 0;  // 8 + header length
  std::map<std::string, SafetensorsEntry> entries_;
  SafetensorsMetadata metadata_;
};

struct SafetensorsFile {
  std::map<std::string, SafetensorsTensor> tensors;
  SafetensorsMetadata metadata;
};

// Reads every tensor of a file.
SafetensorsFile read_safetensors(const std::filesystem::path& path);

// Writes atomically (a temporary file beside `path`, then a rename). The header is padded with spaces to a multiple
// of 8 bytes, and tensors are laid out widest dtype first, then by name, so that every tensor is aligned to its
// element size (as the Python package does). Throws std::invalid_argument for a view whose byte count does not match
// its dtype and shape, SystemError when the file cannot be written.
void write_safetensors(const std::filesystem::path& path, const std::map<std::string, SafetensorsTensorView>& tensors,
                       const SafetensorsMetadata& metadata = {});

}  // namespace vlb
