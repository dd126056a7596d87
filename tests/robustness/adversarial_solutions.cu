// Broken and dishonest solutions, built only into the test executable vlbench_adversarial (never registered in
// vlbench). Each misbehaves in one way; tests/robustness/test_adversarial_gpu.cpp asserts the status vlbench gives it.
// Most compute the right answer with the template solution and then cheat or break around it.
#include <cuda.h>
#include <cuda_runtime.h>

#include <array>
#include <csignal>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

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


// Device memory of the solution's own, allocated in its first call (which may allocate) and kept.
class OwnBuffer {
 public:
  ~OwnBuffer() {
    if (data_ != nullptr) (void)cudaFree(data_);
  }
  void* get(std::size_t bytes) {
    if (data_ == nullptr) VLB_CUDA_CHECK(cudaMalloc(&data_, bytes));
    return data_;
  }

 private:
  void* data_ = nullptr;
};

// Caching by content: a key made of a few values of every bf16 input; on a hit, the stored output is replayed. It
// paid off when the timed calls saw round 0's values again; with fresh values in every call it never hits.
class CachesByContent final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_caches_by_content", "replays a stored output when a few input values repeat");
  }
  void run(const FusionArgs& args) override {
    const std::vector<std::uint16_t> key = content_key(args);
    void* slots = cache_.get(kSlots * output_bytes(args));
    auto slot_at = [&](int slot) { return static_cast<std::byte*>(slots) + slot * output_bytes(args); };
    if (auto hit = slots_.find(key); hit != slots_.end()) {
      VLB_CUDA_CHECK(cudaMemcpyAsync(args.output.data, slot_at(hit->second), output_bytes(args),
                                     cudaMemcpyDeviceToDevice, args.stream));
      return;
    }
    compute(args);
    const int slot = next_slot_++ % kSlots;
    std::erase_if(slots_, [&](const auto& entry) { return entry.second == slot; });
    VLB_CUDA_CHECK(cudaMemcpyAsync(slot_at(slot), args.output.data, output_bytes(args), cudaMemcpyDeviceToDevice,
                                   args.stream));
    slots_[key] = slot;
  }

 private:
  static constexpr int kSlots = 4;
  static constexpr int kValuesPerInput = 8;

  static std::vector<std::uint16_t> content_key(const FusionArgs& args) {
    const std::array<const bf16*, 9> inputs = {
        args.inputs.language_hidden_states.data, args.inputs.vision_hidden_states.data, args.inputs.q_proj_weight.data,
        args.inputs.q_proj_bias.data,           args.inputs.k_proj_weight.data,        args.inputs.k_proj_bias.data,
        args.inputs.v_proj_weight.data,         args.inputs.v_proj_bias.data,          args.inputs.o_proj_weight.data};
    std::vector<std::uint16_t> key(inputs.size() * kValuesPerInput);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      VLB_CUDA_CHECK(cudaMemcpyAsync(key.data() + i * kValuesPerInput, inputs[i], kValuesPerInput * sizeof(bf16),
                                     cudaMemcpyDeviceToHost, args.stream));
    }
    VLB_CUDA_CHECK(cudaStreamSynchronize(args.stream));
    return key;
  }

  OwnBuffer cache_;
  std::map<std::vector<std::uint16_t>, int> slots_;
  int next_slot_ = 0;
};

// Stashing in the workspace: computes while its inputs stay where the first call had them, keeps that output in the
// workspace, and copies it back once the input addresses move. The workspace is scrambled before every call.
class StashesInWorkspace final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_stashes_in_workspace", "keeps its output in the workspace and replays it later");
  }
  std::size_t workspace_bytes(const ProblemShape& shape) const override {
    return Honest::workspace_bytes(shape) + tensor_spec(TensorId::kOutput, shape).bytes();
  }
  void run(const FusionArgs& args) override {
    std::byte* stash = static_cast<std::byte*>(args.workspace) + Honest::workspace_bytes(args.shape);
    const void* address = args.inputs.language_hidden_states.data;
    if (first_address_ != nullptr && address != first_address_) {
      VLB_CUDA_CHECK(cudaMemcpyAsync(args.output.data, stash, output_bytes(args), cudaMemcpyDeviceToDevice, args.stream));
      return;
    }
    first_address_ = address;
    compute(args);
    VLB_CUDA_CHECK(cudaMemcpyAsync(stash, args.output.data, output_bytes(args), cudaMemcpyDeviceToDevice, args.stream));
  }

 private:
  const void* first_address_ = nullptr;
};

// Reading the answer: copies the first allocation after its output's that is at least as large (where the harness
// once kept the reference output). No reference output exists in the solution's process any more.
class ReadsNeighbour final : public Solution {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_reads_neighbour", "copies a neighbouring allocation of its output's size");
  }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs& args) override {
    CUdeviceptr base = 0;
    std::size_t size = 0;
    if (cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(args.output.data)) != CUDA_SUCCESS) return;
    const CUdeviceptr own_base = base;
    CUdeviceptr candidate = base + size;
    for (int step = 0; step < 256; ++step) {
      if (cuMemGetAddressRange(&base, &size, candidate) != CUDA_SUCCESS) {
        candidate += std::size_t{2} << 20;  // the allocation granularity: look further on
        continue;
      }
      if (base != own_base && size >= output_bytes(args)) {
        VLB_CUDA_CHECK(cudaMemcpyAsync(args.output.data, reinterpret_cast<const void*>(base), output_bytes(args),
                                       cudaMemcpyDeviceToDevice, args.stream));
        return;
      }
      candidate = base + size;
    }
  }
};

// Replays its last computed output after a few honest calls, slowly enough to stay above the physical floor: the
// sampled and the last timed calls' outputs are checked against the reference for their own inputs.
class ReplaysLastOutput : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_replays_last_output", "after 3 honest calls, replays the last output (slowly)");
  }
  void run(const FusionArgs& args) override {
    void* saved = saved_.get(output_bytes(args));
    if (calls_++ < kHonestCalls) {
      compute(args);
      VLB_CUDA_CHECK(cudaMemcpyAsync(saved, args.output.data, output_bytes(args), cudaMemcpyDeviceToDevice, args.stream));
      return;
    }
    VLB_CUDA_CHECK(cudaMemcpyAsync(args.output.data, saved, output_bytes(args), cudaMemcpyDeviceToDevice, args.stream));
    if (spin_ns() > 0) spin_kernel<<<1, 1, 0, args.stream>>>(spin_ns());
  }

 protected:
  virtual long long spin_ns() const { return 300'000; }  // 0.3 ms, far above case 15's floor (about 0.02 ms)

 private:
  static constexpr int kHonestCalls = 3;
  OwnBuffer saved_;
  int calls_ = 0;
};

// Faster than physics: the same replay without the spin, a copy of the output in a few microseconds.
class FasterThanPhysics final : public ReplaysLastOutput {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_faster_than_physics", "after 3 honest calls, replays the last output at once");
  }

 protected:
  long long spin_ns() const override { return 0; }
};

class WritesPastOutput final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_writes_past_output", "right answer, then 300 bytes past the end of the output");
  }
  void run(const FusionArgs& args) override {
    compute(args);
    auto* end = reinterpret_cast<std::byte*>(args.output.data) + output_bytes(args);
    VLB_CUDA_CHECK(cudaMemsetAsync(end, 0x5A, 300, args.stream));
  }
};

class WritesBeforeInput final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_writes_before_input", "right answer, then 64 bytes before q_proj_bias");
  }
  void run(const FusionArgs& args) override {
    compute(args);
    auto* bias = reinterpret_cast<std::byte*>(const_cast<bf16*>(args.inputs.q_proj_bias.data));
    VLB_CUDA_CHECK(cudaMemsetAsync(bias - 64, 0xA5, 64, args.stream));
  }
};

// Solution code that throws from each entry point: RUNTIME_ERROR for that case, in both isolation modes.
class ThrowsInConstructor final : public Solution {
 public:
  ThrowsInConstructor() { throw std::runtime_error("cannot load my kernels"); }
  static SolutionInfo describe() { return adversary("adversarial_throws_in_constructor", "its constructor throws"); }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs&) override {}
};

class ThrowsInUnsupportedReason final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_throws_in_unsupported_reason", "its unsupported_reason throws");
  }
  std::optional<std::string> unsupported_reason(const DeviceInfo&, const ProblemShape&) const override {
    throw std::runtime_error("device query failed");
  }
  void run(const FusionArgs& args) override { compute(args); }
};

class ThrowsInWorkspaceBytes final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_throws_in_workspace_bytes", "its workspace_bytes throws");
  }
  std::size_t workspace_bytes(const ProblemShape&) const override { throw std::length_error("shape too large"); }
  void run(const FusionArgs& args) override { compute(args); }
};

class ThrowsInRun final : public Solution {
 public:
  static SolutionInfo describe() { return adversary("adversarial_throws_in_run", "its run throws an int"); }
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }
  void run(const FusionArgs&) override { throw 42; }
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
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::CachesByContent);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::StashesInWorkspace);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ReadsNeighbour);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ReplaysLastOutput);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::FasterThanPhysics);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::WritesPastOutput);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::WritesBeforeInput);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ThrowsInConstructor);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ThrowsInUnsupportedReason);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ThrowsInWorkspaceBytes);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ThrowsInRun);
