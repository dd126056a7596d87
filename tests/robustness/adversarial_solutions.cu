// Broken and dishonest solutions, built only into the test module vlbench_solution_adversaries (never among vlbench's
// own modules). Each misbehaves in one way; tests/robustness/test_adversarial_gpu.cpp asserts the status vlbench gives
// it. Most compute the right answer with the template solution (linked into the same module) and then cheat or break
// around it. Those that attack the worker itself (its figures, its messages, its handshake, its sandbox) read
// vlbench's source as a dishonest contributor would: they know fd 3 is the channel and fd 4 the handshake page.
#include <cuda.h>
#include <cuda_runtime.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/inputs/input_set.hpp"
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


// ---- The cheats of the integrity issue (#23) ----

// Predicting later calls: under the old seed rule (call k's seed = --seed + k, the default seed documented), its
// first call regenerates the inputs of the calls to come with the harness's own generator, computes their outputs,
// and serves every later call from that store (with a spin to stay above the physical floor). Seeds from entropy
// make the store worthless.
class PredictsInputs final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_predicts_inputs", "precomputes later calls from the documented default seed");
  }
  void run(const FusionArgs& args) override {
    const int call = calls_++;
    if (call == 0) precompute(args);
    if (call < kHonestCalls) return compute(args);
    const std::size_t bytes = output_bytes(args);
    VLB_CUDA_CHECK(cudaMemcpyAsync(args.output.data, static_cast<std::byte*>(store_.data()) + bytes * (call % kStored),
                                   bytes, cudaMemcpyDeviceToDevice, args.stream));
    spin_kernel<<<1, 1, 0, args.stream>>>(300'000);
  }

 private:
  static constexpr std::uint64_t kDocumentedSeed = 20260;
  static constexpr int kHonestCalls = 2;  // the rounds of the test's runs
  static constexpr int kStored = 16;

  void precompute(const FusionArgs& args) {
    const std::size_t bytes = output_bytes(args);
    store_ = DeviceBuffer(bytes * kStored);
    DeviceInputs inputs(args.shape);
    for (int call = 0; call < kStored; ++call) {
      inputs.generate(InputSettings{kDocumentedSeed + static_cast<std::uint64_t>(call), PositionPattern::kOfficial},
                      args.stream);
      FusionArgs predicted = args;
      predicted.inputs = inputs.view();
      predicted.output.data = reinterpret_cast<bf16*>(static_cast<std::byte*>(store_.data()) + bytes * call);
      compute(predicted);
    }
    VLB_CUDA_CHECK(cudaStreamSynchronize(args.stream));
  }

  DeviceBuffer store_;
  int calls_ = 0;
};

// Rewriting the hand-back: computes honestly, but patches the worker's import of cudaEventElapsedTime (its GOT
// entry) so that every time the worker reports is halved. The judge's own clock does not go through the worker.
using ElapsedTime = cudaError_t (*)(float*, cudaEvent_t, cudaEvent_t);
ElapsedTime real_elapsed_time = nullptr;

cudaError_t halved_elapsed_time(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  const cudaError_t status = real_elapsed_time(ms, start, stop);
  if (status == cudaSuccess) *ms *= 0.5f;
  return status;
}

struct GotPatch {
  const char* symbol;
  void* replacement;
  void* original = nullptr;
};

// Rewrites the main program's relocation of patch.symbol (a GOT entry); true when it found one.
bool patch_program_got(GotPatch& patch) {
  return dl_iterate_phdr(
             [](dl_phdr_info* info, size_t, void* data) -> int {
               auto& wanted = *static_cast<GotPatch*>(data);
               if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;  // not the main program
               const ElfW(Dyn)* dynamic = nullptr;
               for (int i = 0; i < info->dlpi_phnum; ++i) {
                 if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
                   dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
                 }
               }
               if (dynamic == nullptr) return 0;
               auto absolute = [&](ElfW(Addr) address) {
                 return address < info->dlpi_addr ? address + info->dlpi_addr : address;
               };
               const ElfW(Sym)* symbols = nullptr;
               const char* strings = nullptr;
               std::array<const ElfW(Rela)*, 2> tables{};
               std::array<std::size_t, 2> sizes{};
               for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
                 if (entry->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(absolute(entry->d_un.d_ptr));
                 if (entry->d_tag == DT_STRTAB) strings = reinterpret_cast<const char*>(absolute(entry->d_un.d_ptr));
                 if (entry->d_tag == DT_JMPREL) tables[0] = reinterpret_cast<const ElfW(Rela)*>(absolute(entry->d_un.d_ptr));
                 if (entry->d_tag == DT_PLTRELSZ) sizes[0] = entry->d_un.d_val;
                 if (entry->d_tag == DT_RELA) tables[1] = reinterpret_cast<const ElfW(Rela)*>(absolute(entry->d_un.d_ptr));
                 if (entry->d_tag == DT_RELASZ) sizes[1] = entry->d_un.d_val;
               }
               if (symbols == nullptr || strings == nullptr) return 0;
               for (std::size_t t = 0; t < tables.size(); ++t) {
                 for (std::size_t i = 0; tables[t] != nullptr && i < sizes[t] / sizeof(ElfW(Rela)); ++i) {
                   const ElfW(Rela)& relocation = tables[t][i];
                   const char* name = strings + symbols[ELF64_R_SYM(relocation.r_info)].st_name;
                   if (std::strcmp(name, wanted.symbol) != 0) continue;
                   auto** slot = reinterpret_cast<void**>(info->dlpi_addr + relocation.r_offset);
                   const long page = sysconf(_SC_PAGESIZE);
                   void* start = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(slot) & ~(page - 1));
                   if (mprotect(start, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE) != 0) return 0;
                   wanted.original = *slot;
                   *slot = wanted.replacement;
                   return 1;
                 }
               }
               return 0;
             },
             &patch) != 0;
}

class ForgesTimes final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_forges_times", "computes honestly, halves every time the worker reports (GOT patch)");
  }
  void run(const FusionArgs& args) override {
    if (!patched_) {
      GotPatch patch{"cudaEventElapsedTime", reinterpret_cast<void*>(&halved_elapsed_time)};
      if (!patch_program_got(patch)) throw std::runtime_error("found no GOT entry of cudaEventElapsedTime to patch");
      real_elapsed_time = reinterpret_cast<ElapsedTime>(patch.original);
      patched_ = true;
    }
    compute(args);
  }

 private:
  bool patched_ = false;
};

// Skipping work on a share of the calls: batch element 1 left wrong (as if it were not computed), with the same
// kernels launched in every call (so the kernel-set audit sees nothing). Every timed call is judged.
class SkipsWork : public Honest {
 public:
  void run(const FusionArgs& args) override {
    const int call = calls_++;
    compute(args);
    const std::int64_t per_element = args.shape.lang_seq * ModelDims::kHidden;
    const float factor = call >= kHonestCalls && skip(call) ? 1.5f : 1.0f;
    scale_output<<<static_cast<unsigned>((per_element + 255) / 256), 256, 0, args.stream>>>(
        args.output.data + (args.shape.batch - 1) * per_element, per_element, factor);
  }

 protected:
  static constexpr int kHonestCalls = 4;  // the test's rounds and warm-up calls
  virtual bool skip(int call) = 0;
  std::mt19937_64 generator_{std::random_device{}()};

 private:
  int calls_ = 0;
};

class SkipsRandomCalls final : public SkipsWork {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_skips_random_calls", "leaves its last batch element wrong on 60% of its later calls");
  }

 protected:
  bool skip(int) override { return std::bernoulli_distribution(0.6)(generator_); }
};

class SkipsOneCall final : public SkipsWork {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_skips_one_call", "leaves its last batch element wrong in one timed call, drawn at random");
  }

 protected:
  bool skip(int call) override {
    if (chosen_ < 0) chosen_ = kHonestCalls + std::uniform_int_distribution<int>(0, kTimedCalls - 1)(generator_);
    return call == chosen_;
  }

 private:
  static constexpr int kTimedCalls = 5;  // the test's timed calls
  int chosen_ = -1;
};

// Writing outside its buffers, beyond the guard zones: 1 MiB of garbage where the allocation after its output used
// to begin. There is none now: unmapped pages surround every buffer, so the write faults.
class WritesFarPastOutput final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_writes_far_past_output", "right answer, then 1 MiB past the end of its output's memory");
  }
  void run(const FusionArgs& args) override {
    compute(args);
    CUdeviceptr base = 0;
    std::size_t size = 0;
    if (cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(args.output.data)) != CUDA_SUCCESS) {
      throw std::runtime_error("cuMemGetAddressRange failed on the output");
    }
    // A kernel's stray write, as a buggy kernel's would be (a memset of an address outside any allocation may be
    // refused before it runs).
    constexpr std::int64_t kGarbage = std::int64_t{1} << 19;  // bf16 elements: 1 MiB
    scale_output<<<static_cast<unsigned>(kGarbage / 256), 256, 0, args.stream>>>(reinterpret_cast<bf16*>(base + size),
                                                                               kGarbage, 3.0f);
  }
};

// The handshake page the worker shares with the judge (fd 4; its ready, go and done slots 64 bytes apart).
std::atomic<std::uint64_t>* handshake_slots() {
  static void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 4, 0);
  if (page == MAP_FAILED) throw std::runtime_error(std::string("cannot map the handshake page: ") + std::strerror(errno));
  return static_cast<std::atomic<std::uint64_t>*>(page);
}
std::uint64_t current_call() { return handshake_slots()[0].load(); }                // the ready slot
void claim_done(std::uint64_t call) { handshake_slots()[16].store(call); }         // the done slot (byte 128)

// Reporting a call done before its work is: 50 ms of work queued ahead of the computation, then done written at
// once. The judge reads the output the moment done appears: it finds the poisoned elements still there.
class ReportsDoneEarly final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_reports_done_early", "writes done into the handshake before its work has run");
  }
  void run(const FusionArgs& args) override {
    if (calls_++ < kHonestCalls) return compute(args);
    spin_kernel<<<1, 1, 0, args.stream>>>(50'000'000);
    compute(args);
    claim_done(current_call());
  }

 private:
  static constexpr int kHonestCalls = 4;
  int calls_ = 0;
};

// Sending a message of its own: a forged report of a fast call on the worker's channel (fd 3), ahead of the worker's.
class SendsExtraMessage final : public Honest {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_sends_extra_message", "sends a forged 'called' report on the worker's channel");
  }
  void run(const FusionArgs& args) override {
    compute(args);
    if (calls_++ < kHonestCalls) return;
    const std::string forged = "{\"type\":\"called\",\"call\":" + std::to_string(current_call()) +
                               ",\"event_ms\":0.001,\"stop_observed_ns\":0,\"failure\":null}";
    if (send(3, forged.data(), forged.size(), MSG_NOSIGNAL) < 0) throw std::runtime_error("cannot write to fd 3");
  }

 private:
  static constexpr int kHonestCalls = 4;
  int calls_ = 0;
};

// ---- Escapes the sandbox must refuse: each computes honestly once its attack succeeds (PASSED would mean the
// sandbox did not hold) and throws, naming the refusal, when the kernel refuses it. ----
class Escapes : public Honest {
 public:
  void run(const FusionArgs& args) override {
    if (!attacked_) {
      attacked_ = true;
      attack();
    }
    compute(args);
  }

 protected:
  virtual void attack() = 0;
  [[noreturn]] static void refused(const std::string& what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
  }

 private:
  bool attacked_ = false;
};

class TracesParent final : public Escapes {
 public:
  static SolutionInfo describe() { return adversary("adversarial_traces_parent", "ptrace-attaches to the judge"); }

 protected:
  void attack() override {
    if (ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr) != 0) refused("ptrace(PTRACE_ATTACH, judge)");
    ptrace(PTRACE_DETACH, getppid(), nullptr, nullptr);
  }
};

class WritesParentMemory final : public Escapes {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_writes_parent_memory", "writes into the judge's memory with process_vm_writev");
  }

 protected:
  void attack() override {
    char byte = 0;
    iovec local{&byte, 1}, remote{reinterpret_cast<void*>(0x1000), 1};
    if (process_vm_writev(getppid(), &local, 1, &remote, 1, 0) < 0 && errno != EFAULT) refused("process_vm_writev");
  }
};

class OpensParentProc final : public Escapes {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_opens_parent_proc", "opens the judge's /proc/<pid>/mem and /proc/<pid>/status");
  }

 protected:
  void attack() override {
    for (const char* file : {"mem", "status"}) {
      const std::string path = "/proc/" + std::to_string(getppid()) + "/" + file;
      const int fd = open(path.c_str(), O_RDONLY);
      if (fd < 0) refused("open " + path);
      close(fd);
    }
  }
};

class WritesOutsideScratch final : public Escapes {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_writes_outside_scratch", "creates a file in /tmp, outside its scratch folder");
  }

 protected:
  void attack() override {
    const std::filesystem::path outside = "/tmp/vlbench-escape-" + std::to_string(getpid());
    const int fd = open(outside.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) refused("create " + outside.string());
    close(fd);
    std::filesystem::remove(outside);
  }
};

class OpensSocket final : public Escapes {
 public:
  static SolutionInfo describe() { return adversary("adversarial_opens_socket", "opens a TCP socket"); }

 protected:
  void attack() override {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) refused("socket");
    close(fd);
  }
};

class SignalsParent final : public Escapes {
 public:
  static SolutionInfo describe() {
    return adversary("adversarial_signals_parent", "sends a signal (0: a probe) to the judge");
  }

 protected:
  void attack() override {
    if (kill(getppid(), 0) != 0) refused("kill(judge, 0)");
  }
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
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::PredictsInputs);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ForgesTimes);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::SkipsRandomCalls);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::SkipsOneCall);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::WritesFarPastOutput);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::ReportsDoneEarly);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::SendsExtraMessage);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::TracesParent);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::WritesParentMemory);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::OpensParentProc);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::WritesOutsideScratch);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::OpensSocket);
VLBENCH_REGISTER_SOLUTION(vlb::adversarial::SignalsParent);
