#pragma once
// Errors are exceptions that carry where they were raised and which exit code the CLI maps them to.
// Only the CLI edge turns them into exit codes (README, "Exit codes").
#include <source_location>
#include <stdexcept>
#include <string>

namespace vlb {

enum class ExitCode : int {
  kSuccess = 0,       // every selected case passed
  kCaseFailed = 1,    // a case failed its correctness or timing checks
  kBadInput = 2,      // bad usage, bad option values, bad input files
  kSystemError = 3,   // CUDA, driver or operating-system failure (including: no GPU)
};

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, ExitCode code, std::source_location where = std::source_location::current());
  ExitCode exit_code() const noexcept { return code_; }
  const std::source_location& where() const noexcept { return where_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::string message_;
  ExitCode code_;
  std::source_location where_;
};

// Bad command-line usage or option values (exit 2).
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message, std::source_location where = std::source_location::current())
      : Error(message, ExitCode::kBadInput, where) {}
};

// A file the user gave us is malformed, inconsistent or unreadable (exit 2). The message names the file and field.
class InputError : public Error {
 public:
  explicit InputError(const std::string& message, std::source_location where = std::source_location::current())
      : Error(message, ExitCode::kBadInput, where) {}
};

// The system failed us: CUDA, cuBLAS, CUPTI, the file system (exit 3).
class SystemError : public Error {
 public:
  explicit SystemError(const std::string& message, std::source_location where = std::source_location::current())
      : Error(message, ExitCode::kSystemError, where) {}
};

// "file.cpp:42" for messages and logs.
std::string describe_location(const std::source_location& where);

}  // namespace vlb
