// fused_b200_operation_bench: on every suite workload (or those --case picks), the attention stage alone beside
// SDPA's measured attention time (Q taken as rotated, no split; then as the pipeline launches it, with its split
// workspace, once rotating Q in the kernel where the pipeline does and once with Q rotated before: what Q's RoPE
// costs the attention), and the whole operation: as the solution runs it (K/V
// projection concurrent with Q) and stage by stage (events between stages, run one after another), beside the
// cuBLAS + SDPA components sum, PyTorch + CUDA graph, and the floor at the measured ceilings. L2 is flushed before
// every call. Prints a table and, with --json PATH, writes the same numbers with the commit and command.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <vlbench_git.hpp>

#include <array>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/core/device_info.hpp"
#include "harness/core/errors.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/worker/solution_call.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "harness/suite/suite.hpp"
#include "solutions/fused_b200/attention.hpp"
#include "bench/fused_b200/bench_cli.hpp"
#include "bench/fused_b200/stage_timer.hpp"
#include "solutions/fused_b200/fused_operation.hpp"

namespace vlb::fused_b200::bench {
namespace {

struct Options : CommonOptions {
  std::vector<std::string> argv;
  std::vector<int> cases;  // suite indices; empty: all
};

// Per-workload figures measured elsewhere (workloads/baselines), by uuid; absent where a file lacks the workload.
struct Baselines {
  std::optional<BaselineTable> sdpa_attention, components_sum, pytorch_graph;

  static std::optional<BaselineTable> load_if_present(const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) return std::nullopt;
    return load_baselines(path.string());
  }
  static std::optional<double> us(const std::optional<BaselineTable>& table, const std::string& uuid) {
    if (!table) return std::nullopt;
    const auto ms = table->latency_for(uuid);
    if (!ms) return std::nullopt;
    return 1000.0 * *ms;
  }
};

struct WorkloadResult {
  int index = 0;
  Workload workload;
  double attention_us = 0;
  double attention_pipeline_us = 0;        // as the pipeline launches it: its split, Q rotated in the kernel if it is
  double attention_prerotated_us = 0;      // the same launch with Q taken as rotated before
  bool rotates_q = false;                  // whether the pipeline rotates Q in the attention at this shape
  double total_us = 0;                         // the whole operation as the solution runs it
  std::array<double, kFusedStages> stage_us{}; // stage by stage, sequential
  double staged_total_us = 0;
  double floor_us = 0;                         // FLOPs at the measured GEMM rate vs bytes at the copy rate
  double attention_floor_us = 0;
  std::optional<double> sdpa_attention_us, components_sum_us, pytorch_graph_us;
};

double attention_flops(const ProblemShape& shape) {
  return 4.0 * static_cast<double>(shape.batch) * 32 * static_cast<double>(shape.lang_seq) *
         static_cast<double>(shape.vision_seq) * 128;
}

double elapsed_us(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0.0f;
  VLB_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return 1000.0 * ms;
}

class StageEventSet {
 public:
  StageEventSet() {
    VLB_CUDA_CHECK(cudaEventCreate(&events_.start));
    for (cudaEvent_t& event : events_.after) VLB_CUDA_CHECK(cudaEventCreate(&event));
  }
  ~StageEventSet() {
    (void)cudaEventDestroy(events_.start);
    for (cudaEvent_t event : events_.after) (void)cudaEventDestroy(event);
  }
  StageEventSet(const StageEventSet&) = delete;
  StageEventSet& operator=(const StageEventSet&) = delete;

  const StageEvents& events() const { return events_; }
  // Each stage's microseconds, once the last event has completed.
  std::vector<double> stage_us() const {
    VLB_CUDA_CHECK(cudaEventSynchronize(events_.after.back()));
    std::vector<double> us;
    cudaEvent_t previous = events_.start;
    for (cudaEvent_t event : events_.after) {
      us.push_back(elapsed_us(previous, event));
      previous = event;
    }
    return us;
  }

 private:
  StageEvents events_;
};

WorkloadResult time_workload(int index, const Workload& workload, const FusedOperation& operation,
                             const Baselines& baselines, const GpuSpec& ceilings, const Options& options,
                             ColdL2Timer& timer, int sm_count, cudaStream_t stream) {
  const ProblemShape& shape = workload.shape;
  DeviceInputs inputs(shape);
  inputs.generate(InputSettings{options.seed, PositionPattern::kOfficial}, stream);
  DeviceBuffer output(tensor_spec(TensorId::kOutput, shape).bytes());
  const DeviceBuffer workspace(operation.workspace_bytes(shape));
  const FusionArgs args = make_fusion_args(shape, inputs.view(), output.as<bf16>(), workspace.data(), workspace.bytes(), stream);
  operation.run(args);  // Q, K and V in the workspace become real for the attention-only calls
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  const FusedWorkspace pieces =
      FusedWorkspace::carve(workspace.data(), workspace.bytes(), shape, sm_count, kv_slot_order(args.inputs));
  const AttentionTensors tensors{pieces.q, pieces.k, pieces.v, pieces.attention};
  const AttentionShape attention_shape{shape.batch, shape.lang_seq, shape.vision_seq};
  // The pipeline's form: its split workspace (flags zeroed first, as run() does) and, where Q stays unrotated on
  // cuBLAS, Q's RoPE in the kernel. The workspace's Q is unrotated there; the timing does not depend on its values.
  const bool rotates_q = attention_rotates_q(shape);
  AttentionTensors rotating = tensors;
  rotating.q_rope = AttentionQueryRope{rotates_q ? args.inputs.language_position_ids.data : nullptr,
                                       FusedNumerics{}.rope};  // the operation's arithmetic, not the struct's default
  const auto pipeline_attention = [&](const AttentionTensors& t, cudaStream_t s) {
    clear_attention_split(pieces.attention_split, attention_shape, sm_count, s);
    launch_attention(t, attention_shape, sm_count, s, LaunchOrder::kAfterPrevious, pieces.attention_split);
  };

  WorkloadResult result;
  result.index = index;
  result.workload = workload;
  const std::vector<ColdL2Timer::Timing> medians = timer.interleaved_medians(
      {[&](cudaStream_t s) { launch_attention(tensors, attention_shape, sm_count, s); },
       [&](cudaStream_t) { operation.run(args); },
       [&](cudaStream_t s) { pipeline_attention(rotating, s); },
       [&](cudaStream_t s) { pipeline_attention(tensors, s); }},
      stream);
  result.attention_us = medians[0].gpu_us;
  result.total_us = medians[1].gpu_us;
  result.attention_pipeline_us = medians[2].gpu_us;
  result.attention_prerotated_us = medians[3].gpu_us;
  result.rotates_q = rotates_q;

  const StageEventSet events;
  const std::vector<double> stages = timer.interval_medians(
      [&](cudaStream_t) {
        operation.run(args, &events.events());
        return events.stage_us();
      },
      stream);
  for (int s = 0; s < kFusedStages; ++s) {
    result.stage_us[s] = stages[s];
    result.staged_total_us += stages[s];
  }

  const WorkCount work = count_work(shape);
  result.floor_us = 1000.0 * speed_of_light(work, ceilings).t_sol_ms;
  result.attention_floor_us = attention_flops(shape) / ceilings.dense_bf16_flops_per_s * 1e6;
  result.sdpa_attention_us = Baselines::us(baselines.sdpa_attention, workload.uuid);
  result.components_sum_us = Baselines::us(baselines.components_sum, workload.uuid);
  result.pytorch_graph_us = Baselines::us(baselines.pytorch_graph, workload.uuid);
  return result;
}

std::string optional_us(const std::optional<double>& us) { return us ? fmt::format("{:.1f}", *us) : "-"; }

void print_table(const std::vector<WorkloadResult>& results) {
  std::printf("%3s %-16s | %9s %7s %8s %8s %8s | %7s %7s %7s %7s %8s | %8s %8s %8s %8s\n", "#", "B,Lq,Lv",
              "attn_us", "attn_TF", "sdpa_us", "pipe_us", "q_rot_us", "q_us", "kv_us", "att_us", "o_us", "staged",
              "total_us", "parts", "torch_g", "floor_us");
  double sum_total = 0, sum_parts = 0, sum_graph = 0, sum_floor = 0;
  for (const WorkloadResult& r : results) {
    const ProblemShape& s = r.workload.shape;
    std::printf("%3d %-16s | %9.1f %7.1f %8s %8.1f %8s | %7.1f %7.1f %7.1f %7.1f %8.1f | %8.1f %8s %8s %8.1f\n",
                r.index, fmt::format("{},{},{}", s.batch, s.lang_seq, s.vision_seq).c_str(), r.attention_us,
                attention_flops(s) / (r.attention_us * 1e-6) / 1e12, optional_us(r.sdpa_attention_us).c_str(),
                r.attention_pipeline_us,
                r.rotates_q ? fmt::format("{:.1f}", r.attention_pipeline_us - r.attention_prerotated_us).c_str()
                            : "-",
                r.stage_us[0], r.stage_us[1], r.stage_us[2], r.stage_us[3], r.staged_total_us, r.total_us,
                optional_us(r.components_sum_us).c_str(), optional_us(r.pytorch_graph_us).c_str(), r.floor_us);
    sum_total += r.total_us;
    sum_parts += r.components_sum_us.value_or(0);
    sum_graph += r.pytorch_graph_us.value_or(0);
    sum_floor += r.floor_us;
  }
  const double n = static_cast<double>(results.size());
  std::printf("mean over %zu workloads: fused_b200 %.1f us, cuBLAS+SDPA parts %.1f us, PyTorch+graph %.1f us, "
              "floor %.1f us\n", results.size(), sum_total / n, sum_parts / n, sum_graph / n, sum_floor / n);
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

void write_json(const std::string& path, const std::vector<WorkloadResult>& results, const DeviceInfo& device,
                const Options& options, double flush_us) {
  nlohmann::json root;
  root["device"] = device.name;
  root["sm_count"] = device.sm_count;
  root["argv"] = options.argv;
  root["git_commit"] = VLBENCH_GIT_COMMIT;
  root["git_dirty"] = VLBENCH_GIT_DIRTY;
  root["seed"] = options.seed;
  root["warmup_iterations"] = options.timer.warmup_iterations;
  root["timed_iterations"] = options.timer.timed_iterations;
  root["flush_us"] = flush_us;
  root["timer"] = "cuda events, L2 flushed (2x L2 memset) before each call, median; the attention's three forms "
                  "and the whole operation timed in turns; stages: events between stages run one after another";
  root["workloads"] = nlohmann::json::array();
  for (const WorkloadResult& r : results) {
    const ProblemShape& s = r.workload.shape;
    root["workloads"].push_back(
        {{"index", r.index}, {"uuid", r.workload.uuid}, {"batch_size", s.batch}, {"lang_seq_len", s.lang_seq},
         {"vision_seq_len", s.vision_seq}, {"attention_us", r.attention_us},
         {"attention_tflops", attention_flops(s) / (r.attention_us * 1e-6) / 1e12},
         {"attention_floor_us", r.attention_floor_us},
         {"attention_pipeline_form_us", r.attention_pipeline_us},
         {"attention_q_rotated_before_us", r.attention_prerotated_us}, {"attention_rotates_q", r.rotates_q},
         {"sdpa_attention_us", optional_json(r.sdpa_attention_us)},
         {"stage_us", {{"q_projection", r.stage_us[0]}, {"kv_projection", r.stage_us[1]},
                       {"attention", r.stage_us[2]}, {"o_projection", r.stage_us[3]}}},
         {"staged_total_us", r.staged_total_us}, {"total_us", r.total_us},
         {"components_sum_us", optional_json(r.components_sum_us)},
         {"pytorch_cuda_graph_us", optional_json(r.pytorch_graph_us)}, {"floor_us", r.floor_us}});
  }
  std::ofstream file(path);
  if (!file) throw SystemError("cannot write " + path);
  file << root.dump(2) << "\n";
}

int run(const Options& options) {
  const Suite suite = load_suite("all", options.workloads_dir);
  std::vector<int> chosen = options.cases;
  if (chosen.empty()) {
    for (int i = 0; i < static_cast<int>(suite.workloads.size()); ++i) chosen.push_back(i);
  }
  for (int index : chosen) {
    if (index < 0 || index >= static_cast<int>(suite.workloads.size())) {
      throw UsageError(fmt::format("--case {} is not a workload index (0-{})", index, suite.workloads.size() - 1));
    }
  }
  const std::filesystem::path baselines_dir = std::filesystem::path(options.workloads_dir) / "baselines";
  const Baselines baselines{
      Baselines::load_if_present(baselines_dir / "components" / "h200-sdpa-attention.json"),
      Baselines::load_if_present(baselines_dir / "components" / "h200-components-sum.json"),
      Baselines::load_if_present(baselines_dir / "h200-pytorch-cudagraph.json")};
  const std::vector<GpuSpec> specs =
      load_gpu_specs((std::filesystem::path(options.workloads_dir) / "gpus.json").string());
  const DeviceInfo device = query_device(0);
  const GpuSpec& ceilings = select_gpu_spec(specs, device.name, std::string("H200_measured"));

  const CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  const FusedOperation operation(device.sm_count);
  ColdL2Timer timer(device, options.timer);
  const double flush_us = timer.flush_us(stream);
  std::vector<WorkloadResult> results;
  for (int index : chosen) {
    results.push_back(time_workload(index, suite.workloads[index], operation, baselines, ceilings, options, timer,
                                    device.sm_count, stream));
  }
  std::printf("%s, %d SMs; %d warm-up + %d timed calls each, L2 flushed (%.1f us), median; floor: %s\n",
              device.name.c_str(), device.sm_count, options.timer.warmup_iterations, options.timer.timed_iterations,
              flush_us, ceilings.key.c_str());
  print_table(results);
  if (!options.json_path.empty()) write_json(options.json_path, results, device, options, flush_us);
  return 0;
}

}  // namespace
}  // namespace vlb::fused_b200::bench

int main(int argc, char** argv) {
  vlb::fused_b200::bench::Options options;
  options.argv.assign(argv, argv + argc);
  CLI::App app{"Times fused_b200's attention stage and whole operation on the suite's workloads"};
  app.add_option("--case", options.cases, "only these workload indices (0-15), comma-separated or repeated")
      ->delimiter(',');
  vlb::fused_b200::bench::add_common_options(app, options);
  CLI11_PARSE(app, argc, argv);
  return vlb::fused_b200::bench::run_reporting_errors([&] { return vlb::fused_b200::bench::run(options); });
}
