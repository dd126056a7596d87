// Every invalid workload line is an InputError naming the file, the line number and the field.
#include <catch2/catch.hpp>

#include <functional>

#include "harness/suite/suite.hpp"
#include "suite/suite_test_files.hpp"

using namespace vlb;
using vlb::testing::OrderedJson;
using vlb::testing::ScratchFolder;

namespace {

const Definition& builtin_definition() {
  static const Definition definition = load_definition(vlb::testing::source_workloads_dir() / "definition.json");
  return definition;
}

// A file of four workloads, a blank line after the second, with the workload on `line` (4 or 5) changed by
// `mutate`. The changed workload's file line is `line`.
std::string file_with_mutation(int line, const std::function<void(OrderedJson&)>& mutate) {
  auto lines = vlb::testing::builtin_workload_lines();
  std::vector<OrderedJson> chosen = {lines[0], lines[1], lines[2], lines[3]};
  mutate(chosen[line == 4 ? 2 : 3]);
  return chosen[0].dump() + "\n" + chosen[1].dump() + "\n   \n" + chosen[2].dump() + "\n" + chosen[3].dump() + "\n";
}

void require_rejected(const std::function<void(OrderedJson&)>& mutate, const std::vector<std::string>& fragments,
                      int line = 5) {
  ScratchFolder folder;
  const auto file = folder.write("workloads.jsonl", file_with_mutation(line, mutate));
  std::vector<std::string> expected = fragments;
  expected.push_back(file.string() + ":" + std::to_string(line) + ": ");
  vlb::testing::require_input_error([&] { load_workloads(file, builtin_definition()); }, expected);
}

// A workload line with no custom input (SOL-ExecBench forbids mixing): the bfloat16 inputs random, the positions
// read from a file.
void without_custom_inputs(OrderedJson& w) {
  for (const char* name : {"language_hidden_states", "vision_hidden_states", "q_proj_weight", "q_proj_bias",
                           "k_proj_weight", "k_proj_bias", "v_proj_weight", "v_proj_bias", "o_proj_weight"}) {
    w["workload"]["inputs"][name] = {{"type", "random"}};
  }
  w["workload"]["inputs"]["language_position_ids"] = {
      {"type", "safetensors"}, {"path", "positions.safetensors"}, {"tensor_key", "language"}};
  w["workload"]["inputs"]["vision_grid_thw"] = {
      {"type", "safetensors"}, {"path", "positions.safetensors"}, {"tensor_key", "grid"}};
}

}  // namespace

TEST_CASE("workloads: blank lines are skipped and lines are counted in the file", "[suite][workloads]") {
  ScratchFolder folder;
  const auto file = folder.write("workloads.jsonl", file_with_mutation(5, [](OrderedJson&) {}));
  const auto workloads = load_workloads(file, builtin_definition());
  REQUIRE(workloads.size() == 4);
  CHECK(workloads[0].line == 1);
  CHECK(workloads[1].line == 2);
  CHECK(workloads[2].line == 4);
  CHECK(workloads[3].line == 5);
}

TEST_CASE("workloads: the example of the brief reads as promised", "[suite][workloads]") {
  ScratchFolder folder;
  auto lines = vlb::testing::builtin_workload_lines();
  std::vector<OrderedJson> chosen(lines.begin(), lines.begin() + 7);
  chosen[6]["workload"]["axes"]["lang_seq_len"] = -3;
  const auto file = folder.write("workloads.jsonl", vlb::testing::join_lines(chosen));
  vlb::testing::require_input_error(
      [&] { load_workloads(file, builtin_definition()); },
      {file.string() + ":7: workload.axes.lang_seq_len: must be a positive integer, got -3"});
}

TEST_CASE("workloads: top-level fields", "[suite][workloads]") {
  require_rejected([](OrderedJson& w) { w["definition"] = "033_other"; }, {"definition: names \"033_other\""});
  require_rejected([](OrderedJson& w) { w.erase("definition"); }, {"definition: required field is missing"});
  require_rejected([](OrderedJson& w) { w.erase("workload"); }, {"workload: required field is missing"});
  require_rejected([](OrderedJson& w) { w["trace"] = nullptr; }, {"trace: unknown field"});
  require_rejected([](OrderedJson& w) { w["solution"] = 5; }, {"solution: must be null or a string"});
  require_rejected([](OrderedJson& w) { w["evaluation"] = "passed"; }, {"evaluation: must be null or an object"});
  require_rejected([](OrderedJson& w) { w = OrderedJson::array(); }, {"must be a JSON object"}, 4);
  require_rejected([](OrderedJson& w) { w["workload"]["notes"] = "x"; }, {"workload.notes: unknown field"});
  require_rejected([](OrderedJson& w) { w["workload"].erase("uuid"); }, {"workload.uuid: required field is missing"});
  require_rejected([](OrderedJson& w) { w["workload"]["uuid"] = ""; }, {"workload.uuid: must be a non-empty string"});
  require_rejected([](OrderedJson& w) { w["workload"]["uuid"] = 7; }, {"workload.uuid: must be a string"});
}

TEST_CASE("workloads: a line that is not JSON names its line", "[suite][workloads]") {
  ScratchFolder folder;
  auto lines = vlb::testing::builtin_workload_lines();
  const auto file = folder.write("w.jsonl", lines[0].dump() + "\n" + "{\"definition\": \"034\", \n" + lines[1].dump());
  vlb::testing::require_input_error([&] { load_workloads(file, builtin_definition()); },
                                    {file.string() + ":2: ", "not valid JSON"});
}

TEST_CASE("workloads: axes must be the positive, sane variable axes", "[suite][workloads]") {
  require_rejected([](OrderedJson& w) { w["workload"]["axes"]["batch_size"] = 0; },
                   {"workload.axes.batch_size: must be a positive integer, got 0"});
  require_rejected([](OrderedJson& w) { w["workload"]["axes"]["batch_size"] = 2.5; },
                   {"workload.axes.batch_size: must be a positive integer, got 2.5"});
  require_rejected([](OrderedJson& w) { w["workload"]["axes"]["vision_seq_len"] = "784"; },
                   {"workload.axes.vision_seq_len: must be a positive integer, got \"784\""}, 4);
  require_rejected([](OrderedJson& w) { w["workload"]["axes"].erase("vision_seq_len"); },
                   {"workload.axes.vision_seq_len: required field is missing"});
  require_rejected([](OrderedJson& w) { w["workload"]["axes"]["num_frames"] = 2; },
                   {"workload.axes.num_frames: unknown axis"});
  require_rejected([](OrderedJson& w) { w["workload"]["axes"]["hidden_size"] = 4096; },
                   {"workload.axes.hidden_size: is a constant of the definition"});
  require_rejected([](OrderedJson& w) { w["workload"]["axes"]["batch_size"] = 5000; },
                   {"workload.axes: ", "batch_size = 5000 exceeds the limit of 4096"});
  require_rejected([](OrderedJson& w) { w["workload"]["axes"]["lang_seq_len"] = 1 << 21; },
                   {"workload.axes: ", "lang_seq_len = 2097152 exceeds"});
  require_rejected([](OrderedJson& w) { w["workload"]["axes"]["vision_seq_len"] = 1 << 21; },
                   {"workload.axes: ", "vision_seq_len = 2097152 exceeds"});
  require_rejected(
      [](OrderedJson& w) {
        w["workload"]["axes"]["batch_size"] = 4096;
        w["workload"]["axes"]["lang_seq_len"] = 1 << 17;
      },
      {"workload.axes: ", "language_hidden_states would hold", "elements"});
  require_rejected(
      [](OrderedJson& w) {
        w["workload"]["axes"] = OrderedJson::array({2, 128, 196});
      },
      {"workload.axes: must be a JSON object"});
}

TEST_CASE("workloads: inputs must name every definition input with a known type", "[suite][workloads]") {
  require_rejected([](OrderedJson& w) { w["workload"]["inputs"].erase("q_proj_bias"); },
                   {"workload.inputs.q_proj_bias: required input descriptor is missing"});
  require_rejected(
      [](OrderedJson& w) {
        w["workload"]["inputs"]["attention_mask"] = {{"type", "random"}};
      },
      {"workload.inputs.attention_mask: unknown input"});
  require_rejected([](OrderedJson& w) { w["workload"]["inputs"]["q_proj_weight"]["type"] = "zeros"; },
                   {"workload.inputs.q_proj_weight.type: unknown input type \"zeros\""});
  require_rejected([](OrderedJson& w) { w["workload"]["inputs"]["q_proj_weight"].erase("type"); },
                   {"workload.inputs.q_proj_weight.type: required field is missing"});
  require_rejected(
      [](OrderedJson& w) {
        without_custom_inputs(w);
        w["workload"]["inputs"]["language_position_ids"] = {{"type", "random"}};
      },
      {"workload.inputs.language_position_ids.type", "not make valid", "\"custom\""});
  require_rejected([](OrderedJson& w) { w["workload"]["inputs"]["v_proj_bias"]["seed"] = 3; },
                   {"workload.inputs.v_proj_bias.seed: unknown field"});
  require_rejected([](OrderedJson& w) { w["workload"]["inputs"]["v_proj_bias"] = "random"; },
                   {"workload.inputs.v_proj_bias: must be a JSON object"});
  require_rejected(
      [](OrderedJson& w) {
        w["workload"]["inputs"]["k_proj_weight"] = {{"type", "safetensors"}, {"tensor_key", "k"}};
      },
      {"workload.inputs.k_proj_weight.path: required field is missing"});
  require_rejected(
      [](OrderedJson& w) {
        w["workload"]["inputs"]["k_proj_weight"] = {{"type", "safetensors"}, {"path", "w.safetensors"}};
      },
      {"workload.inputs.k_proj_weight.tensor_key: required field is missing"});
  require_rejected(
      [](OrderedJson& w) {
        w["workload"]["inputs"]["k_proj_weight"] = {{"type", "safetensors"}, {"path", ""}, {"tensor_key", "k"}};
      },
      {"workload.inputs.k_proj_weight.path: must be a non-empty string"});
}

TEST_CASE("workloads: when any input is custom, all are, and the definition names the entry point",
          "[suite][workloads]") {
  require_rejected([](OrderedJson& w) { w["workload"]["inputs"]["q_proj_weight"] = {{"type", "random"}}; },
                   {"workload.inputs: mixes \"custom\" inputs (language_hidden_states", "with others (q_proj_weight)",
                    "when any input is custom, all must be"});
  require_rejected(
      [](OrderedJson& w) {
        w["workload"]["inputs"]["o_proj_weight"] = {
            {"type", "safetensors"}, {"path", "w.safetensors"}, {"tensor_key", "o"}};
      },
      {"workload.inputs: mixes", "with others (o_proj_weight)"});

  // Without the entry point in the definition, custom inputs have nothing to make them.
  Definition definition = builtin_definition();
  definition.custom_inputs_entrypoint.clear();
  ScratchFolder folder;
  const auto file = folder.write("w.jsonl", vlb::testing::join_lines({vlb::testing::builtin_workload_lines()[0]}));
  vlb::testing::require_input_error([&] { load_workloads(file, definition); },
                                    {file.string() + ":1: workload.inputs", "names no custom_inputs_entrypoint"});
  // A workload without custom inputs needs none.
  auto line = vlb::testing::builtin_workload_lines()[0];
  without_custom_inputs(line);
  const auto plain = folder.write("plain.jsonl", vlb::testing::join_lines({line}));
  CHECK(load_workloads(plain, definition).size() == 1);
}

TEST_CASE("workloads: SOL-ExecBench's required_matched_ratio is applied, required_match_ratio only recorded",
          "[suite][workloads]") {
  ScratchFolder folder;
  auto line = vlb::testing::builtin_workload_lines()[0];
  line["workload"]["tolerance"]["required_matched_ratio"] = 0.995;
  const auto file = folder.write("w.jsonl", vlb::testing::join_lines({line}));
  const auto workloads = load_workloads(file, builtin_definition());
  CHECK(workloads.at(0).tolerance.required_match_ratio == 0.995);
  CHECK(workloads.at(0).file_required_match_ratio == 0.98);
  require_rejected([](OrderedJson& w) { w["workload"]["tolerance"]["required_matched_ratio"] = 1.5; },
                   {"workload.tolerance.required_matched_ratio: must lie in (0, 1], got 1.5"});
}

TEST_CASE("workloads: a safetensors path is resolved against the workload file's folder", "[suite][workloads]") {
  ScratchFolder folder;
  auto lines = vlb::testing::builtin_workload_lines();
  without_custom_inputs(lines[0]);
  lines[0]["workload"]["inputs"]["vision_grid_thw"] = {
      {"type", "safetensors"}, {"path", "data/grid.safetensors"}, {"tensor_key", "grid"}};
  const auto file = folder.write("w.jsonl", vlb::testing::join_lines({lines[0]}));
  const auto workloads = load_workloads(file, builtin_definition());
  const InputDescriptor& grid = workloads.at(0).inputs.at("vision_grid_thw");
  CHECK(grid.type == "safetensors");
  CHECK(grid.path == folder.path() / "data" / "grid.safetensors");
  CHECK(grid.tensor_key == "grid");
  CHECK_FALSE(workloads.at(0).inputs.at("q_proj_weight").path.has_value());
}

TEST_CASE("workloads: tolerances must be in range", "[suite][workloads]") {
  require_rejected([](OrderedJson& w) { w["workload"]["tolerance"]["max_atol"] = -0.1; },
                   {"workload.tolerance.max_atol: must be >= 0, got -0.1"});
  require_rejected([](OrderedJson& w) { w["workload"]["tolerance"]["max_rtol"] = -1; },
                   {"workload.tolerance.max_rtol: must be >= 0"});
  require_rejected([](OrderedJson& w) { w["workload"]["tolerance"]["max_atol"] = "0.01"; },
                   {"workload.tolerance.max_atol: must be a number"});
  require_rejected([](OrderedJson& w) { w["workload"]["tolerance"]["required_match_ratio"] = 0; },
                   {"workload.tolerance.required_match_ratio: must lie in (0, 1], got 0"});
  require_rejected([](OrderedJson& w) { w["workload"]["tolerance"]["required_match_ratio"] = 1.5; },
                   {"workload.tolerance.required_match_ratio: must lie in (0, 1], got 1.5"});
  require_rejected([](OrderedJson& w) { w["workload"]["tolerance"].erase("max_rtol"); },
                   {"workload.tolerance.max_rtol: required field is missing"});
  require_rejected([](OrderedJson& w) { w["workload"].erase("tolerance"); },
                   {"workload.tolerance: required field is missing"});
  require_rejected([](OrderedJson& w) { w["workload"]["tolerance"]["max_abs"] = 1; },
                   {"workload.tolerance.max_abs: unknown field"});
}

TEST_CASE("workloads: the file's match ratio is recorded, 0.99 applied; atol and rtol are taken",
          "[suite][workloads]") {
  ScratchFolder folder;
  auto lines = vlb::testing::builtin_workload_lines();
  lines[0]["workload"]["tolerance"] = {{"max_atol", 0.25}, {"max_rtol", 0.125}, {"required_match_ratio", 1.0}};
  lines[1]["workload"]["tolerance"].erase("required_match_ratio");
  const auto file = folder.write("w.jsonl", vlb::testing::join_lines({lines[0], lines[1]}));
  const auto workloads = load_workloads(file, builtin_definition());
  CHECK(workloads[0].tolerance.atol == 0.25);
  CHECK(workloads[0].tolerance.rtol == 0.125);
  CHECK(workloads[0].tolerance.required_match_ratio == 0.99);
  CHECK(workloads[0].file_required_match_ratio == 1.0);
  CHECK_FALSE(workloads[1].file_required_match_ratio.has_value());
}

TEST_CASE("workloads: a duplicate uuid names both lines", "[suite][workloads]") {
  require_rejected([](OrderedJson& w) { w["workload"]["uuid"] = "d48e8b5b-db2e-598e-9168-8e5c1b78d484"; },
                   {"workload.uuid: duplicate uuid \"d48e8b5b-db2e-598e-9168-8e5c1b78d484\"", "first used on line 1"});
}

TEST_CASE("workloads: an empty or blank file is rejected, a missing one names its path", "[suite][workloads]") {
  ScratchFolder folder;
  const auto empty = folder.write("empty.jsonl", "");
  vlb::testing::require_input_error([&] { load_workloads(empty, builtin_definition()); },
                                    {empty.string(), "holds no workloads"});
  const auto blank = folder.write("blank.jsonl", "\n  \n\t\n");
  vlb::testing::require_input_error([&] { load_workloads(blank, builtin_definition()); },
                                    {blank.string(), "holds no workloads"});
  const auto missing = folder.path() / "missing.jsonl";
  vlb::testing::require_input_error([&] { load_workloads(missing, builtin_definition()); },
                                    {missing.string(), "not found"});
}
