// parse_json's limits and messages: every malformed document is an InputError naming the source, with its own
// message, and no document can crash the reader (the tree never grows deeper than kMaxJsonDepth).
#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/printable_text.hpp"

namespace vlb {
namespace {

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const InputError& error) {
    return error.message();
  }
  FAIL("expected an InputError");
  return {};
}

std::string nested(std::size_t depth, char open, char close) {
  return std::string(depth, open) + std::string(depth, close);
}

TEST_CASE("nesting beyond the limit is refused before a tree exists, at any depth", "[core][json][limits]") {
  // 100k and 1M levels crashed the copy and the destructor of the tree (issue 24); now the parser stops at the limit.
  for (const std::size_t depth : {std::size_t{kMaxJsonDepth} + 1, std::size_t{100000}, std::size_t{1000000}}) {
    const std::string text = "{\"definition\": " + nested(depth, '[', ']') + "}";
    const std::string message = error_of([&] { parse_json(text, "deep.jsonl:1"); });
    CAPTURE(depth);
    CHECK_THAT(message, Catch::StartsWith("deep.jsonl:1: definition[0][0][0][0][0][0][0]...: "));
    CHECK_THAT(message, Catch::Contains("nest deeper than 512 levels"));
    CHECK(message.size() < 200);
  }
  // Unclosed, and objects rather than arrays.
  CHECK_THAT(error_of([] { parse_json(std::string(2000000, '['), "open.json"); }), Catch::Contains("deeper than 512"));
  std::string objects;
  for (int i = 0; i < 600; ++i) objects += "{\"k\": ";
  CHECK_THAT(error_of([&] { parse_json(objects, "objects.json"); }),
             Catch::StartsWith("objects.json: k.k.k.k.k.k.k.k...: objects and arrays nest deeper"));
  // At the limit a document is fine.
  const JsonDocument deepest = parse_json(nested(kMaxJsonDepth, '[', ']'), "ok.json");
  CHECK(deepest.is_array());
}

TEST_CASE("a number beyond the range of a double is refused at its path", "[core][json][limits]") {
  CHECK(error_of([] { parse_json(R"({"workload": {"axes": {"batch_size": 1e999}}})", "w.jsonl:3"); }) ==
        "w.jsonl:3: workload.axes.batch_size: the number 1e999 is out of range (a JSON number here must be finite, "
        "within +-1.8e308)");
  CHECK_THAT(error_of([] { parse_json(R"({"cases": [{}, {"timing": {"samples_ms": [0.2, -1e400]}}]})", "r.json"); }),
             Catch::StartsWith("r.json: cases[1].timing.samples_ms[1]: the number -1e400 is out of range"));
  CHECK_THAT(error_of([] { parse_json("1e999", "root.json"); }),
             Catch::StartsWith("root.json: the number 1e999 is out of range"));
  // Integers beyond 64 bits become doubles (the field's own check then refuses them); 1e308 is in range.
  CHECK(parse_json(R"({"a": 99999999999999999999999, "b": 1e308})", "ok.json").at("b").get<double>() == 1e308);
}

TEST_CASE("each malformed text has its own message, its bytes escaped", "[core][json]") {
  CHECK(error_of([] { parse_json("", "empty.json"); }) == "empty.json: not valid JSON: it is empty");
  CHECK(error_of([] { parse_json(" \n\t ", "blank.json"); }) == "blank.json: not valid JSON: it is empty");
  CHECK(error_of([] { parse_json(std::string("{\"a\": 1}\0\0\0", 11), "nul.json"); }) ==
        "nul.json: not valid JSON: a NUL byte at column 9 (binary data, not a JSON text)");
  CHECK(error_of([] { parse_json("{\"a\": 1}\n{\"a\": 2}\n", "two.json"); }) ==
        "two.json: not valid JSON: line 2, column 1: another value follows the end of the document (one JSON "
        "document is expected here, not JSONL, which holds one value per line)");
  CHECK(error_of([] { parse_json(R"({"uuid": "a", "uuid": "b"})", "dup.jsonl:2"); }) ==
        "dup.jsonl:2: uuid: the key appears twice in one object (which value counts would be a guess)");
  // The parser's words without its exception prefix; a binary byte and an escape sequence are written as escapes.
  const std::string binary = error_of([] { parse_json("\xb5\x1b[31m", "garbage.json"); });
  CHECK(binary == "garbage.json: not valid JSON: column 1: invalid literal; last read: '\\xb5'");
  const std::string truncated = error_of([] { parse_json("{\"a\": [1, 2,\n", "cut.json"); });
  CHECK(truncated == "cut.json: not valid JSON: line 2, column 1: unexpected end of input; expected '[', '{', or a "
                     "literal");
  // A long unterminated string is quoted in part only.
  const std::string long_string = error_of([] { parse_json("{\"a\": \"" + std::string(100000, 'x'), "long.json"); });
  CHECK_THAT(long_string, Catch::StartsWith("long.json: not valid JSON: column 100008: invalid string: missing"));
  CHECK(long_string.size() < 300);
}

TEST_CASE("a byte-order mark and CRLF line ends are accepted", "[core][json]") {
  CHECK(parse_json("\xEF\xBB\xBF{\"a\": 1}\r\n", "bom.json").at("a") == 1);
}

TEST_CASE("random bytes never crash the parser: a document or an InputError naming the source", "[core][json]") {
  std::mt19937_64 rng(std::random_device{}());
  const std::string alphabet = "{}[]\":,0123456789.eE+-truefalsn \n\\u\xff\x01";
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text(rng() % 64, ' ');
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    try {
      (void)parse_json(text, "fuzz.json");
    } catch (const InputError& error) {
      CHECK_THAT(error.message(), Catch::StartsWith("fuzz.json: "));
      CHECK(printable_text(error.message()) == error.message());  // nothing raw in the message
    }
  }
}

TEST_CASE("printable_text escapes control characters and bad UTF-8, and keeps every language", "[core][text]") {
  CHECK(printable_text("plain text") == "plain text");
  CHECK(printable_text("Größe 日本 ✓") == "Größe 日本 ✓");
  CHECK(printable_text("a\nb\tc\rd") == "a\\nb\\tc\\rd");
  CHECK(printable_text("\x1b[31mred\x7f") == "\\x1b[31mred\\x7f");
  CHECK(printable_text(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(printable_text("\xb5\xff\xc3") == "\\xb5\\xff\\xc3");             // stray and cut-short bytes
  CHECK(printable_text("\xc0\xaf") == "\\xc0\\xaf");                     // an overlong '/'
  CHECK(printable_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");            // a UTF-16 surrogate
  CHECK(printable_text("\xc2\x9b" "2J") == "\\u009b2J");                 // C1 CSI: a control sequence too
}

}  // namespace
}  // namespace vlb
