#include "harness/cli/option_rules.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "harness/core/errors.hpp"
#include "harness/core/printable_text.hpp"

namespace vlb::cli {

namespace {

// Options that only shape how a run times, and those of adaptive timing among them.
const std::vector<std::string> kTimingOptions = {"--adaptive",    "--timer",       "--warmup",
                                                 "--iterations",  "--no-l2-flush", "--min-samples",
                                                 "--min-time",    "--target-noise", "--timeout"};
const std::vector<std::string> kAdaptiveOptions = {"--min-samples", "--min-time", "--target-noise", "--timeout"};

// Options that only a run uses: --list and --version ignore them.
const std::vector<std::string> kRunOnlyOptions = {
    "--seed",    "--rounds",  "--positions", "--max-abs-error", "--check-only", "--adaptive",     "--timer",
    "--warmup",  "--iterations", "--no-l2-flush", "--min-samples", "--min-time", "--target-noise", "--timeout",
    "--device",  "--devices", "--gpu-spec",  "--baseline",      "--dump",       "--no-isolation", "--case-timeout",
    "--dry-run", "--verbose", "--nvtx-ranges"};

// Every option of a run (the top level), which no subcommand takes.
const std::vector<std::string> kAllRunOptions = [] {
  std::vector<std::string> all = kRunOnlyOptions;
  for (const char* name : {"--list", "--version", "--suite", "--workloads-dir", "--solution", "--case", "--shape",
                           "--atol", "--json", "--shard"}) {
    all.emplace_back(name);
  }
  return all;
}();

// Options whose empty value would silently mean "not given".
const std::vector<std::string> kNonEmptyOptions = {"--suite", "--workloads-dir", "--gpu-spec", "--baseline", "--dump"};

bool given(const CLI::App& app, const std::string& name) {
  const CLI::Option* option = app.get_option_no_throw(name);
  return option != nullptr && option->count() > 0;
}

std::string quoted_list(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ", ")); }

}  // namespace

std::vector<std::string> split_list(std::string_view option, const std::vector<std::string>& values, bool unique) {
  std::vector<std::string> items;
  for (const std::string& value : values) {
    std::string_view rest = value;
    if (rest.ends_with(',') && rest.size() > 1) rest.remove_suffix(1);  // "0," as typed in a shell loop
    for (std::size_t start = 0;;) {
      const std::size_t comma = rest.find(',', start);
      const std::string_view item = rest.substr(start, comma == std::string_view::npos ? comma : comma - start);
      if (item.empty()) {
        throw UsageError(fmt::format("{} '{}': an empty item; separate the values by single commas ({} a,b)", option,
                                     printable_text(value), option));
      }
      if (unique && std::find(items.begin(), items.end(), item) != items.end()) {
        throw UsageError(fmt::format("{} names '{}' twice: give each once", option, printable_text(item)));
      }
      items.emplace_back(item);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  return items;
}

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  const bool digits_only = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits_only || error != std::errc() || end != text.data() + text.size()) {
    throw UsageError(fmt::format("--seed {}: the seed is an integer from 0 to 18446744073709551615 (2^64-1)",
                                 printable_text(text)));
  }
  return seed;
}

std::vector<std::string> given_options(const CLI::App& app, const std::vector<std::string>& names) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    if (given(app, name)) found.push_back(name);
  }
  return found;
}

void check_run_options(const CLI::App& app) {
  for (const std::string& name : kNonEmptyOptions) {
    const CLI::Option* option = app.get_option_no_throw(name);
    if (option != nullptr && option->count() > 0 && option->as<std::string>().empty()) {
      throw UsageError(fmt::format("{} was given an empty value: give one, or leave {} out for its default", name,
                                   name));
    }
  }
  const std::vector<std::string> timing = given_options(app, kTimingOptions);
  if (given(app, "--check-only") && !timing.empty()) {
    throw UsageError(fmt::format("--check-only times nothing, so {} would have no effect: drop {} or --check-only",
                                 quoted_list(timing), timing.size() == 1 ? "it" : "them"));
  }
  const std::vector<std::string> adaptive = given_options(app, kAdaptiveOptions);
  if (!given(app, "--adaptive") && !adaptive.empty()) {
    throw UsageError(fmt::format("{} set{} adaptive timing, which only --adaptive turns on: add --adaptive, or drop {}",
                                 quoted_list(adaptive), adaptive.size() == 1 ? "s" : "", quoted_list(adaptive)));
  }
  if (given(app, "--adaptive") && given(app, "--iterations")) {
    throw UsageError("--adaptive decides how many calls are timed (--min-samples up to its maximum), so --iterations "
                     "would have no effect: drop one of them");
  }
  if (given(app, "--atol") && !given(app, "--shape")) {
    throw UsageError("--atol sets the tolerance of --shape cases (suite cases have their own), and no --shape is "
                     "given: add --shape BxLqxLv or drop --atol");
  }
  if (given(app, "--case-timeout") && given(app, "--no-isolation")) {
    throw UsageError("--case-timeout limits a case's worker process, and --no-isolation runs no worker: drop one of "
                     "them");
  }
}

std::vector<std::string> ignored_option_warnings(const CLI::App& app, std::string_view command) {
  // --list uses the suite, case and shard options (and -s, to list only those solutions); --version uses none.
  std::vector<std::string> ignored = command == "--version" ? kAllRunOptions : kRunOnlyOptions;
  std::erase(ignored, std::string(command));
  std::vector<std::string> warnings;
  for (const std::string& name : given_options(app, ignored)) {
    warnings.push_back(fmt::format("{} runs nothing, so {} has no effect", command, name));
  }
  return warnings;
}

void check_no_run_options(const CLI::App& app, std::string_view subcommand) {
  const std::vector<std::string> run_options = given_options(app, kAllRunOptions);
  if (!run_options.empty()) {
    throw UsageError(fmt::format("`vlbench {}` takes none of the options of a run ({} given before it): drop them, or "
                                 "see vlbench {} --help",
                                 subcommand, quoted_list(run_options), subcommand));
  }
}

}  // namespace vlb::cli
