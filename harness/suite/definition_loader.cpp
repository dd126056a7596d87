// Loads a definition file and checks it against the operation vlbench measures: its name, its axes (constants equal
// to ModelDims) and its tensor table (names, the definition's order, dtypes, shapes), reporting the first disagreement.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "harness/core/json_value.hpp"
#include "harness/core/text_file.hpp"
#include "harness/suite/suite.hpp"
#include "harness/suite/suite_axes.hpp"

namespace vlb {

using suite_detail::expected_axes;
using suite_detail::find_expected_axis;
using suite_detail::kBatchAxis;
using suite_detail::kLangSeqAxis;
using suite_detail::kVisionSeqAxis;
using suite_detail::variable_axis_value;

namespace {

// Distinct from each other and from every constant, so that a shape entry naming the wrong axis cannot match.
constexpr ProblemShape kProbeShape{5, 7, 11};

std::string optional_string(const JsonValue& object, std::string_view key) {
  const std::optional<JsonValue> found = object.find(key);
  return found ? found->as_string() : std::string();
}

AxisDefinition parse_axis(const std::string& name, const JsonValue& value) {
  value.expect_object();
  value.reject_unknown_fields({"type", "value", "description"});
  AxisDefinition axis;
  axis.name = name;
  axis.description = optional_string(value, "description");
  const JsonValue type_node = value.at("type");
  const std::string type = type_node.as_string();
  if (type != "var" && type != "const") {
    type_node.fail(fmt::format("unknown axis type \"{}\" (expected \"var\" or \"const\")", type));
  }
  axis.is_constant = type == "const";
  if (axis.is_constant) {
    axis.value = value.at("value").as_int64();
  } else if (const std::optional<JsonValue> stray = value.find("value")) {
    stray->fail("a \"var\" axis takes its value from each workload; remove \"value\"");
  }
  return axis;
}

// Checks one axis against what this operation declares.
void check_axis(const AxisDefinition& axis, const JsonValue& value) {
  const suite_detail::ExpectedAxis* expected = find_expected_axis(axis.name);
  if (expected == nullptr) {
    std::vector<std::string_view> names;
    for (const auto& known : expected_axes()) names.push_back(known.name);
    value.fail(fmt::format("unknown axis (this operation's axes: {})", fmt::join(names, ", ")));
  }
  if (expected->is_constant != axis.is_constant) {
    value.at("type").fail(fmt::format("must be \"{}\"", expected->is_constant ? "const" : "var"));
  }
  if (expected->is_constant && axis.value != expected->value) {
    value.at("value").fail(
        fmt::format("must be {} (the model's {}), got {}", expected->value, axis.name, *axis.value));
  }
}

std::vector<AxisDefinition> parse_axes(const JsonValue& root) {
  const JsonValue axes_json = root.at("axes");
  axes_json.expect_object();
  std::vector<AxisDefinition> axes;
  for (const auto& [name, value] : axes_json.members()) {
    axes.push_back(parse_axis(name, value));
    check_axis(axes.back(), value);
  }
  for (const auto& expected : expected_axes()) {
    const bool present =
        std::any_of(axes.begin(), axes.end(), [&](const AxisDefinition& a) { return a.name == expected.name; });
    if (!present) axes_json.fail(fmt::format("axis \"{}\" is missing", expected.name));
  }
  return axes;
}

DType parse_dtype(const JsonValue& value) {
  const std::string text = value.as_string();
  for (DType dtype : {DType::kBFloat16, DType::kInt64}) {
    if (text == dtype_name(dtype)) return dtype;
  }
  value.fail(fmt::format("unknown dtype \"{}\" (expected \"bfloat16\" or \"int64\")", text));
}

TensorDefinition parse_tensor(const std::string& name, const JsonValue& value,
                              const std::vector<AxisDefinition>& axes) {
  value.expect_object();
  value.reject_unknown_fields({"shape", "dtype", "description"});
  TensorDefinition tensor;
  tensor.name = name;
  tensor.description = optional_string(value, "description");
  tensor.dtype = parse_dtype(value.at("dtype"));
  const JsonValue shape = value.at("shape");
  if (!shape.json().is_array()) shape.fail(fmt::format("must be an array of axis names, got {}", shape.brief()));
  for (const JsonValue& dimension : shape.elements()) {
    const std::string axis_name = dimension.as_string();
    const bool declared =
        std::any_of(axes.begin(), axes.end(), [&](const AxisDefinition& a) { return a.name == axis_name; });
    if (!declared) dimension.fail(fmt::format("axis \"{}\" is not declared in \"axes\"", axis_name));
    tensor.shape.push_back(axis_name);
  }
  return tensor;
}

std::int64_t axis_extent(const std::vector<AxisDefinition>& axes, const std::string& name) {
  if (auto variable = variable_axis_value(name, kProbeShape)) return *variable;
  for (const AxisDefinition& axis : axes) {
    if (axis.name == name && axis.value) return *axis.value;
  }
  return -1;
}

// "lang_seq_len" for a variable dimension, else its constant size.
std::string describe_extent(std::int64_t extent) {
  for (std::string_view name : {kBatchAxis, kLangSeqAxis, kVisionSeqAxis}) {
    if (variable_axis_value(name, kProbeShape) == extent) return fmt::format("axis \"{}\"", name);
  }
  return fmt::format("a constant axis of size {}", extent);
}

// Compares a parsed tensor with vlbench's tensor table (dtype, rank, each dimension).
void check_tensor(const TensorDefinition& tensor, const TensorSpec& spec, const JsonValue& value,
                  const std::vector<AxisDefinition>& axes) {
  if (tensor.dtype != spec.dtype) {
    value.at("dtype").fail(
        fmt::format("must be \"{}\", got \"{}\"", dtype_name(spec.dtype), dtype_name(tensor.dtype)));
  }
  const JsonValue shape = value.at("shape");
  if (tensor.shape.size() != spec.shape.size()) {
    shape.fail(fmt::format("{} has {} dimensions, the definition gives {}", spec.name, spec.shape.size(),
                           tensor.shape.size()));
  }
  const std::vector<JsonValue> dimensions = shape.elements();
  for (std::size_t d = 0; d < spec.shape.size(); ++d) {
    if (axis_extent(axes, tensor.shape[d]) != spec.shape[d]) {
      dimensions[d].fail(fmt::format("axis \"{}\" does not fit dimension {} of {}, which is {}", tensor.shape[d], d,
                                     spec.name, describe_extent(spec.shape[d])));
    }
  }
}

// Parses "inputs" or "outputs" and checks names and order against `expected` (the definition's order).
std::vector<TensorDefinition> parse_tensors(const JsonValue& root, std::string_view field,
                                            const std::vector<TensorSpec>& expected,
                                            const std::vector<AxisDefinition>& axes) {
  const JsonValue object = root.at(field);
  object.expect_object();
  std::vector<std::string_view> expected_names;
  for (const TensorSpec& spec : expected) expected_names.push_back(spec.name);
  std::vector<TensorDefinition> tensors;
  for (const auto& [name, value] : object.members()) {
    const auto position = std::find(expected_names.begin(), expected_names.end(), name);
    if (position == expected_names.end()) {
      value.fail(fmt::format("unknown tensor (expected, in this order: {})", fmt::join(expected_names, ", ")));
    }
    const std::size_t expected_index = static_cast<std::size_t>(position - expected_names.begin());
    if (expected_index != tensors.size()) {
      value.fail(fmt::format("out of order: it is entry {} here but entry {} in the definition's order ({})", tensors.size(),
                             expected_index, fmt::join(expected_names, ", ")));
    }
    tensors.push_back(parse_tensor(name, value, axes));
    check_tensor(tensors.back(), expected[expected_index], value, axes);
  }
  if (tensors.size() != expected.size()) {
    object.fail(fmt::format("\"{}\" is missing", expected_names[tensors.size()]));
  }
  return tensors;
}

// The function of the reference code that makes a workload's "custom" inputs (SOL-ExecBench calls it by name).
std::string parse_entry_point(const JsonValue& root) {
  const std::optional<JsonValue> found = root.find("custom_inputs_entrypoint");
  if (!found) return {};
  const std::string name = found->as_non_empty_string();
  const bool identifier = std::isalpha(static_cast<unsigned char>(name.front())) || name.front() == '_';
  if (!identifier || !std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      })) {
    found->fail(fmt::format("must be the name of a Python function of the reference, got \"{}\"", name));
  }
  return name;
}

void check_tags(const JsonValue& root) {
  const std::optional<JsonValue> tags = root.find("tags");
  if (!tags) return;
  if (!tags->json().is_array()) tags->fail(fmt::format("must be an array of strings, got {}", tags->brief()));
  for (const JsonValue& tag : tags->elements()) tag.as_string();
}

}  // namespace

Definition load_definition(const std::filesystem::path& path) {
  const JsonDocument document = parse_json(read_text_file(path, "definition file"), path.string());
  const JsonValue root(document, path.string());
  root.expect_object();
  root.reject_unknown_fields(
      {"name", "op_type", "description", "hf_id", "tags", "axes", "inputs", "outputs", "reference",
       "custom_inputs_entrypoint"});
  Definition definition;
  definition.path = path;
  const JsonValue name = root.at("name");
  definition.name = name.as_non_empty_string();
  if (definition.name != kDefinitionName) {
    name.fail(fmt::format("must be \"{}\" (the operation vlbench measures), got \"{}\"", kDefinitionName,
                          definition.name));
  }
  definition.op_type = root.at("op_type").as_non_empty_string();
  definition.description = root.at("description").as_string();
  root.at("hf_id").as_string();
  optional_string(root, "reference");
  definition.custom_inputs_entrypoint = parse_entry_point(root);
  check_tags(root);
  definition.axes = parse_axes(root);

  std::vector<TensorSpec> input_specs = tensor_specs(kProbeShape);
  std::vector<TensorSpec> output_specs(input_specs.begin() + kNumInputs, input_specs.end());
  input_specs.resize(kNumInputs);
  definition.inputs = parse_tensors(root, "inputs", input_specs, definition.axes);
  definition.outputs = parse_tensors(root, "outputs", output_specs, definition.axes);
  return definition;
}

}  // namespace vlb
