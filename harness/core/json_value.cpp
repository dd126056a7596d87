#include "harness/core/json_value.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/core/errors.hpp"

namespace vlb {

namespace {

std::string_view type_name(const JsonDocument& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number_float()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  return "an unknown JSON value";
}

std::string child_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string element_path(const std::string& parent, std::size_t index) { return fmt::format("{}[{}]", parent, index); }

}  // namespace


std::string dump_json(const nlohmann::json& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

JsonValue::JsonValue(const JsonDocument& document, std::string source)
    : JsonValue(document, std::make_shared<const std::string>(std::move(source)), std::string()) {}

JsonValue::JsonValue(const JsonDocument& value, std::shared_ptr<const std::string> source, std::string path)
    : value_(&value), source_(std::move(source)), path_(std::move(path)) {}

JsonValue JsonValue::child(const JsonDocument& value, std::string path) const {
  return JsonValue(value, source_, std::move(path));
}

void JsonValue::fail(std::string_view problem) const {
  if (path_.empty()) throw InputError(fmt::format("{}: {}", *source_, problem));
  throw InputError(fmt::format("{}: {}: {}", *source_, path_, problem));
}

std::string JsonValue::brief() const {
  constexpr std::size_t kMaxShown = 60;
  std::string text = value_->dump(-1, ' ', false, JsonDocument::error_handler_t::replace);
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return text;
}

const JsonValue& JsonValue::expect_object() const {
  if (!value_->is_object()) fail(fmt::format("must be a JSON object, got {}", type_name(*value_)));
  return *this;
}

JsonValue JsonValue::at(std::string_view key, std::string_view if_missing) const {
  if (std::optional<JsonValue> found = find(key)) return *found;
  child(*value_, child_path(path_, key)).fail(if_missing);
}

std::optional<JsonValue> JsonValue::find(std::string_view key) const {
  expect_object();
  const auto found = value_->find(key);
  if (found == value_->end()) return std::nullopt;
  return child(*found, child_path(path_, key));
}

bool JsonValue::contains(std::string_view key) const { return find(key).has_value(); }

std::vector<std::pair<std::string, JsonValue>> JsonValue::members() const {
  expect_object();
  std::vector<std::pair<std::string, JsonValue>> members;
  for (const auto& [key, value] : value_->items()) members.emplace_back(key, child(value, child_path(path_, key)));
  return members;
}

void JsonValue::reject_unknown_fields(std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, value] : members()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      value.fail(fmt::format("unknown field (allowed here: {})", fmt::join(allowed.begin(), allowed.end(), ", ")));
    }
  }
}

std::size_t JsonValue::size() const {
  if (!value_->is_array()) fail(fmt::format("must be an array, got {} {}", type_name(*value_), brief()));
  return value_->size();
}

std::vector<JsonValue> JsonValue::elements() const {
  std::vector<JsonValue> elements;
  elements.reserve(size());
  for (std::size_t i = 0; i < value_->size(); ++i) elements.push_back(child((*value_)[i], element_path(path_, i)));
  return elements;
}

std::string JsonValue::as_string() const {
  if (!value_->is_string()) fail(fmt::format("must be a string, got {} {}", type_name(*value_), brief()));
  return value_->get<std::string>();
}

std::string JsonValue::as_non_empty_string() const {
  std::string text = as_string();
  if (text.empty()) fail("must be a non-empty string");
  return text;
}

bool JsonValue::as_bool() const {
  if (!value_->is_boolean()) fail(fmt::format("must be true or false, got {}", brief()));
  return value_->get<bool>();
}

std::int64_t JsonValue::as_int64() const {
  if (value_->is_number_unsigned()) {
    const auto value = value_->get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(fmt::format("integer {} is too large", value));
    }
    return static_cast<std::int64_t>(value);
  }
  if (!value_->is_number_integer()) fail(fmt::format("must be an integer, got {}", brief()));
  return value_->get<std::int64_t>();
}

std::int64_t JsonValue::as_positive_int64() const {
  const bool positive_integer = value_->is_number_unsigned()  ? value_->get<std::uint64_t>() > 0
                                : value_->is_number_integer() ? value_->get<std::int64_t>() > 0
                                                              : false;
  if (!positive_integer) fail(fmt::format("must be a positive integer, got {}", brief()));
  return as_int64();
}

std::uint64_t JsonValue::as_uint64() const {
  if (value_->is_number_unsigned()) return value_->get<std::uint64_t>();
  if (value_->is_number_integer()) fail(fmt::format("must be a non-negative integer, got {}", brief()));
  fail(fmt::format("must be an integer, got {}", brief()));
}

double JsonValue::as_number() const {
  if (!value_->is_number()) fail(fmt::format("must be a number, got {} {}", type_name(*value_), brief()));
  return value_->get<double>();
}

double JsonValue::as_finite_number() const {
  const double number = as_number();
  if (!std::isfinite(number)) fail(fmt::format("must be finite, got {}", brief()));
  return number;
}

}  // namespace vlb
