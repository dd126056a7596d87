#pragma once
// Raw file bytes and seeded tensors for the safetensors tests (scratch folders: support/scratch_folder.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/core/errors.hpp"
#include "support/scratch_folder.hpp"

namespace vlb::testing {

// A seed that differs from run to run; tests print it (INFO) so that a failure can be replayed.
std::uint32_t fresh_seed();

void write_bytes(const std::filesystem::path& path, const std::vector<std::byte>& bytes);
std::vector<std::byte> read_bytes(const std::filesystem::path& path);

// `count` finite bf16 values (bit patterns of N(0, 1) samples) as little-endian bytes.
std::vector<std::byte> random_bf16_bytes(std::size_t count, std::uint32_t seed);
// `count` int64 values spread over the whole range, little-endian bytes.
std::vector<std::byte> random_int64_bytes(std::size_t count, std::uint32_t seed);

// A file as the Python package lays it out: 8-byte little-endian length, the header padded with spaces to a
// multiple of 8, then the data section.
std::vector<std::byte> safetensors_bytes(const std::string& header_json, const std::vector<std::byte>& data);

// "" when `actual` equals `expected`, else where they first differ (Catch would print every byte of a large vector).
std::string byte_difference(const std::vector<std::byte>& actual, const std::vector<std::byte>& expected);

// Runs `action` and returns the InputError it throws; fails the test if it throws nothing or something else.
InputError capture_input_error(const std::function<void()>& action);

}  // namespace vlb::testing
