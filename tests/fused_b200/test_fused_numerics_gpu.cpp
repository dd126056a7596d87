// fused_b200's rounding points against the faithful GPU reference, with each workload's tolerance: the RoPE steps in
// fp32 or in the reference's bf16 arithmetic, on the 16 workloads, two rounds with the official positions and one
// with random ones. Prints each choice's least matched ratio per workload (NOTES.md quotes them) and requires the
// solution's default to keep 99.9%.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "harness/check/comparison.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/suite/suite.hpp"
#include "reference/gpu_reference.hpp"
#include "solutions/fused_b200/fused_operation.hpp"
#include "support/gpu_test.hpp"
#include "support_fused_device.hpp"

using namespace vlb;
using namespace vlb::fused_b200;

namespace {

constexpr double kRequiredMargin = 0.999;

struct NumericsChoice {
  const char* name;
  FusedNumerics numerics;
};
const std::array<NumericsChoice, 2> kChoices = {{
    {"rope fp32", {RopeArithmetic::kFp32}},
    {"rope bf16 (reference)", {RopeArithmetic::kReferenceBf16}},
}};

bool is_default(const FusedNumerics& numerics) { return numerics.rope == FusedNumerics{}.rope; }

FusionArgs make_args(const DeviceInputs& inputs, const DeviceBuffer& output, const DeviceBuffer& workspace,
                     cudaStream_t stream) {
  FusionArgs args;
  args.shape = inputs.shape();
  args.inputs = inputs.view();
  args.output = {output.as<bf16>(), {args.shape.batch, args.shape.lang_seq, ModelDims::kHidden}};
  args.workspace = workspace.data();
  args.workspace_bytes = workspace.bytes();
  args.stream = stream;
  return args;
}

}  // namespace

TEST_CASE("fused_b200 numerics: matched ratio of each choice of rounding points on the 16 workloads",
          "[fused_b200][numerics][gpu]") {
  if (vlb::fused_b200::testing::skip_without_fused_kernels("fused_b200 numerics")) return;
  const Suite suite = load_suite("all", default_workloads_dir());
  const int sm_count = vlb::testing::test_device().sm_count;
  vlb::testing::TestStream stream;
  reference::GpuReference reference;
  std::printf("least matched %% over 3 rounds (official, official, random positions)\n%-3s %-16s", "#", "B,Lq,Lv");
  for (const NumericsChoice& choice : kChoices) std::printf(" | %-23s", choice.name);
  std::printf("\n");
  for (std::size_t w = 0; w < suite.workloads.size(); ++w) {
    const Workload& workload = suite.workloads[w];
    const ProblemShape& shape = workload.shape;
    DeviceInputs inputs(shape);
    const std::size_t output_bytes = tensor_spec(TensorId::kOutput, shape).bytes();
    DeviceBuffer expected(output_bytes), output(output_bytes);
    DeviceBuffer reference_workspace(reference.workspace_bytes(shape));
    std::array<double, kChoices.size()> least;
    least.fill(1.0);
    for (int round = 0; round < 3; ++round) {
      const PositionPattern positions = round == 2 ? PositionPattern::kRandom : PositionPattern::kOfficial;
      inputs.generate(InputSettings{31000 + 10 * w + round, positions}, stream.get());
      reference.run(make_args(inputs, expected, reference_workspace, stream.get()));
      for (std::size_t c = 0; c < kChoices.size(); ++c) {
        const FusedOperation operation(sm_count, kChoices[c].numerics);
        const DeviceBuffer workspace(operation.workspace_bytes(shape));
        operation.run(make_args(inputs, output, workspace, stream.get()));
        const ComparisonStats stats = compare_on_device(output.as<bf16>(), expected.as<bf16>(),
                                                        shape.lang_rows() * ModelDims::kHidden, workload.tolerance,
                                                        stream.get());
        least[c] = std::min(least[c], stats.matched_ratio);
        if (is_default(kChoices[c].numerics)) {
          INFO("workload " << w << " " << describe(shape) << " round " << round << ": " << kChoices[c].name);
          CHECK(judge(stats, workload.tolerance).status == CaseStatus::kPassed);
          CHECK(stats.matched_ratio >= kRequiredMargin);
        }
      }
    }
    std::printf("%-3zu %-16s", w,
                (std::to_string(shape.batch) + "," + std::to_string(shape.lang_seq) + "," +
                 std::to_string(shape.vision_seq)).c_str());
    for (double ratio : least) std::printf(" | %22.3f%%", 100.0 * ratio);
    std::printf("\n");
  }
}
