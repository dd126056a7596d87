// parse_json: nlohmann's parser driven through a SAX handler of our own, so that the limits hold before any tree
// exists (a document nested 100k levels deep would exhaust the stack of the recursive copy and destructor), and so
// that every failure knows where it happened: a number out of range is reported at its JSON path, like any later
// check of the value.
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/printable_text.hpp"

namespace vlb {

namespace {

using Dom = nlohmann::detail::json_sax_dom_parser<JsonDocument>;

// Where the next value goes: an element of an array, or the value of the current key of an object.
struct Frame {
  bool array = false;
  std::size_t index = 0;
  std::string key;
  std::set<std::string> keys;  // the object's keys so far
};

// Paths of deep values are cut after this many steps, so that the message stays one readable line.
constexpr std::size_t kShownPathSteps = 8;

std::string path_of(const std::vector<Frame>& frames, std::size_t max_steps = SIZE_MAX) {
  std::string path;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i == max_steps) return path + "...";
    if (frames[i].array) {
      path += fmt::format("[{}]", frames[i].index);
    } else {
      path += (path.empty() ? "" : ".") + printable_text(frames[i].key);
    }
  }
  return path;
}

// A failure found while parsing, turned into the InputError once the parser has returned.
struct Failure {
  std::string path;     // empty: the document as a whole
  std::string problem;  // without the source
};

class BoundedDocumentBuilder {
 public:
  using string_t = JsonDocument::string_t;
  explicit BoundedDocumentBuilder(JsonDocument& root) : dom_(root, false) {}

  bool null() { return scalar([&] { return dom_.null(); }); }
  bool boolean(bool value) { return scalar([&] { return dom_.boolean(value); }); }
  bool number_integer(JsonDocument::number_integer_t value) {
    return scalar([&] { return dom_.number_integer(value); });
  }
  bool number_unsigned(JsonDocument::number_unsigned_t value) {
    return scalar([&] { return dom_.number_unsigned(value); });
  }
  bool number_float(JsonDocument::number_float_t value, const string_t& text) {
    return scalar([&] { return dom_.number_float(value, text); });
  }
  bool string(string_t& value) { return scalar([&] { return dom_.string(value); }); }
  bool binary(JsonDocument::binary_t& value) { return scalar([&] { return dom_.binary(value); }); }

  bool start_object(std::size_t size) { return open(false) && dom_.start_object(size); }
  bool start_array(std::size_t size) { return open(true) && dom_.start_array(size); }
  bool end_object() { return close() && dom_.end_object(); }
  bool end_array() { return close() && dom_.end_array(); }

  bool key(string_t& name) {
    Frame& frame = frames_.back();
    frame.key = name;
    if (!frame.keys.insert(name).second) {
      return fail(path_of(frames_), "the key appears twice in one object (which value counts would be a guess)");
    }
    return dom_.key(name);
  }

  bool parse_error(std::size_t /*position*/, const std::string& token, const nlohmann::detail::exception& error) {
    constexpr int kNumberOverflow = 406;
    if (error.id == kNumberOverflow) {
      return fail(path_of(frames_), fmt::format("the number {} is out of range (a JSON number here must be finite, "
                                                "within +-1.8e308)",
                                                printable_text(token)));
    }
    syntax_error_ = error.what();
    return false;
  }

  const std::optional<Failure>& failure() const { return failure_; }
  const std::optional<std::string>& syntax_error() const { return syntax_error_; }
  bool root_complete() const { return root_complete_; }

 private:
  template <class Handle>
  bool scalar(Handle&& handle) {
    if (!handle()) return false;
    advance();
    return true;
  }

  bool open(bool array) {
    if (frames_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      return fail(path_of(frames_, kShownPathSteps),
                  fmt::format("objects and arrays nest deeper than {} levels, more than any vlbench file needs "
                              "(a damaged or hostile file?)",
                              kMaxJsonDepth));
    }
    frames_.push_back(Frame{array, 0, {}, {}});
    return true;
  }

  bool close() {
    frames_.pop_back();
    advance();
    return true;
  }

  void advance() {
    if (frames_.empty()) {
      root_complete_ = true;
    } else if (frames_.back().array) {
      ++frames_.back().index;
    }
  }

  bool fail(std::string path, std::string problem) {
    failure_ = Failure{std::move(path), std::move(problem)};
    return false;
  }

  Dom dom_;
  std::vector<Frame> frames_;
  std::optional<Failure> failure_;
  std::optional<std::string> syntax_error_;
  bool root_complete_ = false;
};

// "line 3, column 7", or "column 7" for a text of one line (a line of a JSONL file, whose source names the line).
std::string position_text(std::string_view text, std::size_t line, std::size_t column) {
  if (text.find('\n') == std::string_view::npos) return fmt::format("column {}", column);
  return fmt::format("line {}, column {}", line, column);
}

std::string position_of_offset(std::string_view text, std::size_t offset) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, line_start = i + 1;
  }
  return position_text(text, line, offset - line_start + 1);
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while parsing value -
// invalid literal; last read: 'tru'" as {"column 5", "invalid literal; last read: 'tru'"}, its bytes made printable.
struct SyntaxError {
  std::string position, what;
};

// At most this many bytes of the parser's words are quoted: its "last read" can be a whole unterminated string.
constexpr std::size_t kShownSyntaxError = 200;

std::string cut_short(std::string text) {
  if (text.size() <= kShownSyntaxError) return text;
  std::size_t end = kShownSyntaxError;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0u) == 0x80u) --end;  // a UTF-8 boundary
  return text.substr(0, end) + "...";
}

std::size_t number_after(const std::string& message, std::string_view label) {
  const std::size_t at = message.find(label);
  if (at == std::string::npos) return 0;
  return std::strtoul(message.c_str() + at + label.size(), nullptr, 10);
}

SyntaxError split_syntax_error(std::string_view text, const std::string& message) {
  const std::size_t line = number_after(message, "at line "), column = number_after(message, ", column ");
  std::size_t what = message.find(" - ");
  what = what == std::string::npos ? message.find(": ") : what;
  const std::string words = what == std::string::npos ? message : message.substr(what + (message[what] == ' ' ? 3 : 2));
  const std::string position = line > 0 ? position_text(text, line, column) : std::string("somewhere");
  return {position, printable_text(cut_short(words))};
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

JsonDocument parse_json(std::string_view text, const std::string& source) {
  if (is_blank(text)) throw InputError(fmt::format("{}: not valid JSON: it is empty", source));
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    throw InputError(fmt::format("{}: not valid JSON: a NUL byte at {} (binary data, not a JSON text)", source,
                                 position_of_offset(text, nul)));
  }
  JsonDocument document;
  BoundedDocumentBuilder builder(document);
  if (JsonDocument::sax_parse(text, &builder)) return document;
  if (const std::optional<Failure>& failure = builder.failure()) {
    if (failure->path.empty()) throw InputError(fmt::format("{}: {}", source, failure->problem));
    throw InputError(fmt::format("{}: {}: {}", source, failure->path, failure->problem));
  }
  const SyntaxError error = split_syntax_error(text, builder.syntax_error().value_or("the parser stopped"));
  if (builder.root_complete()) {
    throw InputError(fmt::format("{}: not valid JSON: {}: another value follows the end of the document (one JSON "
                                 "document is expected here, not JSONL, which holds one value per line)",
                                 source, error.position));
  }
  throw InputError(fmt::format("{}: not valid JSON: {}: {}", source, error.position, error.what));
}

}  // namespace vlb
