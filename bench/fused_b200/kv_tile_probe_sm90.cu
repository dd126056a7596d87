// Probe of CUTLASS sm90 GEMMs for the K/V pair in cuBLAS's own orientation, against cuBLASLt's batched pair that
// fused_b200 runs from 784 vision rows (NOTES.md, v25). The question: at 1568 rows (cases 7, 8 and 11) cuBLAS runs
// the pair as one wave of 112 CTAs of 128 features x 224 tokens (nvjet ..._128x224_64x4_4x1), 40-42 us against a
// 33.3 us floor on 132 SMs. Tiles of 128 x 208 make the same pair 128 CTAs (8 token tiles of 196 rows, padded to 208,
// times 8 feature tiles times K and V), each with 93% of a 128 x 224 tile's work: ~3 us less, if CUTLASS's mainloop
// runs at nvjet's speed on one wave (CuTe's TMA takes no 200-row tile: 25 swizzle atoms). Every form computes
// out[l][token][feature] = vision[token] · W_l[feature]ᵀ for l in {K, V}: A is the weight (features x k, k-major),
// B the activations (a batch stride of 0), D feature-major per token (column-major in CUTLASS's M x N).
// The forms with the biases are timed beside fused_b200's own call (CublasLinear::launch_pair with them), alone and
// after Q's GEMM (fused_b200's cuBLAS call), where the CUTLASS pair also runs as its programmatic dependent. Calls are
// timed in turns (CUDA events, L2 flushed before every call), medians; each output is compared with cuBLAS's of the
// same kind: the largest difference and the count past 1e-2.
//   fused_b200_kv_tile_probe --rows 1568,784,3136
#define CUTLASS_ENABLE_GDC_FOR_SM90 1
// Without it CuTe's GMMA selector picks from N = 256, 192, 128, 96, 64, 32, 16 and 8 only, and covers a tile 208
// tokens wide with 13 wgmma instructions of N = 16 (224: 7 of N = 32; 112: 7 of 16), each reading its A slice
// from shared memory again: 1.4-2x nvjet's time in the first run (NOTES.md, v25). With it, one of N = 208.
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED 1
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/kernel_hardware_info.h>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
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

// The pair's operands: the vision activations, K's and V's weights one after the other, and the outputs.
struct Operands {
  int rows = 0;
  DeviceBuffer vision, weights, biases, reference_out, reference_bias_out, out;
  explicit Operands(int rows_)
      : rows(rows_),
        vision(filled(std::size_t(rows_) * kHidden, 2, 1.0f)),
        weights(filled(2 * std::size_t(kKvOut) * kHidden, 5, 0.02f)),
        biases(filled(2 * std::size_t(kKvOut), 6, 0.02f)),
        reference_out(2 * std::size_t(rows_) * kKvOut * sizeof(bf16)),
        reference_bias_out(reference_out.bytes()),
        out(reference_out.bytes()) {}
  std::int64_t weight_stride() const { return std::int64_t(kKvOut) * kHidden; }
  std::int64_t out_stride() const { return std::int64_t(rows) * kKvOut; }
};

// Q's projection beside the pair: language rows in the suite's ratio to vision rows (1024:1568, 512:784, 2048:3136).
struct QOperands {
  int rows = 0;
  DeviceBuffer language, weight, bias, out;
  explicit QOperands(int vision_rows)
      : rows(static_cast<int>((std::int64_t(vision_rows) * 1024 + 784) / 1568)),
        language(filled(std::size_t(rows) * kHidden, 11, 1.0f)),
        weight(filled(std::size_t(kHidden) * kHidden, 12, 0.02f)),
        bias(filled(kHidden, 13, 0.02f)),
        out(std::size_t(rows) * kHidden * sizeof(bf16)) {}
};

// cuBLAS's bias-free batched pair, through cublasGemmStridedBatchedEx (fused_b200's own cuBLASLt call, with the
// biases, is the probe's `cublas_pair_bias`).
void cublas_pair(cublasHandle_t handle, const Operands& ops, void* out, cudaStream_t stream) {
  check(cublasSetStream(handle, stream), "cublasSetStream");
  const float one = 1.0f, zero = 0.0f;
  check(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, kKvOut, ops.rows, kHidden, &one,
                                   ops.weights.data(), CUDA_R_16BF, kHidden, ops.weight_stride(), ops.vision.data(),
                                   CUDA_R_16BF, kHidden, 0, &zero, out, CUDA_R_16BF, kKvOut, ops.out_stride(), 2,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
}

using PairCall = std::function<void(cudaStream_t, bool programmatic)>;

// One CUTLASS form: tile kM features x kN tokens x 64, a cluster of kClusterM CTAs along the features (the
// activation tile multicast to them), CUTLASS's builders throughout; with kBias, each feature's bias added in fp32
// before the one rounding to bf16 (cuBLAS's bias epilogue, the reference's rounding point).
template <int kM, int kN, int kClusterM, class KernelSchedule, class EpilogueSchedule, bool kBias = false>
struct TransposedPair {
  static constexpr bool kHasBias = kBias;
  using Element = cutlass::bfloat16_t;
  using Fusion = std::conditional_t<kBias, cutlass::epilogue::fusion::LinCombPerRowBias<Element, float, Element>,
                                    cutlass::epilogue::fusion::LinearCombination<Element, float, void, float>>;
  // The activations (N x K, k-major) are the same for both batches: a batch stride of 0 known at compile time, so
  // that CuTe leaves that mode out of the TMA descriptor (a 0 known only at run time would go into the descriptor as
  // a stride of 0, which cuTensorMapEncodeTiled may refuse).
  using ActivationStride = cute::Stride<std::int64_t, cute::_1, cute::_0>;
  using TileShape = cute::Shape<cute::Int<kM>, cute::Int<kN>, cute::_64>;
  using ClusterShape = cute::Shape<cute::Int<kClusterM>, cute::_1, cute::_1>;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, cutlass::layout::ColumnMajor, 8, Element,
      cutlass::layout::ColumnMajor, 8, EpilogueSchedule, Fusion>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, cutlass::layout::RowMajor, 8, Element,
      ActivationStride, 8, float, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      KernelSchedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

  static typename Gemm::Arguments arguments(const Operands& ops, void* out, int sm_count) {
    using cute::_1;
    typename Gemm::Arguments args;
    args.mode = cutlass::gemm::GemmUniversalMode::kBatched;
    args.problem_shape = {kKvOut, ops.rows, kHidden, 2};
    args.mainloop.ptr_A = ops.weights.as<Element>();
    args.mainloop.dA = typename Kernel::StrideA{std::int64_t(kHidden), _1{}, ops.weight_stride()};
    args.mainloop.ptr_B = ops.vision.as<Element>();
    args.mainloop.dB = typename Kernel::StrideB{std::int64_t(kHidden), _1{}, cute::_0{}};
    args.epilogue.thread.alpha = 1.0f;
    args.epilogue.thread.beta = 0.0f;
    args.epilogue.ptr_C = nullptr;
    args.epilogue.dC = typename Kernel::StrideC{_1{}, std::int64_t(kKvOut), ops.out_stride()};
    args.epilogue.ptr_D = static_cast<Element*>(out);
    args.epilogue.dD = typename Kernel::StrideD{_1{}, std::int64_t(kKvOut), ops.out_stride()};
    if constexpr (kBias) {
      args.epilogue.thread.bias_ptr = ops.biases.as<Element>();
      args.epilogue.thread.dBias = {_1{}, cute::_0{}, std::int64_t(kKvOut)};
    }
    int device = 0;
    VLB_CUDA_CHECK(cudaGetDevice(&device));
    args.hw_info = cutlass::KernelHardwareInfo{device, sm_count};
    return args;
  }

  // Sets up the GEMM once (its workspace in `workspace`) and returns the call that launches it, as a programmatic
  // dependent of the kernel before it (griddepcontrol, compiled in above) or after it.
  static PairCall prepare(const Operands& ops, void* out, int sm_count, DeviceBuffer& workspace) {
    const auto args = arguments(ops, out, sm_count);
    auto gemm = std::make_shared<Gemm>();
    if (gemm->can_implement(args) != cutlass::Status::kSuccess) {
      throw std::runtime_error("CUTLASS form cannot implement the pair");
    }
    const std::size_t bytes = Gemm::get_workspace_size(args);
    if (bytes > workspace.bytes()) workspace = DeviceBuffer(bytes);
    if (gemm->initialize(args, workspace.data(), nullptr) != cutlass::Status::kSuccess) {
      throw std::runtime_error("CUTLASS initialize failed");
    }
    return [gemm](cudaStream_t stream, bool programmatic) {
      if (gemm->run(stream, nullptr, programmatic) != cutlass::Status::kSuccess) {
        throw std::runtime_error("CUTLASS run failed");
      }
    };
  }
};

using cutlass::epilogue::TmaWarpSpecialized;
using cutlass::epilogue::TmaWarpSpecializedCooperative;
using cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using cutlass::gemm::KernelTmaWarpSpecialized;
using cutlass::gemm::KernelTmaWarpSpecializedPingpong;

struct Form {
  std::string name;
  bool bias = false;
  int sm_count = 0;  // 0: the device's
  std::function<PairCall(const Operands&, void*, int, DeviceBuffer&)> prepare;
};

template <class Pair>
Form form(std::string name, int sm_count = 0) {
  return {std::move(name), Pair::kHasBias, sm_count, &Pair::prepare};
}

std::vector<Form> forms() {
  using Coop = KernelTmaWarpSpecializedCooperative;
  using CoopEpilogue = TmaWarpSpecializedCooperative;
  return {
      form<TransposedPair<128, 208, 1, Coop, CoopEpilogue>>("coop_128x208_c1"),
      form<TransposedPair<128, 208, 2, Coop, CoopEpilogue>>("coop_128x208_c2"),
      form<TransposedPair<128, 208, 4, Coop, CoopEpilogue>>("coop_128x208_c4"),
      form<TransposedPair<128, 224, 4, Coop, CoopEpilogue>>("coop_128x224_c4"),  // cuBLAS's tiling, for calibration
      // Two 64 x 208 tiles a CTA at 1568 rows, one per consumer warpgroup, on 128 CTAs: one tile's epilogue under
      // the other's mainloop.
      form<TransposedPair<64, 208, 2, KernelTmaWarpSpecializedPingpong, TmaWarpSpecialized>>("pingpong_64x208_c2",
                                                                                            128),
      // At 784 rows: 112 CTAs of 128 x 112, or 128 of 64 x 208 (one consumer warpgroup).
      form<TransposedPair<128, 112, 2, Coop, CoopEpilogue>>("coop_128x112_c2"),
      form<TransposedPair<64, 208, 2, KernelTmaWarpSpecialized, TmaWarpSpecialized>>("ws_64x208_c2"),
      // With the biases, against fused_b200's own call (CublasLinear::launch_pair with them).
      form<TransposedPair<128, 208, 1, Coop, CoopEpilogue, true>>("coop_128x208_c1_bias"),
      form<TransposedPair<128, 208, 2, Coop, CoopEpilogue, true>>("coop_128x208_c2_bias"),
      form<TransposedPair<128, 208, 4, Coop, CoopEpilogue, true>>("coop_128x208_c4_bias"),
  };
}

// The largest |out - reference| and how many differ by more than 1e-2.
nlohmann::json compare(const DeviceBuffer& mine, const DeviceBuffer& reference) {
  const std::vector<float> a = to_host(mine), b = to_host(reference);
  double largest = 0.0;
  std::int64_t past = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double difference = std::fabs(double(a[i]) - double(b[i]));
    largest = std::max(largest, std::isfinite(difference) ? difference : INFINITY);
    past += difference > 1e-2 || !std::isfinite(difference);
  }
  return {{"max_abs_difference", largest}, {"elements_past_1e-2", past}, {"elements", a.size()}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CUTLASS sm90 tiles for fused_b200's K/V pair against cuBLASLt's batched pair"};
  std::vector<int> rows_list{1568, 784, 3136};
  vlb::fused_b200::bench::TimerSettings settings;
  app.add_option("--rows", rows_list, "vision rows (B*Lv)")->delimiter(',')->check(CLI::Range(1, 1 << 20));
  app.add_option("--iterations", settings.timed_iterations, "timed calls per form")->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  try {
    const vlb::DeviceInfo device = vlb::query_device(0);
    cudaStream_t stream = nullptr;
    VLB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle = nullptr;
    check(cublasCreate(&handle), "cublasCreate");
    DeviceBuffer blas_workspace(std::size_t{32} << 20);
    check(cublasSetWorkspace(handle, blas_workspace.data(), blas_workspace.bytes()), "cublasSetWorkspace");
    DeviceBuffer workspace(vlb::fused_b200::CublasLinear::workspace_bytes());
    const vlb::fused_b200::Workspace lt_workspace{workspace.data(), workspace.bytes()};
    const vlb::fused_b200::CublasLinear linear;
    ColdL2Timer timer(device, settings);
    for (const int rows : rows_list) {
      const Operands ops(rows);
      const vlb::fused_b200::BatchedPairStrides strides{ops.weight_stride(), kKvOut, ops.out_stride()};
      const auto fused_b200_pair = [&](void* out, cudaStream_t s) {
        if (!linear.launch_pair(ops.vision.as<bf16>(), rows, kKvOut, kHidden, ops.weights.as<bf16>(),
                                ops.biases.as<bf16>(), static_cast<bf16*>(out), strides, lt_workspace, s)) {
          throw std::runtime_error("cuBLASLt has no batched K/V pair for this shape");
        }
      };
      // Q's GEMM of the same workloads (1568 vision rows: 1024 language rows, cases 7, 8 and 11), fused_b200's call.
      const QOperands q(ops.rows);
      const auto q_gemm = [&](cudaStream_t s) {
        linear.launch(q.language.as<bf16>(), q.rows, kHidden, kHidden, q.weight.as<bf16>(), q.bias.as<bf16>(),
                      q.out.as<bf16>(), lt_workspace, s);
      };
      std::vector<std::string> names{"cublas_pair", "cublas_pair_bias", "q_then_cublas_pair_bias"};
      std::vector<ColdL2Timer::Call> calls{[&](cudaStream_t s) { cublas_pair(handle, ops, ops.out.data(), s); },
                                           [&](cudaStream_t s) { fused_b200_pair(ops.out.data(), s); },
                                           [&](cudaStream_t s) {
                                             q_gemm(s);
                                             fused_b200_pair(ops.out.data(), s);
                                           }};
      nlohmann::json line = {{"kv_rows", rows}, {"device", device.name}};
      cublas_pair(handle, ops, ops.reference_out.data(), stream);
      fused_b200_pair(ops.reference_bias_out.data(), stream);
      VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
      // Each form set up and run once, its output (NaNs before it) checked against cuBLAS's of the same kind; a form
      // CUTLASS refuses is reported and left out of the timing.
      std::vector<DeviceBuffer> workspaces;
      const std::vector<Form> all = forms();
      workspaces.reserve(all.size());
      for (const Form& f : all) {
        workspaces.emplace_back(std::size_t{16});
        try {
          const PairCall pair =
              f.prepare(ops, ops.out.data(), f.sm_count > 0 ? f.sm_count : device.sm_count, workspaces.back());
          VLB_CUDA_CHECK(cudaMemsetAsync(ops.out.data(), 0xff, ops.out.bytes(), stream));
          pair(stream, false);
          VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
          line["check"][f.name] = compare(ops.out, f.bias ? ops.reference_bias_out : ops.reference_out);
          names.push_back(f.name);
          calls.push_back([pair](cudaStream_t s) { pair(s, false); });
          if (f.bias) {  // after Q's GEMM, as in the fused operation: in stream order, and programmatically
            names.push_back("q_then_" + f.name);
            calls.push_back([&, pair](cudaStream_t s) {
              q_gemm(s);
              pair(s, false);
            });
            names.push_back("q_then_" + f.name + "_programmatic");
            calls.push_back([&, pair](cudaStream_t s) {
              q_gemm(s);
              pair(s, true);
            });
          }
        } catch (const std::runtime_error& error) {
          line["refused"][f.name] = error.what();
        }
      }
      const std::vector<ColdL2Timer::Timing> medians = timer.interleaved_medians(calls, stream);
      for (std::size_t i = 0; i < names.size(); ++i) line["median_us"][names[i]] = medians[i].gpu_us;
      std::printf("%s\n", line.dump().c_str());
      std::fflush(stdout);
    }
    (void)cublasDestroy(handle);
    (void)cudaStreamDestroy(stream);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fused_b200_kv_tile_probe: %s\n", error.what());
    return 1;
  }
  return 0;
}
