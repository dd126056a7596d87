#pragma once
// Text from input files and command lines, made safe to print: a message that quotes a file's bytes must not
// put binary data or terminal control sequences on the user's terminal.
#include <string>
#include <string_view>

namespace vlb {

// `text` with every byte that is not printable UTF-8 written as an escape: control characters (C0, DEL and the C1
// range U+0080..U+009F) as \n, \t, \r or \xNN / \u00NN, and each byte of an invalid UTF-8 sequence as \xNN.
// Printable UTF-8 (any language) is kept as it is.
std::string printable_text(std::string_view text);

}  // namespace vlb
