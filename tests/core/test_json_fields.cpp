// Field lists: a record written and read through its list keeps every value, follows the JSON conventions of
// json_fields.hpp (non-finite as null, optional as null, unknown keys ignored) and names a bad field by its path.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "harness/core/errors.hpp"
#include "harness/core/json_fields.hpp"

namespace vlb {
namespace {

enum class Colour { kRed, kGreen };

struct Inner {
  double weight = 0;
  std::vector<std::int64_t> steps;
};

struct Outer {
  std::string name;
  int count = 0;
  std::uint64_t seed = 0;
  bool enabled = false;
  Colour colour = Colour::kRed;
  std::optional<double> score;
  std::optional<Inner> inner;
  std::vector<Inner> history;
};

}  // namespace

template <>
struct JsonCodec<Colour> {
  static nlohmann::json write(Colour colour) { return colour == Colour::kRed ? "red" : "green"; }
  static void read(const JsonValue& node, Colour& colour) {
    const std::string name = node.as_string();
    if (name != "red" && name != "green") node.fail("unknown colour '" + name + "'");
    colour = name == "red" ? Colour::kRed : Colour::kGreen;
  }
};

template <>
struct JsonFields<Inner> {
  static constexpr auto list = std::tuple{json_field("weight", &Inner::weight), json_field("steps", &Inner::steps)};
};

template <>
struct JsonFields<Outer> {
  static constexpr auto list =
      std::tuple{json_field("name", &Outer::name),       json_field("count", &Outer::count),
                 json_field("seed", &Outer::seed),       json_field("enabled", &Outer::enabled),
                 json_field("colour", &Outer::colour),   json_field("score", &Outer::score),
                 json_field("inner", &Outer::inner),     json_field("history_of_inner", &Outer::history)};
};

namespace {

Outer random_outer(std::mt19937_64& rng) {
  const auto random_inner = [&] {
    Inner inner;
    inner.weight = std::uniform_real_distribution<double>(-1e3, 1e3)(rng);
    const std::uint64_t steps = 1 + rng() % 4;
    for (std::uint64_t i = 0; i < steps; ++i) inner.steps.push_back(static_cast<std::int64_t>(rng()));
    return inner;
  };
  Outer outer;
  outer.name = "run " + std::to_string(rng() % 1000);
  outer.count = static_cast<int>(rng() % 100000) - 50000;
  outer.seed = rng();
  outer.enabled = rng() % 2 == 0;
  outer.colour = rng() % 2 ? Colour::kGreen : Colour::kRed;
  outer.score = std::uniform_real_distribution<double>(0, 1)(rng);
  outer.inner = random_inner();
  const std::uint64_t history = 2 + rng() % 3;
  for (std::uint64_t i = 0; i < history; ++i) outer.history.push_back(random_inner());
  return outer;
}

Outer read_text(const std::string& text) {
  const JsonDocument document = parse_json(text, "outer.json");
  return read_json<Outer>(JsonValue(document, "outer.json"));
}

std::string error_reading(const nlohmann::json& document) {
  try {
    read_text(document.dump());
  } catch (const InputError& error) {
    return error.message();
  }
  FAIL("expected an InputError");
  return {};
}

TEST_CASE("a record written through its field list reads back equal", "[core][json][fields]") {
  const std::uint64_t seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const Outer outer = random_outer(rng);
  const nlohmann::json written = write_json(outer);
  CHECK(written.at("history_of_inner").size() == outer.history.size());
  CHECK(written.at("colour") == (outer.colour == Colour::kRed ? "red" : "green"));
  CHECK(written.at("seed").is_number_unsigned());

  const Outer back = read_text(written.dump());
  CHECK(back.name == outer.name);
  CHECK(back.count == outer.count);
  CHECK(back.seed == outer.seed);
  CHECK(back.enabled == outer.enabled);
  CHECK(back.colour == outer.colour);
  CHECK(back.score == outer.score);
  REQUIRE(back.inner.has_value());
  CHECK(back.inner->weight == outer.inner->weight);
  CHECK(back.inner->steps == outer.inner->steps);
  REQUIRE(back.history.size() == outer.history.size());
  for (std::size_t i = 0; i < outer.history.size(); ++i) {
    CHECK(back.history[i].weight == outer.history[i].weight);
    CHECK(back.history[i].steps == outer.history[i].steps);
  }
  CHECK(write_json(back) == written);
  CHECK(json_key(&Outer::history) == "history_of_inner");
  CHECK(json_key(&Inner::steps) == "steps");
}

TEST_CASE("absent optionals and non-finite numbers are written as null", "[core][json][fields]") {
  std::mt19937_64 rng(std::random_device{}());
  Outer outer = random_outer(rng);
  outer.score.reset();
  outer.inner.reset();
  outer.history.at(0).weight = std::numeric_limits<double>::infinity();
  outer.history.at(1).weight = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::json written = write_json(outer);
  CHECK(written.at("score").is_null());
  CHECK(written.at("inner").is_null());
  CHECK(written.at("history_of_inner").at(0).at("weight").is_null());
  const Outer back = read_text(written.dump());
  CHECK_FALSE(back.score.has_value());
  CHECK_FALSE(back.inner.has_value());
  CHECK(std::isnan(back.history.at(0).weight));
  CHECK(std::isnan(back.history.at(1).weight));
}

TEST_CASE("reading ignores unknown keys and names the path of a bad field", "[core][json][fields]") {
  std::mt19937_64 rng(std::random_device{}());
  nlohmann::json document = write_json(random_outer(rng));
  document["added_by_a_later_version"] = {1, 2, 3};
  REQUIRE_NOTHROW(read_text(document.dump()));

  SECTION("a missing key") {
    document["history_of_inner"][1].erase("steps");
    CHECK(error_reading(document) == "outer.json: history_of_inner[1].steps: required field is missing");
  }
  SECTION("a wrong type deep inside") {
    document["inner"]["steps"][0] = "three";
    CHECK(error_reading(document) == "outer.json: inner.steps[0]: must be an integer, got \"three\"");
  }
  SECTION("an integer beyond its member's range") {
    document["count"] = std::int64_t{1} << 33;
    CHECK(error_reading(document) == "outer.json: count: integer 8589934592 is out of range");
  }
  SECTION("a negative unsigned") {
    document["seed"] = -1;
    CHECK(error_reading(document) == "outer.json: seed: must be a non-negative integer, got -1");
  }
  SECTION("a leaf codec's own error") {
    document["colour"] = "blue";
    CHECK(error_reading(document) == "outer.json: colour: unknown colour 'blue'");
  }
  SECTION("a record that is not an object") {
    document["inner"] = {1, 2};
    CHECK(error_reading(document) == "outer.json: inner: must be a JSON object, got an array");
  }
}

}  // namespace
}  // namespace vlb
