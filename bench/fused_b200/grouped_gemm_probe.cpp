// Probe of cuBLAS's grouped GEMM (cublasGemmGroupedBatchedEx) for fused_b200's input projections: Q [q_rows, 4096]
// and K, V [kv_rows, 1024] each, from their own activations, in one launch, against what fused_b200 launches today
// (cuBLASLt's Q bias GEMM, then the strided-batched K/V bias pair: CublasLinear) and the same two calls without
// bias (cublasGemmEx + cublasGemmStridedBatchedEx). The question (NOTES.md, v22): on cases 7, 8 and 11 the Q GEMM
// fills 128 of 132 SMs and the K/V pair 112, each one wave of ~40-45 us; a grouped kernel that deals the 240 tiles
// over the SMs as one queue would end in ~1.8 waves' time instead of two, where its mainloop runs at nvjet's speed.
// The grouped call has no bias epilogue, so its bias-free pair is the fair comparison; the bias's cost is the
// difference between the other two. Calls are timed in turns (CUDA events, L2 flushed before every call), median.
// The grouped outputs are checked against the bias-free pair's: the largest difference and the count past 1e-2.
//   fused_b200_grouped_gemm_probe --shapes 1024:1568,512:784,2048:3136
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/fused_b200/probe_buffers.hpp"
#include "bench/fused_b200/stage_timer.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/core/device_info.hpp"
#include "harness/core/problem.hpp"
#include "solutions/fused_b200/projection_cublas.hpp"

namespace {

using bf16 = __nv_bfloat16;
using vlb::DeviceBuffer;
using vlb::fused_b200::bench::check;
using vlb::fused_b200::bench::ColdL2Timer;
using vlb::fused_b200::bench::filled;
using vlb::fused_b200::bench::to_host;
constexpr int kHidden = static_cast<int>(vlb::ModelDims::kHidden);
constexpr int kKvOut = static_cast<int>(vlb::ModelDims::kKvProjDim);

struct Shape {
  int q_rows = 0;
  int kv_rows = 0;
};

// One shape's operands: language and vision activations, the weights (K's and V's adjacent, one stride apart, as
// the batched pair wants) and two sets of outputs (the pair's, the grouped call's).
struct Operands {
  DeviceBuffer language, vision, q_weight, q_bias, kv_weights, kv_biases;
  DeviceBuffer q_out, kv_out, q_grouped, kv_grouped;
  DeviceBuffer pointers;  // the grouped call's A, B and C pointer arrays, 3 problems each

  explicit Operands(const Shape& shape)
      : language(filled(std::size_t(shape.q_rows) * kHidden, 1, 1.0f)),
        vision(filled(std::size_t(shape.kv_rows) * kHidden, 2, 1.0f)),
        q_weight(filled(std::size_t(kHidden) * kHidden, 3, 0.02f)),
        q_bias(filled(kHidden, 4, 0.02f)),
        kv_weights(filled(2 * std::size_t(kKvOut) * kHidden, 5, 0.02f)),
        kv_biases(filled(2 * std::size_t(kKvOut), 6, 0.02f)),
        q_out(std::size_t(shape.q_rows) * kHidden * sizeof(bf16)),
        kv_out(2 * std::size_t(shape.kv_rows) * kKvOut * sizeof(bf16)),
        q_grouped(q_out.bytes()),
        kv_grouped(kv_out.bytes()),
        pointers(9 * sizeof(void*)) {
    const bf16* k_weight = kv_weights.as<bf16>();
    const bf16* v_weight = k_weight + std::size_t(kKvOut) * kHidden;
    bf16* k_out = kv_grouped.as<bf16>();
    bf16* v_out = k_out + std::size_t(shape.kv_rows) * kKvOut;
    // Column-major, as cuBLAS sees it: outᵀ[n, rows] = Wᵀᵀ · actᵀ, so A is the weight, B the activations.
    const void* host[9] = {q_weight.data(), k_weight, v_weight, language.data(), vision.data(), vision.data(),
                           q_grouped.data(), k_out, v_out};
    VLB_CUDA_CHECK(cudaMemcpy(pointers.data(), host, sizeof(host), cudaMemcpyHostToDevice));
  }
  const void* const* a_array() const { return pointers.as<const void*>(); }
  const void* const* b_array() const { return pointers.as<const void*>() + 3; }
  void* const* c_array() const { return pointers.as<void*>() + 6; }
};

// Q and K/V in one cublasGemmGroupedBatchedEx: group 0 is Q (one problem), group 1 K and V (two of one shape).
void grouped(cublasHandle_t handle, const Shape& shape, const Operands& ops, bool q_too, cudaStream_t stream) {
  check(cublasSetStream(handle, stream), "cublasSetStream");
  const cublasOperation_t transa[2] = {CUBLAS_OP_T, CUBLAS_OP_T}, transb[2] = {CUBLAS_OP_N, CUBLAS_OP_N};
  const int m[2] = {kHidden, kKvOut}, n[2] = {shape.q_rows, shape.kv_rows}, k[2] = {kHidden, kHidden};
  const int lda[2] = {kHidden, kHidden}, ldb[2] = {kHidden, kHidden}, ldc[2] = {kHidden, kKvOut};
  const float alpha[2] = {1.0f, 1.0f}, beta[2] = {0.0f, 0.0f};
  const int sizes[2] = {1, 2};
  const int first = q_too ? 0 : 1;  // K/V alone: the arrays from group 1, the pointer arrays from problem 1
  check(cublasGemmGroupedBatchedEx(handle, transa + first, transb + first, m + first, n + first, k + first,
                                   alpha + first, ops.a_array() + first, CUDA_R_16BF, lda + first,
                                   ops.b_array() + first, CUDA_R_16BF, ldb + first, beta + first,
                                   ops.c_array() + first, CUDA_R_16BF, ldc + first, 2 - first, sizes + first,
                                   CUBLAS_COMPUTE_32F),
        "cublasGemmGroupedBatchedEx");
}

// The same products without bias, as two calls: Q by cublasGemmEx, K/V by cublasGemmStridedBatchedEx.
void plain_pair(cublasHandle_t handle, const Shape& shape, const Operands& ops, bool q_too, cudaStream_t stream) {
  check(cublasSetStream(handle, stream), "cublasSetStream");
  const float one = 1.0f, zero = 0.0f;
  if (q_too) {
    check(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, kHidden, shape.q_rows, kHidden, &one, ops.q_weight.data(),
                       CUDA_R_16BF, kHidden, ops.language.data(), CUDA_R_16BF, kHidden, &zero, ops.q_out.data(),
                       CUDA_R_16BF, kHidden, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }
  check(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, kKvOut, shape.kv_rows, kHidden, &one,
                                   ops.kv_weights.data(), CUDA_R_16BF, kHidden, std::int64_t(kKvOut) * kHidden,
                                   ops.vision.data(), CUDA_R_16BF, kHidden, 0, &zero, ops.kv_out.data(), CUDA_R_16BF,
                                   kKvOut, std::int64_t(shape.kv_rows) * kKvOut, 2, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
}

// fused_b200's calls today: cuBLASLt's Q bias GEMM, then the K/V bias pair (CublasLinear).
void fused_b200_calls(const vlb::fused_b200::CublasLinear& linear, const Shape& shape, const Operands& ops,
                      vlb::fused_b200::Workspace workspace, cudaStream_t stream) {
  linear.launch(ops.language.as<bf16>(), shape.q_rows, kHidden, kHidden, ops.q_weight.as<bf16>(),
                ops.q_bias.as<bf16>(), ops.q_out.as<bf16>(), workspace, stream);
  const vlb::fused_b200::BatchedPairStrides strides{std::int64_t(kKvOut) * kHidden, kKvOut,
                                                    std::int64_t(shape.kv_rows) * kKvOut};
  if (!linear.launch_pair(ops.vision.as<bf16>(), shape.kv_rows, kKvOut, kHidden, ops.kv_weights.as<bf16>(),
                          ops.kv_biases.as<bf16>(), ops.kv_out.as<bf16>(), strides, workspace, stream)) {
    throw std::runtime_error("cuBLASLt has no batched K/V pair for this shape");
  }
}

// The largest |grouped - pair| and how many differ by more than 1e-2, over Q and K/V.
nlohmann::json compare(const Operands& ops) {
  double largest = 0.0;
  std::int64_t past = 0, count = 0;
  for (const auto& [mine, theirs] : {std::pair{&ops.q_grouped, &ops.q_out}, std::pair{&ops.kv_grouped, &ops.kv_out}}) {
    const std::vector<float> a = to_host(*mine), b = to_host(*theirs);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double difference = std::fabs(double(a[i]) - double(b[i]));
      largest = std::max(largest, std::isfinite(difference) ? difference : INFINITY);
      past += difference > 1e-2 || !std::isfinite(difference);
    }
    count += static_cast<std::int64_t>(a.size());
  }
  return {{"max_abs_difference", largest}, {"elements_past_1e-2", past}, {"elements", count}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuBLAS's grouped GEMM for fused_b200's Q and K/V projections against the calls it makes today"};
  std::vector<std::string> shape_texts{"1024:1568", "512:784", "2048:3136"};
  vlb::fused_b200::bench::TimerSettings settings;
  app.add_option("--shapes", shape_texts, "Q rows:K/V rows (B*Lq:B*Lv)")->delimiter(',');
  app.add_option("--iterations", settings.timed_iterations, "timed calls per form")->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<Shape> shapes;
    for (const std::string& text : shape_texts) {
      const std::size_t colon = text.find(':');
      if (colon == std::string::npos) throw std::invalid_argument("--shapes wants Q rows:K/V rows, got " + text);
      shapes.push_back({std::stoi(text.substr(0, colon)), std::stoi(text.substr(colon + 1))});
      if (shapes.back().q_rows <= 0 || shapes.back().kv_rows <= 0) {
        throw std::invalid_argument("--shapes wants positive row counts, got " + text);
      }
    }
    const vlb::DeviceInfo device = vlb::query_device(0);
    cudaStream_t stream = nullptr;
    VLB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle = nullptr;
    check(cublasCreate(&handle), "cublasCreate");
    const std::size_t workspace_bytes = vlb::fused_b200::CublasLinear::workspace_bytes();
    DeviceBuffer workspace(workspace_bytes), blas_workspace(workspace_bytes);
    check(cublasSetWorkspace(handle, blas_workspace.data(), workspace_bytes), "cublasSetWorkspace");
    const vlb::fused_b200::CublasLinear linear;
    ColdL2Timer timer(device, settings);
    for (const Shape& shape : shapes) {
      const Operands ops(shape);
      const vlb::fused_b200::Workspace lt_workspace{workspace.data(), workspace.bytes()};
      const std::vector<std::string> names = {"fused_b200_q_then_kv_pair_bias", "plain_q_then_kv_pair",
                                              "grouped_q_kv", "plain_kv_pair", "grouped_kv"};
      const std::vector<ColdL2Timer::Call> calls = {
          [&](cudaStream_t s) { fused_b200_calls(linear, shape, ops, lt_workspace, s); },
          [&](cudaStream_t s) { plain_pair(handle, shape, ops, true, s); },
          [&](cudaStream_t s) { grouped(handle, shape, ops, true, s); },
          [&](cudaStream_t s) { plain_pair(handle, shape, ops, false, s); },
          [&](cudaStream_t s) { grouped(handle, shape, ops, false, s); }};
      const std::vector<ColdL2Timer::Timing> medians = timer.interleaved_medians(calls, stream);
      plain_pair(handle, shape, ops, true, stream);
      grouped(handle, shape, ops, true, stream);
      VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
      nlohmann::json line = {{"q_rows", shape.q_rows}, {"kv_rows", shape.kv_rows}, {"device", device.name},
                             {"check", compare(ops)}};
      for (std::size_t i = 0; i < names.size(); ++i) line["median_us"][names[i]] = medians[i].gpu_us;
      std::printf("%s\n", line.dump().c_str());
      std::fflush(stdout);
    }
    (void)cublasDestroy(handle);
    (void)cudaStreamDestroy(stream);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fused_b200_grouped_gemm_probe: %s\n", error.what());
    return 1;
  }
  return 0;
}
