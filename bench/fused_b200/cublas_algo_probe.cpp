// Probe of cuBLASLt's candidate algorithms for fused_b200's K/V projection: for each row count, the strided-batched
// pair fused_b200 launches (two 1024-wide bias GEMMs over the same activations, CublasLinear::launch_pair) and the
// one 2048-wide bias GEMM a user gets with K's and V's weights concatenated beforehand (the parts bench's `kv`).
// Each of the heuristic's first --candidates algorithms is timed with CUDA events, L2 flushed before every call
// (as vlbench times), median of --iterations calls. Prints one JSON line per (rows, form, candidate): its rank in the
// heuristic's order, its configuration (tile, stages, split-K, swizzle, cluster ids: cublasLt.h's enums), the
// heuristic's wavesCount and the median microseconds. Whether fused_b200's first pick (rank 0) is the fastest
// candidate is what it answers (NOTES.md, v18). With --split-k, each candidate is timed again with each of those
// split-K counts set on it (fp32 partials in the workspace, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE), where
// cublasLtMatmulAlgoCheck accepts it: whether a split fills the thin wave the heuristic's picks leave (NOTES.md, v20).
//   fused_b200_cublas_algo_probe --rows 1568,3136 --candidates 12 --split-k 2,3,4
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/fused_b200/probe_buffers.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/problem.hpp"
#include "solutions/fused_b200/projection_cublas.hpp"

namespace {

using bf16 = __nv_bfloat16;
constexpr std::int64_t kOut = vlb::ModelDims::kKvProjDim;
constexpr std::int64_t kIn = vlb::ModelDims::kHidden;

using vlb::fused_b200::bench::check;

// Seeded values in [-scale, scale), filled on the host (the probe's own few hundred MB at most).
bf16* filled(std::int64_t count, std::uint32_t seed, float scale) {
  std::vector<bf16> host(static_cast<std::size_t>(count));
  std::uint32_t state = seed * 0x9e3779b1u + 1u;
  for (bf16& value : host) {
    state = state * 1664525u + 1013904223u;
    value = __float2bfloat16(scale * (static_cast<float>(state >> 16) / 32768.0f - 1.0f));
  }
  void* memory = nullptr;
  VLB_CUDA_CHECK(cudaMalloc(&memory, host.size() * sizeof(bf16)));
  VLB_CUDA_CHECK(cudaMemcpy(memory, host.data(), host.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  return static_cast<bf16*>(memory);
}

// One GEMM form as fused_b200's CublasLinear::Plan describes it: outᵀ[n, rows] = W · actᵀ, bias epilogue, bf16.
struct Form {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t weight = nullptr, activations = nullptr, output = nullptr;

  Form(std::int64_t rows, std::int64_t n, bool batched, const bf16* bias) {
    check(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const cudaDataType_t bias_type = CUDA_R_16BF;
    set(CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose));
    set(CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof(keep));
    set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
    set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type));
    set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
    const auto m = static_cast<std::uint64_t>(rows), n_out = static_cast<std::uint64_t>(n),
               k = static_cast<std::uint64_t>(kIn);
    check(cublasLtMatrixLayoutCreate(&weight, CUDA_R_16BF, k, n_out, kIn), "cublasLtMatrixLayoutCreate");
    check(cublasLtMatrixLayoutCreate(&activations, CUDA_R_16BF, k, m, kIn), "cublasLtMatrixLayoutCreate");
    check(cublasLtMatrixLayoutCreate(&output, CUDA_R_16BF, n_out, m, n), "cublasLtMatrixLayoutCreate");
    if (batched) {  // the weights, biases and outputs adjacent; the activations shared (stride 0)
      const std::int32_t count = 2;
      const std::int64_t weight_stride = n * kIn, out_stride = rows * n, bias_stride = n;
      for (cublasLtMatrixLayout_t layout : {weight, activations, output}) {
        check(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
              "cublasLtMatrixLayoutSetAttribute");
      }
      check(cublasLtMatrixLayoutSetAttribute(weight, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &weight_stride,
                                             sizeof(weight_stride)),
            "cublasLtMatrixLayoutSetAttribute");
      check(cublasLtMatrixLayoutSetAttribute(output, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &out_stride,
                                             sizeof(out_stride)),
            "cublasLtMatrixLayoutSetAttribute");
      set(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bias_stride, sizeof(bias_stride));
    }
  }
  ~Form() {
    for (cublasLtMatrixLayout_t layout : {output, activations, weight}) {
      if (layout != nullptr) (void)cublasLtMatrixLayoutDestroy(layout);
    }
    if (operation != nullptr) (void)cublasLtMatmulDescDestroy(operation);
  }
  Form(const Form&) = delete;
  Form& operator=(const Form&) = delete;

  void set(cublasLtMatmulDescAttributes_t attribute, const void* value, std::size_t bytes) {
    check(cublasLtMatmulDescSetAttribute(operation, attribute, value, bytes), "cublasLtMatmulDescSetAttribute");
  }
};

std::uint64_t config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  std::size_t size = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, nullptr, 0, &size) != CUBLAS_STATUS_SUCCESS ||
      size > sizeof(std::uint64_t)) {
    return 0;
  }
  std::uint64_t value = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, size, &size) != CUBLAS_STATUS_SUCCESS) return 0;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuBLASLt's candidate algorithms for fused_b200's K/V projection, each timed"};
  std::vector<std::int64_t> row_counts{1568, 784, 3136};
  std::vector<int> split_counts;
  int candidates = 12, iterations = 30;
  app.add_option("--rows", row_counts, "vision rows (B * Lv)")->delimiter(',');
  app.add_option("--split-k", split_counts, "split-K counts to try on every candidate as well")
      ->delimiter(',')
      ->check(CLI::Range(2, 64));
  app.add_option("--candidates", candidates, "heuristic results to time per form")->check(CLI::Range(1, 64));
  app.add_option("--iterations", iterations, "timed calls per candidate")->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);

  const std::int64_t max_rows = *std::max_element(row_counts.begin(), row_counts.end());
  bf16* activations = filled(max_rows * kIn, 1, 1.0f);
  bf16* weights = filled(2 * kOut * kIn, 2, 0.02f);
  bf16* biases = filled(2 * kOut, 3, 0.02f);
  bf16* outs = filled(2 * max_rows * kOut, 4, 0.0f);
  int device = 0;
  VLB_CUDA_CHECK(cudaGetDevice(&device));
  int l2_bytes = 0;
  VLB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  void* flush = nullptr;
  VLB_CUDA_CHECK(cudaMalloc(&flush, 2 * static_cast<std::size_t>(l2_bytes)));
  const std::size_t workspace_bytes = vlb::fused_b200::CublasLinear::workspace_bytes();
  void* workspace = nullptr;
  VLB_CUDA_CHECK(cudaMalloc(&workspace, workspace_bytes));
  cublasLtHandle_t handle = nullptr;
  check(cublasLtCreate(&handle), "cublasLtCreate");
  cudaEvent_t start, stop;
  VLB_CUDA_CHECK(cudaEventCreate(&start));
  VLB_CUDA_CHECK(cudaEventCreate(&stop));

  for (const std::int64_t rows : row_counts) {
    for (const bool batched : {true, false}) {
      Form form(rows, batched ? kOut : 2 * kOut, batched, biases);
      // Times one algorithm on this form and prints its line: configuration (cublasLt.h's enums) and median.
      auto time_candidate = [&](nlohmann::json& line, const cublasLtMatmulAlgo_t& algo) {
        const float one = 1.0f, zero = 0.0f;
        auto call = [&] {
          return cublasLtMatmul(handle, form.operation, &one, weights, form.weight, activations, form.activations,
                                &zero, outs, form.output, outs, form.output, &algo, workspace, workspace_bytes,
                                nullptr);
        };
        std::vector<float> samples;
        bool ok = true;
        for (int i = 0; i < 5 + iterations && ok; ++i) {
          VLB_CUDA_CHECK(cudaMemsetAsync(flush, i & 0xff, 2 * static_cast<std::size_t>(l2_bytes)));
          VLB_CUDA_CHECK(cudaEventRecord(start));
          ok = call() == CUBLAS_STATUS_SUCCESS;
          VLB_CUDA_CHECK(cudaEventRecord(stop));
          VLB_CUDA_CHECK(cudaEventSynchronize(stop));
          float ms = 0.0f;
          VLB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
          if (i >= 5) samples.push_back(1000.0f * ms);
        }
        line["algo_id"] = config(algo, CUBLASLT_ALGO_CONFIG_ID);
        line["tile"] = config(algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
        line["stages"] = config(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
        line["split_k"] = config(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
        line["reduction"] = config(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
        line["swizzle"] = config(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
        line["custom"] = config(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
        line["cluster"] = config(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
        line["ok"] = ok;
        if (ok) {
          std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
          line["median_us"] = samples[samples.size() / 2];
        }
        std::printf("%s\n", line.dump().c_str());
        std::fflush(stdout);
      };
      cublasLtMatmulPreference_t preference = nullptr;
      check(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
      const std::uint64_t limit = workspace_bytes;
      check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit,
                                                 sizeof(limit)),
            "cublasLtMatmulPreferenceSetAttribute");
      std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(candidates));
      int found = 0;
      check(cublasLtMatmulAlgoGetHeuristic(handle, form.operation, form.weight, form.activations, form.output,
                                           form.output, preference, candidates, results.data(), &found),
            "cublasLtMatmulAlgoGetHeuristic");
      (void)cublasLtMatmulPreferenceDestroy(preference);
      for (int rank = 0; rank < found; ++rank) {
        const cublasLtMatmulHeuristicResult_t& result = results[static_cast<std::size_t>(rank)];
        std::vector<int> splits{1};
        splits.insert(splits.end(), split_counts.begin(), split_counts.end());
        for (const int split : splits) {
          cublasLtMatmulAlgo_t algo = result.algo;
          nlohmann::json line = {{"rows", rows}, {"form", batched ? "pair" : "concatenated"}, {"rank", rank},
                                 {"waves", result.wavesCount}};
          if (split > 1) {
            const std::int32_t count = split;
            const std::uint32_t reduction = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
            cublasLtMatmulHeuristicResult_t checked{};
            const bool accepted =
                cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &count,
                                                     sizeof(count)) == CUBLAS_STATUS_SUCCESS &&
                cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction,
                                                     sizeof(reduction)) == CUBLAS_STATUS_SUCCESS &&
                cublasLtMatmulAlgoCheck(handle, form.operation, form.weight, form.activations, form.output,
                                        form.output, &algo, &checked) == CUBLAS_STATUS_SUCCESS &&
                checked.workspaceSize <= workspace_bytes;
            if (!accepted) {
              line["split_k"] = split;
              line["ok"] = false;
              line["rejected"] = "cublasLtMatmulAlgoCheck";
              line["workspace_bytes"] = checked.workspaceSize;
              std::printf("%s\n", line.dump().c_str());
              continue;
            }
            line["workspace_bytes"] = checked.workspaceSize;
          }
          time_candidate(line, algo);
        }
      }
    }
  }
  return 0;
}
