#include "safetensors/support_safetensors_files.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>

namespace vlb::testing {

std::uint32_t fresh_seed() {
  std::random_device entropy;
  return entropy();
}

void write_bytes(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  stream.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!stream) throw std::runtime_error("cannot write the test file " + path.string());
}

std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw std::runtime_error("cannot read the test file " + path.string());
  const std::vector<char> chars((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

std::vector<std::byte> random_bf16_bytes(std::size_t count, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::byte> bytes(count * 2);
  for (std::size_t i = 0; i < count; ++i) {
    const auto bits = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(normal(engine)) >> 16);
    bytes[2 * i] = static_cast<std::byte>(bits & 0xFF);
    bytes[2 * i + 1] = static_cast<std::byte>(bits >> 8);
  }
  return bytes;
}

std::vector<std::byte> random_int64_bytes(std::size_t count, std::uint32_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<std::byte> bytes(count * 8);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t value = engine();
    for (int b = 0; b < 8; ++b) bytes[8 * i + b] = static_cast<std::byte>((value >> (8 * b)) & 0xFF);
  }
  return bytes;
}

std::vector<std::byte> safetensors_bytes(const std::string& header_json, const std::vector<std::byte>& data) {
  std::string header = header_json;
  while (header.size() % 8 != 0) header.push_back(' ');
  std::vector<std::byte> bytes;
  for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<std::byte>((header.size() >> (8 * b)) & 0xFF));
  for (const char c : header) bytes.push_back(static_cast<std::byte>(c));
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

std::string byte_difference(const std::vector<std::byte>& actual, const std::vector<std::byte>& expected) {
  if (actual.size() != expected.size()) {
    return "sizes differ: " + std::to_string(actual.size()) + " bytes, expected " + std::to_string(expected.size());
  }
  const auto mismatch = std::mismatch(actual.begin(), actual.end(), expected.begin());
  if (mismatch.first == actual.end()) return "";
  return "first difference at byte " + std::to_string(mismatch.first - actual.begin()) + ": " +
         std::to_string(static_cast<int>(*mismatch.first)) + ", expected " + std::to_string(static_cast<int>(*mismatch.second));
}

InputError capture_input_error(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error;
  } catch (const std::exception& other) {
    FAIL("expected an InputError, got another exception: " << other.what());
  }
  FAIL("expected an InputError, nothing was thrown");
  throw std::logic_error("unreachable");
}

}  // namespace vlb::testing
