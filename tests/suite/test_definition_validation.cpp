// Every disagreement between a definition file and vlbench's tensor table is an InputError naming file and JSON path.
#include <catch2/catch.hpp>

#include <functional>

#include "harness/suite/suite.hpp"
#include "suite/suite_test_files.hpp"

using namespace vlb;
using vlb::testing::OrderedJson;
using vlb::testing::ScratchFolder;

namespace {

// Writes the built-in definition changed by `mutate` and requires load_definition to reject it, naming the file
// and every fragment.
void require_rejected(const std::function<void(OrderedJson&)>& mutate, const std::vector<std::string>& fragments) {
  ScratchFolder folder;
  OrderedJson definition = vlb::testing::builtin_definition_json();
  mutate(definition);
  const auto file = folder.write("definition.json", definition.dump(2));
  std::vector<std::string> expected = fragments;
  expected.push_back(file.string() + ": ");
  vlb::testing::require_input_error([&] { load_definition(file); }, expected);
}

// Rebuilds an ordered object with the entries `first` and `second` swapped.
OrderedJson swapped(const OrderedJson& object, const std::string& first, const std::string& second) {
  OrderedJson result = OrderedJson::object();
  for (const auto& [key, value] : object.items()) {
    const std::string& name = key == first ? second : (key == second ? first : key);
    result[name] = object.at(name);
  }
  return result;
}

}  // namespace

TEST_CASE("the unchanged built-in definition loads", "[suite][definition]") {
  ScratchFolder folder;
  const auto file = folder.write("definition.json", vlb::testing::builtin_definition_json().dump());
  const Definition definition = load_definition(file);
  CHECK(definition.path == file);
  CHECK(definition.op_type == "attention");
}

TEST_CASE("definition: top-level fields", "[suite][definition]") {
  require_rejected([](OrderedJson& d) { d.erase("name"); }, {"name: required field is missing"});
  require_rejected([](OrderedJson& d) { d["name"] = "035_other_problem"; }, {"name: must be", "035_other_problem"});
  require_rejected([](OrderedJson& d) { d["name"] = 34; }, {"name: must be a string"});
  require_rejected([](OrderedJson& d) { d.erase("op_type"); }, {"op_type: required field is missing"});
  require_rejected([](OrderedJson& d) { d.erase("hf_id"); }, {"hf_id: required field is missing"});
  require_rejected([](OrderedJson& d) { d["version"] = 2; }, {"version: unknown field"});
  require_rejected([](OrderedJson& d) { d["tags"] = "vision"; }, {"tags: must be an array"});
  require_rejected([](OrderedJson& d) { d["reference"] = OrderedJson::array(); }, {"reference: must be a string"});
  require_rejected([](OrderedJson& d) { d["custom_inputs_entrypoint"] = ""; },
                   {"custom_inputs_entrypoint: must be a non-empty string"});
  require_rejected([](OrderedJson& d) { d["custom_inputs_entrypoint"] = "make inputs()"; },
                   {"custom_inputs_entrypoint: must be the name of a Python function", "make inputs()"});
  require_rejected([](OrderedJson& d) { d["custom_inputs_entrypoint"] = "2fast"; },
                   {"custom_inputs_entrypoint: must be the name"});
  require_rejected([](OrderedJson& d) { d = OrderedJson::array(); }, {"must be a JSON object"});
}

TEST_CASE("definition: the custom-inputs entry point is read", "[suite][definition]") {
  ScratchFolder folder;
  auto document = vlb::testing::builtin_definition_json();
  CHECK(load_definition(folder.write("a.json", document.dump())).custom_inputs_entrypoint == "make_inputs");
  document.erase("custom_inputs_entrypoint");
  CHECK(load_definition(folder.write("b.json", document.dump())).custom_inputs_entrypoint.empty());
}

TEST_CASE("definition: a file that is not JSON names the file and the parse error", "[suite][definition]") {
  ScratchFolder folder;
  const auto file = folder.write("definition.json", "{\n  \"name\": \"034\",\n  \"axes\": {,}\n}\n");
  vlb::testing::require_input_error([&] { load_definition(file); }, {file.string(), "not valid JSON", "line 3"});
}

TEST_CASE("definition: axes must be this operation's, constants equal to ModelDims", "[suite][definition]") {
  require_rejected([](OrderedJson& d) { d["axes"]["hidden_size"]["value"] = 2048; },
                   {"axes.hidden_size.value", "must be 4096", "2048"});
  require_rejected([](OrderedJson& d) { d["axes"]["num_key_value_heads"]["value"] = 4; },
                   {"axes.num_key_value_heads.value", "must be 8"});
  require_rejected([](OrderedJson& d) { d["axes"]["head_dim"]["value"] = "128"; },
                   {"axes.head_dim.value: must be an integer"});
  require_rejected([](OrderedJson& d) { d["axes"]["head_dim"].erase("value"); },
                   {"axes.head_dim.value: required field is missing"});
  require_rejected([](OrderedJson& d) { d["axes"]["head_dim"]["type"] = "var"; }, {"axes.head_dim.value"});
  require_rejected(
      [](OrderedJson& d) {
        d["axes"]["thw_dim"] = {{"type", "var"}};
      },
      {"axes.thw_dim.type", "\"const\""});
  require_rejected([](OrderedJson& d) { d["axes"]["batch_size"]["type"] = "dynamic"; },
                   {"axes.batch_size.type", "unknown axis type \"dynamic\""});
  require_rejected([](OrderedJson& d) { d["axes"]["batch_size"]["value"] = 2; }, {"axes.batch_size.value", "var"});
  require_rejected(
      [](OrderedJson& d) {
        d["axes"]["lang_seq_len"] = {{"type", "const"}, {"value", 7}};
      },
      {"axes.lang_seq_len.type", "\"var\""});
  require_rejected(
      [](OrderedJson& d) {
        d["axes"]["num_frames"] = {{"type", "var"}};
      },
      {"axes.num_frames: unknown axis", "batch_size"});
  require_rejected([](OrderedJson& d) { d["axes"].erase("thw_dim"); }, {"axes: ", "\"thw_dim\" is missing"});
  require_rejected([](OrderedJson& d) { d["axes"]["head_dim"]["unit"] = "dims"; },
                   {"axes.head_dim.unit: unknown field"});
  require_rejected([](OrderedJson& d) { d["axes"] = OrderedJson::array(); }, {"axes: must be a JSON object"});
}

TEST_CASE("definition: inputs must be the tensor table in the definition's order", "[suite][definition]") {
  require_rejected([](OrderedJson& d) { d["inputs"] = swapped(d["inputs"], "q_proj_weight", "q_proj_bias"); },
                   {"inputs.q_proj_bias: out of order", "entry 4 here but entry 5"});
  require_rejected([](OrderedJson& d) { d["inputs"].erase("o_proj_weight"); },
                   {"inputs: ", "\"o_proj_weight\" is missing"});
  require_rejected([](OrderedJson& d) { d["inputs"]["attention_mask"] = d["inputs"]["q_proj_bias"]; },
                   {"inputs.attention_mask: unknown tensor"});
  require_rejected([](OrderedJson& d) { d["inputs"]["k_proj_bias"]["dtype"] = "int64"; },
                   {"inputs.k_proj_bias.dtype", "must be \"bfloat16\""});
  require_rejected([](OrderedJson& d) { d["inputs"]["vision_grid_thw"]["dtype"] = "bfloat16"; },
                   {"inputs.vision_grid_thw.dtype", "must be \"int64\""});
  require_rejected([](OrderedJson& d) { d["inputs"]["q_proj_weight"]["dtype"] = "float16"; },
                   {"inputs.q_proj_weight.dtype", "unknown dtype \"float16\""});
  require_rejected([](OrderedJson& d) { d["inputs"]["k_proj_weight"]["shape"][0] = "q_proj_dim"; },
                   {"inputs.k_proj_weight.shape[0]", "q_proj_dim", "1024"});
  require_rejected([](OrderedJson& d) { d["inputs"]["language_hidden_states"]["shape"][1] = "vision_seq_len"; },
                   {"inputs.language_hidden_states.shape[1]", "lang_seq_len"});
  require_rejected([](OrderedJson& d) { d["inputs"]["vision_grid_thw"]["shape"].erase(2); },
                   {"inputs.vision_grid_thw.shape", "3 dimensions"});
  require_rejected([](OrderedJson& d) { d["inputs"]["q_proj_bias"]["shape"][0] = "num_q_dims"; },
                   {"inputs.q_proj_bias.shape[0]", "not declared"});
  require_rejected([](OrderedJson& d) { d["inputs"]["q_proj_bias"]["shape"] = "q_proj_dim"; },
                   {"inputs.q_proj_bias.shape: must be an array"});
  require_rejected([](OrderedJson& d) { d["inputs"]["q_proj_bias"]["shape"][0] = 4096; },
                   {"inputs.q_proj_bias.shape[0]: must be a string"});
  require_rejected([](OrderedJson& d) { d["inputs"]["q_proj_bias"].erase("dtype"); },
                   {"inputs.q_proj_bias.dtype: required field is missing"});
  require_rejected([](OrderedJson& d) { d["inputs"]["q_proj_bias"]["layout"] = "row"; },
                   {"inputs.q_proj_bias.layout: unknown field"});
}

TEST_CASE("definition: the single output must match", "[suite][definition]") {
  require_rejected([](OrderedJson& d) { d["outputs"]["output"]["dtype"] = "int64"; }, {"outputs.output.dtype"});
  require_rejected([](OrderedJson& d) { d["outputs"]["output"]["shape"][2] = "kv_proj_dim"; },
                   {"outputs.output.shape[2]"});
  require_rejected([](OrderedJson& d) { d["outputs"]["attention_weights"] = d["outputs"]["output"]; },
                   {"outputs.attention_weights: unknown tensor"});
  require_rejected([](OrderedJson& d) { d["outputs"] = OrderedJson::object(); },
                   {"outputs: ", "\"output\" is missing"});
}
