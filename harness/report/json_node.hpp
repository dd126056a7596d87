#pragma once
// A read-only view of one value inside a parsed JSON document that knows its JSON pointer path, so that every type or
// key error names where it happened: "results.json: /cases/3/timing/stats/median: expected a number".
// Internal to the report unit.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vlb::report_detail {

class JsonNode {
 public:
  // `source` names the document in messages (a file path, or "results JSON"); it must outlive the node.
  JsonNode(const nlohmann::json& value, const std::string& source);

  JsonNode at(std::string_view key) const;  // a required key of an object
  JsonNode at(std::size_t index) const;     // an element of an array
  std::size_t array_size() const;           // the value must be an array

  bool is_null() const { return value_->is_null(); }
  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }  // "/" for the root

  std::string as_string() const;
  bool as_bool() const;
  double as_double() const;                        // null reads back as NaN (non-finite numbers are written as null)
  std::optional<double> as_optional_double() const;  // null reads back as nullopt
  std::int64_t as_int64() const;
  int as_int() const;
  std::uint64_t as_uint64() const;
  std::vector<double> as_double_array() const;
  std::vector<std::string> as_string_array() const;

  // Throws InputError "<source>: <path>: <problem>".
  [[noreturn]] void fail(std::string_view problem) const;

 private:
  JsonNode(const nlohmann::json& value, const std::string& source, std::string path);
  void expect_object() const;

  const nlohmann::json* value_;
  const std::string* source_;
  std::string path_;
};

// Strict JSON number: finite doubles as numbers, anything else as null.
nlohmann::json json_number(double value);
nlohmann::json json_optional_number(const std::optional<double>& value);
// dump() that never throws on text that is not valid UTF-8 (reasons can quote solution messages): bad bytes become U+FFFD.
std::string dump_text(const nlohmann::json& document, int indent = -1);

}  // namespace vlb::report_detail
