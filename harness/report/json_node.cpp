#include "harness/report/json_node.hpp"

#include <cmath>
#include <limits>

#include "harness/core/errors.hpp"

namespace vlb::report_detail {

namespace {

// JSON pointer escaping (RFC 6901): "~" -> "~0", "/" -> "~1".
std::string escape_pointer_token(std::string_view token) {
  std::string escaped;
  for (char c : token) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

std::string child_path(const std::string& parent, std::string_view token) {
  return (parent == "/" ? std::string() : parent) + "/" + escape_pointer_token(token);
}

}  // namespace

JsonNode::JsonNode(const nlohmann::json& value, const std::string& source) : JsonNode(value, source, "/") {}

JsonNode::JsonNode(const nlohmann::json& value, const std::string& source, std::string path)
    : value_(&value), source_(&source), path_(std::move(path)) {}

void JsonNode::fail(std::string_view problem) const {
  throw InputError(*source_ + ": " + path_ + ": " + std::string(problem));
}

void JsonNode::expect_object() const {
  if (!value_->is_object()) fail("expected an object");
}

JsonNode JsonNode::at(std::string_view key) const {
  expect_object();
  const auto found = value_->find(key);
  const std::string path = child_path(path_, key);
  if (found == value_->end()) {
    throw InputError(*source_ + ": " + path + ": required key is missing");
  }
  return JsonNode(*found, *source_, path);
}

JsonNode JsonNode::at(std::size_t index) const {
  const std::size_t size = array_size();
  const std::string path = child_path(path_, std::to_string(index));
  if (index >= size) throw InputError(*source_ + ": " + path + ": index out of range");
  return JsonNode((*value_)[index], *source_, path);
}

std::size_t JsonNode::array_size() const {
  if (!value_->is_array()) fail("expected an array");
  return value_->size();
}

std::string JsonNode::as_string() const {
  if (!value_->is_string()) fail("expected a string");
  return value_->get<std::string>();
}

bool JsonNode::as_bool() const {
  if (!value_->is_boolean()) fail("expected true or false");
  return value_->get<bool>();
}

double JsonNode::as_double() const {
  if (value_->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!value_->is_number()) fail("expected a number");
  return value_->get<double>();
}

std::optional<double> JsonNode::as_optional_double() const {
  if (value_->is_null()) return std::nullopt;
  if (!value_->is_number()) fail("expected a number or null");
  return value_->get<double>();
}

std::int64_t JsonNode::as_int64() const {
  if (value_->is_number_unsigned()) {
    const auto value = value_->get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) fail("integer out of range");
    return static_cast<std::int64_t>(value);
  }
  if (!value_->is_number_integer()) fail("expected an integer");
  return value_->get<std::int64_t>();
}

int JsonNode::as_int() const {
  const std::int64_t value = as_int64();
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    fail("integer out of range");
  }
  return static_cast<int>(value);
}

std::uint64_t JsonNode::as_uint64() const {
  if (value_->is_number_unsigned()) return value_->get<std::uint64_t>();
  if (value_->is_number_integer()) fail("expected a non-negative integer");
  fail("expected an integer");
}

std::vector<double> JsonNode::as_double_array() const {
  const std::size_t size = array_size();
  std::vector<double> values;
  values.reserve(size);
  for (std::size_t i = 0; i < size; ++i) values.push_back(at(i).as_double());
  return values;
}

std::vector<std::string> JsonNode::as_string_array() const {
  const std::size_t size = array_size();
  std::vector<std::string> values;
  values.reserve(size);
  for (std::size_t i = 0; i < size; ++i) values.push_back(at(i).as_string());
  return values;
}

nlohmann::json json_number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

nlohmann::json json_optional_number(const std::optional<double>& value) {
  if (!value) return nullptr;
  return json_number(*value);
}

std::string dump_text(const nlohmann::json& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vlb::report_detail
