#pragma once
// Typed reads of JSON values that fail with an InputError naming the file, the line (for JSONL) and the JSON path
// of the offending field, so that every loader reports errors the same way.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace vlb::suite_detail {

using Json = nlohmann::ordered_json;

// Where a JSON document came from: a file, and for JSONL the 1-based line.
struct JsonSource {
  std::filesystem::path file;
  int line = 0;  // 0: a whole-file document (no line in messages)

  // "file:7: workload.axes.lang_seq_len: <message>" (or "file: <path>: <message>" without a line).
  std::string describe(std::string_view json_path, std::string_view message) const;
  [[noreturn]] void fail(std::string_view json_path, std::string_view message) const;
};

// "workload" + "axes" -> "workload.axes"; "" + "name" -> "name"
std::string child_path(std::string_view parent, std::string_view key);
// "inputs.x.shape" + 2 -> "inputs.x.shape[2]"
std::string element_path(std::string_view parent, std::size_t index);

// A short rendering of a value for messages: its JSON text, cut after a few dozen characters.
std::string show(const Json& value);

const Json& require_object(const JsonSource& source, const Json& value, std::string_view path);
const Json& require_field(const JsonSource& source, const Json& object, std::string_view parent, std::string_view key);
// The required field `key` of `object` (at `parent`), which must be an object / a string.
const Json& object_field(const JsonSource& source, const Json& object, std::string_view parent, std::string_view key);
std::string string_field(const JsonSource& source, const Json& object, std::string_view parent, std::string_view key);
std::string require_string(const JsonSource& source, const Json& value, std::string_view path);
std::string require_non_empty_string(const JsonSource& source, const Json& value, std::string_view path);
std::int64_t require_integer(const JsonSource& source, const Json& value, std::string_view path);
std::int64_t require_positive_integer(const JsonSource& source, const Json& value, std::string_view path);
double require_finite_number(const JsonSource& source, const Json& value, std::string_view path);

// Rejects every key of `object` outside `allowed` (a misspelt field must not be silently ignored).
void reject_unknown_fields(const JsonSource& source, const Json& object, std::string_view path,
                           std::initializer_list<std::string_view> allowed);

// Parses `text` as one JSON document; a syntax error becomes an InputError at `source`.
Json parse_json(const JsonSource& source, const std::string& text);

// Reads a whole file; a missing or unreadable file is an InputError naming the path and what was expected.
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace vlb::suite_detail
