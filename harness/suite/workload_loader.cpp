// Loads a workload JSONL: one JSON object per line, each checked on its own against the definition; errors name the
// file, the line and the field.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/text_file.hpp"
#include "harness/suite/suite.hpp"
#include "harness/suite/suite_axes.hpp"

namespace vlb {

using suite_detail::kBatchAxis;
using suite_detail::kLangSeqAxis;
using suite_detail::kVisionSeqAxis;

namespace {

ProblemShape parse_axes(const JsonValue& workload, const Definition& definition) {
  const JsonValue axes = workload.at("axes");
  for (const auto& [name, value] : axes.members()) {
    const auto declared = std::find_if(definition.axes.begin(), definition.axes.end(),
                                       [&](const AxisDefinition& axis) { return axis.name == name; });
    if (declared == definition.axes.end()) {
      value.fail(fmt::format("unknown axis (the workload sets {}, {} and {})", kBatchAxis, kLangSeqAxis,
                             kVisionSeqAxis));
    }
    if (declared->is_constant) {
      value.fail(fmt::format("is a constant of the definition ({}); only variable axes belong in a workload",
                             declared->value.value_or(0)));
    }
  }
  const ProblemShape shape{axes.at(kBatchAxis).as_positive_int64(), axes.at(kLangSeqAxis).as_positive_int64(),
                           axes.at(kVisionSeqAxis).as_positive_int64()};
  if (auto violation = suite_detail::shape_limit_violation(shape)) axes.fail(*violation);
  return shape;
}

InputDescriptor parse_descriptor(const JsonValue& value, const TensorDefinition& tensor,
                                 const std::filesystem::path& folder) {
  value.expect_object();
  const JsonValue type = value.at("type");
  InputDescriptor descriptor;
  descriptor.type = type.as_string();
  if (descriptor.type == "random") {
    value.reject_unknown_fields({"type"});
    if (tensor.dtype == DType::kInt64) {
      type.fail(fmt::format("{} is an int64 position tensor, which random values would not make valid: use "
                            "\"custom\" (with every input custom) or \"safetensors\"",
                            tensor.name));
    }
  } else if (descriptor.type == "custom") {
    value.reject_unknown_fields({"type"});
  } else if (descriptor.type == "safetensors") {
    value.reject_unknown_fields({"type", "path", "tensor_key"});
    descriptor.path = folder / std::filesystem::path(value.at("path").as_non_empty_string());
    descriptor.tensor_key = value.at("tensor_key").as_non_empty_string();
  } else {
    type.fail(fmt::format("unknown input type \"{}\" (expected \"random\", \"custom\" or \"safetensors\")",
                          descriptor.type));
  }
  return descriptor;
}

// SOL-ExecBench's rule: "custom" inputs are made together by the definition's custom_inputs_entrypoint, so when any
// input is custom, all are, and the definition must name that function.
void check_custom_inputs(const JsonValue& inputs, const std::map<std::string, InputDescriptor>& descriptors,
                         const Definition& definition) {
  std::vector<std::string> custom, other;
  for (const TensorDefinition& tensor : definition.inputs) {
    (descriptors.at(tensor.name).type == "custom" ? custom : other).push_back(tensor.name);
  }
  if (custom.empty()) return;
  if (!other.empty()) {
    inputs.fail(fmt::format("mixes \"custom\" inputs ({}) with others ({}): when any input is custom, all must be "
                            "(SOL-ExecBench makes them together with the definition's custom_inputs_entrypoint)",
                            fmt::join(custom, ", "), fmt::join(other, ", ")));
  }
  if (definition.custom_inputs_entrypoint.empty()) {
    inputs.fail(fmt::format("\"custom\" inputs need the function that makes them, but the definition {} names no "
                            "custom_inputs_entrypoint",
                            definition.path.string()));
  }
}

std::map<std::string, InputDescriptor> parse_inputs(const JsonValue& workload, const Definition& definition,
                                                    const std::filesystem::path& folder) {
  const JsonValue inputs = workload.at("inputs");
  std::vector<std::string_view> names;
  for (const TensorDefinition& tensor : definition.inputs) names.push_back(tensor.name);
  for (const auto& [name, value] : inputs.members()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      value.fail(fmt::format("unknown input (the definition's inputs: {})", fmt::join(names, ", ")));
    }
  }
  std::map<std::string, InputDescriptor> descriptors;
  for (const TensorDefinition& tensor : definition.inputs) {
    const JsonValue descriptor = inputs.at(tensor.name, "required input descriptor is missing");
    descriptors[tensor.name] = parse_descriptor(descriptor, tensor, folder);
  }
  check_custom_inputs(inputs, descriptors, definition);
  return descriptors;
}

void parse_tolerance(const JsonValue& workload, Workload& result) {
  const JsonValue tolerance = workload.at("tolerance");
  tolerance.reject_unknown_fields({"max_atol", "max_rtol", "required_matched_ratio", "required_match_ratio"});
  auto read_non_negative = [&](std::string_view key) {
    const JsonValue value = tolerance.at(key);
    const double number = value.as_finite_number();
    if (number < 0.0) value.fail(fmt::format("must be >= 0, got {}", number));
    return number;
  };
  result.tolerance.atol = read_non_negative("max_atol");
  result.tolerance.rtol = read_non_negative("max_rtol");
  auto read_ratio = [&](std::string_view key) -> std::optional<double> {
    const std::optional<JsonValue> ratio = tolerance.find(key);
    if (!ratio) return std::nullopt;
    const double number = ratio->as_finite_number();
    if (!(number > 0.0 && number <= 1.0)) ratio->fail(fmt::format("must lie in (0, 1], got {}", number));
    return number;
  };
  // SOL-ExecBench reads required_matched_ratio (default 0.99) and ignores the official files' required_match_ratio
  // (0.98): the first is applied, the second only recorded (docs/suite-format.md, "Tolerance").
  if (const auto applied = read_ratio("required_matched_ratio")) result.tolerance.required_match_ratio = *applied;
  result.file_required_match_ratio = read_ratio("required_match_ratio");
}

// SOL-ExecBench's workload lines may carry a solution name and an evaluation; vlbench only checks their type.
void check_null_or(const JsonValue& root, std::string_view key, bool allow_string, bool allow_object) {
  const std::optional<JsonValue> found = root.find(key);
  if (!found || found->is_null()) return;
  if ((allow_string && found->json().is_string()) || (allow_object && found->json().is_object())) return;
  found->fail(fmt::format("must be null{}, got {}", allow_string ? " or a string" : " or an object", found->brief()));
}

// `folder`: the workload file's folder, against which safetensors paths are resolved.
Workload parse_workload(const JsonValue& root, int line, const Definition& definition,
                        const std::filesystem::path& folder) {
  root.expect_object();
  root.reject_unknown_fields({"definition", "solution", "workload", "evaluation"});
  const JsonValue definition_name = root.at("definition");
  const std::string name = definition_name.as_string();
  if (name != definition.name) {
    definition_name.fail(fmt::format("names \"{}\", but the definition file {} defines \"{}\"", name,
                                     definition.path.string(), definition.name));
  }
  check_null_or(root, "solution", true, false);
  check_null_or(root, "evaluation", false, true);

  const JsonValue workload = root.at("workload");
  workload.reject_unknown_fields({"uuid", "axes", "inputs", "tolerance"});
  Workload result;
  result.line = line;
  result.uuid = workload.at("uuid").as_non_empty_string();
  result.shape = parse_axes(workload, definition);
  result.inputs = parse_inputs(workload, definition, folder);
  parse_tolerance(workload, result);
  return result;
}

bool is_blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

}  // namespace

std::vector<Workload> load_workloads(const std::filesystem::path& path, const Definition& definition) {
  const std::string text = read_text_file(path, "workload file");
  std::vector<Workload> workloads;
  std::map<std::string, int> line_of_uuid;
  std::size_t start = 0;
  for (int line_number = 1; start < text.size(); ++line_number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (is_blank(line)) continue;
    const std::string source = fmt::format("{}:{}", path.string(), line_number);
    const JsonDocument document = parse_json(line, source);
    const JsonValue root(document, source);
    workloads.push_back(parse_workload(root, line_number, definition, path.parent_path()));
    const auto [previous, inserted] = line_of_uuid.emplace(workloads.back().uuid, line_number);
    if (!inserted) {
      root.at("workload").at("uuid").fail(fmt::format("duplicate uuid \"{}\" (first used on line {})",
                                                      workloads.back().uuid, previous->second));
    }
  }
  if (workloads.empty()) {
    throw InputError(
        fmt::format("{}: the workload file holds no workloads; write one JSON object per line "
                    "(see docs/suite-format.md)",
                    path.string()));
  }
  return workloads;
}

}  // namespace vlb
