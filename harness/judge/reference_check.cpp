#include "harness/judge/reference_check.hpp"

#include <fmt/format.h>

#include <map>

#include "harness/check/comparison.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/report/case_dump.hpp"
#include "harness/worker/solution_call.hpp"
#include "reference/gpu_reference.hpp"

namespace vlb {

namespace {

std::size_t output_bytes(const ProblemShape& shape) { return tensor_spec(TensorId::kOutput, shape).bytes(); }

}  // namespace

ReferenceCheck::ReferenceCheck(const Case& test_case, cudaStream_t stream)
    : test_case_(test_case),
      stream_(stream),
      source_(test_case.workload, test_case.shape, stream),
      inputs_(test_case.shape),
      reference_(std::make_unique<reference::GpuReference>()),
      snapshot_(output_bytes(test_case.shape)),
      reference_output_(output_bytes(test_case.shape)),
      reference_workspace_(reference_->workspace_bytes(test_case.shape)) {}

ReferenceCheck::~ReferenceCheck() = default;

std::size_t ReferenceCheck::bytes_needed(const ProblemShape& shape) {
  return DeviceInputs(shape).total_bytes() + 2 * output_bytes(shape) + reference::GpuReference().workspace_bytes(shape);
}

void ReferenceCheck::compute(const InputSettings& settings) {
  std::array<void*, kNumInputs> destinations{};
  for (int i = 0; i < kNumInputs; ++i) destinations[i] = inputs_.data(static_cast<TensorId>(i));
  source_.fill(settings, destinations, stream_);
  FusionArgs args = make_fusion_args(test_case_.shape, inputs_.view(), reference_output_.as<bf16>(),
                                     reference_workspace_.data(), reference_workspace_.bytes(), stream_);
  reference_->run(args);
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void ReferenceCheck::take_snapshot(const void* output, std::size_t bytes) {
  VLB_CUDA_CHECK(cudaMemcpyAsync(snapshot_.data(), output, bytes, cudaMemcpyDeviceToDevice, stream_));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

// As the official evaluator: a NaN or Inf in the reference output fails the case, whatever the solution wrote.
std::string ReferenceCheck::non_finite_reference() const {
  const std::int64_t elements = tensor_spec(TensorId::kOutput, test_case_.shape).elements();
  const ComparisonStats self = compare_on_device(reference_output_.as<bf16>(), reference_output_.as<bf16>(), elements,
                                                 test_case_.tolerance, stream_);
  if (self.nan_count == 0 && self.inf_count == 0) return {};
  return fmt::format("the reference output has {} NaN and {} Inf elements (of {}): the case fails, as in the "
                     "official evaluator", self.nan_count, self.inf_count, elements);
}

CorrectnessRound ReferenceCheck::judge(const InputSettings& settings, std::optional<double> max_abs_error_cap) const {
  CorrectnessRound round;
  round.seed = settings.seed;
  round.positions = std::string(position_pattern_name(settings.positions));
  if (const std::string bad = non_finite_reference(); !bad.empty()) {
    round.status = CaseStatus::kIncorrectNumerical;
    round.reason = bad;
    return round;
  }
  const std::int64_t elements = tensor_spec(TensorId::kOutput, test_case_.shape).elements();
  round.stats = compare_on_device(snapshot_.as<bf16>(), reference_output_.as<bf16>(), elements, test_case_.tolerance,
                                  stream_);
  const Verdict verdict = vlb::judge(round.stats, test_case_.tolerance, max_abs_error_cap);
  round.status = verdict.status;
  round.reason = verdict.reason;
  return round;
}

void ReferenceCheck::dump(const std::filesystem::path& folder, const std::string& solution,
                          const CorrectnessRound& round) const {
  const std::map<std::string, std::string> metadata = {{"uuid", test_case_.uuid},
                                                       {"solution", solution},
                                                       {"seed", std::to_string(round.seed)},
                                                       {"positions", round.positions},
                                                       {"status", std::string(status_name(round.status))}};
  write_case_dump(dump_file_name(folder, test_case_.uuid, test_case_.shape), inputs_, snapshot_.data(),
                  reference_output_.data(), metadata, stream_);
}

}  // namespace vlb
