#include "harness/inputs/safetensors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"

namespace vlb {

// The format stores the header length and all tensor data little-endian; we copy bytes as they are.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

namespace {

constexpr std::string_view kMetadataKey = "__metadata__";
constexpr std::size_t kLengthBytes = 8;
// The Python package refuses headers past 100 MB; so do we, before allocating for one.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

struct DTypeSize {
  std::string_view name;
  std::size_t bytes;
};
// The byte-sized dtypes of the safetensors specification (the sub-byte F4/F6 types are not supported).
constexpr std::array<DTypeSize, 17> kDTypeSizes = {{
    {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"F8_E8M0", 1},
    {"I16", 2}, {"U16", 2}, {"F16", 2}, {"BF16", 2},
    {"I32", 4}, {"U32", 4}, {"F32", 4},
    {"I64", 8}, {"U64", 8}, {"F64", 8}, {"C64", 8},
}};

std::string file_context(const std::filesystem::path& path) { return fmt::format("safetensors file \"{}\"", path.string()); }

std::string tensor_context(const std::filesystem::path& path, std::string_view key) {
  return fmt::format("safetensors file \"{}\", tensor \"{}\"", path.string(), key);
}

std::string show_shape(const std::vector<std::int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// Element count of a shape, or nullopt when it overflows 64 bits.
std::optional<std::uint64_t> element_count(const std::vector<std::int64_t>& shape) {
  std::uint64_t count = 1;
  for (const std::int64_t extent : shape) {
    const auto extent_unsigned = static_cast<std::uint64_t>(extent);
    if (extent_unsigned != 0 && count > std::numeric_limits<std::uint64_t>::max() / extent_unsigned) return std::nullopt;
    count *= extent_unsigned;
  }
  return count;
}

std::optional<std::uint64_t> byte_count(const std::vector<std::int64_t>& shape, std::size_t element_bytes) {
  const auto count = element_count(shape);
  if (!count || *count > std::numeric_limits<std::uint64_t>::max() / element_bytes) return std::nullopt;
  return *count * element_bytes;
}

SafetensorsEntry parse_entry(const JsonValue& value, std::uint64_t data_bytes) {
  value.expect_object();
  SafetensorsEntry entry;
  const JsonValue dtype = value.at("dtype");
  entry.dtype = dtype.as_string();
  const std::size_t element_bytes = safetensors_dtype_bytes(entry.dtype);
  if (element_bytes == 0) dtype.fail(fmt::format("unknown or unsupported dtype \"{}\"", entry.dtype));

  for (const JsonValue& extent : value.at("shape").elements()) {
    const std::uint64_t value_unsigned = extent.as_uint64();
    if (value_unsigned > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      extent.fail(fmt::format("shape extent {} is too large", value_unsigned));
    }
    entry.shape.push_back(static_cast<std::int64_t>(value_unsigned));
  }

  const JsonValue offsets = value.at("data_offsets");
  if (!offsets.json().is_array() || offsets.json().size() != 2) {
    offsets.fail(fmt::format("is {}, expected [begin, end]", offsets.brief()));
  }
  entry.begin = offsets.elements()[0].as_uint64();
  entry.end = offsets.elements()[1].as_uint64();
  if (entry.begin > entry.end) offsets.fail(fmt::format("[{}, {}] end before they begin", entry.begin, entry.end));
  if (entry.end > data_bytes) {
    offsets.fail(fmt::format("[{}, {}] run past the end of the data section ({} bytes); the file is truncated or its "
                             "header is wrong",
                             entry.begin, entry.end, data_bytes));
  }
  const auto expected = byte_count(entry.shape, element_bytes);
  if (!expected || *expected != entry.bytes()) {
    offsets.fail(fmt::format("[{}, {}] hold {} bytes, but dtype {} and shape {} need {}", entry.begin, entry.end,
                             entry.bytes(), entry.dtype, show_shape(entry.shape),
                             expected ? std::to_string(*expected) : std::string("more than 2^64")));
  }
  return entry;
}

SafetensorsMetadata parse_metadata(const JsonValue& value) {
  SafetensorsMetadata metadata;
  for (const auto& [key, text] : value.members()) metadata[key] = text.as_string();
  return metadata;
}

std::uint64_t decode_length(const std::array<unsigned char, kLengthBytes>& bytes) {
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i) length |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  return length;
}

std::array<char, kLengthBytes> encode_length(std::uint64_t length) {
  std::array<char, kLengthBytes> bytes{};
  for (std::size_t i = 0; i < kLengthBytes; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  return bytes;
}

std::ifstream open_for_reading(const std::filesystem::path& path) {
  std::error_code status;
  if (!std::filesystem::is_regular_file(path, status)) {
    throw InputError(fmt::format("{}: no such file (or not a regular file)", file_context(path)));
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw InputError(fmt::format("{}: cannot open: {}", file_context(path), std::strerror(errno)));
  return stream;
}

}  // namespace

std::string_view safetensors_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBFloat16: return "BF16";
    case DType::kInt64: return "I64";
  }
  throw std::invalid_argument("unknown DType");
}

std::size_t safetensors_dtype_bytes(std::string_view dtype) {
  for (const DTypeSize& known : kDTypeSizes) {
    if (known.name == dtype) return known.bytes;
  }
  return 0;
}

SafetensorsReader::SafetensorsReader(std::filesystem::path path) : path_(std::move(path)) {
  std::ifstream stream = open_for_reading(path_);
  const std::uint64_t file_bytes = std::filesystem::file_size(path_);
  if (file_bytes < kLengthBytes) {
    throw InputError(fmt::format("{}: truncated: {} bytes, shorter than the 8-byte header length that starts the format",
                                 file_context(path_), file_bytes));
  }
  std::array<unsigned char, kLengthBytes> length_bytes{};
  stream.read(reinterpret_cast<char*>(length_bytes.data()), kLengthBytes);
  const std::uint64_t header_bytes = decode_length(length_bytes);
  if (header_bytes > file_bytes - kLengthBytes) {
    throw InputError(fmt::format("{}: header length {} runs past the end of the file ({} bytes): truncated, or not a "
                                 "safetensors file",
                                 file_context(path_), header_bytes, file_bytes));
  }
  if (header_bytes > kMaxHeaderBytes) {
    throw InputError(fmt::format("{}: header length {} exceeds the format's limit of {} bytes", file_context(path_),
                                 header_bytes, kMaxHeaderBytes));
  }
  std::string header_text(header_bytes, '\0');
  stream.read(header_text.data(), static_cast<std::streamsize>(header_bytes));
  if (!stream) throw InputError(fmt::format("{}: cannot read the {}-byte header", file_context(path_), header_bytes));
  data_start_ = kLengthBytes + header_bytes;

  const JsonDocument header = parse_json(header_text, fmt::format("{}: JSON header", file_context(path_)));
  const JsonValue root(header, file_context(path_));
  const std::uint64_t data_bytes = file_bytes - data_start_;
  for (const auto& [key, value] : root.members()) {
    if (key == kMetadataKey) {
      metadata_ = parse_metadata(value);
    } else {
      // An entry's messages name its tensor: 'safetensors file "x", tensor "b": data_offsets: ...'.
      entries_.emplace(key, parse_entry(JsonValue(value.json(), tensor_context(path_, key)), data_bytes));
    }
  }
}

const SafetensorsEntry& SafetensorsReader::entry(const std::string& key) const {
  const auto found = entries_.find(key);
  if (found == entries_.end()) {
    std::vector<std::string_view> keys;
    for (const auto& [name, unused] : entries_) keys.push_back(name);
    throw InputError(fmt::format("{}: no such tensor in the file (it holds: {})", tensor_context(path_, key),
                                 keys.empty() ? std::string("no tensors") : fmt::format("{}", fmt::join(keys, ", "))));
  }
  return found->second;
}

std::vector<std::byte> SafetensorsReader::read(const std::string& key) const {
  std::vector<std::byte> bytes(entry(key).bytes());
  read_into(key, bytes);
  return bytes;
}

void SafetensorsReader::read_into(const std::string& key, std::span<std::byte> destination) const {
  const SafetensorsEntry& found = entry(key);
  if (destination.size() != found.bytes()) {
    throw std::invalid_argument(fmt::format("{}: destination has {} bytes, the tensor {}", tensor_context(path_, key),
                                            destination.size(), found.bytes()));
  }
  std::ifstream stream = open_for_reading(path_);
  stream.seekg(static_cast<std::streamoff>(data_start_ + found.begin));
  stream.read(reinterpret_cast<char*>(destination.data()), static_cast<std::streamsize>(destination.size()));
  if (!stream) {
    throw InputError(fmt::format("{}: cannot read {} bytes at data offset {} (did the file change while being read?)",
                                 tensor_context(path_, key), found.bytes(), found.begin));
  }
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  const SafetensorsReader reader(path);
  SafetensorsFile file;
  file.metadata = reader.metadata();
  for (const auto& [key, entry] : reader.entries()) {
    file.tensors.emplace(key, SafetensorsTensor{entry.dtype, entry.shape, reader.read(key)});
  }
  return file;
}

namespace {

void check_view(const std::string& key, const SafetensorsTensorView& view) {
  if (key.empty() || key == kMetadataKey) throw std::invalid_argument(fmt::format("invalid tensor name \"{}\"", key));
  const std::size_t element_bytes = safetensors_dtype_bytes(view.dtype);
  if (element_bytes == 0) throw std::invalid_argument(fmt::format("tensor \"{}\": unknown dtype \"{}\"", key, view.dtype));
  if (std::any_of(view.shape.begin(), view.shape.end(), [](std::int64_t extent) { return extent < 0; })) {
    throw std::invalid_argument(fmt::format("tensor \"{}\": negative extent in {}", key, show_shape(view.shape)));
  }
  const auto expected = byte_count(view.shape, element_bytes);
  if (!expected || *expected != view.data.size()) {
    throw std::invalid_argument(fmt::format("tensor \"{}\": {} bytes given, dtype {} and shape {} need {}", key,
                                            view.data.size(), view.dtype, show_shape(view.shape),
                                            expected ? std::to_string(*expected) : std::string("more than 2^64")));
  }
}

// Widest elements first, then by name: every tensor starts at a multiple of its element size.
std::vector<const std::pair<const std::string, SafetensorsTensorView>*> layout_order(
    const std::map<std::string, SafetensorsTensorView>& tensors) {
  std::vector<const std::pair<const std::string, SafetensorsTensorView>*> order;
  for (const auto& item : tensors) order.push_back(&item);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return safetensors_dtype_bytes(a->second.dtype) > safetensors_dtype_bytes(b->second.dtype);
  });
  return order;
}

std::string padded_header(const std::map<std::string, SafetensorsTensorView>& tensors,
                          const SafetensorsMetadata& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header[std::string(kMetadataKey)] = metadata;
  std::uint64_t offset = 0;
  for (const auto* item : layout_order(tensors)) {
    const SafetensorsTensorView& view = item->second;
    header[item->first] = {{"dtype", view.dtype}, {"shape", view.shape}, {"data_offsets", {offset, offset + view.data.size()}}};
    offset += view.data.size();
  }
  std::string text = header.dump();
  text.append((kLengthBytes - text.size() % kLengthBytes) % kLengthBytes, ' ');
  return text;
}

void write_file(const std::filesystem::path& path, const std::string& header,
                const std::map<std::string, SafetensorsTensorView>& tensors) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  if (!stream) throw SystemError(fmt::format("cannot create \"{}\": {}", path.string(), std::strerror(errno)));
  const auto length = encode_length(header.size());
  stream.write(length.data(), length.size());
  stream.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (const auto* item : layout_order(tensors)) {
    const auto data = item->second.data;
    stream.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  }
  stream.close();
  if (!stream) throw SystemError(fmt::format("cannot write \"{}\": {}", path.string(), std::strerror(errno)));
}

}  // namespace

void write_safetensors(const std::filesystem::path& path, const std::map<std::string, SafetensorsTensorView>& tensors,
                       const SafetensorsMetadata& metadata) {
  for (const auto& [key, view] : tensors) check_view(key, view);
  const std::string header = padded_header(tensors, metadata);
  // A reader never sees a half-written file: write beside the target, then rename over it.
  std::filesystem::path partial = path;
  partial += ".partial";
  try {
    write_file(partial, header, tensors);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
  std::error_code status;
  std::filesystem::rename(partial, path, status);
  if (status) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw SystemError(fmt::format("cannot rename \"{}\" to \"{}\": {}", partial.string(), path.string(), status.message()));
  }
}

}  // namespace vlb
