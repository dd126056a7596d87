#include "harness/profile/profile.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "harness/core/errors.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/core/text_file.hpp"
#include "harness/isolation/child_process.hpp"
#include "harness/plan/plan_check.hpp"
#include "harness/suite/suite.hpp"
#include "harness/timing/kernel_breakdown.hpp"

namespace vlb {
namespace {

constexpr double kProfileTimeoutS = 1800;
constexpr const char* kTimedCallRange = "vlbench: timed call";

const char* tool_name(ProfilerTool tool) { return tool == ProfilerTool::kNcu ? "ncu" : "nsys"; }
const char* report_extension(ProfilerTool tool) { return tool == ProfilerTool::kNcu ? ".ncu-rep" : ".nsys-rep"; }

// One CSV row: fields split at commas outside double quotes, quotes removed ("" is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

double number_of(std::string text, const std::string& what) {
  std::erase(text, ',');  // thousands separators
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0') {
    throw InputError(fmt::format("ncu's table: {} is not a number ('{}')", what, printable_text(text)));
  }
  return value;
}

double microseconds(double value, const std::string& unit) {
  if (unit == "nsecond" || unit == "ns") return value / 1000.0;
  if (unit == "usecond" || unit == "us") return value;
  if (unit == "msecond" || unit == "ms") return value * 1000.0;
  if (unit == "second" || unit == "s") return value * 1e6;
  throw InputError(fmt::format("ncu's table: an unknown time unit '{}'", printable_text(unit)));
}

std::string run_and_capture(const std::filesystem::path& tool, const std::vector<std::string>& arguments,
                            const std::filesystem::path& folder, const std::string& what) {
  const auto output = folder / "output.txt", log = folder / "log.txt";
  ChildProcess child(tool, arguments, ChildOptions{log, output, {}});
  const std::optional<int> status = child.wait_for(kProfileTimeoutS);
  if (!status || !exited_normally(*status, 0)) {
    throw SystemError(fmt::format("{} failed ({}): {}", what, status ? describe_exit(*status) : "ran too long",
                                  last_lines(log, 3)));
  }
  return read_text_file(output, "profiler output");
}

void print_ncu_summary(std::FILE* out, const std::filesystem::path& tool, const std::filesystem::path& report) {
  const ScratchDir scratch("profile-summary");
  std::string metrics;
  for (const std::string& metric : ncu_summary_metrics()) metrics += (metrics.empty() ? "" : ",") + metric;
  // Demangled by ncu (whose demangler reads every name nvcc writes), then shortened as the breakdown's names are.
  const std::vector<std::string> import = {"ncu", "--import", report.string(), "--csv", "--page", "raw",
                                           "--metrics", metrics};
  const std::string csv = run_and_capture(tool, import, scratch.path(), "reading the report back (ncu --import)");
  const std::vector<ProfiledKernel> kernels = parse_ncu_raw_csv(csv);
  fmt::print(out, "{:<60} {:>12} {:>8} {:>8} {:>10}\n", "kernel", "duration us", "SM %", "memory %", "occupancy %");
  for (const ProfiledKernel& kernel : kernels) {
    fmt::print(out, "{:<60} {:>12.1f} {:>8.1f} {:>8.1f} {:>10.1f}\n", printable_text(short_kernel_name(kernel.name)),
               kernel.duration_us, kernel.sm_throughput_pct, kernel.memory_throughput_pct,
               kernel.achieved_occupancy_pct);
  }
  if (kernels.empty()) fmt::print(out, "(the report holds no kernel: did the call launch any?)\n");
}

void print_nsys_summary(std::FILE* out, const std::filesystem::path& tool, const std::filesystem::path& report) {
  const ScratchDir scratch("profile-summary");
  const std::string table = run_and_capture(
      tool, {"nsys", "stats", "--report", "cuda_gpu_kern_sum", "--format", "table", report.string()}, scratch.path(),
      "reading the report back (nsys stats)");
  fmt::print(out, "{}", printable_text(table));
}

}  // namespace

std::vector<std::filesystem::path> profiler_search_path() {
  std::vector<std::filesystem::path> folders;
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream list(path);
    for (std::string folder; std::getline(list, folder, ':');) {
      if (!folder.empty()) folders.emplace_back(folder);
    }
  }
  folders.emplace_back("/usr/local/cuda/bin");
  return folders;
}

std::filesystem::path find_profiler(ProfilerTool tool, const std::vector<std::filesystem::path>& folders) {
  for (const std::filesystem::path& folder : folders) {
    const std::filesystem::path candidate = folder / tool_name(tool);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  throw SystemError(tool == ProfilerTool::kNcu
                        ? "ncu (Nsight Compute) is not on PATH nor in /usr/local/cuda/bin: install Nsight Compute (it "
                          "comes with the CUDA toolkit), or profile with --tool nsys"
                        : "nsys (Nsight Systems) is not on PATH nor in /usr/local/cuda/bin: install Nsight Systems, or "
                          "profile with --tool ncu");
}

std::vector<std::string> profiler_command(const ProfileRequest& request, const std::filesystem::path& vlbench) {
  std::vector<std::string> command;
  if (request.tool == ProfilerTool::kNcu) {
    command = {"ncu", "--target-processes", "all", "--clock-control", "none", "--nvtx", "--nvtx-include",
               std::string(kTimedCallRange) + "/", "--set", request.section_set, "--force-overwrite", "--export",
               request.output.string()};
  } else {
    // NSYS_NVTX_PROFILER_REGISTER_ONLY=0: the ranges are plain strings, which nsys otherwise ignores for capture.
    command = {"nsys", "profile", "--trace", "cuda,nvtx", "--capture-range", "nvtx", "--nvtx-capture",
               kTimedCallRange, "--env-var", "NSYS_NVTX_PROFILER_REGISTER_ONLY=0", "--force-overwrite", "true",
               "--output", request.output.string()};
  }
  const char* selector_option = is_custom_size(request.case_selector) ? "--shape" : "--case";
  const std::vector<std::string> run = {vlbench.string(), "--solution", request.solution, selector_option,
                                        request.case_selector, "--rounds", "1", "--warmup",
                                        std::to_string(request.warmup), "--iterations", "1", "--no-isolation",
                                        "--nvtx-ranges"};
  command.insert(command.end(), run.begin(), run.end());
  command.insert(command.end(), request.run_options.begin(), request.run_options.end());
  return command;
}

const std::vector<std::string>& ncu_summary_metrics() {
  static const std::vector<std::string> metrics = {
      "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__warps_active.avg.pct_of_peak_sustained_active"};
  return metrics;
}

std::vector<ProfiledKernel> parse_ncu_raw_csv(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.rfind("==", 0) == 0) continue;  // ncu's own notes ("==PROF== ...")
    rows.push_back(csv_fields(line));
  }
  if (rows.size() < 2) throw InputError("ncu's table: no header and units rows");
  const std::vector<std::string>& header = rows[0];
  const auto column = [&](const std::string& name) {
    const auto found = std::find(header.begin(), header.end(), name);
    if (found == header.end()) throw InputError(fmt::format("ncu's table has no column '{}'", name));
    return static_cast<std::size_t>(found - header.begin());
  };
  const std::size_t name_column = column("Kernel Name");
  std::vector<std::size_t> metric_columns;
  for (const std::string& metric : ncu_summary_metrics()) metric_columns.push_back(column(metric));
  const std::vector<std::string>& units = rows[1];
  std::vector<ProfiledKernel> kernels;
  for (std::size_t r = 2; r < rows.size(); ++r) {
    const std::vector<std::string>& row = rows[r];
    if (row.size() != header.size()) {
      throw InputError(fmt::format("ncu's table: row {} has {} fields, the header {}", r + 1, row.size(), header.size()));
    }
    ProfiledKernel kernel;
    kernel.name = row[name_column];
    const std::string& unit = metric_columns[0] < units.size() ? units[metric_columns[0]] : "";
    kernel.duration_us = microseconds(number_of(row[metric_columns[0]], "the duration"), unit);
    kernel.sm_throughput_pct = number_of(row[metric_columns[1]], "the SM throughput");
    kernel.memory_throughput_pct = number_of(row[metric_columns[2]], "the memory throughput");
    kernel.achieved_occupancy_pct = number_of(row[metric_columns[3]], "the achieved occupancy");
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

std::filesystem::path run_profile(const ProfileRequest& request, std::FILE* out) {
  RunPlan plan;  // what the profiled run will be asked, checked here first (no GPU): a bad name is exit 2
  plan.workloads_dir = default_workloads_dir();
  plan.solutions = {request.solution};
  plan.case_selectors = {request.case_selector};
  plan.isolation = false;  // the profiled call runs in the profiled process (a Python package is refused here)
  if (check_plan(plan).cases.size() != 1) {
    throw UsageError(fmt::format("vlbench profile -c {}: one case, not {}", printable_text(request.case_selector),
                                 check_plan(plan).cases.size()));
  }
  const std::filesystem::path tool = find_profiler(request.tool, profiler_search_path());
  const std::filesystem::path report = request.output.string() + report_extension(request.tool);
  std::error_code error;
  if (request.output.has_parent_path()) std::filesystem::create_directories(request.output.parent_path(), error);
  const std::filesystem::path log = request.output.string() + ".log";
  const std::vector<std::string> command = profiler_command(request, std::filesystem::read_symlink(own_executable()));
  fmt::print(out, "profiling one timed call of {} on {} with {} (log: {})\n", request.solution, request.case_selector,
             tool_name(request.tool), printable_text(log.string()));
  ChildProcess profiler(tool, command, log);
  const std::optional<int> status = profiler.wait_for(kProfileTimeoutS);
  if (!status || !std::filesystem::is_regular_file(report)) {
    throw SystemError(fmt::format("{} did not write {} ({}): {}", tool_name(request.tool), printable_text(report.string()),
                                  status ? describe_exit(*status) : "it ran too long", last_lines(log, 3)));
  }
  fmt::print(out, "report: {}\n", printable_text(report.string()));
  if (!exited_normally(*status, 0)) {
    fmt::print(out, "(the profiled run {}: a failed case, see {})\n", describe_exit(*status), printable_text(log.string()));
  }
  if (request.tool == ProfilerTool::kNcu) {
    print_ncu_summary(out, tool, report);
  } else {
    print_nsys_summary(out, tool, report);
  }
  return report;
}

}  // namespace vlb
