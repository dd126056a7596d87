#include "harness/isolation/worker_folder.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <tuple>
#include <vector>

#include "harness/core/atomic_file.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/json_fields.hpp"
#include "harness/core/text_file.hpp"
#include "harness/report/results_json.hpp"
#include "harness/plan/run_plan_json.hpp"

namespace vlb {
namespace {
// What outputs.json lists: each captured output's call and size (the bytes are in output_<call>.bin).
struct OutputFileEntry {
  int call = 0;
  std::size_t bytes = 0;
};
}  // namespace

template <>
struct JsonFields<OutputFileEntry> {
  static constexpr auto list =
      std::tuple{json_field("call", &OutputFileEntry::call), json_field("bytes", &OutputFileEntry::bytes)};
};

template <>
struct JsonFields<WorkerTask> {
  static constexpr auto list = std::tuple{json_field("plan", &WorkerTask::plan),
                                          json_field("solution", &WorkerTask::solution),
                                          json_field("case_position", &WorkerTask::case_position)};
};

namespace {

constexpr const char* kTaskFile = "task.json";
constexpr const char* kOutputsFile = "outputs.json";
constexpr const char* kResultFile = "result.json";

// The folder's files are written and read by the same vlbench build: anything missing or malformed in them is a
// system error, not the user's input.
template <class Record>
Record read_internal_file(const std::filesystem::path& path) {
  try {
    const JsonDocument document = parse_json(read_text_file(path, "worker file"), path.string());
    return read_json<Record>(JsonValue(document, path.string()));
  } catch (const InputError& error) {
    throw SystemError(error.message() + " (a vlbench build mismatch, or a worker that died while writing?)");
  }
}

std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw SystemError(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  std::vector<std::byte> bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()))) {
    throw SystemError(fmt::format("cannot read {}", path.string()));
  }
  return bytes;
}

std::filesystem::path output_file(const std::filesystem::path& folder, int call) {
  return folder / fmt::format("output_{}.bin", call);
}

}  // namespace

void write_worker_task(const std::filesystem::path& folder, const WorkerTask& task) {
  write_file_atomically(folder / kTaskFile, write_json(task).dump(), "cannot write a worker's task");
}

WorkerTask read_worker_task(const std::filesystem::path& folder) {
  return read_internal_file<WorkerTask>(folder / kTaskFile);
}

void write_worker_outcome(const std::filesystem::path& folder, const SolutionRun& run, RunRecord header) {
  std::vector<OutputFileEntry> outputs;
  for (const CapturedOutput& captured : run.captured) {
    const std::string_view bytes(reinterpret_cast<const char*>(captured.bytes.data()), captured.bytes.size());
    write_file_atomically(output_file(folder, captured.call), bytes, "cannot write a worker's output");
    outputs.push_back({captured.call, captured.bytes.size()});
  }
  write_file_atomically(folder / kOutputsFile, write_json(outputs).dump(), "cannot write a worker's outputs");
  header.cases = {run.result};
  header.summary = summarize(header.cases, run.result.wall_time_s);
  write_file_atomically(folder / kResultFile, to_json(header).dump(2), "cannot write a worker's result");
}

std::optional<SolutionRun> read_worker_outcome(const std::filesystem::path& folder) {
  if (!std::filesystem::exists(folder / kResultFile)) return std::nullopt;
  const RunRecord record = read_results_file(folder / kResultFile);
  if (record.cases.size() != 1) {
    throw SystemError(fmt::format("{} holds {} cases, one expected", (folder / kResultFile).string(), record.cases.size()));
  }
  SolutionRun run;
  run.result = record.cases.front();
  for (const OutputFileEntry& entry : read_internal_file<std::vector<OutputFileEntry>>(folder / kOutputsFile)) {
    CapturedOutput captured;
    captured.call = entry.call;
    captured.bytes = read_bytes(output_file(folder, captured.call));
    if (captured.bytes.size() != entry.bytes) {
      throw SystemError(fmt::format("{} is cut short", output_file(folder, captured.call).string()));
    }
    run.captured.push_back(std::move(captured));
  }
  return run;
}

}  // namespace vlb
