#include "harness/worker/python/python_worker.hpp"

#include <array>
#include <optional>
#include <string>

#include "harness/worker/solution_call.hpp"
#include "harness/worker/worker_session.hpp"

namespace vlb {
namespace {

constexpr int kLoaded = 0, kUnsupported = 1;
constexpr std::size_t kMessageBytes = 16384;  // a traceback's last lines

template <class T, int Rank>
VlbPyTensor tensor_of(const TensorRef<T, Rank>& ref, VlbPyDtype dtype) {
  VlbPyTensor tensor{reinterpret_cast<std::uint64_t>(ref.data), dtype, Rank, {1, 1, 1}};
  for (int d = 0; d < Rank; ++d) tensor.shape[d] = ref.shape[static_cast<std::size_t>(d)];
  return tensor;
}

VlbPyCall call_of(const FusionArgs& args) {
  const FusionInputs& in = args.inputs;
  return {{tensor_of(in.language_hidden_states, kVlbPyBfloat16), tensor_of(in.vision_hidden_states, kVlbPyBfloat16),
           tensor_of(in.language_position_ids, kVlbPyInt64), tensor_of(in.vision_grid_thw, kVlbPyInt64),
           tensor_of(in.q_proj_weight, kVlbPyBfloat16), tensor_of(in.q_proj_bias, kVlbPyBfloat16),
           tensor_of(in.k_proj_weight, kVlbPyBfloat16), tensor_of(in.k_proj_bias, kVlbPyBfloat16),
           tensor_of(in.v_proj_weight, kVlbPyBfloat16), tensor_of(in.v_proj_bias, kVlbPyBfloat16),
           tensor_of(in.o_proj_weight, kVlbPyBfloat16), tensor_of(args.output, kVlbPyBfloat16)}};
}

// One Python package's entry point, called through the Python side's callbacks.
class PythonSolution final : public Solution {
 public:
  PythonSolution(const VlbPyCallbacks& callbacks, std::optional<std::string> unsupported)
      : callbacks_(callbacks), unsupported_(std::move(unsupported)) {}
  std::size_t workspace_bytes(const ProblemShape&) const override { return 0; }  // torch's allocator serves it
  std::optional<std::string> unsupported_reason(const DeviceInfo&, const ProblemShape&) const override {
    return unsupported_;
  }
  void prepare(const FusionArgs& args) {
    const VlbPyCall call = call_of(args);
    std::array<char, kMessageBytes> message{};
    if (callbacks_.prepare(&call, message.data(), message.size()) != 0) throw SolutionFault(message.data());
  }
  void run(const FusionArgs&) override {
    std::array<char, kMessageBytes> message{};
    if (callbacks_.run(message.data(), message.size()) != 0) throw SolutionFault(message.data());
  }

 private:
  VlbPyCallbacks callbacks_;
  std::optional<std::string> unsupported_;
};

OpenedSolution open_python_solution(const VlbPyCallbacks& callbacks, const protocol::LoadMessage& load,
                                    cudaStream_t stream, int device) {
  std::array<char, kMessageBytes> message{};
  const int status =
      callbacks.load(load.module.c_str(), load.entry_point.c_str(), load.extension.c_str(),
                     load.destination_passing_style ? 1 : 0, device, reinterpret_cast<std::uint64_t>(stream),
                     message.data(), message.size());
  if (status != kLoaded && status != kUnsupported) throw SolutionFault(message.data());
  std::optional<std::string> unsupported;
  if (status == kUnsupported) unsupported = message.data();
  auto* solution = new PythonSolution(callbacks, std::move(unsupported));
  OpenedSolution opened;
  opened.solution = SolutionPtr(solution, [](Solution* s) { delete s; });
  opened.prepare_call = [solution](const FusionArgs& args) { solution->prepare(args); };
  return opened;
}

}  // namespace
}  // namespace vlb

extern "C" const char* vlbench_python_abi() {
  static const std::string abi = vlb::solution_module_abi() + "-python-2";
  return abi.c_str();
}

extern "C" int vlbench_python_serve(int channel_fd, int handshake_fd, const char* scratch, const char* shared_cache,
                                    int device, const VlbPyCallbacks* callbacks) {
  const VlbPyCallbacks copied = *callbacks;
  return vlb::serve_judge(channel_fd, handshake_fd, {scratch, shared_cache}, device,
                          [copied, device](const vlb::protocol::LoadMessage& load, cudaStream_t stream) {
                            return vlb::open_python_solution(copied, load, stream, device);
                          });
}
