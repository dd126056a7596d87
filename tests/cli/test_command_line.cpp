#include <catch2/catch.hpp>

#include "harness/cli/command_line.hpp"
#include "harness/core/errors.hpp"

#include <filesystem>

using vlb::UsageError;
using vlb::cli::Command;
using vlb::cli::CommandLine;

TEST_CASE("run options become a plan", "[cli]") {
  CommandLine command_line;
  const auto request = command_line.parse({"--solution", "reference,template", "--case", "0,3", "--shape", "2x128x196",
                                           "-c", "d48e8b5b", "--shape", "1x64x196,3x5x392",
                                           "--seed", "7", "--rounds", "2", "--warmup", "3", "--iterations", "11",
                                           "--timer", "cupti", "--json", "out.json", "--positions", "random"});
  REQUIRE(request.command == Command::kRun);
  const vlb::RunPlan& plan = request.plan;
  CHECK(plan.solutions == std::vector<std::string>{"reference", "template"});
  // -c values split at commas, in order, then the --shape sizes in order.
  CHECK(plan.case_selectors == std::vector<std::string>{"0", "3", "d48e8b5b", "2x128x196", "1x64x196", "3x5x392"});
  CHECK(plan.seed == 7);
  CHECK(plan.correctness.rounds == 2);
  REQUIRE(plan.correctness.forced_positions.has_value());
  CHECK(*plan.correctness.forced_positions == vlb::PositionPattern::kRandom);
  CHECK(plan.timing.warmup_iterations == 3);
  CHECK(plan.timing.timed_iterations == 11);
  CHECK(plan.timing.timer == vlb::TimerKind::kCupti);
  CHECK(plan.timing.flush_l2);
  REQUIRE(plan.json_path.has_value());
  CHECK(plan.json_path->string() == "out.json");
  CHECK(plan.argv.front() == "vlbench");
}

TEST_CASE("defaults match the leaderboard's protocol", "[cli]") {
  CommandLine command_line;
  const auto request = command_line.parse({"--solution", "reference"});
  CHECK(request.plan.timing.warmup_iterations == 10);
  CHECK(request.plan.timing.timed_iterations == 50);
  CHECK(request.plan.timing.flush_l2);
  CHECK_FALSE(request.plan.timing.adaptive.has_value());
  CHECK(request.plan.suite == "all");
  CHECK(request.plan.time_cases);
}

TEST_CASE("adaptive timing options", "[cli]") {
  CommandLine command_line;
  const auto request = command_line.parse(
      {"-s", "reference", "--adaptive", "--min-samples", "30", "--target-noise", "0.02", "--timeout", "5"});
  REQUIRE(request.plan.timing.adaptive.has_value());
  CHECK(request.plan.timing.adaptive->min_samples == 30);
  CHECK(request.plan.timing.adaptive->target_relative_noise == Approx(0.02));
  CHECK(request.plan.timing.adaptive->timeout_s == Approx(5.0));
}

TEST_CASE("bad usage is a UsageError that points to --help", "[cli]") {
  CommandLine command_line;
  const std::vector<std::vector<std::string>> bad = {
      {"--solution", "reference", "--rounds", "0"},
      {"--solution", "reference", "--timer", "stopwatch"},
      {"--solution", "reference", "--iterations", "-5"},
      {"--solution", "reference", "--no-such-option"},
      {"--solution", "reference", "--positions", "sideways"},
      {"compare", "only-one.json"},
      {},  // no solution
  };
  for (const auto& arguments : bad) {
    INFO("arguments: " << arguments.size());
    CHECK_THROWS_AS(command_line.parse(arguments), UsageError);
  }
  try {
    command_line.parse({"--solution", "reference", "--rounds", "0"});
  } catch (const UsageError& error) {
    CHECK_THAT(error.message(), Catch::Contains("--help"));
  }
}

TEST_CASE("help, version, list and compare need no solution", "[cli]") {
  CommandLine command_line;
  const auto help = command_line.parse({"--help"});
  CHECK(help.command == Command::kHelp);
  CHECK_THAT(help.help_text, Catch::Contains("Exit codes"));
  CHECK_THAT(help.help_text, Catch::Contains("--solution"));
  CHECK(command_line.parse({"--version"}).command == Command::kVersion);
  CHECK(command_line.parse({"--list"}).command == Command::kList);
  const auto compare = command_line.parse({"compare", "a.json", "b.json"});
  REQUIRE(compare.command == Command::kCompare);
  CHECK(compare.compare.baseline_file == "a.json");
  CHECK(compare.compare.candidate_file == "b.json");
}

TEST_CASE("-c 3,4,5 selects three workloads; -c takes no size and --shape nothing but sizes", "[cli]") {
  CommandLine command_line;
  CHECK(command_line.parse({"-s", "template", "-c", "3,4,5"}).plan.case_selectors ==
        std::vector<std::string>{"3", "4", "5"});
  CHECK(command_line.parse({"-s", "template", "--shape", "2x373x588"}).plan.case_selectors ==
        std::vector<std::string>{"2x373x588"});
  // The old comma spelling of a size, and each option given the other's kind.
  CHECK_THROWS_WITH(command_line.parse({"-s", "template", "--shape", "2,373,588"}),
                    Catch::Contains("--shape 2: a custom size is BxLqxLv"));
  CHECK_THROWS_WITH(command_line.parse({"-s", "template", "--shape", "d48e8b5b"}), Catch::Contains("--shape d48e8b5b"));
  CHECK_THROWS_WITH(command_line.parse({"-s", "template", "-c", "2x373x588"}),
                    Catch::Contains("given with --shape 2x373x588"));
}

TEST_CASE("--dry-run, --list --json and compare's options", "[cli]") {
  CommandLine command_line;
  CHECK(command_line.parse({"-s", "template", "--dry-run"}).command == Command::kDryRun);
  const auto listing = command_line.parse({"--list", "--json"});
  CHECK(listing.command == Command::kList);
  CHECK(listing.list_as_json);
  CHECK_FALSE(command_line.parse({"--list"}).list_as_json);
  CHECK_THROWS_AS(command_line.parse({"--list", "--json", "out.json"}), UsageError);
  CHECK_THROWS_AS(command_line.parse({"-s", "template", "--json"}), UsageError);  // a run's results need a file
  const auto run = command_line.parse({"-s", "template", "--json", "out.json"});
  CHECK(run.command == Command::kRun);
  CHECK(run.plan.json_path == std::filesystem::path("out.json"));

  const auto compare = command_line.parse({"compare", "a.json", "b.json", "--threshold", "0.1", "--json"});
  CHECK(compare.compare.threshold == 0.1);
  CHECK(compare.compare.as_json);
  const auto defaults = command_line.parse({"compare", "a.json", "b.json"});
  CHECK(defaults.compare.threshold == 0.05);
  CHECK_FALSE(defaults.compare.as_json);
  CHECK_THROWS_AS(command_line.parse({"compare", "a.json", "b.json", "--threshold", "-1"}), UsageError);
}

TEST_CASE("a parser can be reused without state leaking between parses", "[cli]") {
  CommandLine command_line;
  (void)command_line.parse({"--solution", "reference", "--seed", "99"});
  const auto second = command_line.parse({"--solution", "template"});
  CHECK(second.plan.seed == 20260);
  CHECK(second.plan.solutions == std::vector<std::string>{"template"});
}

TEST_CASE("export and package subcommands", "[cli]") {
  CommandLine command_line;
  const auto exported = command_line.parse({"export", "run.json", "--reference", "ref.json", "-o", "t.jsonl"});
  REQUIRE(exported.command == Command::kExport);
  CHECK(exported.export_traces.results_path == "run.json");
  REQUIRE(exported.export_traces.reference_path.has_value());
  CHECK(*exported.export_traces.reference_path == "ref.json");
  CHECK(exported.export_traces.output_path == "t.jsonl");

  const auto packaged = command_line.parse({"package", "--solution", "template"});
  REQUIRE(packaged.command == Command::kPackage);
  CHECK(packaged.package.solution == "template");
  CHECK(std::filesystem::exists(packaged.package.source_root / "solutions" / "template"));

  CHECK_THROWS_AS(command_line.parse({"package"}), UsageError);
  CHECK_THROWS_AS(command_line.parse({"export"}), UsageError);
}

namespace {
std::string usage_error_of(CommandLine& command_line, const std::vector<std::string>& arguments) {
  try {
    (void)command_line.parse(arguments);
  } catch (const UsageError& error) {
    return error.message();
  }
  FAIL("expected a UsageError");
  return {};
}
}  // namespace

TEST_CASE("lists: empty items and repeated solutions are errors, one trailing comma is allowed", "[cli]") {
  CommandLine command_line;
  CHECK(command_line.parse({"-s", "template", "-c", "0,", "--dry-run"}).command == Command::kDryRun);
  // `-c ,` swallowed --dry-run as a uuid prefix (issue 24).
  CHECK_THAT(usage_error_of(command_line, {"-s", "template", "-c", ",", "--dry-run"}),
             Catch::StartsWith("-c/--case ',': an empty item"));
  CHECK_THAT(usage_error_of(command_line, {"-s", "template", "-c", "0,,1"}), Catch::Contains("an empty item"));
  CHECK_THAT(usage_error_of(command_line, {"-s", "template,template"}),
             Catch::StartsWith("--solution names 'template' twice"));
  CHECK_THAT(usage_error_of(command_line, {"-s", "template", "-s", "template"}), Catch::Contains("twice"));
  const auto lists = command_line.parse({"-s", "template,reference", "--shape", "1x64x196,2x8x196"});
  CHECK(lists.plan.case_selectors.size() == 2);
}

TEST_CASE("the seed is exactly an unsigned 64-bit integer", "[cli]") {
  CommandLine command_line;
  CHECK(command_line.parse({"-s", "template", "--seed", "18446744073709551615"}).plan.seed == UINT64_MAX);
  for (const char* seed : {"-1", "18446744073709551616", "1.5", "abc", "", "+3", " 7"}) {
    CAPTURE(seed);
    CHECK_THAT(usage_error_of(command_line, {"-s", "template", "--seed", seed}),
               Catch::Contains("the seed is an integer from 0 to 18446744073709551615"));
  }
}

TEST_CASE("options that would be ignored or contradict each other are errors in a run", "[cli]") {
  CommandLine command_line;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--check-only", "--adaptive"}, "--check-only times nothing, so --adaptive would have no effect"},
      {{"--check-only", "--timer", "cupti", "--iterations", "5"}, "so --timer, --iterations would have no effect"},
      {{"--target-noise", "0.01"}, "--target-noise sets adaptive timing, which only --adaptive turns on"},
      {{"--adaptive", "--iterations", "9"}, "--adaptive decides how many calls are timed"},
      {{"--atol", "0.1"}, "--atol sets the tolerance of --shape cases"},
      {{"--no-isolation", "--case-timeout", "9"}, "--no-isolation runs no worker"},
      {{"--gpu-spec", ""}, "--gpu-spec was given an empty value"},
      {{"--baseline", ""}, "--baseline was given an empty value"},
      {{"--suite", ""}, "--suite was given an empty value"},
      {{"--max-abs-error", "-5"}, "--max-abs-error -5: the largest absolute error allowed is a finite number >= 0"},
      {{"--max-abs-error", "nan"}, "--max-abs-error nan"},
  };
  for (const auto& [options, expected] : cases) {
    std::vector<std::string> arguments = {"-s", "template", "--dry-run"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    CAPTURE(options);
    CHECK_THAT(usage_error_of(command_line, arguments), Catch::Contains(expected));
  }
  CHECK(command_line.parse({"-s", "template", "--adaptive", "--target-noise", "0.02"}).plan.timing.adaptive);
  CHECK(command_line.parse({"-s", "template", "--shape", "1x64x196", "--atol", "0.02"}).plan.custom_case_atol == 0.02);
}

TEST_CASE("--list and --version warn about the run options they ignore; subcommands refuse them", "[cli]") {
  CommandLine command_line;
  const auto listing = command_line.parse({"--list", "-s", "template", "--seed", "3", "--dry-run"});
  CHECK(listing.command == Command::kList);
  CHECK(listing.warnings ==
        std::vector<std::string>{"--list runs nothing, so --seed has no effect",
                                 "--list runs nothing, so --dry-run has no effect"});
  CHECK(command_line.parse({"--list", "-s", "template", "-c", "3", "--shard", "1/4"}).warnings.empty());
  CHECK(command_line.parse({"--version", "-s", "template"}).warnings ==
        std::vector<std::string>{"--version runs nothing, so --solution has no effect"});
  CHECK_THAT(usage_error_of(command_line, {"--seed", "5", "compare", "a.json", "b.json"}),
             Catch::StartsWith("`vlbench compare` takes none of the options of a run (--seed given before it)"));
  CHECK_THAT(usage_error_of(command_line, {"-s", "template", "merge", "a.json", "-o", "b.json"}),
             Catch::Contains("`vlbench merge` takes none of the options of a run (--solution"));
}

TEST_CASE("vlbench help is vlbench --help; each subcommand's help shows its own examples", "[cli]") {
  CommandLine command_line;
  const auto help = command_line.parse({"help"});
  REQUIRE(help.command == Command::kHelp);
  CHECK(help.help_text == command_line.parse({"--help"}).help_text);
  const auto compare_help = command_line.parse({"compare", "--help"}).help_text;
  CHECK(command_line.parse({"help", "compare"}).help_text == compare_help);
  CHECK_THAT(compare_help, Catch::Contains("Usage: vlbench compare"));
  CHECK_THAT(compare_help, Catch::Contains("vlbench compare A.json B.json --threshold 0.05"));
  CHECK_THAT(compare_help, !Catch::Contains("vlbench package --solution template"));  // the top level's examples
  for (const char* subcommand : {"export", "package", "merge"}) {
    const std::string text = command_line.parse({subcommand, "--help"}).help_text;
    CAPTURE(subcommand);
    CHECK_THAT(text, Catch::Contains(std::string("  vlbench ") + subcommand + " "));
    CHECK_THAT(text, !Catch::Contains("vlbench --list"));
  }
  CHECK_THAT(usage_error_of(command_line, {"help", "frobnicate"}), Catch::Contains("no such command"));
}
