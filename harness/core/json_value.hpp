#pragma once
// The one JSON reading layer of vlbench. nlohmann::json parses and holds the values; a JsonValue is a read-only view
// of one value of a parsed document that knows where it sits, so that every type, range or key error is an
// InputError naming the document (a file, with the line for JSONL) and the path of the value:
//   workloads/workloads.jsonl:7: workload.axes.lang_seq_len: must be a positive integer, got -3
//   results/h200/reference.json: cases[3].timing.stats.median: must be a number, got a string "fast"
#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vlb {

// Documents keep their keys in file order, so that a check of order (the definition's tensor table) sees the file's.
using JsonDocument = nlohmann::ordered_json;

// How deep a document may nest objects and arrays. vlbench's own files nest fewer than 10 levels; the limit is checked
// while parsing, before a tree exists, so that no document can exhaust the stack of whatever walks the tree.
inline constexpr int kMaxJsonDepth = 512;

// Parses one JSON document. Everything wrong is an InputError naming `source`, and each has its own message: a
// syntax error ("<source>: not valid JSON: line 3, column 7: <what>", with the input's bytes escaped), an empty text,
// a NUL byte (binary data), a second value after the first (a JSONL file), nesting deeper than kMaxJsonDepth, a
// repeated key in an object, and a number beyond the range of a double ("<source>: <path>: the number 1e999 is out of
// range"), which names the path of the value as every later check does.
JsonDocument parse_json(std::string_view text, const std::string& source);

// Text of a document that never throws on strings that are not valid UTF-8 (reasons can quote a solution's
// messages): bad bytes become U+FFFD. indent -1: one line.
std::string dump_json(const nlohmann::json& document, int indent = -1);

class JsonValue {
 public:
  // `document` (or any value inside one) as the root of the paths, which must outlive every view of it. `source`
  // names it in messages: a file path, "file:7" for line 7 of a JSONL file, or a description ("results JSON").
  JsonValue(const JsonDocument& document, std::string source);

  const JsonDocument& json() const { return *value_; }
  const std::string& source() const { return *source_; }
  // "workload.axes.lang_seq_len", "cases[3].reason", "[0].key"; empty at the root.
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }

  // Throws InputError "<source>: <path>: <problem>" ("<source>: <problem>" at the root).
  [[noreturn]] void fail(std::string_view problem) const;

  // Objects (each fails unless the value is an object). at: a required field, which when absent fails at its path with
  // `if_missing`.
  JsonValue at(std::string_view key, std::string_view if_missing = "required field is missing") const;
  std::optional<JsonValue> find(std::string_view key) const;  // an optional field
  bool contains(std::string_view key) const;
  std::vector<std::pair<std::string, JsonValue>> members() const;  // in file order
  // Rejects the first key outside `allowed`, so that a misspelt field is not silently ignored.
  void reject_unknown_fields(std::initializer_list<std::string_view> allowed) const;
  const JsonValue& expect_object() const;

  // Arrays (each fails unless the value is an array).
  std::vector<JsonValue> elements() const;
  std::size_t size() const;

  // Scalars: each fails with "must be <what>, got <the value>" unless the value has that type.
  std::string as_string() const;
  std::string as_non_empty_string() const;
  bool as_bool() const;
  std::int64_t as_int64() const;
  std::int64_t as_positive_int64() const;
  std::uint64_t as_uint64() const;
  double as_number() const;         // any JSON number
  double as_finite_number() const;  // and not NaN or infinite

  // The value as JSON text for messages, cut after a few dozen characters: "784" is shown as "\"784\"".
  std::string brief() const;

 private:
  JsonValue(const JsonDocument& value, std::shared_ptr<const std::string> source, std::string path);
  JsonValue child(const JsonDocument& value, std::string path) const;

  const JsonDocument* value_;
  std::shared_ptr<const std::string> source_;
  std::string path_;
};

}  // namespace vlb
