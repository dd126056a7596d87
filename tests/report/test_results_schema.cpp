// The schema's field lists: every field of every record, filled with random values by walking the lists, comes back
// equal after write -> text -> read, so a field added to a list is round-tripped here without an edit.
#include <catch2/catch.hpp>

#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "harness/core/errors.hpp"
#include "harness/core/json_fields.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/results_schema.hpp"
#include "report/support_results.hpp"

namespace vlb {
namespace {

void fill_enum(CaseStatus& status, std::mt19937_64& rng) {
  static constexpr CaseStatus kAll[] = {CaseStatus::kPassed,       CaseStatus::kIncorrectNumerical,
                                        CaseStatus::kIncorrectShape, CaseStatus::kRuntimeError,
                                        CaseStatus::kTimeout,      CaseStatus::kRewardHack,
                                        CaseStatus::kSkipped};
  status = kAll[rng() % std::size(kAll)];
}

void fill_enum(TimerKind& timer, std::mt19937_64& rng) { timer = rng() % 2 ? TimerKind::kCupti : TimerKind::kEvents; }

// Printable ASCII with the characters JSON must escape, and a two-byte UTF-8 letter.
std::string random_text(std::mt19937_64& rng) {
  static const std::string kPieces[] = {"a", "Z", "7", " ", "\"", "\\", "/", "\t", "\n", "\xc3\xa9", "{", "]"};
  std::string text;
  const std::size_t length = rng() % 12;
  for (std::size_t i = 0; i < length; ++i) text += kPieces[rng() % std::size(kPieces)];
  return text;
}

template <class T>
void fill_random(T& value, std::mt19937_64& rng) {
  if constexpr (JsonRecord<T>) {
    for_each_json_field<T>([&](const auto& field) { fill_random(value.*(field.member), rng); });
  } else if constexpr (kIsJsonOptional<T>) {
    value.reset();
    if (rng() % 4 != 0) fill_random(value.emplace(), rng);
  } else if constexpr (kIsJsonArray<T>) {
    value.resize(rng() % 4);
    for (auto& element : value) fill_random(element, rng);
  } else if constexpr (std::is_same_v<T, double>) {
    value = std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
  } else if constexpr (std::is_same_v<T, std::string>) {
    value = random_text(rng);
  } else if constexpr (std::is_same_v<T, bool>) {
    value = rng() % 2 == 1;
  } else if constexpr (std::is_integral_v<T>) {
    value = std::uniform_int_distribution<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max())(rng);
  } else {
    fill_enum(value, rng);
  }
}

TEST_CASE("every field of every results record round-trips through JSON text", "[report][json][schema]") {
  const std::uint64_t seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int attempt = 0; attempt < 20; ++attempt) {
    RunRecord run;
    fill_random(run, rng);
    const std::string text = write_json(run).dump();
    const JsonDocument parsed = parse_json(text, "round trip");
    const RunRecord back = read_json<RunRecord>(JsonValue(parsed, "round trip"));
    test::require_same(run, back, "run");
    REQUIRE(write_json(back).dump() == text);
  }
}

TEST_CASE("a key is written where its field list says, and rules name fields by member", "[report][json][schema]") {
  std::mt19937_64 rng(std::random_device{}());
  CaseResult result;
  fill_random(result, rng);
  const nlohmann::json written = to_json(result);
  std::size_t keys = 0;
  for_each_json_field<CaseResult>([&](const auto& field) {
    INFO(field.key);
    REQUIRE(written.contains(std::string(field.key)));
    ++keys;
  });
  REQUIRE(written.size() == keys);  // nothing written beyond the list
  REQUIRE(json_key(&CaseResult::peak_device_memory_bytes) == "peak_device_memory_bytes");
  REQUIRE(json_key(&ProblemShape::batch) == "batch_size");
}

TEST_CASE("an integer outside its field's range is an error naming the field", "[report][json][schema]") {
  nlohmann::json document = to_json(test::make_seeded_run(4711));
  document["cases"][0]["case_index"] = std::int64_t{1} << 40;
  try {
    run_record_from_json(document);
    FAIL("expected InputError");
  } catch (const InputError& error) {
    REQUIRE_THAT(error.what(), Catch::Contains("cases[0].case_index: integer 1099511627776 is out of range"));
  }
}

}  // namespace
}  // namespace vlb
