#include "harness/scaleout/device_fanout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "harness/core/device_info.hpp"
#include "harness/core/errors.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/table.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/isolation/child_process.hpp"
#include "harness/scaleout/device_list.hpp"
#include "harness/scaleout/device_worker.hpp"
#include "harness/plan/plan_check.hpp"
#include "harness/plan/run_plan_json.hpp"
#include "harness/plan/run_setup.hpp"
#include "harness/judge/case_session.hpp"

namespace vlb {
namespace {

// How often the workers' results files are read: a case takes seconds, so this costs nothing and shows progress soon.
constexpr auto kFollowInterval = std::chrono::milliseconds(200);

// Every (solution, case) of the run, in the order a run on one GPU would have: filled as the workers report them.
class CaseCollector {
 public:
  CaseCollector(const RunPlan& plan, std::size_t case_count, const RunRecord& header, std::FILE* progress)
      : case_count_(case_count), slots_(plan.solutions.size() * case_count), progress_(progress) {
    output_.record = header;
    if (plan.json_path) writer_.emplace(*plan.json_path, header);
  }

  void add(std::size_t solution, int position, CaseResult result) {
    output_.any_failure = output_.any_failure || is_failure(result.status);
    if (writer_) writer_->append_case(result);
    ++done_;
    if (progress_) {
      print_progress(progress_, result, done_, static_cast<int>(slots_.size()), isatty(fileno(progress_)) != 0);
    }
    slots_.at(solution * case_count_ + position) = std::move(result);
  }

  RunOutput finish(double wall_time_s) {
    for (std::optional<CaseResult>& slot : slots_) {
      if (!slot) throw std::logic_error("fan-out: a case was neither reported nor failed");
      output_.record.cases.push_back(std::move(*slot));
    }
    output_.record.summary = summarize(output_.record.cases, wall_time_s);
    if (writer_) writer_->finish(output_.record);
    return std::move(output_);
  }

 private:
  std::size_t case_count_;
  std::vector<std::optional<CaseResult>> slots_;
  std::FILE* progress_;
  int done_ = 0;
  RunOutput output_;
  std::optional<ResultsWriter> writer_;
};

struct ScheduledCase {
  std::size_t solution = 0;  // into plan.solutions
  int position = 0;          // into the selected cases
};

// A device worker runs every solution over its share, in the order execute_plan does.
std::vector<ScheduledCase> schedule_of(const RunPlan& plan, const std::vector<int>& positions) {
  std::vector<ScheduledCase> schedule;
  for (std::size_t solution = 0; solution < plan.solutions.size(); ++solution) {
    for (int position : positions) schedule.push_back({solution, position});
  }
  return schedule;
}

bool is_scheduled_case(const CaseResult& result, const std::string& solution, const Case& test_case) {
  return result.solution == solution && result.case_index == test_case.index && result.shape == test_case.shape;
}

// One GPU: its worker process and how far its results have been taken.
class DeviceLane {
 public:
  DeviceLane(int device, std::vector<ScheduledCase> schedule, DeviceWorkerFiles files,
             const DeviceWorkerLaunch& launch)
      : device_(device),
        schedule_(std::move(schedule)),
        files_(std::move(files)),
        process_(launch.executable, launch.arguments(files_.folder), files_.log()) {}

  // Takes the cases the worker finished since the last call; once it has exited, reports what it did not finish.
  // Returns true when the lane is done.
  bool follow(const RunPlan& plan, const SelectedCases& selected, CaseCollector& collector) {
    if (done_) return true;
    const std::optional<int> status = process_.poll();  // before reading: after an exit, the files are final
    std::vector<CaseResult> finished;
    std::string unreadable;
    try {
      finished = finished_device_cases(files_);
    } catch (const Error& error) {
      unreadable = error.message();  // while running: a header line not yet written
    }
    for (; reported_ < finished.size() && reported_ < schedule_.size(); ++reported_) {
      const ScheduledCase& expected = schedule_[reported_];
      const Case& test_case = selected.cases[expected.position];
      if (!is_scheduled_case(finished[reported_], plan.solutions[expected.solution], test_case)) {
        process_.kill();
        const std::string reason =
            fmt::format("not run: the device worker for GPU {} reported case {} of '{}' where {} of '{}' was due (a "
                        "vlbench build mismatch?)",
                        device_, finished[reported_].case_index, finished[reported_].solution, test_case.label(),
                        plan.solutions[expected.solution]);
        fail_rest(plan, selected, collector, reason, reason);
        return done_ = true;
      }
      collector.add(expected.solution, expected.position, std::move(finished[reported_]));
    }
    if (!status) return false;
    if (reported_ < schedule_.size()) {
      // The worker runs its schedule in order: once it had begun its cases, it died in the first one it did not
      // report, before the others.
      const std::string exit = describe_exit(*status), output = worker_output(unreadable);
      const std::string not_run =
          fmt::format("not run: the device worker for GPU {} {} before this case{}", device_, exit, output);
      fail_rest(plan, selected, collector,
                device_worker_began(files_)
                    ? fmt::format("the device worker for GPU {} {} while running this case{}", device_, exit, output)
                    : not_run,
                not_run);
    }
    return done_ = true;
  }

 private:
  // What the worker left to explain its end: a results file it could not finish, its last output lines.
  std::string worker_output(const std::string& unreadable) const {
    std::string why;
    if (!unreadable.empty()) why += fmt::format(" (its results: {})", unreadable);
    const std::string tail = last_lines(files_.log(), 3);
    if (!tail.empty()) why += ": " + tail;
    return why;
  }

  // Reports every case not reported yet as a RUNTIME_ERROR: the first with `first_reason`, the others with `reason`.
  void fail_rest(const RunPlan& plan, const SelectedCases& selected, CaseCollector& collector,
                 const std::string& first_reason, const std::string& reason) {
    for (bool first = true; reported_ < schedule_.size(); ++reported_, first = false) {
      const ScheduledCase& expected = schedule_[reported_];
      CaseResult result = new_case_result(plan.solutions[expected.solution], selected.cases[expected.position]);
      result.status = CaseStatus::kRuntimeError;
      result.reason = first ? first_reason : reason;
      collector.add(expected.solution, expected.position, std::move(result));
    }
  }

  int device_;
  std::vector<ScheduledCase> schedule_;
  DeviceWorkerFiles files_;
  ChildProcess process_;
  std::size_t reported_ = 0;
  bool done_ = false;
};

// The GPUs' details, all of one model: results of several models do not add up to one run.
std::vector<DeviceInfo> query_devices(const std::vector<int>& ordinals) {
  std::vector<DeviceInfo> devices;
  for (int ordinal : ordinals) {
    devices.push_back(query_device(ordinal));
    if (devices.back().name != devices.front().name) {
      throw UsageError(fmt::format("--devices: GPU {} ({}) and GPU {} ({}) are different models, and the results of "
                                   "one run compare only on one model: list GPUs of one model (a run per model)",
                                   devices.front().ordinal, devices.front().name, ordinal, devices.back().name));
    }
  }
  return devices;
}

}  // namespace

DeviceWorkerLaunch vlbench_device_worker() {
  return {own_executable(), [](const std::filesystem::path& folder) {
            return std::vector<std::string>{"vlbench", "--device-worker", folder.string()};
          }};
}

RunOutput fan_out(const RunPlan& plan, const std::vector<int>& devices, const RunRecord& header,
                  const DeviceWorkerLaunch& launch, std::FILE* progress) {
  const auto started = std::chrono::steady_clock::now();
  const SelectedCases selected = select_plan_cases(plan);
  CaseCollector collector(plan, selected.cases.size(), header, progress);
  const ScratchDir scratch("devices");
  std::vector<std::unique_ptr<DeviceLane>> lanes;
  const int count = static_cast<int>(devices.size());
  for (int lane = 0; lane < count; ++lane) {
    const ShardSpec share{lane, count};
    const std::vector<int> positions = shard_positions(selected.cases, share);
    if (positions.empty()) continue;  // more GPUs than cases
    DeviceWorkerFiles files{scratch.path() / fmt::format("gpu{}", devices[lane])};
    std::filesystem::create_directory(files.folder);
    write_plan_file(files.plan(), device_worker_plan(plan, devices[lane], share, files));
    lanes.push_back(std::make_unique<DeviceLane>(devices[lane], schedule_of(plan, positions), files, launch));
  }
  for (bool running = !lanes.empty(); running;) {
    running = false;
    for (const auto& lane : lanes) running = !lane->follow(plan, selected, collector) || running;
    if (running) std::this_thread::sleep_for(kFollowInterval);
  }
  return collector.finish(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

RunOutput execute_on_devices(const RunPlan& plan, std::FILE* progress) {
  const CheckedPlan checked = check_plan(plan);
  const std::vector<DeviceInfo> devices = query_devices(resolve_devices(*plan.devices, device_count()));
  RunSetup setup = set_up_run(plan, checked, devices.front());
  std::vector<std::string> uuids;
  std::vector<int> ordinals;
  for (const DeviceInfo& device : devices) {
    uuids.push_back(device.uuid);
    ordinals.push_back(device.ordinal);
  }
  setup.header.environment.gpu_uuid = fmt::format("{}", fmt::join(uuids, ","));
  return fan_out(plan, ordinals, setup.header, vlbench_device_worker(), progress);
}

}  // namespace vlb
