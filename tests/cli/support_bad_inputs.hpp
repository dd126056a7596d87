#pragma once
// The table of issue 24: every case of the audit of malformed inputs and odd options
// (tests/cli/bad_inputs_audit.tsv, the log of vlbench at 5d8b882) as a row: the command, the exit code it must give,
// the words its output must hold. The inputs are made once per test run in a scratch folder (BadInputFixtures);
// run_bad_input_rows runs each row as a user would and checks, for every row, what holds for all of them: the
// documented exit code, no crash, no internal error, no raw control character or invalid UTF-8 on the terminal.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "support/scratch_folder.hpp"

namespace vlb::testing {

// Every input a row names, under one scratch folder ({S} in a row). {C} is the source tree (a fresh clone's files:
// results/h200/*.json, workloads/, scripts/).
class BadInputFixtures {
 public:
  BadInputFixtures();
  const std::filesystem::path& root() const { return scratch_.path(); }
  std::filesystem::path file(const std::string& name) const { return scratch_.file(name); }

 private:
  ScratchFolder scratch_;
};
const BadInputFixtures& bad_input_fixtures();  // made on first use, removed at exit

struct BadInputRow {
  std::string name;                      // the case's name in the audit log
  int exit_code = 0;
  std::vector<std::string> words;        // each must be in the output (stdout and stderr together)
  std::vector<std::string> arguments;    // {S} and {C} are replaced
  std::string program = "vlbench";       // or bash / python3 for the scripts
  std::vector<std::string> environment;  // NAME=value, for this row only
  bool unprivileged = false;             // run as a user that permission bits stop (the audit's "nonroot" rows)
  std::vector<std::string> absent = {};  // words that must not be in the output
  std::function<void(const BadInputFixtures&)> then = nullptr;  // checks after the run: files kept, untouched
};

// `-s template ARGUMENTS --dry-run`: a run checked without a GPU.
std::vector<std::string> dry_run(std::vector<std::string> arguments);
// A real run on a machine without a GPU (every device hidden): it must fail with exit 3 only after every check.
std::vector<std::string> no_gpu();

void run_bad_input_rows(const std::vector<BadInputRow>& rows);

// The tables, one per file of tests/cli/test_bad_inputs_*.cpp; the coverage test checks them against the audit.
std::vector<BadInputRow> suite_and_option_rows();
std::vector<BadInputRow> output_path_rows();
std::vector<BadInputRow> results_file_rows();
std::vector<BadInputRow> script_and_issue_rows();

}  // namespace vlb::testing
