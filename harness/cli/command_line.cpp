#include "harness/cli/command_line.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "harness/cli/option_rules.hpp"
#include "harness/cli/scaleout_options.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/suite/suite.hpp"

namespace vlb::cli {

// Raw option values, before they become a RunPlan.
struct CommandLine::Options {
  bool list = false;
  bool version = false;
  bool dry_run = false;
  std::string suite = "all";
  std::string workloads_dir;
  std::vector<std::string> solutions;
  std::vector<std::string> cases;
  std::vector<std::string> shapes;
  double custom_atol = 0.01;
  std::string seed = "20260";  // read by parse_seed: CLI11 would take -1 as 2^64-1
  int rounds = 3;
  std::string positions = "mixed";
  std::optional<double> max_abs_error;
  bool check_only = false;
  int warmup = 10;
  int iterations = 50;
  bool adaptive = false;
  int min_samples = 20;
  double min_time_s = 0.5;
  double target_noise = 0.01;
  double timeout_s = 30.0;
  std::string timer = "events";
  bool no_l2_flush = false;
  int device = 0;
  std::string gpu_spec;
  std::string baseline;
  std::string json;
  std::string dump;
  bool no_isolation = false;
  double case_timeout_s = 600;
  std::string compare_a, compare_b;
  double compare_threshold = kDefaultCompareThreshold;
  bool compare_json = false;
  std::string export_results, export_reference, export_output = "traces.jsonl";
  std::string package_solution, package_output;
  std::string help_topic;
  bool verbose = false;
  bool nvtx_ranges = false;
  std::string show_results;
  std::vector<std::string> show_cases, show_solutions;
  std::string profile_solution, profile_case, profile_tool = "ncu", profile_output, profile_set = "basic";
  int profile_warmup = 2;
  CLI::App* compare = nullptr;
  CLI::App* export_traces = nullptr;
  CLI::App* package = nullptr;
  CLI::App* help = nullptr;
  CLI::App* show = nullptr;
  CLI::App* profile = nullptr;
  ScaleoutOptions scaleout;
};

namespace {

// Every line is run by tests/docs/test_documented_commands.py, as the commands of README and docs/ are. The
// top-level help lists them all; each subcommand's help lists its own.
constexpr const char* kHelpExamples =
    "Examples:\n"
    "  vlbench --list\n"
    "  vlbench --suite all --solution fused_b200\n"
    "  vlbench -s reference -c 0,15 --shape 2x373x588 --json results/run.json\n"
    "  vlbench -s template --dry-run\n"
    "  vlbench compare A.json B.json --threshold 0.05\n"
    "  vlbench export results/run.json -o traces.jsonl\n"
    "  vlbench package --solution template\n"
    "  vlbench -s reference --devices all --json results/run.json\n"
    "  vlbench merge shard-0.json shard-1.json -o results/run.json\n"
    "  vlbench show results/run.json -c 0\n"
    "  vlbench profile -s template -c 15 --tool ncu -o profiles/template_15\n"
    "  vlbench help compare";
constexpr const char* kShowExamples =
    "Examples:\n"
    "  vlbench show results/run.json\n"
    "  vlbench show results/h200/fused_b200.json -c 10 -s fused_b200";
constexpr const char* kProfileExamples =
    "Examples:\n"
    "  vlbench profile -s template -c 15 --tool ncu -o profiles/template_15\n"
    "  vlbench profile -s fused_b200 -c 10 --tool ncu --set full -o profiles/fused_b200_10\n"
    "  vlbench profile -s fused_b200 -c 10 --tool nsys -o profiles/fused_b200_10";
constexpr const char* kCompareExamples =
    "Examples:\n"
    "  vlbench compare A.json B.json --threshold 0.05\n"
    "  vlbench compare results/h200/reference.json results/h200/fused_b200.json --json";
constexpr const char* kExportExamples =
    "Examples:\n"
    "  vlbench export results/run.json -o traces.jsonl\n"
    "  vlbench export results/template.json --reference results/reference.json -o template.traces.jsonl";
constexpr const char* kPackageExamples =
    "Examples:\n"
    "  vlbench package --solution template\n"
    "  vlbench package --solution template -o template.solution.json";
constexpr const char* kHelpCommandExamples =
    "Examples:\n"
    "  vlbench help\n"
    "  vlbench help merge";

void add_run_options(CLI::App& app, auto& o) {
  app.add_flag("--list", o.list, "List the suite's cases and the registered solutions, then exit");
  app.add_flag("--version", o.version, "Print the version and the commit it was built from");
  app.add_option("--suite", o.suite, "'all' (the built-in 16 workloads) or a path to a workload JSONL file")
      ->capture_default_str();
  app.add_option("--workloads-dir", o.workloads_dir,
                 "Folder with definition.json, workloads.jsonl, gpus.json and baselines/ (default: the built-in one)");
  // Comma-separated lists are split by split_list, not by CLI11, which lets `-c ,` swallow the next argument.
  app.add_option("--solution,-s", o.solutions, "Solution(s) to run, by name (repeat or comma-separate)");
  app.add_option("--case,-c", o.cases,
                 "Case(s) of the suite: indices (0-15) or uuid prefixes (repeat or comma-separate)");
  app.add_option("--shape", o.shapes, "Custom size(s) BxLqxLv outside the suite, e.g. 2x373x588 (repeatable)");
  app.add_option("--atol", o.custom_atol, "Absolute tolerance for --shape cases")->capture_default_str();
  app.add_option("--seed", o.seed, "Seed of the first correctness round (round r > 0 uses a seed keyed by (seed, r); "
                 "warm-up and timed calls draw theirs from entropy)")->capture_default_str();
  app.add_option("--rounds", o.rounds, "Correctness rounds with fresh seeds")->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--positions", o.positions,
                 "Position inputs: 'mixed' (official, last round random), 'official' or 'random' for every round")
      ->check(CLI::IsMember({"mixed", "official", "random"}))->capture_default_str();
  app.add_option("--max-abs-error", o.max_abs_error, "Also fail a case whose maximum absolute error exceeds this");
  app.add_flag("--check-only", o.check_only, "Check correctness, do not time");
  app.add_option("--warmup", o.warmup, "Warm-up iterations")->check(CLI::Range(0, 100000))->capture_default_str();
  app.add_option("--iterations", o.iterations, "Timed iterations")->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_flag("--adaptive", o.adaptive, "Time until the noise target is met (see --min-samples ... --timeout)");
  app.add_option("--min-samples", o.min_samples, "Adaptive: minimum samples")->check(CLI::Range(2, 100000))
      ->capture_default_str();
  app.add_option("--min-time", o.min_time_s, "Adaptive: minimum total timed seconds")->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_option("--target-noise", o.target_noise, "Adaptive: target relative noise (stddev/mean)")
      ->check(CLI::Range(0.0001, 1.0))->capture_default_str();
  app.add_option("--timeout", o.timeout_s, "Adaptive: stop after this many seconds")->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  app.add_option("--timer", o.timer, "'events' (CUDA events) or 'cupti' (kernel span on all streams, as the leaderboard)")
      ->check(CLI::IsMember({"events", "cupti"}))->capture_default_str();
  app.add_flag("--no-l2-flush", o.no_l2_flush, "Do not flush L2 before each timed call (not leaderboard-comparable)");
  app.add_option("--device", o.device, "CUDA device ordinal")->check(CLI::Range(0, 1023))->capture_default_str();
  app.add_option("--gpu-spec", o.gpu_spec, "GPU spec key for speed of light (default: chosen by device name)");
  app.add_option("--baseline", o.baseline, "Baseline latency file for the score (default: workloads/baselines/)");
  app.add_option("--json", o.json, "Write the results JSON here (kept up to date case by case); with --list, print "
                 "the listing as JSON")->expected(0, 1);
  app.add_flag("--dry-run", o.dry_run, "Check the suite, cases, solutions, GPU spec, baseline, inputs and output paths, "
               "say what would run, and stop (no GPU needed)");
  app.add_option("--dump", o.dump, "Write each checked case's inputs, output and reference output as safetensors here");
  app.add_flag("--no-isolation", o.no_isolation,
               "Trusted mode, for debugging your own solution: run every case in this process, the reference "
               "included, instead of the solution in one worker process per case and the reference only here");
  app.add_option("--case-timeout", o.case_timeout_s, "Seconds a (solution, case) may take before it is TIMEOUT")
      ->check(CLI::Range(1.0, 86400.0))->capture_default_str();
  app.add_flag("--verbose,-v", o.verbose, "After the table, where each case's time went, kernel by kernel");
  // Internal: how `vlbench profile` has the profiled run name its calls.
  app.add_flag("--nvtx-ranges", o.nvtx_ranges)->group("");
}

void add_show_command(CLI::App& app, auto& o) {
  o.show = app.add_subcommand("show", "Where a results file's cases spent their time, kernel by kernel");
  o.show->footer(kShowExamples);
  o.show->add_option("RESULTS", o.show_results, "Results JSON of a run")->required();
  o.show->add_option("--case,-c", o.show_cases, "Case indices (repeat or comma-separate; default every case)");
  o.show->add_option("--solution,-s", o.show_solutions, "Solutions (repeat or comma-separate; default every one)");
}

void add_profile_command(CLI::App& app, auto& o) {
  o.profile = app.add_subcommand("profile", "Run one timed call of a case under Nsight Compute or Nsight Systems");
  o.profile->footer(kProfileExamples);
  o.profile->add_option("--solution,-s", o.profile_solution, "The solution")->required();
  o.profile->add_option("--case,-c", o.profile_case, "One case: an index, a uuid prefix, or a size BxLqxLv")->required();
  o.profile->add_option("--tool", o.profile_tool, "ncu (Nsight Compute) or nsys (Nsight Systems)")
      ->check(CLI::IsMember({"ncu", "nsys"}))->capture_default_str();
  o.profile->add_option("--output,-o", o.profile_output, "The report, without its extension")->required();
  o.profile->add_option("--set", o.profile_set, "ncu's section set (basic, detailed, full, ...)")->capture_default_str();
  o.profile->add_option("--warmup", o.profile_warmup, "Warm-up calls before the profiled one")
      ->check(CLI::Range(0, 1000))->capture_default_str();
}

std::vector<int> case_indices(const std::vector<std::string>& values) {
  std::vector<int> indices;
  for (const std::string& item : split_list("-c/--case", values, true)) {
    int index = -1;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), index);
    if (error != std::errc() || end != item.data() + item.size() || index < 0) {
      throw UsageError(fmt::format("vlbench show -c {}: a case index (0, 1, ...)", printable_text(item)));
    }
    indices.push_back(index);
  }
  return indices;
}

TimingSettings timing_settings(const auto& o) {
  TimingSettings timing;
  timing.warmup_iterations = o.warmup;
  timing.timed_iterations = o.iterations;
  timing.timer = o.timer == "cupti" ? TimerKind::kCupti : TimerKind::kEvents;
  timing.flush_l2 = !o.no_l2_flush;
  if (o.adaptive) {
    AdaptiveStop stop;
    stop.min_samples = o.min_samples;
    stop.min_time_s = o.min_time_s;
    stop.target_relative_noise = o.target_noise;
    stop.timeout_s = o.timeout_s;
    timing.adaptive = stop;
  }
  return timing;
}

// -c names suite cases and --shape custom sizes; select_cases reads both from one list, so each option is held to its
// own kind here.
void check_case_options(const std::vector<std::string>& cases, const std::vector<std::string>& shapes) {
  for (const std::string& selector : cases) {
    if (is_custom_size(selector)) {
      throw UsageError(fmt::format("-c {}: a custom size is given with --shape {} (-c takes indices and uuid prefixes)",
                                   selector, selector));
    }
  }
  for (const std::string& shape : shapes) {
    if (!is_custom_size(shape)) {
      throw UsageError(fmt::format("--shape {}: a custom size is BxLqxLv, e.g. --shape 2x373x588 (suite cases are -c)",
                                   shape));
    }
  }
}

// --max-abs-error is a bound on an error: a finite number >= 0.
std::optional<double> max_abs_error(const std::optional<double>& value) {
  if (value && !(std::isfinite(*value) && *value >= 0.0)) {
    throw UsageError(fmt::format("--max-abs-error {}: the largest absolute error allowed is a finite number >= 0",
                                 *value));
  }
  return value;
}

RunPlan make_plan(const auto& o, const std::vector<std::string>& arguments) {
  RunPlan plan;
  plan.suite = o.suite;
  plan.workloads_dir = o.workloads_dir.empty() ? default_workloads_dir() : std::filesystem::path(o.workloads_dir);
  plan.solutions = split_list("--solution", o.solutions, true);
  const std::vector<std::string> cases = split_list("-c/--case", o.cases, false);
  const std::vector<std::string> shapes = split_list("--shape", o.shapes, false);
  check_case_options(cases, shapes);
  plan.case_selectors = cases;  // indices and uuid prefixes, then the custom sizes (select_cases reads both)
  plan.case_selectors.insert(plan.case_selectors.end(), shapes.begin(), shapes.end());
  plan.custom_case_atol = o.custom_atol;
  plan.seed = parse_seed(o.seed);
  plan.correctness.rounds = o.rounds;
  if (o.positions != "mixed") plan.correctness.forced_positions = parse_position_pattern(o.positions);
  plan.correctness.max_abs_error_cap = max_abs_error(o.max_abs_error);
  plan.time_cases = !o.check_only;
  plan.timing = timing_settings(o);
  plan.device = o.device;
  if (!o.gpu_spec.empty()) plan.gpu_spec_key = o.gpu_spec;
  if (!o.baseline.empty()) plan.baseline_path = o.baseline;
  if (!o.json.empty()) plan.json_path = o.json;
  if (!o.dump.empty()) plan.dump_dir = o.dump;
  plan.isolation = !o.no_isolation;
  plan.case_timeout_s = o.case_timeout_s;
  plan.nvtx_ranges = o.nvtx_ranges;
  plan.verbose = o.verbose;
  plan.argv = arguments;
  plan.argv.insert(plan.argv.begin(), "vlbench");
  return plan;
}

// `vlbench help [COMMAND]`: the help of vlbench or of one command, as --help prints it.
std::string help_text(const CLI::App& app, const std::string& topic) {
  // Straight to the formatter: App::help would show the help of the subcommand that was parsed, `help` itself.
  if (topic.empty()) return app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
  for (const CLI::App* subcommand : app.get_subcommands({})) {
    if (subcommand->get_name() == topic) {
      return subcommand->get_formatter()->make_help(subcommand, app.get_name() + " " + topic,
                                                    CLI::AppFormatMode::Normal);
    }
  }
  throw UsageError(fmt::format("vlbench help {}: no such command (the commands: compare, export, package, merge, show, "
                               "profile, help)", printable_text(topic)));
}

}  // namespace

CommandLine::CommandLine() : options_(std::make_unique<Options>()), app_(std::make_unique<CLI::App>()) {
  CLI::App& app = *app_;
  app.name("vlbench");
  app.description(
      "Checks and times solutions of the Qwen3-VL vision-language cross-attention fusion layer (SOL-ExecBench "
      "L2/034) the way the B200 leaderboard does.\n"
      "Exit codes: 0 all selected cases passed (or were skipped), 1 a case failed, 2 bad usage or input files, "
      "3 CUDA or system error (including: no GPU).");
  app.footer(kHelpExamples);
  add_run_options(app, *options_);
  options_->compare = app.add_subcommand("compare", "Compare two results files case by case (B relative to A)");
  options_->compare->footer(kCompareExamples);
  options_->compare->add_option("A", options_->compare_a, "Results JSON taken as the baseline")->required();
  options_->compare->add_option("B", options_->compare_b, "Results JSON compared against A")->required();
  options_->compare->add_option("--threshold", options_->compare_threshold,
                                "Relative change of the median that counts as faster or slower (0.05: 5%)")
      ->check(CLI::Range(0.0, 10.0))->capture_default_str();
  options_->compare->add_flag("--json", options_->compare_json, "Print the comparison as JSON instead of a table");
  options_->export_traces =
      app.add_subcommand("export", "Write SOL-ExecBench traces (JSONL) from a results file (docs/leaderboard.md)");
  options_->export_traces->footer(kExportExamples);
  options_->export_traces->add_option("RESULTS", options_->export_results, "Results JSON of a run")->required();
  options_->export_traces->add_option("--reference", options_->export_reference,
                                      "Results JSON of the reference solution (for reference_latency_ms)");
  options_->export_traces->add_option("--output,-o", options_->export_output, "Traces file to write")
      ->capture_default_str();
  options_->package = app.add_subcommand("package", "Write a SOL-ExecBench solution.json for a registered solution");
  options_->package->add_option("--solution,-s", options_->package_solution, "Registered solution name")->required();
  options_->package->add_option("--output,-o", options_->package_output, "File to write (default NAME.solution.json)");
  options_->package->footer(kPackageExamples);
  add_scaleout_options(app, options_->scaleout);
  add_show_command(app, *options_);
  add_profile_command(app, *options_);
  options_->help = app.add_subcommand("help", "Print this help, or a command's (vlbench help compare)");
  options_->help->add_option("COMMAND", options_->help_topic,
                              "compare, export, package, merge, show, profile or help");
  options_->help->footer(kHelpCommandExamples);
  app.require_subcommand(0, 1);
}

CommandLine::~CommandLine() = default;

Request CommandLine::parse(const std::vector<std::string>& arguments) {
  *options_ = Options{.compare = options_->compare,
                      .export_traces = options_->export_traces,
                      .package = options_->package,
                      .help = options_->help,
                      .show = options_->show,
                      .profile = options_->profile};
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());  // CLI11 takes them in reverse order
  Request request;
  try {
    app_->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    request.command = Command::kHelp;
    request.help_text = app_->help();
    return request;
  } catch (const CLI::ParseError& error) {
    throw UsageError(fmt::format("{} (run vlbench --help for the options)", error.what()));
  }
  const Options& o = *options_;
  for (CLI::App* subcommand :
       {o.compare, o.export_traces, o.package, o.help, o.show, o.profile, app_->get_subcommand("merge")}) {
    if (subcommand->parsed()) check_no_run_options(*app_, subcommand->get_name());
  }
  if (o.help->parsed()) {
    request.command = Command::kHelp;
    request.help_text = help_text(*app_, o.help_topic);
    return request;
  }
  if (auto scaleout = scaleout_request(*app_, o.scaleout, arguments)) return std::move(*scaleout);
  const bool json_given = app_->count("--json") > 0;
  if (o.version) {
    request.command = Command::kVersion;
    request.warnings = ignored_option_warnings(*app_, "--version");
    return request;
  } else if (options_->compare->parsed()) {
    request.command = Command::kCompare;
    request.compare = {o.compare_a, o.compare_b, o.compare_threshold, o.compare_json};
    return request;
  } else if (options_->export_traces->parsed()) {
    request.command = Command::kExport;
    request.export_traces.results_path = o.export_results;
    if (!o.export_reference.empty()) request.export_traces.reference_path = o.export_reference;
    request.export_traces.output_path = o.export_output;
    return request;
  } else if (o.show->parsed()) {
    request.command = Command::kShow;
    request.show = {o.show_results, case_indices(o.show_cases), split_list("-s/--solution", o.show_solutions, true)};
    return request;
  } else if (o.profile->parsed()) {
    request.command = Command::kProfile;
    request.profile.solution = o.profile_solution;
    request.profile.case_selector = o.profile_case;
    request.profile.tool = o.profile_tool == "nsys" ? ProfilerTool::kNsys : ProfilerTool::kNcu;
    request.profile.output = o.profile_output;
    request.profile.section_set = o.profile_set;
    request.profile.warmup = o.profile_warmup;
    return request;
  } else if (options_->package->parsed()) {
    request.command = Command::kPackage;
    request.package.solution = o.package_solution;
    request.package.source_root = default_workloads_dir().parent_path();
    request.package.output_path = o.package_output;
    return request;
  } else if (o.list) {
    request.command = Command::kList;
    request.list_as_json = json_given;
    if (!o.json.empty()) throw UsageError("--list --json prints the listing on standard output: give --json no path");
    request.warnings = ignored_option_warnings(*app_, "--list");
  } else if (o.solutions.empty()) {
    throw UsageError("no solution given: pass --solution NAME (vlbench --list shows the registered ones)");
  } else if (json_given && o.json.empty()) {
    throw UsageError("--json needs a file for the results of a run (--json results/run.json)");
  } else {
    check_run_options(*app_);
    if (o.dry_run) request.command = Command::kDryRun;
  }
  request.plan = make_plan(o, arguments);
  apply_scaleout_options(*app_, o.scaleout, request.plan);
  return request;
}

}  // namespace vlb::cli
