// fused_b200_stage_bench: times each projection stage of the fused solution on our kernels, the same plan without
// its epilogue (and with bias only), cuBLAS (cublasGemmEx, bf16 in, fp32 compute, no epilogue; for K/V also one GEMM
// on concatenated weights), and the stage as fused_b200 runs it on cuBLAS (projection_cublas.hpp: cuBLASLt with its
// bias epilogue, for K/V then the RoPE pass over K; Q's RoPE runs in the attention on that path) in turns, on every
// distinct suite shape (or those --stage and --rows choose), L2 flushed before each call; then, unless
// --contenders-only, every other plan of every kernel and CUTLASS's stock kernels on the same GEMM. Host time inside
// each call is reported beside its event time. Prints a table and, with --json PATH, writes the same numbers with the
// commit and command.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <vlbench_git.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "harness/check/comparison.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/core/device_info.hpp"
#include "harness/core/errors.hpp"
#include "harness/inputs/input_set.hpp"
#include "bench/fused_b200/stage_shapes.hpp"
#include "bench/fused_b200/bench_cli.hpp"
#include "bench/fused_b200/stage_timer.hpp"
#include "bench/fused_b200/stock_cutlass_gemm.hpp"
#include "harness/core/cublas_handle.hpp"
#include "solutions/fused_b200/projection_cublas.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200::bench {
namespace {

struct Options : CommonOptions {
  std::vector<std::string> argv;
  std::vector<std::string> stages;      // empty: every stage
  std::vector<std::int64_t> rows;       // empty: every row count of the suite
  bool contenders_only = false;         // skip the other plans and CUTLASS's stock kernels
};

struct StageResult {
  StageShape shape;
  std::string plan;
  double stage_us = 0;   // with the heuristic's plan
  double plain_us = 0;   // the same plan without bias, RoPE or scale: stage_us - plain_us is the epilogue's cost
  double bias_only_us = 0;  // the same plan with bias but no RoPE (Q and K/V): the share of the bias
  double cublas_us = 0;  // for K/V the faster of per-group and one 2048-wide GEMM on weights concatenated beforehand
  double cublas_per_group_us = 0;  // K/V only: one GEMM per weight, read where it is (what the stage itself does)
  double cublas_path_us = 0;       // the stage as fused_b200 runs it on cuBLAS (K/V with K's RoPE pass)
  double stage_host_us = 0;        // host time inside the stage's call (set-up and launch)
  double cublas_host_us = 0;
  std::vector<std::pair<std::string, ColdL2Timer::Timing>> alternatives;  // other plans
  std::vector<std::pair<std::string, ColdL2Timer::Timing>> stock;  // CUTLASS's stock kernels (K/V: concatenated)
};

// Operands large enough for every shape: rows are prefixes of the largest activations.
struct StageOperands {
  DeviceInputs inputs;
  DeviceBuffer q_or_o_out;
  DeviceBuffer k_out;
  DeviceBuffer v_out;
  DeviceBuffer kv_weights;  // [Wk; Wv] concatenated once, untimed: the layout a single cuBLAS K/V GEMM needs
  DeviceBuffer kv_out;      // [rows, 2048]
  DeviceBuffer workspace;
  DeviceBuffer stock_workspace{kStockWorkspaceBytes};
  DeviceBuffer stock_reference;  // cuBLAS's result of the stock kernels' GEMM, to check them against

  StageOperands(std::int64_t max_lang_rows, std::int64_t max_vision_rows, std::size_t workspace_bytes,
                std::uint64_t seed, cudaStream_t stream)
      : inputs(ProblemShape{1, max_lang_rows, max_vision_rows}),
        q_or_o_out(static_cast<std::size_t>(max_lang_rows) * ModelDims::kHidden * sizeof(bf16)),
        k_out(static_cast<std::size_t>(max_vision_rows) * ModelDims::kKvProjDim * sizeof(bf16)),
        v_out(static_cast<std::size_t>(max_vision_rows) * ModelDims::kKvProjDim * sizeof(bf16)),
        kv_weights(2 * inputs.bytes(TensorId::kKProjWeight)),
        kv_out(2 * static_cast<std::size_t>(max_vision_rows) * ModelDims::kKvProjDim * sizeof(bf16)),
        stock_reference(std::max(q_or_o_out.bytes(), kv_out.bytes())),
        workspace(workspace_bytes) {
    inputs.generate(InputSettings{seed, PositionPattern::kOfficial}, stream);
    const std::size_t weight_bytes = inputs.bytes(TensorId::kKProjWeight);
    VLB_CUDA_CHECK(cudaMemcpyAsync(kv_weights.data(), inputs.data(TensorId::kKProjWeight), weight_bytes,
                                   cudaMemcpyDeviceToDevice, stream));
    VLB_CUDA_CHECK(cudaMemcpyAsync(kv_weights.as<std::byte>() + weight_bytes, inputs.data(TensorId::kVProjWeight),
                                   weight_bytes, cudaMemcpyDeviceToDevice, stream));
  }
  const bf16* bf16_input(TensorId id) const { return static_cast<const bf16*>(inputs.data(id)); }
  const std::int64_t* int64_input(TensorId id) const { return static_cast<const std::int64_t*>(inputs.data(id)); }
};

// Row-major out[rows, n] = a[rows, k] * w[n, k]^T, i.e. column-major out^T = w^T(op T) * a^T.
void cublas_projection(cublasHandle_t handle, const bf16* a, const bf16* w, bf16* out, std::int64_t rows,
                       std::int64_t n, std::int64_t k, cudaStream_t stream) {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  VLB_CUBLAS_CHECK(cublasSetStream(handle, stream));
  VLB_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
                                static_cast<int>(k), &alpha, w, CUDA_R_16BF, static_cast<int>(k), a, CUDA_R_16BF,
                                static_cast<int>(k), &beta, out, CUDA_R_16BF, static_cast<int>(n), CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
}

// The launch of one stage on the benchmark's operands (what launch_q/kv/o_projection build), with an optional plan.
ProjectionLaunch stage_launch(const StageShape& shape, StageOperands& ops, std::optional<ProjectionPlan> plan) {
  ProjectionLaunch launch;
  launch.shape = {shape.rows, shape.n, shape.k, shape.groups};
  launch.plan = plan;
  bf16* out = ops.q_or_o_out.as<bf16>();
  switch (shape.stage) {
    case Stage::kQ:
      launch.activations = ops.bf16_input(TensorId::kLanguageHiddenStates);
      launch.outputs[0] = {ops.bf16_input(TensorId::kQProjWeight), ops.bf16_input(TensorId::kQProjBias), out,
                           RopeKind::kLanguage, ops.int64_input(TensorId::kLanguagePositionIds), 1.0f};
      break;
    case Stage::kKv:
      launch.activations = ops.bf16_input(TensorId::kVisionHiddenStates);
      launch.outputs[0] = {ops.bf16_input(TensorId::kKProjWeight), ops.bf16_input(TensorId::kKProjBias),
                           ops.k_out.as<bf16>(), RopeKind::kVision, ops.int64_input(TensorId::kVisionGridThw), 1.0f};
      launch.outputs[1] = {ops.bf16_input(TensorId::kVProjWeight), ops.bf16_input(TensorId::kVProjBias),
                           ops.v_out.as<bf16>(), RopeKind::kNone, nullptr, 1.0f};
      break;
    case Stage::kO:
      // The language hidden states stand in for the attention output (same shape and dtype).
      launch.activations = ops.bf16_input(TensorId::kLanguageHiddenStates);
      launch.outputs[0] = {ops.bf16_input(TensorId::kOProjWeight), nullptr, out, RopeKind::kNone, nullptr, 1.0f};
      break;
  }
  return launch;
}

// One GEMM per group, each weight read where it is.
void cublas_stage(const StageShape& shape, StageOperands& ops, cublasHandle_t cublas, cudaStream_t stream) {
  const ProjectionLaunch launch = stage_launch(shape, ops, std::nullopt);
  for (int group = 0; group < shape.groups; ++group) {
    cublas_projection(cublas, launch.activations, launch.outputs[group].weight, launch.outputs[group].output,
                      shape.rows, shape.n, shape.k, stream);
  }
}

// The stage as FusedOperation runs it where the projection goes to cuBLAS (projection_cublas.hpp).
void cublas_path_stage(const StageShape& shape, StageOperands& ops, const CublasProjections& projections,
                       cudaStream_t stream) {
  const ProjectionLaunch launch = stage_launch(shape, ops, std::nullopt);
  const Workspace workspace{ops.workspace.data(), ops.workspace.bytes()};
  const ProjectionOutput& first = launch.outputs[0];
  switch (shape.stage) {
    case Stage::kQ:
      // The GEMM alone: on this path the attention applies Q's RoPE.
      projections.project_q(launch.activations, shape.rows, first.weight, first.bias, first.output, workspace,
                            stream);
      break;
    case Stage::kKv: {
      const ProjectionOutput& second = launch.outputs[1];
      projections.project_kv(launch.activations, shape.rows, first.weight, first.bias, second.weight, second.bias,
                             first.positions, first.output, second.output, workspace, stream,
                             RopeArithmetic::kReferenceBf16);
      break;
    }
    case Stage::kO: projections.project_o(launch.activations, shape.rows, first.weight, first.output, workspace,
                                          stream); break;
  }
}

// K and V as one [rows, 2048] GEMM on the concatenated weights (the PyTorch baseline's "kv_proj" component).
void cublas_concatenated_kv(const StageShape& shape, StageOperands& ops, cublasHandle_t cublas, cudaStream_t stream) {
  cublas_projection(cublas, ops.bf16_input(TensorId::kVisionHiddenStates), ops.kv_weights.as<bf16>(),
                    ops.kv_out.as<bf16>(), shape.rows, shape.n * shape.groups, shape.k, stream);
}

constexpr int kStockSwizzle = 1;  // CUTLASS's default
// Both accumulate in fp32 and round once to bf16, in different orders: a few bf16 steps apart at most, while a wrong
// layout or a missed tile is off by the whole value (or NaN, from the 0xff poison).
constexpr Tolerance kStockTolerance{0.02, 0.02, 1.0};

// The plans compared on each shape besides the heuristic's: data-parallel on every kernel, stream-K on the
// cooperative one, and split-K 2 and 4 there where the output tiles fill less than two waves.
std::vector<std::pair<std::string, ProjectionPlan>> alternative_plans(const StageShape& stage, int sm_count) {
  const ProjectionShape shape{stage.rows, stage.n, stage.k, stage.groups};
  std::vector<std::pair<std::string, ProjectionPlan>> plans;
  for (ProjectionKernel kernel : {ProjectionKernel::kCooperative128x128, ProjectionKernel::kPingpong128x128,
                                  ProjectionKernel::kPingpong64x128}) {
    const KernelTile tile = kernel_tile(kernel);
    const std::string name(kernel_name(kernel));
    const ProjectionPlan data_parallel = make_plan(shape, kernel, Decomposition::kDataParallel);
    plans.emplace_back(name + "/dp", data_parallel);
    ProjectionPlan swizzled = data_parallel;
    swizzled.swizzle = 4;
    plans.emplace_back(name + "/dp-swizzle4", swizzled);
    if (tile.data_parallel_only) continue;
    plans.emplace_back(name + "/streamk", make_plan(shape, kernel, Decomposition::kStreamK));
    if (data_parallel.output_tiles < 2 * sm_count) {
      for (int splits : {2, 4}) {
        plans.emplace_back(fmt::format("{}/split{}", name, splits),
                           make_plan(shape, kernel, Decomposition::kSplitK, splits));
      }
    }
  }
  return plans;
}

std::size_t workspace_for_all_plans(const std::vector<StageShape>& shapes, int sm_count) {
  std::size_t bytes = 0;
  for (const StageShape& shape : shapes) {
    const ProjectionShape projection{shape.rows, shape.n, shape.k, shape.groups};
    bytes = std::max(bytes, projection_workspace_bytes(projection, sm_count));
    for (const auto& [name, plan] : alternative_plans(shape, sm_count)) {
      bytes = std::max(bytes, projection_workspace_bytes(projection, sm_count, plan));
    }
  }
  return bytes;
}

// CUTLASS's stock kernels on the stage's GEMM without epilogue work (K/V: one GEMM on the concatenated weights), each
// checked against cuBLAS before it is timed.
std::vector<std::pair<std::string, ColdL2Timer::Timing>> time_stock_kernels(const StageShape& shape,
                                                                            const ProjectionLaunch& automatic,
                                                                            StageOperands& ops, cublasHandle_t cublas,
                                                                            ColdL2Timer& timer, int sm_count,
                                                                            cudaStream_t stream) {
  std::vector<std::pair<std::string, ColdL2Timer::Timing>> timings;
  const bool kv = shape.stage == Stage::kKv;
  const bf16* weight = kv ? ops.kv_weights.as<bf16>() : automatic.outputs[0].weight;
  bf16* out = kv ? ops.kv_out.as<bf16>() : automatic.outputs[0].output;
  const std::int64_t n = shape.n * shape.groups;
  bf16* reference = ops.stock_reference.as<bf16>();
  cublas_projection(cublas, automatic.activations, weight, reference, shape.rows, n, shape.k, stream);
  for (const StockGemm& stock : stock_gemms()) {
    const auto run_stock = [&](cudaStream_t s) {
      stock.run(automatic.activations, weight, out, shape.rows, n, shape.k, kStockSwizzle, sm_count,
                ops.stock_workspace.data(), s);
    };
    VLB_CUDA_CHECK(cudaMemsetAsync(out, 0xff, static_cast<std::size_t>(shape.rows * n) * sizeof(bf16), stream));
    run_stock(stream);
    const ComparisonStats stats = compare_on_device(out, reference, shape.rows * n, kStockTolerance, stream);
    const Verdict verdict = judge(stats, kStockTolerance);
    if (verdict.status != CaseStatus::kPassed) {
      throw SystemError(fmt::format("stock kernel {} disagrees with cuBLAS on {} rows={}: {}", stock.name,
                                    stage_name(shape.stage), shape.rows, verdict.reason));
    }
    timings.emplace_back(stock.name, timer.median(run_stock, stream));
  }
  return timings;
}

StageResult time_stage(const StageShape& shape, StageOperands& ops, cublasHandle_t cublas,
                       const CublasProjections& projections, ColdL2Timer& timer, int sm_count, bool contenders_only,
                       cudaStream_t stream) {
  StageResult result;
  result.shape = shape;
  const ProjectionPlan plan = plan_projection({shape.rows, shape.n, shape.k, shape.groups}, sm_count);
  result.plan = std::string(kernel_name(plan.kernel)) + "/" + std::string(decomposition_name(plan.decomposition)) +
                (plan.decomposition == Decomposition::kSplitK ? fmt::format("x{}", plan.splits) : "");
  const Workspace workspace{ops.workspace.data(), ops.workspace.bytes()};
  const ProjectionLaunch automatic = stage_launch(shape, ops, std::nullopt);
  ProjectionLaunch plain = automatic;
  ProjectionLaunch bias_only = automatic;
  for (ProjectionOutput& output : plain.outputs) {
    output = {output.weight, nullptr, output.output, RopeKind::kNone, nullptr, 1.0f};
  }
  for (ProjectionOutput& output : bias_only.outputs) {
    output = {output.weight, output.bias, output.output, RopeKind::kNone, nullptr, 1.0f};
  }
  // The stage, its plain and bias-only GEMMs and cuBLAS in turns: the reported ratios compare calls made under the
  // same clocks.
  std::vector<ColdL2Timer::Call> calls = {
      [&](cudaStream_t s) { launch_projection(automatic, sm_count, workspace, s); },
      [&](cudaStream_t s) { launch_projection(plain, sm_count, workspace, s); },
      [&](cudaStream_t s) { cublas_stage(shape, ops, cublas, s); },
      [&](cudaStream_t s) { cublas_path_stage(shape, ops, projections, s); }};
  if (shape.stage != Stage::kO) {
    calls.push_back([&](cudaStream_t s) { launch_projection(bias_only, sm_count, workspace, s); });
  }
  if (shape.stage == Stage::kKv) {
    calls.push_back([&](cudaStream_t s) { cublas_concatenated_kv(shape, ops, cublas, s); });
  }
  const std::vector<ColdL2Timer::Timing> medians = timer.interleaved_medians(calls, stream);
  result.stage_us = medians[0].gpu_us;
  result.stage_host_us = medians[0].host_us;
  result.plain_us = medians[1].gpu_us;
  result.cublas_us = medians[2].gpu_us;
  result.cublas_host_us = medians[2].host_us;
  result.cublas_path_us = medians[3].gpu_us;
  if (shape.stage != Stage::kO) result.bias_only_us = medians[4].gpu_us;
  if (shape.stage == Stage::kKv) {
    result.cublas_per_group_us = medians[2].gpu_us;
    result.cublas_us = std::min(medians[2].gpu_us, medians[5].gpu_us);
  }
  if (contenders_only) return result;
  for (const auto& [name, alternative] : alternative_plans(shape, sm_count)) {
    const ProjectionLaunch launch = stage_launch(shape, ops, alternative);
    result.alternatives.emplace_back(
        name, timer.median([&](cudaStream_t s) { launch_projection(launch, sm_count, workspace, s); }, stream));
  }
  result.stock = time_stock_kernels(shape, automatic, ops, cublas, timer, sm_count, stream);
  return result;
}

double tflops(const StageShape& shape, double us) { return shape.flops() / (us * 1e-6) / 1e12; }

void print_table(const std::vector<StageResult>& results) {
  std::printf("%-5s %7s %6s %6s %3s %-16s %10s %10s %9s %9s %7s %10s %8s\n", "stage", "rows", "N", "K", "L",
              "plan", "stage_us", "cublas_us", "stage_TF", "cublas_TF", "ratio", "path_us", "path/ours");
  for (const StageResult& r : results) {
    std::printf("%-5s %7lld %6lld %6lld %3d %-16s %10.2f %10.2f %9.1f %9.1f %7.3f %10.2f %8.3f\n",
                stage_name(r.shape.stage).c_str(), static_cast<long long>(r.shape.rows),
                static_cast<long long>(r.shape.n), static_cast<long long>(r.shape.k), r.shape.groups, r.plan.c_str(),
                r.stage_us, r.cublas_us, tflops(r.shape, r.stage_us), tflops(r.shape, r.cublas_us),
                r.stage_us / r.cublas_us, r.cublas_path_us, r.cublas_path_us / r.stage_us);
  }
  std::printf("path_us: the stage as fused_b200 runs it on cuBLAS (cuBLASLt with bias; K/V then K's RoPE pass; Q "
              "without its RoPE, which the attention applies)\n");
  std::printf("\nother plans: event-timed us (host us inside the call):\n");
  for (const StageResult& r : results) {
    std::string line = fmt::format("{:<5} {:>7}", stage_name(r.shape.stage), r.shape.rows);
    line += fmt::format("  plain={:.2f}  host: stage={:.1f} cublas={:.1f}", r.plain_us, r.stage_host_us,
                        r.cublas_host_us);
    if (r.bias_only_us > 0) line += fmt::format("  bias_only={:.2f}", r.bias_only_us);
    if (r.cublas_per_group_us > 0) line += fmt::format("  cublas_per_group={:.2f}", r.cublas_per_group_us);
    for (const auto& [name, t] : r.alternatives) line += fmt::format("  {}={:.2f}({:.1f})", name, t.gpu_us, t.host_us);
    for (const auto& [name, t] : r.stock) line += fmt::format("  {}={:.2f}({:.1f})", name, t.gpu_us, t.host_us);
    std::printf("%s\n", line.c_str());
  }
}

nlohmann::json timings_json(const std::vector<std::pair<std::string, ColdL2Timer::Timing>>& timings) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, t] : timings) list.push_back({{"name", name}, {"us", t.gpu_us}, {"host_us", t.host_us}});
  return list;
}

void write_json(const std::string& path, const std::vector<StageResult>& results, const DeviceInfo& device,
                const Options& options, double flush_us) {
  nlohmann::json root;
  root["device"] = device.name;
  root["argv"] = options.argv;
  root["git_commit"] = VLBENCH_GIT_COMMIT;
  root["git_dirty"] = VLBENCH_GIT_DIRTY;
  root["sm_count"] = device.sm_count;
  root["seed"] = options.seed;
  root["warmup_iterations"] = options.timer.warmup_iterations;
  root["timed_iterations"] = options.timer.timed_iterations;
  root["flush_us"] = flush_us;
  root["clean_l2"] = options.timer.clean_l2;
  root["timer"] = "cuda events, L2 flushed (2x L2 memset) before each iteration, median; stage, plain and cuBLAS "
                  "timed in turns";
  root["cublas_path"] = "the stage as fused_b200 runs it on cuBLAS: cuBLASLt with its bias epilogue; K/V: two "
                        "GEMMs, then the RoPE pass in place over K; Q without its RoPE, which the attention applies "
                        "there; in cublas_path_us";
  root["cublas"] = "cublasGemmEx bf16, fp32 compute, no epilogue; K/V: the faster of one GEMM per weight and one "
                   "2048-wide GEMM on weights concatenated beforehand (untimed), in cublas_us";
  for (const StageResult& r : results) {
    root["stages"].push_back({{"stage", stage_name(r.shape.stage)}, {"rows", r.shape.rows}, {"n", r.shape.n},
                              {"k", r.shape.k}, {"groups", r.shape.groups}, {"plan", r.plan},
                              {"stage_us", r.stage_us}, {"plain_us", r.plain_us}, {"cublas_us", r.cublas_us},
                              {"stage_tflops", tflops(r.shape, r.stage_us)},
                              {"cublas_tflops", tflops(r.shape, r.cublas_us)},
                              {"ratio_stage_over_cublas", r.stage_us / r.cublas_us},
                              {"bias_only_us", r.bias_only_us}, {"cublas_per_group_us", r.cublas_per_group_us},
                              {"cublas_path_us", r.cublas_path_us},
                              {"stage_host_us", r.stage_host_us}, {"cublas_host_us", r.cublas_host_us},
                              {"other_plans", timings_json(r.alternatives)},
                              {"stock_cutlass", timings_json(r.stock)}});
  }
  std::ofstream file(path);
  if (!file) throw SystemError("cannot write " + path);
  file << root.dump(2) << "\n";
}

int run(const Options& options) {
  const Suite suite = load_suite("all", options.workloads_dir);
  std::vector<StageShape> shapes;
  for (const StageShape& shape : stage_shapes(suite.workloads)) {
    const bool stage_chosen = options.stages.empty() || std::find(options.stages.begin(), options.stages.end(),
                                                                  stage_name(shape.stage)) != options.stages.end();
    const bool rows_chosen =
        options.rows.empty() || std::find(options.rows.begin(), options.rows.end(), shape.rows) != options.rows.end();
    if (stage_chosen && rows_chosen) shapes.push_back(shape);
  }
  if (shapes.empty()) throw UsageError("no suite shape matches --stage and --rows");
  const DeviceInfo device = query_device(0);
  std::int64_t max_lang = 0;
  std::int64_t max_vision = 0;
  for (const StageShape& shape : shapes) {
    std::int64_t& max_rows = shape.stage == Stage::kKv ? max_vision : max_lang;
    max_rows = std::max(max_rows, shape.rows);
  }
  const std::size_t workspace_bytes =
      std::max(workspace_for_all_plans(shapes, device.sm_count), CublasProjections::workspace_bytes());
  const CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  StageOperands ops(max_lang, max_vision, workspace_bytes, options.seed, stream);
  const CublasHandle cublas;
  const CublasProjections projections;
  ColdL2Timer timer(device, options.timer);
  const double flush_us = timer.flush_us(stream);
  std::vector<StageResult> results;
  for (const StageShape& shape : shapes) {
    results.push_back(time_stage(shape, ops, cublas.get(), projections, timer, device.sm_count,
                                 options.contenders_only, stream));
  }
  owned_stream.synchronize();
  std::printf("%s, %d SMs; %d warm-up + %d timed iterations, L2 flushed (%.1f us), median\n", device.name.c_str(),
              device.sm_count, options.timer.warmup_iterations, options.timer.timed_iterations, flush_us);
  print_table(results);
  if (!options.json_path.empty()) write_json(options.json_path, results, device, options, flush_us);
  return 0;
}

}  // namespace
}  // namespace vlb::fused_b200::bench

int main(int argc, char** argv) {
  vlb::fused_b200::bench::Options options;
  options.argv.assign(argv, argv + argc);
  CLI::App app{"Times the fused_b200 projection stages against cuBLAS on the suite's distinct shapes"};
  app.add_option("--stage", options.stages, "only these stages (Q, KV, O)")->check(CLI::IsMember({"Q", "KV", "O"}));
  app.add_option("--rows", options.rows, "only shapes with these row counts (B*Lq for Q and O, B*Lv for KV)");
  app.add_flag("--contenders-only", options.contenders_only,
               "time the stage, its plain and bias-only GEMMs and the cuBLAS contenders only, not every other plan "
               "and CUTLASS's stock kernels");
  app.add_flag("--clean-l2", options.timer.clean_l2,
               "after the memset flush, read another 2x-L2 buffer so that L2 holds clean lines (default: the "
               "harness's flush, which leaves the memset's dirty lines)");
  vlb::fused_b200::bench::add_common_options(app, options);
  CLI11_PARSE(app, argc, argv);
  return vlb::fused_b200::bench::run_reporting_errors([&] { return vlb::fused_b200::bench::run(options); });
}
