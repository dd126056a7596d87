#pragma once
// Captures what a printer writes to a FILE*.
#include <cstdio>
#include <string>

namespace vlb::test {

template <typename Printer>
std::string capture_output(Printer&& print) {
  std::FILE* file = std::tmpfile();
  print(file);
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  for (std::size_t read; (read = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, read);
  std::fclose(file);
  return text;
}

}  // namespace vlb::test
