// Broken and dishonest solutions, built only into the test executable vlbench_adversarial (never registered in
// vlbench). Each misbehaves in one way; tests/robustness/test_adversarial_gpu.cpp asserts the status vlbench gives it.
// Most compute the right answer with the template solution and then cheat or break around it.
#include <cuda_runtime.h>

#include <csignal>
#include <cstdlib>
#include <map>
#include <memory>

#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/solution/registry.hpp"

namespace vlb::adversarial {
namespace {

__global__ void spin_kernel(long long nanoseconds) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (unsigned long long now = start; now - start < static_cast<unsigned long long>(nanoseconds);) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

__global__ void write_to_wild_address(int* pointer) { pointer[threadIdx.x] = 1; }
__global__ void scale_output(bf16* output, std::int64_t count, float factor) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < count) output[i] = __float2bfloat16(__bfloat162float(output[i]) * factor);
}
__global__ void touch_output(bf16* output) {
  if (threadIdx.x == 0) output[0] = output[0];
}

SolutionInfo adversary(const char* name, const char* description) {
  return {.name = name, .author = "vlbench tests", .description = description, .languages = {"cuda"},
          .target_compute_capabilities = {}};
}

std::size_t output_bytes(const FusionArgs& args) { return tensor_spec(TensorId::kOutput, args.shape).bytes(); }

// Base: the template's correct computation, available to every adversary.
class Honest : public Solution {
 public:
  Honest() : inner_(SolutionRegistry::instance().create("template")) {}
  std::size_t workspace_bytes(const ProblemShape& shape) const override { return inner_->workspace_bytes(shape); }

 protected:
  void compute(const FusionArgs& args) { inner_->run(args); }

 private:
  std::unique_ptr<Solution> inner_;
};

class WritesNothing final : public Solution {
 public:
  static SolutionInfo describe() { return adversary("adversarial_writes_nothing", "returns without writing"); }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs&) override {}
};

class WritesNan final : public Solution {
 public:
  static SolutionInfo describe() { return adversary("adversarial_writes_nan", "fills the output with NaN"); }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs& args) override {
    VLB_CUDA_CHECK(cudaMemsetAsync(args.output.data, 0xFF, output_bytes(args), args.stream));
  }
};

class WritesHalf final : public Honest {
 public:
  static SolutionInfo describe() { return adversary("adversarial_writes_half", "writes the first half of the rows"); }
  void run(const FusionArgs& args) override {
    FusionArgs half = args;
    half.shape.batch = 1;  // the template computes batch element 0 only, when B = 2
    compute(half);
  }
};

class SlightlyWrong final : public Honest {
 public:
  static SolutionInfo describe() { return adversary("adversarial_slightly_wrong", "the right answer scaled by 1.08"); }
  void run(const FusionArgs& args) override {
    compute(args);
    const std::int64_t count = tensor_spec(TensorId::kOutput, args.shape).elements();
    scale_output<<<static_cast<unsigned>((count + 255) / 256), 256, 0, args.stream>>>(args.output.data, count, 1.08f);
  }
};

class ModifiesInput final : public Honest {
 public:
  static SolutionInfo describe() { return adversary("adversarial_modifies_input", "right answer, then edits a bias"); }
  void run(const FusionArgs& args) override {
    compute(args);
    auto* bias = const_cast<bf16*>(args.inputs.q_proj_bias.data);
    VLB_CUDA_CHECK(cudaMemsetAsync(bias, 0, sizeof(bf16), args.stream));
  }
};

class UnjoinedStream final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_unjoined_stream", "computes on its own stream and never joins the caller's");
  }
  void run(const FusionArgs& args) override {
    spin_kernel<<<1, 1, 0, own_.get()>>>(200'000'000);  // 200 ms: the caller's stream is long done by then
    FusionArgs mine = args;
    mine.stream = own_.get();
    compute(mine);
  }

 private:
  CudaStream own_;
};

class DefaultStream final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_default_stream", "returns with its work still queued on the legacy default stream");
  }
  void run(const FusionArgs& args) override {
    spin_kernel<<<1, 1, 0, cudaStreamLegacy>>>(200'000'000);
    FusionArgs queued = args;
    queued.stream = cudaStreamLegacy;
    compute(queued);
  }
};

class ReplaysByPointer final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_replays_by_pointer", "caches its output by input pointer and replays it");
  }
  ~ReplaysByPointer() override {
    for (auto& [key, buffer] : cache_) (void)cudaFree(buffer);
  }
  void run(const FusionArgs& args) override {
    const void* key = args.inputs.language_hidden_states.data;
    if (auto hit = cache_.find(key); hit != cache_.end()) {
      VLB_CUDA_CHECK(cudaMemcpyAsync(args.output.data, hit->second, output_bytes(args), cudaMemcpyDeviceToDevice,
                                     args.stream));
      return;
    }
    compute(args);
    void* saved = nullptr;
    VLB_CUDA_CHECK(cudaMalloc(&saved, output_bytes(args)));
    VLB_CUDA_CHECK(cudaMemcpyAsync(saved, args.output.data, output_bytes(args), cudaMemcpyDeviceToDevice, args.stream));
    cache_[key] = saved;
  }

 private:
  std::map<const void*, void*> cache_;
};

class Hangs final : public Solution {
 public:
  static SolutionInfo describe() { return adversary("adversarial_hangs", "never returns"); }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs& args) override {
    spin_kernel<<<1, 1, 0, args.stream>>>(3'600'000'000'000LL);  // an hour
  }
};

class CrashesDevice final : public Solution {
 public:
  static SolutionInfo describe() { return adversary("adversarial_crashes_device", "writes to an invalid address"); }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs& args) override {
    write_to_wild_address<<<1, 32, 0, args.stream>>>(reinterpret_cast<int*>(0x10));
  }
};

class CrashesHost final : public Solution {
 public:
  static SolutionInfo describe() { return adversary("adversarial_crashes_host", "dereferences a null pointer"); }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs&) override { std::raise(SIGSEGV); }
};

class AllocatesDuringRun final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_allocates", "right answer, but allocates device memory in every call");
  }
  ~AllocatesDuringRun() override {
    for (void* block : blocks_) (void)cudaFree(block);
  }
  void run(const FusionArgs& args) override {
    void* block = nullptr;
    VLB_CUDA_CHECK(cudaMalloc(&block, std::size_t{64} << 20));
    blocks_.push_back(block);
    compute(args);
  }

 private:
  std::vector<void*> blocks_;
};

class ChangesKernels final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_changes_kernels", "right answer, but launches another kernel set after a few calls");
  }
  void run(const FusionArgs& args) override {
    compute(args);
    if (++calls_ > 6) touch_output<<<1, 32, 0, args.stream>>>(args.output.data);
  }

 private:
  int calls_ = 0;
};

}  // namespace
}  // namespace vlb::adversarial

VLBENCH_REGISTER_SOLUTION(vlb::adversarial::WritesNothing);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::WritesNan);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::WritesHalf);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::SlightlyWrong);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ModifiesInput);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::UnjoinedStream);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::DefaultStream);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ReplaysByPointer);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::Hangs);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::CrashesDevice);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::CrashesHost);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::AllocatesDuringRun);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ChangesKernels);
