#include "harness/core/printable_text.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace vlb {

namespace {

// The length of the valid UTF-8 sequence starting at text[i], or 0 when the bytes there are not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t code_point = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, code_point = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, code_point = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, code_point = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3Fu);
  }
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not valid UTF-8.
  const bool overlong = (length == 3 && code_point < 0x800) || (length == 4 && code_point < 0x10000);
  if (overlong || (code_point >= 0xD800 && code_point <= 0xDFFF) || code_point > 0x10FFFF) return 0;
  return length;
}

std::string escaped_control(unsigned char c) {
  switch (c) {
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '\r': return "\\r";
    default: return fmt::format("\\x{:02x}", c);
  }
}

}  // namespace

std::string printable_text(std::string_view text) {
  std::string result;
  result.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) {
        result += escaped_control(c);
      } else {
        result += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      result += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    // C1 controls (U+0080..U+009F: C2 80..C2 9F) act on terminals as ESC sequences do.
    if (length == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      result += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
    } else {
      result.append(text.substr(i, length));
    }
    i += length;
  }
  return result;
}

}  // namespace vlb
