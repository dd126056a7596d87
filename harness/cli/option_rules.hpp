#pragma once
// The rules the command line holds options to beyond their own values: lists without empty items or repeats, a seed
// that is exactly an unsigned 64-bit integer, and no option that is ignored or contradicts another. An option the
// command would ignore is an error when the user asked for something that will not happen (a timing option with
// --check-only), and a warning where nothing is lost (a run option given to --list).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace vlb::cli {

// The items of a comma-separated option, every occurrence in order: {"0,15", "3"} -> {"0", "15", "3"}. One trailing
// comma is allowed ("0,"); any other empty item is a UsageError naming `option`. With `unique`, a repeated item is
// one too.
std::vector<std::string> split_list(std::string_view option, const std::vector<std::string>& values, bool unique);

// "20260" -> 20260; a sign, a fraction or a value beyond 2^64-1 is a UsageError.
std::uint64_t parse_seed(const std::string& text);

// The options of `app` given on this command line, by their long name ("--seed").
std::vector<std::string> given_options(const CLI::App& app, const std::vector<std::string>& names);

// Throws UsageError for options of a run that contradict each other or would have no effect: timing options with
// --check-only, adaptive options without --adaptive, --iterations with --adaptive, --atol without --shape,
// --case-timeout with --no-isolation; and for options given an empty value (--gpu-spec '').
void check_run_options(const CLI::App& app);

// For --list and --version, which do not run anything: one warning per option they ignore (empty when none).
std::vector<std::string> ignored_option_warnings(const CLI::App& app, std::string_view command);

// Throws UsageError when a subcommand (`compare`, `export`, ...) is given options of a run before it.
void check_no_run_options(const CLI::App& app, std::string_view subcommand);

}  // namespace vlb::cli
