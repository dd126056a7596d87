#pragma once
// Records described once, as a list of (JSON key, member) pairs, from which writing, reading with path-precise errors
// (json_value.hpp), naming a field in a message and the tests' field-by-field comparison all follow: a new field of
// a record is one line in its list. A record type R takes part through a specialization
//   template <> struct JsonFields<R> {
//     static constexpr auto list = std::tuple{json_field("key", &R::member), ...};
//   };
// Members follow vlbench's JSON conventions:
//   std::string, bool, integers     as themselves (an integer out of the member's range is an error when read)
//   std::filesystem::path           a string
//   double                          a number; not finite: written as null, and null reads back as NaN
//   std::optional<T>                null when absent
//   std::vector<T>                  an array
//   a record                        an object; keys it does not list are ignored when read (a later version may add
//                                   some)
//   anything else (enums)           a JsonCodec<T> specialization with write(value) and read(JsonValue, value)
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"

namespace vlb {

template <class Record, class Member>
struct JsonField {
  std::string_view key;
  Member Record::*member;
};

template <class Record, class Member>
constexpr JsonField<Record, Member> json_field(std::string_view key, Member Record::*member) {
  return {key, member};
}

template <class Record>
struct JsonFields;  // the field list of Record

template <class T>
struct JsonCodec;  // write / read of a leaf type with its own spelling (enums)

template <class T>
concept JsonRecord = requires { JsonFields<T>::list; };

namespace json_fields_detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
}  // namespace json_fields_detail

template <class T>
inline constexpr bool kIsJsonOptional = json_fields_detail::is_optional<T>::value;
template <class T>
inline constexpr bool kIsJsonArray = json_fields_detail::is_vector<T>::value;

// Calls visit(field) for every field of Record, in list order.
template <JsonRecord Record, class Visit>
constexpr void for_each_json_field(Visit&& visit) {
  std::apply([&](const auto&... field) { (visit(field), ...); }, JsonFields<Record>::list);
}

// The key of one member, so that a rule names a field without spelling it: json_key(&CaseResult::reason) == "reason".
template <JsonRecord Record, class Member>
std::string_view json_key(Member Record::*member) {
  std::string_view key;
  for_each_json_field<Record>([&](const auto& field) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(field.member)>, Member Record::*>) {
      if (field.member == member) key = field.key;
    }
  });
  if (key.empty()) throw std::logic_error("json_key: the member is not in its record's field list");
  return key;
}

template <class T>
nlohmann::json write_json(const T& value) {
  if constexpr (JsonRecord<T>) {
    nlohmann::json object = nlohmann::json::object();
    for_each_json_field<T>(
        [&](const auto& field) { object[std::string(field.key)] = write_json(value.*(field.member)); });
    return object;
  } else if constexpr (kIsJsonOptional<T>) {
    return value ? write_json(*value) : nlohmann::json(nullptr);
  } else if constexpr (kIsJsonArray<T>) {
    nlohmann::json array = nlohmann::json::array();
    for (const auto& element : value) array.push_back(write_json(element));
    return array;
  } else if constexpr (std::is_same_v<T, double>) {
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> || std::is_integral_v<T>) {
    return value;
  } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
    return value.string();
  } else {
    return JsonCodec<T>::write(value);
  }
}

template <class T>
void read_json(const JsonValue& node, T& value) {
  if constexpr (JsonRecord<T>) {
    node.expect_object();
    for_each_json_field<T>([&](const auto& field) { read_json(node.at(field.key), value.*(field.member)); });
  } else if constexpr (kIsJsonOptional<T>) {
    value.reset();
    if (!node.is_null()) read_json(node, value.emplace());
  } else if constexpr (kIsJsonArray<T>) {
    value.clear();
    for (const JsonValue& element : node.elements()) read_json(element, value.emplace_back());
  } else if constexpr (std::is_same_v<T, double>) {
    value = node.is_null() ? std::numeric_limits<double>::quiet_NaN() : node.as_number();
  } else if constexpr (std::is_same_v<T, std::string>) {
    value = node.as_string();
  } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
    value = node.as_string();
  } else if constexpr (std::is_same_v<T, bool>) {
    value = node.as_bool();
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    const std::int64_t wide = node.as_int64();
    if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max()) {
      node.fail("integer " + std::to_string(wide) + " is out of range");
    }
    value = static_cast<T>(wide);
  } else if constexpr (std::is_integral_v<T>) {
    const std::uint64_t wide = node.as_uint64();
    if (wide > std::numeric_limits<T>::max()) node.fail("integer " + std::to_string(wide) + " is out of range");
    value = static_cast<T>(wide);
  } else {
    JsonCodec<T>::read(node, value);
  }
}

// A leaf spelled by name (an enum): `parse(name)` gives the value or throws an Error whose message becomes the error
// at the node's path.
template <class T, class Parse>
void read_json_by_name(const JsonValue& node, T& value, Parse&& parse) {
  const std::string name = node.as_string();
  try {
    value = parse(name);
  } catch (const Error& error) {
    node.fail(error.message());
  }
}

template <class T>
T read_json(const JsonValue& node) {
  T value{};
  read_json(node, value);
  return value;
}

}  // namespace vlb
