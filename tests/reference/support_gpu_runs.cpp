#include "support_gpu_runs.hpp"

#include "harness/check/guards.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"
#include "reference/gpu_reference.hpp"

namespace vlb::testing {

std::vector<__nv_bfloat16> download_bf16(const void* device, std::int64_t elements, cudaStream_t stream) {
  std::vector<__nv_bfloat16> host(static_cast<std::size_t>(elements));
  VLB_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, host.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost,
                                 stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

void upload_floats_as_bf16(const std::vector<float>& values, void* device, cudaStream_t stream) {
  std::vector<__nv_bfloat16> host(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) host[i] = __float2bfloat16_rn(values[i]);
  VLB_CUDA_CHECK(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice,
                                 stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::vector<double> to_double(const std::vector<__nv_bfloat16>& values) {
  std::vector<double> result(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) result[i] = __bfloat162float(values[i]);
  return result;
}

std::vector<double> to_double(const std::vector<float>& values) { return {values.begin(), values.end()}; }

std::vector<__nv_bfloat16> run_gpu_reference(const DeviceInputs& inputs, cudaStream_t stream) {
  const ProblemShape& shape = inputs.shape();
  reference::GpuReference solution;
  const std::int64_t elements = shape.lang_rows() * ModelDims::kHidden;
  DeviceBuffer output(static_cast<std::size_t>(elements) * sizeof(__nv_bfloat16));
  DeviceBuffer workspace(solution.workspace_bytes(shape));
  poison_bf16(output.data(), elements, stream);
  FusionArgs args;
  args.shape = shape;
  args.inputs = inputs.view();
  args.output.data = output.as<__nv_bfloat16>();
  args.output.shape = {shape.batch, shape.lang_seq, ModelDims::kHidden};
  args.workspace = workspace.data();
  args.workspace_bytes = workspace.bytes();
  args.stream = stream;
  solution.run(args);
  return download_bf16(output.data(), elements, stream);
}

std::vector<double> run_exact_fp32_gpu(const DeviceInputs& inputs, cudaStream_t stream) {
  const ProblemShape& shape = inputs.shape();
  const std::int64_t elements = shape.lang_rows() * ModelDims::kHidden;
  DeviceBuffer output(static_cast<std::size_t>(elements) * sizeof(float));
  VLB_CUDA_CHECK(cudaMemsetAsync(output.data(), 0xff, output.bytes(), stream));  // NaN until written
  DeviceBuffer workspace(reference::exact_fp32_workspace_bytes(shape));
  reference::exact_output_fp32_gpu(shape, inputs.view(), output.as<float>(), workspace.data(), workspace.bytes(),
                                   stream);
  std::vector<float> host(static_cast<std::size_t>(elements));
  VLB_CUDA_CHECK(cudaMemcpyAsync(host.data(), output.data(), output.bytes(), cudaMemcpyDeviceToHost, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return to_double(host);
}

}  // namespace vlb::testing
