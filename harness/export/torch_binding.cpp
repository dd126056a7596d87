// The SOL-ExecBench entry point of a packaged vlbench solution (`vlbench package`): a torch extension function
//     run(language_hidden_states, vision_hidden_states, language_position_ids, vision_grid_thw, q_proj_weight,
//         q_proj_bias, k_proj_weight, k_proj_bias, v_proj_weight, v_proj_bias, o_proj_weight, output)
// in destination-passing style (the definition's order, output last). It checks every tensor against the definition, builds
// vlb::FusionArgs with a torch-allocated workspace and torch's current stream, and calls the solution named by the
// compile definition VLBENCH_PACKAGED_SOLUTION. The evaluator builds it with torch.utils.cpp_extension; vlbench's own
// build never compiles this file (it needs torch).
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "harness/core/device_info.hpp"
#include "harness/core/problem.hpp"
#include "harness/solution/registry.hpp"

#ifndef VLBENCH_PACKAGED_SOLUTION
#error "build with -DVLBENCH_PACKAGED_SOLUTION=<solution name>; the compile_options of `vlbench package` set it"
#endif
#define VLB_BINDING_STRINGIFY_INNER(name) #name
#define VLB_BINDING_STRINGIFY(name) VLB_BINDING_STRINGIFY_INNER(name)

namespace {

constexpr const char* kSolutionName = VLB_BINDING_STRINGIFY(VLBENCH_PACKAGED_SOLUTION);
constexpr std::uintptr_t kRequiredAlignment = 16;  // vector loads and TMA need 16-byte aligned rows

void check_tensor(const torch::Tensor& tensor, vlb::TensorId id, const vlb::ProblemShape& shape,
                  const c10::Device& device) {
  const vlb::TensorSpec spec = vlb::tensor_spec(id, shape);
  const std::string name(spec.name);
  const c10::ScalarType dtype = spec.dtype == vlb::DType::kBFloat16 ? torch::kBFloat16 : torch::kInt64;
  TORCH_CHECK(tensor.scalar_type() == dtype, name, " must be ", std::string(vlb::dtype_name(spec.dtype)), ", got ",
              tensor.scalar_type());
  TORCH_CHECK(tensor.device() == device, name, " must be on ", device, " (with language_hidden_states), got ",
              tensor.device());
  TORCH_CHECK(tensor.sizes() == c10::IntArrayRef(spec.shape), name, " must have shape ", c10::IntArrayRef(spec.shape),
              ", got ", tensor.sizes());
  TORCH_CHECK(tensor.is_contiguous(), name, " must be contiguous");
  TORCH_CHECK(reinterpret_cast<std::uintptr_t>(tensor.data_ptr()) % kRequiredAlignment == 0, name,
              " must start on a ", kRequiredAlignment, "-byte boundary");
}

bool overlaps(const torch::Tensor& a, const torch::Tensor& b) {
  const auto* a_begin = static_cast<const char*>(a.data_ptr());
  const auto* b_begin = static_cast<const char*>(b.data_ptr());
  return a_begin < b_begin + b.nbytes() && b_begin < a_begin + a.nbytes();
}

template <class T, int Rank>
vlb::TensorRef<T, Rank> tensor_ref(const torch::Tensor& tensor) {
  vlb::TensorRef<T, Rank> ref;
  ref.data = static_cast<T*>(tensor.data_ptr());
  for (int d = 0; d < Rank; ++d) ref.shape[d] = tensor.size(d);
  return ref;
}

// The device facts Solution::unsupported_reason reads, from torch's cached properties (no extra CUDA query).
vlb::DeviceInfo device_info(const c10::Device& device) {
  const cudaDeviceProp* props = at::cuda::getDeviceProperties(device.index());
  vlb::DeviceInfo info;
  info.ordinal = device.index();
  info.name = props->name;
  info.compute_major = props->major;
  info.compute_minor = props->minor;
  info.sm_count = props->multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(props->l2CacheSize);
  info.shared_memory_per_block_optin = props->sharedMemPerBlockOptin;
  info.global_memory_bytes = props->totalGlobalMem;
  return info;
}

// One instance per process, created on first use: constructors may create handles, which must stay out of the
// timed calls. The evaluator runs one device per process.
vlb::Solution& packaged_solution() {
  static const std::unique_ptr<vlb::Solution> solution = vlb::SolutionRegistry::instance().create(kSolutionName);
  return *solution;
}

void run(const torch::Tensor& language_hidden_states, const torch::Tensor& vision_hidden_states,
         const torch::Tensor& language_position_ids, const torch::Tensor& vision_grid_thw,
         const torch::Tensor& q_proj_weight, const torch::Tensor& q_proj_bias, const torch::Tensor& k_proj_weight,
         const torch::Tensor& k_proj_bias, const torch::Tensor& v_proj_weight, const torch::Tensor& v_proj_bias,
         const torch::Tensor& o_proj_weight, torch::Tensor output) {
  TORCH_CHECK(language_hidden_states.dim() == 3, "language_hidden_states must be [B, Lq, 4096], got ",
              language_hidden_states.sizes());
  TORCH_CHECK(vision_hidden_states.dim() == 3, "vision_hidden_states must be [B, Lv, 4096], got ",
              vision_hidden_states.sizes());
  const vlb::ProblemShape shape{language_hidden_states.size(0), language_hidden_states.size(1),
                                vision_hidden_states.size(1)};
  const c10::Device device = language_hidden_states.device();
  TORCH_CHECK(device.is_cuda(), "language_hidden_states must be a CUDA tensor, got ", device);

  const std::array<const torch::Tensor*, vlb::kNumTensors> tensors = {
      &language_hidden_states, &vision_hidden_states, &language_position_ids, &vision_grid_thw,
      &q_proj_weight,          &q_proj_bias,          &k_proj_weight,         &k_proj_bias,
      &v_proj_weight,          &v_proj_bias,          &o_proj_weight,         &output};
  for (int i = 0; i < vlb::kNumTensors; ++i) check_tensor(*tensors[i], static_cast<vlb::TensorId>(i), shape, device);
  for (int i = 0; i < vlb::kNumInputs; ++i) {
    TORCH_CHECK(!overlaps(output, *tensors[i]), "output must not alias ",
                std::string(vlb::tensor_name(static_cast<vlb::TensorId>(i))));
  }

  const c10::cuda::CUDAGuard device_guard(device);
  vlb::Solution& solution = packaged_solution();
  if (const auto reason = solution.unsupported_reason(device_info(device), shape)) TORCH_CHECK(false, *reason);

  vlb::FusionArgs args;
  args.shape = shape;
  vlb::FusionInputs& in = args.inputs;
  in.language_hidden_states = tensor_ref<const vlb::bf16, 3>(language_hidden_states);
  in.vision_hidden_states = tensor_ref<const vlb::bf16, 3>(vision_hidden_states);
  in.language_position_ids = tensor_ref<const std::int64_t, 2>(language_position_ids);
  in.vision_grid_thw = tensor_ref<const std::int64_t, 3>(vision_grid_thw);
  in.q_proj_weight = tensor_ref<const vlb::bf16, 2>(q_proj_weight);
  in.q_proj_bias = tensor_ref<const vlb::bf16, 1>(q_proj_bias);
  in.k_proj_weight = tensor_ref<const vlb::bf16, 2>(k_proj_weight);
  in.k_proj_bias = tensor_ref<const vlb::bf16, 1>(k_proj_bias);
  in.v_proj_weight = tensor_ref<const vlb::bf16, 2>(v_proj_weight);
  in.v_proj_bias = tensor_ref<const vlb::bf16, 1>(v_proj_bias);
  in.o_proj_weight = tensor_ref<const vlb::bf16, 2>(o_proj_weight);
  args.output = tensor_ref<vlb::bf16, 3>(output);

  // The caching allocator hands out 512-byte aligned blocks (the boundary asks for 256) without a cudaMalloc per call.
  args.workspace_bytes = solution.workspace_bytes(shape);
  torch::Tensor workspace;
  if (args.workspace_bytes > 0) {
    workspace = at::empty({static_cast<std::int64_t>(args.workspace_bytes)},
                          at::TensorOptions().dtype(at::kByte).device(device));
    args.workspace = workspace.data_ptr();
  }
  args.stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
  solution.run(args);
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, module) {
  module.def("run", &run, "vlbench solution " VLB_BINDING_STRINGIFY(VLBENCH_PACKAGED_SOLUTION)
             " (destination-passing style: inputs in the definition's order, output last)",
             pybind11::arg("language_hidden_states"), pybind11::arg("vision_hidden_states"),
             pybind11::arg("language_position_ids"), pybind11::arg("vision_grid_thw"), pybind11::arg("q_proj_weight"),
             pybind11::arg("q_proj_bias"), pybind11::arg("k_proj_weight"), pybind11::arg("k_proj_bias"),
             pybind11::arg("v_proj_weight"), pybind11::arg("v_proj_bias"), pybind11::arg("o_proj_weight"),
             pybind11::arg("output"));
}
