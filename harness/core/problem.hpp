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
};
static_assert(ModelDims::kNumHeads % ModelDims::kNumKvHeads == 0);

// The sectioned 3D RoPE of K (docs/operation.md step 3): head_dim is cut into three contiguous sections, t [0,42), h [42,84),
// w [84,128). Each is rotated on its own by its component of vision_grid_thw: rotate-half inside the section, pairs
// (start + i, start + i + width/2) for i < width/2, frequencies theta^(-2i / width). Pairs (and their angles) are
// numbered section after section: 0..20 t, 21..41 h, 42..63 w. The one definition for the reference, the solutions and
// the tests; constexpr functions of scalars rather than arrays, so that device code can call them at run time (the
// build passes --expt-relaxed-constexpr).
struct KRopeSections {
  static constexpr int kCount = 3;  // t, h, w: the components of vision_grid_thw, in that order
  static constexpr int kWidthT = 42;
  static constexpr int kWidthH = 42;
  static constexpr int kWidthW = 44;

  static constexpr int width(int section) { return section == 0 ? kWidthT : (section == 1 ? kWidthH : kWidthW); }
  static constexpr int start(int section) { return section == 0 ? 0 : (section == 1 ? kWidthT : kWidthT + kWidthH); }
  static constexpr int pairs(int section) { return width(section) / 2; }
  static constexpr int first_pair(int section) { return start(section) / 2; }
  // The section holding head dimension `dim` (0..127), and the one holding pair `pair` (0..63).
  static constexpr int section_of_dim(int dim) { return dim < start(1) ? 0 : (dim < start(2) ? 1 : 2); }
  static constexpr int section_of_pair(int pair) { return pair < first_pair(1) ? 0 : (pair < first_pair(2) ? 1 : 2); }
};
static_assert(KRopeSections::kWidthT % 2 == 0 && KRopeSections::kWidthH % 2 == 0 && KRopeSections::kWidthW % 2 == 0,
              "rotate-half needs even sections");
static_assert(KRopeSections::start(2) + KRopeSections::width(2) == ModelDims::kHeadDim,
              "the sections cover the head exactly");

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

// The tensors in the definition's order: inputs first, then the output.
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
std::vector<TensorSpec> tensor_specs(const ProblemShape& shape);  // all 12, the definition's order
std::string_view tensor_name(TensorId id);

// Per-element tolerance |out - ref| <= atol + rtol * |ref|; a case passes when at least required_match_ratio of the
// elements pass. 0.99 is what the official evaluator applies (it ignores the workload file's 0.98).
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.05;
  double required_match_ratio = 0.99;
};

}  // namespace vlb
