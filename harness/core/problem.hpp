#pragma once
// The operation's fixed dimensions, its variable shape, and the table of its tensors: the one source of truth
// that the suite validator, the input generator, the checker and the solution boundary all read.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vlb {

// SOL-ExecBench's name of the operation: the definition file's "name", and the "definition" of traces and packages.
inline constexpr std::string_view kDefinitionName = "034_vision_language_cross_attention_fusion";

struct ModelDims {
  static constexpr std::int64_t kHidden = 4096;
  static constexpr std::int64_t kNumHeads = 32;
  static constexpr std::int64_t kNumKvHeads = 8;
  static constexpr std::int64_t kHeadDim = 128;
  static constexpr std::int64_t kQProjDim = kNumHeads * kHeadDim;    // 4096
  static constexpr std::int64_t kKvProjDim = kNumKvHeads * kHeadDim; // 1024
  static constexpr std::int64_t kThwDim = 3;
  static constexpr std::int64_t kHeadsPerKvHead = kNumHeads / kNumKvHeads;  // GQA group size, 4
  static constexpr double kRopeTheta = 10000.0;
  // Sectioned 3D RoPE on K: [0,42) t, [42,84) h, [84,128) w.
  static constexpr std::array<std::int64_t, 3> kKRopeSectionWidths = {42, 42, 44};
};
static_assert(ModelDims::kNumHeads % ModelDims::kNumKvHeads == 0);
static_assert(ModelDims::kKRopeSectionWidths[0] + ModelDims::kKRopeSectionWidths[1] +
                  ModelDims::kKRopeSectionWidths[2] == ModelDims::kHeadDim);

// The variable axes: batch_size, lang_seq_len, vision_seq_len.
struct ProblemShape {
  std::int64_t batch = 0;
  std::int64_t lang_seq = 0;
  std::int64_t vision_seq = 0;

  std::int64_t lang_rows() const { return batch * lang_seq; }
  std::int64_t vision_rows() const { return batch * vision_seq; }
  bool operator==(const ProblemShape&) const = default;
};

// "B=2 Lq=256 Lv=392"
std::string describe(const ProblemShape& shape);

enum class DType { kBFloat16, kInt64 };
std::string_view dtype_name(DType dtype);  // SOL-ExecBench spelling: "bfloat16", "int64"
std::size_t dtype_bytes(DType dtype);

// The tensors in SPEC order: inputs first, then the output.
enum class TensorId : int {
  kLanguageHiddenStates = 0,
  kVisionHiddenStates,
  kLanguagePositionIds,
  kVisionGridThw,
  kQProjWeight,
  kQProjBias,
  kKProjWeight,
  kKProjBias,
  kVProjWeight,
  kVProjBias,
  kOProjWeight,
  kOutput,
};
inline constexpr int kNumInputs = 11;
inline constexpr int kNumTensors = 12;

struct TensorSpec {
  TensorId id;
  std::string_view name;  // as in the definition file
  DType dtype;
  std::vector<std::int64_t> shape;
  bool is_output = false;

  std::int64_t elements() const;
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * dtype_bytes(dtype); }
};

TensorSpec tensor_spec(TensorId id, const ProblemShape& shape);
std::vector<TensorSpec> tensor_specs(const ProblemShape& shape);  // all 12, SPEC order
std::string_view tensor_name(TensorId id);

// Per-element tolerance |out - ref| <= atol + rtol * |ref|; a case passes when at least required_match_ratio of the
// elements pass. 0.99 is what the official evaluator applies (it ignores the workload file's 0.98).
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.05;
  double required_match_ratio = 0.99;
};

}  // namespace vlb
