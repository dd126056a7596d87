#include "harness/suite/json_diagnostics.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "harness/core/errors.hpp"

namespace vlb::suite_detail {

std::string JsonSource::describe(std::string_view json_path, std::string_view message) const {
  const std::string where = line > 0 ? fmt::format("{}:{}", file.string(), line) : file.string();
  if (json_path.empty()) return fmt::format("{}: {}", where, message);
  return fmt::format("{}: {}: {}", where, json_path, message);
}

void JsonSource::fail(std::string_view json_path, std::string_view message) const {
  throw InputError(describe(json_path, message));
}

std::string child_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string element_path(std::string_view parent, std::size_t index) { return fmt::format("{}[{}]", parent, index); }

std::string show(const Json& value) {
  constexpr std::size_t kMaxShown = 60;
  std::string text = value.dump();
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return text;
}

namespace {
std::string_view type_name(const Json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number_float()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  return "an unknown JSON value";
}
}  // namespace

const Json& require_object(const JsonSource& source, const Json& value, std::string_view path) {
  if (!value.is_object()) source.fail(path, fmt::format("must be a JSON object, got {}", type_name(value)));
  return value;
}

const Json& require_field(const JsonSource& source, const Json& object, std::string_view parent, std::string_view key) {
  const auto found = object.find(std::string(key));
  if (found == object.end()) source.fail(child_path(parent, key), "required field is missing");
  return *found;
}

std::string require_string(const JsonSource& source, const Json& value, std::string_view path) {
  if (!value.is_string()) source.fail(path, fmt::format("must be a string, got {} {}", type_name(value), show(value)));
  return value.get<std::string>();
}

const Json& object_field(const JsonSource& source, const Json& object, std::string_view parent, std::string_view key) {
  return require_object(source, require_field(source, object, parent, key), child_path(parent, key));
}

std::string string_field(const JsonSource& source, const Json& object, std::string_view parent, std::string_view key) {
  return require_string(source, require_field(source, object, parent, key), child_path(parent, key));
}

std::string require_non_empty_string(const JsonSource& source, const Json& value, std::string_view path) {
  std::string text = require_string(source, value, path);
  if (text.empty()) source.fail(path, "must be a non-empty string");
  return text;
}

std::int64_t require_integer(const JsonSource& source, const Json& value, std::string_view path) {
  if (value.is_number_unsigned()) {
    const auto unsigned_value = value.get<std::uint64_t>();
    if (unsigned_value > static_cast<std::uint64_t>(INT64_MAX)) {
      source.fail(path, fmt::format("integer {} is too large", unsigned_value));
    }
    return static_cast<std::int64_t>(unsigned_value);
  }
  if (!value.is_number_integer()) source.fail(path, fmt::format("must be an integer, got {}", show(value)));
  return value.get<std::int64_t>();
}

std::int64_t require_positive_integer(const JsonSource& source, const Json& value, std::string_view path) {
  const bool positive_integer = value.is_number_unsigned() ? value.get<std::uint64_t>() > 0
                                                           : value.is_number_integer() && value.get<std::int64_t>() > 0;
  if (!positive_integer) source.fail(path, fmt::format("must be a positive integer, got {}", show(value)));
  return require_integer(source, value, path);
}

double require_finite_number(const JsonSource& source, const Json& value, std::string_view path) {
  if (!value.is_number()) source.fail(path, fmt::format("must be a number, got {} {}", type_name(value), show(value)));
  const double number = value.get<double>();
  if (!std::isfinite(number)) source.fail(path, fmt::format("must be finite, got {}", show(value)));
  return number;
}

void reject_unknown_fields(const JsonSource& source, const Json& object, std::string_view path,
                           std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (std::string_view name : allowed) known = known || key == name;
    if (!known) {
      source.fail(child_path(path, key),
                  fmt::format("unknown field (allowed here: {})", fmt::join(allowed.begin(), allowed.end(), ", ")));
    }
  }
}

Json parse_json(const JsonSource& source, const std::string& text) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& error) {
    source.fail("", fmt::format("not valid JSON: {}", error.what()));
  }
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code status;
  if (!std::filesystem::is_regular_file(path, status)) {
    throw InputError(fmt::format("{}: {} not found (no such file)", path.string(), what));
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw InputError(fmt::format("{}: cannot open the {} for reading", path.string(), what));
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

}  // namespace vlb::suite_detail
