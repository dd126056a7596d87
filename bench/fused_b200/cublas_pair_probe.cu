// Probe of cuBLASLt's strided-batched bias GEMM, the call fused_b200's K/V projection makes
// (CublasLinear::launch_pair): two GEMMs over the same activations, each batch's weight, bias and output a stride
// apart. It places the second weight, bias and output at the strides given, runs the batched call once, and compares
// it with the two GEMMs made one by one. Everything not written by the fill is NaN, so a read that lands in the wrong
// place shows as a mismatch; one outside every allocation faults (a sticky error: run one configuration per process).
// Prints one JSON line.
//   fused_b200_cublas_pair_probe --rows 2975 --weight-stride 4194304 --bias-stride 1024 --out-stride 3046400
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/problem.hpp"
#include "solutions/fused_b200/projection_cublas.hpp"

namespace {

using vlb::fused_b200::bf16;
namespace fb = vlb::fused_b200;

constexpr std::int64_t kOut = vlb::ModelDims::kKvProjDim;
constexpr std::int64_t kIn = vlb::ModelDims::kHidden;

__global__ void fill_kernel(bf16* values, std::int64_t count, std::uint32_t seed, float scale) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9e3779b1u ^ seed ^ static_cast<std::uint32_t>(i >> 32);
    h ^= h >> 15;
    h *= 0x85ebca77u;
    h ^= h >> 13;
    values[i] = __float2bfloat16(scale * (static_cast<float>(h & 0xffffu) / 32768.0f - 1.0f));
  }
}

__global__ void mismatch_kernel(const bf16* got, const bf16* want, std::int64_t count, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float a = __bfloat162float(got[i]);
    const float b = __bfloat162float(want[i]);
    if (!(fabsf(a - b) <= 0.02f + 0.02f * fabsf(b))) ++local;  // NaN counts as a mismatch
  }
  if (local != 0) atomicAdd(bad, local);
}

void fill(bf16* values, std::int64_t count, std::uint32_t seed, float scale) {
  fill_kernel<<<1024, 256>>>(values, count, seed, scale);
  VLB_CHECK_LAUNCH();
}

bf16* allocate_nan(std::int64_t elements) {
  void* memory = nullptr;
  VLB_CUDA_CHECK(cudaMalloc(&memory, static_cast<std::size_t>(elements) * sizeof(bf16)));
  VLB_CUDA_CHECK(cudaMemset(memory, 0xff, static_cast<std::size_t>(elements) * sizeof(bf16)));  // bf16 NaN
  return static_cast<bf16*>(memory);
}

unsigned long long mismatches(const bf16* got, const bf16* want, std::int64_t count) {
  unsigned long long* bad = nullptr;
  VLB_CUDA_CHECK(cudaMalloc(&bad, sizeof(*bad)));
  VLB_CUDA_CHECK(cudaMemset(bad, 0, sizeof(*bad)));
  mismatch_kernel<<<1024, 256>>>(got, want, count, bad);
  VLB_CHECK_LAUNCH();
  unsigned long long host = 0;
  VLB_CUDA_CHECK(cudaMemcpy(&host, bad, sizeof(host), cudaMemcpyDeviceToHost));
  VLB_CUDA_CHECK(cudaFree(bad));
  return host;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuBLASLt strided-batched bias GEMM probe (fused_b200's K/V pair)"};
  std::int64_t rows = 2975, weight_stride = kOut * kIn, bias_stride = kOut, out_stride = 0;
  app.add_option("--rows", rows, "vision rows (M)")->check(CLI::PositiveNumber);
  app.add_option("--weight-stride", weight_stride, "elements from the first weight to the second")
      ->check(CLI::Range(kOut * kIn, std::int64_t{1} << 40));
  app.add_option("--bias-stride", bias_stride,
                 "elements from the first bias to the second; negative: the second lies below the first")
      ->check(CLI::Range(-(std::int64_t{1} << 40), std::int64_t{1} << 40));
  app.add_option("--out-stride", out_stride, "elements from the first output to the second (default: adjacent)");
  std::int64_t weight_offset = 0, out_offset = 0;
  app.add_option("--weight-offset", weight_offset, "elements from the allocation's start to the first weight")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--out-offset", out_offset, "elements from the allocation's start to the first output")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  if (out_stride < rows * kOut) out_stride = rows * kOut;
  if (bias_stride > -kOut && bias_stride < kOut) {
    std::fprintf(stderr, "--bias-stride: the two biases of %lld elements may not overlap\n",
                 static_cast<long long>(kOut));
    return 2;
  }

  nlohmann::json line = {{"rows", rows}, {"weight_stride", weight_stride}, {"bias_stride", bias_stride},
                         {"out_stride", out_stride}, {"weight_offset", weight_offset}, {"out_offset", out_offset}};
  try {
    bf16* activations = allocate_nan(rows * kIn);
    bf16* weights = allocate_nan(weight_offset + weight_stride + kOut * kIn) + weight_offset;
    // The lower of the two biases at the allocation's start, the first one |stride| above it where the stride is
    // negative.
    const std::int64_t bias_span = (bias_stride < 0 ? -bias_stride : bias_stride) + kOut;
    bf16* biases = allocate_nan(bias_span) + (bias_stride < 0 ? -bias_stride : 0);
    bf16* outs = allocate_nan(out_offset + out_stride + rows * kOut) + out_offset;
    bf16* single = allocate_nan(2 * rows * kOut);
    fill(activations, rows * kIn, 1, 1.0f);
    fill(weights, kOut * kIn, 2, 0.02f);
    fill(weights + weight_stride, kOut * kIn, 3, 0.02f);
    fill(biases, kOut, 4, 0.5f);
    fill(biases + bias_stride, kOut, 5, 0.5f);
    void* workspace_memory = nullptr;
    VLB_CUDA_CHECK(cudaMalloc(&workspace_memory, fb::CublasLinear::workspace_bytes()));
    const fb::Workspace workspace{workspace_memory, fb::CublasLinear::workspace_bytes()};
    const fb::CublasLinear linear;
    for (int batch = 0; batch < 2; ++batch) {
      linear.launch(activations, rows, kOut, kIn, weights + batch * weight_stride, biases + batch * bias_stride,
                    single + batch * rows * kOut, workspace, nullptr);
    }
    VLB_CUDA_CHECK(cudaDeviceSynchronize());
    const fb::BatchedPairStrides strides{weight_stride, bias_stride, out_stride};
    const bool batched = linear.launch_pair(activations, rows, kOut, kIn, weights, biases, outs, strides, workspace,
                                            nullptr);
    line["batched"] = batched;
    const cudaError_t status = cudaDeviceSynchronize();
    line["cuda"] = cudaGetErrorName(status);
    if (status == cudaSuccess && batched) {
      line["mismatched_first"] = mismatches(outs, single, rows * kOut);
      line["mismatched_second"] = mismatches(outs + out_stride, single + rows * kOut, rows * kOut);
    }
  } catch (const std::exception& error) {
    line["error"] = error.what();
  }
  std::printf("%s\n", line.dump().c_str());
  return line.contains("error") || line.value("cuda", "") != "cudaSuccess" ? 1 : 0;
}
