// The per-case table, the run summary and the progress line (fmt). They only read results; they never measure.
#include "harness/report/table.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "harness/core/printable_text.hpp"
#include "harness/report/text_format.hpp"

namespace vlb {

namespace {

using report_detail::format_or_dash;
using report_detail::median_latency_ms;

constexpr const char* kRowFormat = "{:>3} {:<8} {:>3} {:>5} {:>5} {:<19} {:>10} {:>9} {:>9} {:>6} {:>6} {:>11} {:>9}\n";

std::optional<double> ms_to_us(const std::optional<double>& ms) {
  if (!ms) return std::nullopt;
  return *ms * 1000.0;
}

// (p90 - p10) / median: how widely the samples spread, in percent of the latency.
std::optional<double> spread_percent(const CaseResult& result) {
  const std::optional<double> median = median_latency_ms(result);
  if (!median || *median <= 0) return std::nullopt;
  return 100.0 * (result.timing->stats.p90 - result.timing->stats.p10) / *median;
}

// The last correctness round is the one checked on the timed output.
const CorrectnessRound* final_round(const CaseResult& result) {
  return result.correctness.empty() ? nullptr : &result.correctness.back();
}

void print_header(std::FILE* out) {
  fmt::print(out, fmt::runtime(kRowFormat), "#", "uuid", "B", "Lq", "Lv", "status", "median us", "p10-p90 %",
             "T_SOL us", "SOL %", "score", "max abs err", "matched %");
}

void print_row(std::FILE* out, const CaseResult& result) {
  const CorrectnessRound* round = final_round(result);
  std::optional<double> max_abs_error, matched_percent, t_sol_ms, sol_percent;
  if (round) {
    max_abs_error = round->stats.max_abs_error;
    matched_percent = 100.0 * round->stats.matched_ratio;
  }
  if (result.sol) t_sol_ms = result.sol->t_sol_ms;
  if (result.sol_fraction) sol_percent = 100.0 * *result.sol_fraction;
  fmt::print(out, fmt::runtime(kRowFormat), report_detail::case_number(result.case_index),
             report_detail::short_uuid(result.uuid), result.shape.batch, result.shape.lang_seq, result.shape.vision_seq,
             status_name(result.status), format_or_dash("{:.2f}", ms_to_us(median_latency_ms(result))),
             format_or_dash("{:.1f}", spread_percent(result)), format_or_dash("{:.2f}", ms_to_us(t_sol_ms)),
             format_or_dash("{:.1f}", sol_percent), format_or_dash("{:.3f}", result.score),
             format_or_dash("{:.3g}", max_abs_error), format_or_dash("{:.2f}", matched_percent));
}

// What the table cannot show: why a case did not pass, and measurements a reader should distrust.
std::vector<std::string> notes_for(const CaseResult& result) {
  std::vector<std::string> notes;
  if (result.status != CaseStatus::kPassed) {
    // A reason can quote a solution's own output (a crash's last lines): printed safe for a terminal.
    notes.push_back(fmt::format("{}: {}", status_name(result.status), printable_text(result.reason)));
  }
  if (result.implausibly_fast) notes.push_back("latency below T_SOL: implausibly fast, check the measurement");
  if (result.timing && result.timing->clocks.throttled) {
    notes.push_back(fmt::format("SM clock throttled ({:.0f} MHz before, {:.0f} MHz after, {:.0f} MHz rated)",
                                result.timing->clocks.sm_clock_mhz_before, result.timing->clocks.sm_clock_mhz_after,
                                result.timing->clocks.max_sm_clock_mhz));
  }
  return notes;
}

void print_notes(std::FILE* out, const std::vector<CaseResult>& cases) {
  bool header_printed = false;
  for (const CaseResult& result : cases) {
    for (const std::string& note : notes_for(result)) {
      if (!header_printed) fmt::print(out, "notes:\n");
      header_printed = true;
      fmt::print(out, "  {} {}: {}\n", result.solution, report_detail::case_label(result), note);
    }
  }
}

}  // namespace

void print_case_table(std::FILE* out, const RunRecord& run) {
  if (run.cases.empty()) {
    fmt::print(out, "no cases\n");
    return;
  }
  const std::string* current_solution = nullptr;
  for (const CaseResult& result : run.cases) {
    if (!current_solution || *current_solution != result.solution) {
      fmt::print(out, "{}solution {}\n", current_solution ? "\n" : "", result.solution);
      print_header(out);
      current_solution = &result.solution;
    }
    print_row(out, result);
  }
  print_notes(out, run.cases);
}

void print_summary(std::FILE* out, const RunRecord& run) {
  const SummaryRecord summary = run.summary ? *run.summary : summarize(run.cases, 0.0);
  fmt::print(out, "passed {}, failed {}, skipped {} of {} cases ({:.1f} s)\n", summary.passed, summary.failed,
             summary.skipped, summary.cases, summary.wall_time_s);
  std::optional<double> mean_latency_us;
  if (summary.mean_latency_ms) mean_latency_us = *summary.mean_latency_ms * 1000.0;
  fmt::print(out, "mean latency (mean over timed cases of each case's {}): {} us\n", summary.latency_statistic,
             format_or_dash("{:.2f}", mean_latency_us));
  fmt::print(out, "mean score: {}\n", format_or_dash("{:.3f}", summary.mean_score));
  std::optional<double> mean_sol_percent;
  if (summary.mean_sol_fraction) mean_sol_percent = *summary.mean_sol_fraction * 100.0;
  fmt::print(out, "mean SOL: {} %\n", format_or_dash("{:.1f}", mean_sol_percent));
  const EnvironmentRecord& environment = run.environment;
  fmt::print(out, "GPU: {} (sm_{}, {} SMs); SOL spec: {}\n", environment.gpu_name, environment.compute_capability,
             environment.sm_count, environment.gpu_spec_key.empty() ? std::string("none") : environment.gpu_spec_key);
}

void print_progress(std::FILE* out, const CaseResult& result, int done, int total, bool is_terminal) {
  std::string line = fmt::format("[{}/{}] {} {}", done, total, result.solution, report_detail::case_label(result));
  if (result.case_index >= 0) line += " " + describe(result.shape);
  line += fmt::format(" {}", status_name(result.status));
  if (const auto median = median_latency_ms(result)) line += fmt::format(" {:.2f} us", *median * 1000.0);
  // On a terminal, the live line of the running case is erased first ("\r", erase to the end); the finished row stays,
  // so the finished cases build up a table above the live line.
  fmt::print(out, "{}{}\n", is_terminal ? "\r\x1b[K" : "", line);
  std::fflush(out);
}

void print_running_case(std::FILE* out, const RunningCase& running) {
  fmt::print(out, "\r[{}/{}] {} {}: {}, {:.1f} s\x1b[K", running.position, running.total, running.solution,
             running.case_label, running.stage, running.elapsed_s);
  std::fflush(out);
}

}  // namespace vlb
