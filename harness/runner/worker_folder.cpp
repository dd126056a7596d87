#include "harness/runner/worker_folder.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "harness/core/atomic_file.hpp"
#include "harness/core/errors.hpp"
#include "harness/report/results_json.hpp"
#include "harness/runner/run_plan_json.hpp"

namespace vlb {
namespace {

constexpr const char* kTaskFile = "task.json";
constexpr const char* kOutputsFile = "outputs.json";
constexpr const char* kResultFile = "result.json";

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SystemError(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

nlohmann::json parse(const std::filesystem::path& path) {
  const nlohmann::json document = nlohmann::json::parse(read_whole_file(path), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) throw SystemError(fmt::format("{} is not valid JSON", path.string()));
  return document;
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
  const nlohmann::json document = {
      {"plan", plan_to_json(task.plan)}, {"solution", task.solution}, {"case_position", task.case_position}};
  write_file_atomically(folder / kTaskFile, document.dump(), "cannot write a worker's task");
}

WorkerTask read_worker_task(const std::filesystem::path& folder) {
  const nlohmann::json document = parse(folder / kTaskFile);
  WorkerTask task;
  try {
    task.plan = plan_from_json(document.at("plan"));
    task.solution = document.at("solution").get<std::string>();
    task.case_position = document.at("case_position").get<int>();
  } catch (const nlohmann::json::exception& error) {
    throw SystemError(fmt::format("{} is malformed: {}", (folder / kTaskFile).string(), error.what()));
  }
  return task;
}

void write_worker_outcome(const std::filesystem::path& folder, const SolutionRun& run, RunRecord header) {
  nlohmann::json outputs = nlohmann::json::array();
  for (const CapturedOutput& captured : run.captured) {
    const std::string_view bytes(reinterpret_cast<const char*>(captured.bytes.data()), captured.bytes.size());
    write_file_atomically(output_file(folder, captured.call), bytes, "cannot write a worker's output");
    outputs.push_back({{"call", captured.call}, {"bytes", captured.bytes.size()}});
  }
  write_file_atomically(folder / kOutputsFile, outputs.dump(), "cannot write a worker's outputs");
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
  const nlohmann::json outputs = parse(folder / kOutputsFile);
  try {
    for (const nlohmann::json& entry : outputs) {
      CapturedOutput captured;
      captured.call = entry.at("call").get<int>();
      captured.bytes = read_bytes(output_file(folder, captured.call));
      if (captured.bytes.size() != entry.at("bytes").get<std::size_t>()) {
        throw SystemError(fmt::format("{} is cut short", output_file(folder, captured.call).string()));
      }
      run.captured.push_back(std::move(captured));
    }
  } catch (const nlohmann::json::exception& error) {
    throw SystemError(fmt::format("{} is malformed: {}", (folder / kOutputsFile).string(), error.what()));
  }
  return run;
}

}  // namespace vlb
