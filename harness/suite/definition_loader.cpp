// Loads a definition file and checks it against the operation vlbench measures: its name, its axes (constants equal
// to ModelDims) and its tensor table (names, SPEC order, dtypes, shapes), reporting the first disagreement.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "harness/suite/json_diagnostics.hpp"
#include "harness/suite/suite.hpp"
#include "harness/suite/suite_axes.hpp"

namespace vlb {

using namespace suite_detail;  // the loaders are written in terms of its typed reads

namespace {

// Distinct from each other and from every constant, so that a shape entry naming the wrong axis cannot match.
constexpr ProblemShape kProbeShape{5, 7, 11};

std::string optional_string(const JsonSource& source, const Json& object, std::string_view parent,
                            std::string_view key) {
  const auto found = object.find(std::string(key));
  if (found == object.end()) return {};
  return require_string(source, *found, child_path(parent, key));
}

AxisDefinition parse_axis(const JsonSource& source, const std::string& name, const Json& value,
                          const std::string& path) {
  require_object(source, value, path);
  reject_unknown_fields(source, value, path, {"type", "value", "description"});
  AxisDefinition axis;
  axis.name = name;
  axis.description = optional_string(source, value, path, "description");
  const std::string type = string_field(source, value, path, "type");
  if (type != "var" && type != "const") {
    source.fail(child_path(path, "type"),
                fmt::format("unknown axis type \"{}\" (expected \"var\" or \"const\")", type));
  }
  axis.is_constant = type == "const";
  const bool has_value = value.contains("value");
  if (axis.is_constant) {
    axis.value = require_integer(source, require_field(source, value, path, "value"), child_path(path, "value"));
  } else if (has_value) {
    source.fail(child_path(path, "value"), "a \"var\" axis takes its value from each workload; remove \"value\"");
  }
  return axis;
}

// Checks one axis against what this operation declares.
void check_axis(const JsonSource& source, const AxisDefinition& axis, const std::string& path) {
  const ExpectedAxis* expected = find_expected_axis(axis.name);
  if (expected == nullptr) {
    std::vector<std::string_view> names;
    for (const auto& known : expected_axes()) names.push_back(known.name);
    source.fail(path, fmt::format("unknown axis (this operation's axes: {})", fmt::join(names, ", ")));
  }
  if (expected->is_constant != axis.is_constant) {
    source.fail(child_path(path, "type"), fmt::format("must be \"{}\"", expected->is_constant ? "const" : "var"));
  }
  if (expected->is_constant && axis.value != expected->value) {
    source.fail(child_path(path, "value"),
                fmt::format("must be {} (the model's {}), got {}", expected->value, axis.name, *axis.value));
  }
}

std::vector<AxisDefinition> parse_axes(const JsonSource& source, const Json& root) {
  const Json& axes_json = object_field(source, root, "", "axes");
  std::vector<AxisDefinition> axes;
  for (const auto& [name, value] : axes_json.items()) {
    const std::string path = child_path("axes", name);
    axes.push_back(parse_axis(source, name, value, path));
    check_axis(source, axes.back(), path);
  }
  for (const auto& expected : expected_axes()) {
    const bool present =
        std::any_of(axes.begin(), axes.end(), [&](const AxisDefinition& a) { return a.name == expected.name; });
    if (!present) source.fail("axes", fmt::format("axis \"{}\" is missing", expected.name));
  }
  return axes;
}

DType parse_dtype(const JsonSource& source, const Json& value, const std::string& path) {
  const std::string text = require_string(source, value, path);
  for (DType dtype : {DType::kBFloat16, DType::kInt64}) {
    if (text == dtype_name(dtype)) return dtype;
  }
  source.fail(path, fmt::format("unknown dtype \"{}\" (expected \"bfloat16\" or \"int64\")", text));
}

TensorDefinition parse_tensor(const JsonSource& source, const std::string& name, const Json& value,
                              const std::string& path, const std::vector<AxisDefinition>& axes) {
  require_object(source, value, path);
  reject_unknown_fields(source, value, path, {"shape", "dtype", "description"});
  TensorDefinition tensor;
  tensor.name = name;
  tensor.description = optional_string(source, value, path, "description");
  tensor.dtype = parse_dtype(source, require_field(source, value, path, "dtype"), child_path(path, "dtype"));
  const std::string shape_path = child_path(path, "shape");
  const Json& shape = require_field(source, value, path, "shape");
  if (!shape.is_array()) source.fail(shape_path, fmt::format("must be an array of axis names, got {}", show(shape)));
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::string axis_name = require_string(source, shape[d], element_path(shape_path, d));
    const bool declared =
        std::any_of(axes.begin(), axes.end(), [&](const AxisDefinition& a) { return a.name == axis_name; });
    if (!declared)
      source.fail(element_path(shape_path, d), fmt::format("axis \"{}\" is not declared in \"axes\"", axis_name));
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
void check_tensor(const JsonSource& source, const TensorDefinition& tensor, const TensorSpec& spec,
                  const std::string& path, const std::vector<AxisDefinition>& axes) {
  if (tensor.dtype != spec.dtype) {
    source.fail(child_path(path, "dtype"),
                fmt::format("must be \"{}\", got \"{}\"", dtype_name(spec.dtype), dtype_name(tensor.dtype)));
  }
  const std::string shape_path = child_path(path, "shape");
  if (tensor.shape.size() != spec.shape.size()) {
    source.fail(shape_path, fmt::format("{} has {} dimensions, the definition gives {}", spec.name, spec.shape.size(),
                                        tensor.shape.size()));
  }
  for (std::size_t d = 0; d < spec.shape.size(); ++d) {
    if (axis_extent(axes, tensor.shape[d]) != spec.shape[d]) {
      source.fail(element_path(shape_path, d),
                  fmt::format("axis \"{}\" does not fit dimension {} of {}, which is {}", tensor.shape[d], d, spec.name,
                              describe_extent(spec.shape[d])));
    }
  }
}

// Parses "inputs" or "outputs" and checks names and order against `expected` (SPEC order).
std::vector<TensorDefinition> parse_tensors(const JsonSource& source, const Json& root, std::string_view field,
                                            const std::vector<TensorSpec>& expected,
                                            const std::vector<AxisDefinition>& axes) {
  const std::string field_path(field);
  const Json& object = require_object(source, require_field(source, root, "", field), field_path);
  std::vector<std::string_view> expected_names;
  for (const TensorSpec& spec : expected) expected_names.push_back(spec.name);
  std::vector<TensorDefinition> tensors;
  for (const auto& [name, value] : object.items()) {
    const std::string path = child_path(field_path, name);
    const auto position = std::find(expected_names.begin(), expected_names.end(), name);
    if (position == expected_names.end()) {
      source.fail(path, fmt::format("unknown tensor (expected, in this order: {})", fmt::join(expected_names, ", ")));
    }
    const std::size_t expected_index = static_cast<std::size_t>(position - expected_names.begin());
    if (expected_index != tensors.size()) {
      source.fail(path, fmt::format("out of order: it is entry {} here but entry {} in SPEC order ({})", tensors.size(),
                                    expected_index, fmt::join(expected_names, ", ")));
    }
    tensors.push_back(parse_tensor(source, name, value, path, axes));
    check_tensor(source, tensors.back(), expected[expected_index], path, axes);
  }
  if (tensors.size() != expected.size()) {
    source.fail(field_path, fmt::format("\"{}\" is missing", expected_names[tensors.size()]));
  }
  return tensors;
}

void check_tags(const JsonSource& source, const Json& root) {
  const auto tags = root.find("tags");
  if (tags == root.end()) return;
  if (!tags->is_array()) source.fail("tags", fmt::format("must be an array of strings, got {}", show(*tags)));
  for (std::size_t i = 0; i < tags->size(); ++i) require_string(source, (*tags)[i], element_path("tags", i));
}

}  // namespace

Definition load_definition(const std::filesystem::path& path) {
  const JsonSource source{path, 0};
  const Json root = parse_json(source, read_text_file(path, "definition file"));
  require_object(source, root, "");
  reject_unknown_fields(source, root, "",
                        {"name", "op_type", "description", "hf_id", "tags", "axes", "inputs", "outputs", "reference"});
  Definition definition;
  definition.path = path;
  definition.name = require_non_empty_string(source, require_field(source, root, "", "name"), "name");
  if (definition.name != kDefinitionName) {
    source.fail("name", fmt::format("must be \"{}\" (the operation vlbench measures), got \"{}\"", kDefinitionName,
                                    definition.name));
  }
  definition.op_type = require_non_empty_string(source, require_field(source, root, "", "op_type"), "op_type");
  definition.description = string_field(source, root, "", "description");
  string_field(source, root, "", "hf_id");
  optional_string(source, root, "", "reference");
  check_tags(source, root);
  definition.axes = parse_axes(source, root);

  std::vector<TensorSpec> input_specs = tensor_specs(kProbeShape);
  std::vector<TensorSpec> output_specs(input_specs.begin() + kNumInputs, input_specs.end());
  input_specs.resize(kNumInputs);
  definition.inputs = parse_tensors(source, root, "inputs", input_specs, definition.axes);
  definition.outputs = parse_tensors(source, root, "outputs", output_specs, definition.axes);
  return definition;
}

}  // namespace vlb
