#pragma once
// One timed call under a profiler, in one command (`vlbench profile`): vlbench runs the case's protocol up to one
// timed call under Nsight Compute or Nsight Systems, with that call alone in an NVTX range ("vlbench: timed call"; the
// calibration calls, rounds and warm-ups in ranges of their own, the timer's lead-in kernel in none), so that the profiler sees the solution's kernels of that call and nothing
// else; then it says where the report went and prints the few numbers a user reads first. The profiled run is
// in-process (--no-isolation): a profiler's injection talks to its front end over sockets, which the worker's sandbox
// refuses. Clocks are never changed (ncu --clock-control none). Nothing of a profiled run is a judged result.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace vlb {

enum class ProfilerTool { kNcu, kNsys };

struct ProfileRequest {
  std::string solution;
  std::string case_selector;          // one suite case (index or uuid prefix), or a size BxLqxLv
  ProfilerTool tool = ProfilerTool::kNcu;
  std::filesystem::path output;       // the report, without its extension (.ncu-rep, .nsys-rep)
  std::string section_set = "basic";  // ncu --set
  int warmup = 2;                     // warm-up calls before the profiled one
  std::vector<std::string> run_options;  // more options for the profiled run (--workloads-dir, --suite, ...)
};

// Where a tool is: on PATH, else in the CUDA toolkit's bin folder (the folders to look in, for tests). SystemError
// naming the tool and what to install when it is in none.
std::filesystem::path find_profiler(ProfilerTool tool, const std::vector<std::filesystem::path>& folders);
std::vector<std::filesystem::path> profiler_search_path();  // $PATH's folders, then /usr/local/cuda/bin

// The profiler's command line (its argv, the tool's name first) around `vlbench`.
std::vector<std::string> profiler_command(const ProfileRequest& request, const std::filesystem::path& vlbench);

// One kernel of the profile as Nsight Compute reports it.
struct ProfiledKernel {
  std::string name;
  double duration_us = 0;
  double sm_throughput_pct = 0;
  double memory_throughput_pct = 0;
  double achieved_occupancy_pct = 0;
};
// `ncu --import REPORT --csv --page raw --metrics ...`'s output: a header row, a units row, a row per kernel.
// InputError when the text is not that table.
std::vector<ProfiledKernel> parse_ncu_raw_csv(const std::string& csv);
// The metrics that table asks for, in its column order after the kernel's name.
const std::vector<std::string>& ncu_summary_metrics();

// Runs the profile and prints where the report went and its summary; returns the report's path. SystemError when the
// tool is missing or fails (its last output lines in the message).
std::filesystem::path run_profile(const ProfileRequest& request, std::FILE* out);

}  // namespace vlb
