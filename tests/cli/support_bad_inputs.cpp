// The inputs of the bad-input table, made as the audit made them (tests/cli/bad_inputs_audit.tsv), and the runner that
// checks every row.
#include "cli/support_bad_inputs.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "harness/core/printable_text.hpp"
#include "support/process.hpp"

namespace vlb::testing {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ordered_json = nlohmann::ordered_json;

const fs::path kSource = VLBENCH_SOURCE_DIR;
const fs::path kTemplateResults = kSource / "results" / "h200" / "template.json";

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string random_bytes(std::size_t count, unsigned char first) {
  std::mt19937_64 rng(std::random_device{}());
  std::string bytes(count, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() | 0x80u);  // never valid JSON, never a NUL
  bytes[0] = static_cast<char>(first);
  return bytes;
}

void sparse_file(const fs::path& path, std::uintmax_t bytes) {
  fs::create_directories(path.parent_path());
  { std::ofstream created(path); }
  fs::resize_file(path, bytes);  // a hole: no disk space used
}

// The results file `run` with `cases`, its summary counts recomputed (so that only the change under test is wrong).
json with_cases(json run, json cases) {
  int passed = 0, skipped = 0;
  for (const json& result : cases) {
    passed += result.at("status") == "PASSED";
    skipped += result.at("status") == "SKIPPED";
  }
  run["summary"]["cases"] = cases.size();
  run["summary"]["passed"] = passed;
  run["summary"]["skipped"] = skipped;
  run["summary"]["failed"] = static_cast<int>(cases.size()) - passed - skipped;
  run["cases"] = std::move(cases);
  return run;
}

json slice(const json& cases, std::size_t begin, std::size_t end) {
  json part = json::array();
  for (std::size_t i = begin; i < end && i < cases.size(); ++i) part.push_back(cases[i]);
  return part;
}

// `text` with `"key": ` followed by `value` inserted right after the document's opening brace.
std::string with_leading_member(const std::string& text, const std::string& key, const std::string& value) {
  return "{\"" + key + "\": " + value + ", " + text.substr(text.find('{') + 1);
}

std::string partial_text(const json& run, std::size_t cases) {
  json header = run;
  header["cases"] = json::array();
  header["summary"] = nullptr;
  std::string text = header.dump() + "\n";
  for (std::size_t i = 0; i < cases; ++i) text += run["cases"][i].dump() + "\n";
  return text;
}

std::string first_workload_line() {
  std::ifstream lines(kSource / "workloads" / "workloads.jsonl");
  std::string line;
  std::getline(lines, line);
  return line;
}

void write_suites(const ScratchFolder& s) {
  const std::string line = first_workload_line();
  s.write("s_empty/w.jsonl", "");
  s.write("s_malformed/w.jsonl", line.substr(0, 100) + "\n");
  s.write("s_binary/w.jsonl", random_bytes(200, 0x99) + "\n");
  s.write("s_bom/w.jsonl", "\xEF\xBB\xBF" + line + "\n");
  s.write("s_dupe/w.jsonl", line + "\n" + line + "\n");
  json negative = json::parse(line);
  negative["workload"]["axes"]["lang_seq_len"] = -3;
  s.write("s_neg/w.jsonl", negative.dump() + "\n");
  json huge = json::parse(line);
  huge["workload"]["axes"] = {{"batch_size", 4096}, {"lang_seq_len", 1048576}, {"vision_seq_len", 392}};
  s.write("s_huge/w.jsonl", huge.dump() + "\n");
  s.write("s_noline/w.jsonl", "\n  \n\t\n");
  s.write("s_ok/w.jsonl", line + "\n");
  s.write("s_crlf/w.jsonl", line + "\r\n");
  s.write("s_json/w.json", line + "\n");
  fs::create_directories(s.file("w_loop"));
  fs::create_symlink("b.jsonl", s.file("w_loop/a.jsonl"));
  fs::create_symlink("a.jsonl", s.file("w_loop/b.jsonl"));
  sparse_file(s.file("w_huge/w.jsonl"), std::uintmax_t{1} << 30);
  json padded = json::parse(line);
  padded["pad"] = std::string(50u << 20, 'x');
  s.write("w_hugeline/w.jsonl", padded.dump() + "\n");
  json escaped = json::parse(line);
  escaped["workload"]["uuid"] = "\x1b[31m-red-\x07";
  s.write("s_escape/w.jsonl", escaped.dump() + "\n");
}

void write_definitions(const ScratchFolder& s) {
  const std::string line = first_workload_line();
  const std::string text = read_text(kSource / "workloads" / "definition.json");
  const ordered_json definition = ordered_json::parse(text);
  const auto suite_with = [&](const std::string& folder, const std::string& contents) {
    s.write(folder + "/w.jsonl", line + "\n");
    s.write(folder + "/definition.json", contents);
  };
  suite_with("d_empty", "");
  suite_with("d_trunc", text.substr(0, text.size() / 2));
  suite_with("d_bin", random_bytes(500, 0xb5));
  suite_with("d_array", "[]");
  ordered_json hidden = definition;
  hidden["axes"]["hidden_size"]["value"] = 2048;
  suite_with("d_hidden", hidden.dump(2));
  ordered_json extra = definition;
  extra["extra_field"] = 1;
  suite_with("d_extra", extra.dump(2));
  ordered_json reordered = definition;
  ordered_json inputs = ordered_json::object();
  const auto& original = definition["inputs"];
  auto it = original.begin();
  const auto first = it++;
  inputs[it.key()] = it.value();  // the second input first
  inputs[first.key()] = first.value();
  for (++it; it != original.end(); ++it) inputs[it.key()] = it.value();
  reordered["inputs"] = inputs;
  suite_with("d_order", reordered.dump(2));
  ordered_json renamed = definition;
  renamed["name"] = "other";
  suite_with("d_name", renamed.dump(2));
  suite_with("d_bom", "\xEF\xBB\xBF" + text);
  s.write("d_huge/w.jsonl", line + "\n");
  sparse_file(s.file("d_huge/definition.json"), std::uintmax_t{1} << 30);
  s.write("d_loop/w.jsonl", line + "\n");
  fs::create_symlink("definition.json", s.file("d_loop/definition.json"));
  s.write("d_dir/w.jsonl", line + "\n");
  fs::create_directories(s.file("d_dir/definition.json"));
  suite_with("ax/dd", nested(1000000));
}

// `line` with its first `from` replaced by `to`.
std::string workload_with(const std::string& line, const std::string& from, const std::string& to) {
  const std::size_t at = line.find(from);
  REQUIRE(at != std::string::npos);
  return line.substr(0, at) + to + line.substr(at + from.size());
}

void write_axis_cases(const ScratchFolder& s) {
  const std::string line = first_workload_line();
  const std::string batch = "\"batch_size\": 2";
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"b2_0", "2.0"}, {"b_2", "\"2\""}, {"b1e999", "1e999"}, {"bhuge", "99999999999999999999999"},
           {"bnull", "null"}, {"btrue", "true"}, {"bminus0", "-0"}}) {
    s.write("ax/" + name + ".jsonl", workload_with(line, batch, "\"batch_size\": " + value) + "\n");
  }
  s.write("ax/atol1e999.jsonl", workload_with(line, "\"max_atol\": 0.0098", "\"max_atol\": 1e999") + "\n");
  s.write("ax/atoln.jsonl", workload_with(line, "\"max_atol\": 0.0098", "\"max_atol\": -0.1") + "\n");
  const std::string uuid = "\"uuid\": \"d48e8b5b-db2e-598e-9168-8e5c1b78d484\"";
  s.write("ax/uuid.jsonl", workload_with(line, uuid, "\"uuid\": \"\"") + "\n");
  std::string long_uuid;
  for (int i = 0; i < 2500; ++i) long_uuid += "\xc3\xa9";  // 5000 bytes of é
  s.write("ax/uuid_long.jsonl", workload_with(line, uuid, "\"uuid\": \"" + long_uuid + "\"") + "\n");
  s.write("ax/deep.jsonl", std::string(100000, '[') + "\n");
  s.write("ax/deep2.jsonl", std::string(2000000, '[') + "\n");
  const std::string definition = "\"definition\": \"034_vision_language_cross_attention_fusion\"";
  for (const std::size_t depth : {std::size_t{1000}, std::size_t{10000}, std::size_t{50000}, std::size_t{100000},
                                  std::size_t{1000000}}) {
    s.write("ax/deep_" + std::to_string(depth) + ".jsonl",
            workload_with(line, definition, "\"definition\": " + nested(depth)) + "\n");
  }
}

void write_results_files(const ScratchFolder& s) {
  const json run = json::parse(read_text(kTemplateResults));
  const std::string text = run.dump(2);
  const auto variant = [&](const std::string& name, const std::function<void(json&)>& change) {
    json changed = run;
    change(changed);
    s.write("rf/" + name + ".json", changed.dump(2));
  };
  s.write("rf/trunc.json", text.substr(0, text.size() / 2));
  s.write("rf/garbage.json", random_bytes(4000, 0xb5));
  s.write("rf/empty.json", "");
  variant("v0", [](json& r) { r["schema_version"] = 0; });
  // The audit's "v2" was a version from the future; versions 2 and 3 are this vlbench's own now, so 4 stands for it.
  variant("v2", [](json& r) { r["schema_version"] = 4; });
  variant("schema", [](json& r) { r["schema"] = "other"; });
  variant("nosummary", [](json& r) { r.erase("summary"); });
  const std::string events = "\"event_samples_ms\": [";
  s.write("rf/nan_literal.json", workload_with(text, events, events + "NaN, "));
  variant("null_sample", [](json& r) { r["cases"][0]["timing"]["samples_ms"][0] = nullptr; });
  variant("neg_sample", [](json& r) { r["cases"][0]["timing"]["samples_ms"][0] = -1.0; });
  variant("neg_median", [](json& r) { r["cases"][0]["timing"]["stats"]["median"] = -1.0; });
  variant("zero_median", [](json& r) { r["cases"][0]["timing"]["stats"]["median"] = 0.0; });
  variant("huge_latency", [](json& r) {
    for (json& result : r["cases"]) {
      json& timing = result["timing"];
      for (const char* samples : {"samples_ms", "event_samples_ms", "cupti_samples_ms"}) {
        for (json& sample : timing[samples]) sample = sample.get<double>() * 1e300;
      }
      for (auto& [key, value] : timing["stats"].items()) {
        if (key != "count") value = value.get<double>() * 1e300;
      }
    }
  });
  const std::string samples = "\"samples_ms\": [";
  s.write("rf/inf_literal.json", workload_with(text, samples, samples + "1e999, "));
  variant("median_mismatch", [](json& r) { r["cases"][0]["timing"]["stats"]["median"] = 123.0; });
  variant("count_mismatch", [](json& r) { r["cases"][0]["timing"]["stats"]["count"] = 7; });
  variant("bad_status", [](json& r) { r["cases"][0]["status"] = "FAST"; });
  variant("summary_mismatch", [](json& r) { r["summary"]["passed"] = 15; });
  variant("dup_case", [](json& r) {
    json cases = r["cases"];
    cases.push_back(cases[0]);
    r = with_cases(r, cases);
  });
  variant("zero_shape", [](json& r) { r["cases"][0]["shape"]["batch_size"] = 0; });
  variant("no_cases", [](json& r) { r = with_cases(r, json::array()); });
  s.write("rf/bom.json", "\xEF\xBB\xBF" + text);
  s.write("rf/array.json", "[]");
  std::string nul = text;
  nul[1000] = '\0';
  s.write("rf/nul_inside.json", nul);
  fs::create_symlink("loopb.json", s.file("rf/loopa.json"));
  fs::create_symlink("loopa.json", s.file("rf/loopb.json"));
  sparse_file(s.file("rf/big.json"), std::uintmax_t{1} << 30);
  s.write("rf/deep4.json", nested(1000000));
  json without_schema = run;
  without_schema.erase("schema");
  s.write("rf/deep_schema.json", with_leading_member(without_schema.dump(), "schema", nested(200000)));
  s.write("rf/extra_deep.json", with_leading_member(run.dump(), "x", nested(1000000)));
  s.write("rf/e.jsonl", run["cases"][0].dump() + "\n" + run["cases"][1].dump() + "\n");
  s.write("rf/p.json.partial.jsonl", partial_text(run, 16));
  s.write("rf/unread.json", text);
  fs::permissions(s.file("rf/unread.json"), fs::perms::none);

  // Two files of one solution (A vs a file holding template and reference: pairs by solution).
  json multi = with_cases(run, run["cases"]);
  const json reference = json::parse(read_text(kSource / "results" / "h200" / "reference.json"));
  for (const json& result : reference["cases"]) multi["cases"].push_back(result);
  multi = with_cases(multi, multi["cases"]);
  s.write("rf/multi.json", multi.dump(2));
  json other_gpu = reference;
  other_gpu["environment"]["gpu_name"] = "NVIDIA B200";
  other_gpu["environment"]["compute_capability"] = 100;
  s.write("rf/reference_b200.json", other_gpu.dump(2));
}

void write_merge_inputs(const ScratchFolder& s) {
  const json run = json::parse(read_text(kTemplateResults));
  s.write("m/shard-0.json", with_cases(run, slice(run["cases"], 0, 8)).dump(2));
  s.write("m/shard-1.json", with_cases(run, slice(run["cases"], 8, 16)).dump(2));
  s.write("m/s0.json", with_cases(run, slice(run["cases"], 0, 8)).dump(2));
  s.write("m/s1.json", with_cases(run, slice(run["cases"], 8, 16)).dump(2));
  // Partial files: cut in the last line, garbage in the middle, the header alone, no header, nothing.
  const std::string cut = partial_text(run, 11) + run["cases"][11].dump().substr(0, 300);
  s.write("m/pcut.json.partial.jsonl", cut);
  s.write("m/rest.json", with_cases(run, slice(run["cases"], 11, 16)).dump(2));
  std::string middle = partial_text(run, 1) + "{garbage\n" + run["cases"][1].dump() + "\n";
  s.write("m/pmid.json.partial.jsonl", middle);
  s.write("m/phdr.json.partial.jsonl", partial_text(run, 0));
  s.write("m/pnohdr.json.partial.jsonl", run["cases"][0].dump() + "\n");
  s.write("m/pempty.json.partial.jsonl", "");
  s.write("m/q.partial.jsonl", partial_text(run, 8));
  // The other half of the run from another harness commit: its results do not add up with shard-0's.
  json other_commit = with_cases(run, slice(run["cases"], 8, 16));
  other_commit["git_commit"] = std::string(40, 'f');
  s.write("m/other-commit.json", other_commit.dump(2));
}

// The workload line of docs/python-cross-check.md, its files in st/.
std::string safetensors_line(const std::string& file, const std::string& position_type) {
  json line = json::parse(first_workload_line());
  json& inputs = line["workload"]["inputs"];
  for (auto& [name, descriptor] : inputs.items()) descriptor = {{"type", "random"}};
  inputs["language_position_ids"] = {{"type", position_type}, {"path", file}, {"tensor_key", "pos"}};
  inputs["vision_grid_thw"] = {{"type", position_type}, {"path", file}, {"tensor_key", "thw"}};
  if (position_type == "random") {
    inputs["language_position_ids"] = {{"type", "random"}};
    inputs["vision_grid_thw"] = {{"type", "random"}};
  }
  line["workload"]["axes"] = {{"batch_size", 1}, {"lang_seq_len", 64}, {"vision_seq_len", 196}};
  line["workload"]["uuid"] = "st-case-" + file;
  return line.dump() + "\n";
}

void write_safetensors_cases(const ScratchFolder& s) {
  s.write("st/missing.jsonl", safetensors_line("missing.safetensors", "safetensors"));
  s.write("st/garbage.jsonl", safetensors_line("garbage.safetensors", "safetensors"));
  s.write("st/garbage.safetensors", random_bytes(3000, 0xac));
  s.write("st/huge_hdr.jsonl", safetensors_line("huge_hdr.safetensors", "safetensors"));
  const std::uint64_t header_length = std::uint64_t{1} << 62;
  std::string header(reinterpret_cast<const char*>(&header_length), 8);
  s.write("st/huge_hdr.safetensors", header + "{}");
  s.write("st/c.jsonl", safetensors_line("none.safetensors", "random"));
}

void copy_workloads(const ScratchFolder& s, const std::string& name) {
  fs::copy(kSource / "workloads", s.file(name), fs::copy_options::recursive);
}

void write_workloads_dirs(const ScratchFolder& s) {
  fs::create_directories(s.file("wd_empty"));
  copy_workloads(s, "wd2");
  fs::remove(s.file("wd2/gpus.json"));
  copy_workloads(s, "wd3");
  const std::string gpus = read_text(s.file("wd3/gpus.json"));
  s.write("wd3/gpus.json", gpus.substr(0, gpus.size() / 2));
  copy_workloads(s, "wd4");
  s.write("wd4/baselines/zz-bad.json", "garbage");
  copy_workloads(s, "wd5");
  json baseline = json::parse(read_text(s.file("wd5/baselines/h200-pytorch-cudagraph.json")));
  baseline["workloads"]["d48e8b5b-db2e-598e-9168-8e5c1b78d484"]["latency_ms"] = -1;
  s.write("wd5/baselines/h200-pytorch-cudagraph.json", baseline.dump(2));
  s.write("bl_empty.json", "{}");
}

// A source tree of its own for `vlbench package` (VLBENCH_WORKLOADS_DIR={S}/pkgroot/workloads), so that a package
// written over a source file could only ever hit a copy.
void write_package_root(const ScratchFolder& s) {
  for (const char* folder : {"harness", "workloads", "solutions/template"}) {
    fs::create_directories(s.file(std::string("pkgroot/") + folder));
    fs::copy(kSource / folder, s.file(std::string("pkgroot/") + folder), fs::copy_options::recursive);
  }
}

void write_output_places(const ScratchFolder& s) {
  const std::string results = read_text(kTemplateResults);
  fs::create_directories(s.file("jdir"));
  fs::create_directories(s.file("ro"));
  fs::permissions(s.file("ro"), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                    fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  s.write("existing.md5", "d41d8cd98f00b204e9800998ecf8427e\n");
  s.write("existing/run.json", results);
  s.write("existing_real/run.json", results);
  s.write("partial/run.json.partial.jsonl", partial_text(json::parse(results), 3));
  s.write("partial_real/run.json.partial.jsonl", partial_text(json::parse(results), 3));
  s.write("out/keep.jsonl", "an earlier traces file\n");
  s.write("out/keep2.jsonl", "an earlier traces file\n");
  s.write("out/keep3.json", "an earlier merged file\n");
  s.write("out/self.json", results);
}

}  // namespace

BadInputFixtures::BadInputFixtures() {
  write_suites(scratch_);
  write_definitions(scratch_);
  write_axis_cases(scratch_);
  write_results_files(scratch_);
  write_merge_inputs(scratch_);
  write_safetensors_cases(scratch_);
  write_workloads_dirs(scratch_);
  write_output_places(scratch_);
  write_package_root(scratch_);
}

const BadInputFixtures& bad_input_fixtures() {
  static const BadInputFixtures fixtures;
  return fixtures;
}

std::vector<std::string> dry_run(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), {"-s", "template"});
  arguments.emplace_back("--dry-run");
  return arguments;
}

std::vector<std::string> no_gpu() { return {"CUDA_VISIBLE_DEVICES="}; }

namespace {

std::string substituted(std::string text, const BadInputFixtures& fixtures) {
  for (const auto& [mark, value] : {std::pair<std::string, std::string>{"{S}", fixtures.root().string()},
                                    std::pair<std::string, std::string>{"{C}", kSource.string()}}) {
    for (std::size_t at; (at = text.find(mark)) != std::string::npos;) text.replace(at, mark.size(), value);
  }
  return text;
}

// Root ignores permission bits: the rows about them run as nobody (util-linux's setpriv), as the audit ran them.
ProcessResult run_row(const BadInputRow& row, const BadInputFixtures& fixtures) {
  std::vector<std::string> arguments;
  for (const std::string& argument : row.arguments) arguments.push_back(substituted(argument, fixtures));
  std::vector<std::string> environment;
  for (const std::string& assignment : row.environment) environment.push_back(substituted(assignment, fixtures));
  std::string program = row.program == "vlbench" ? vlbench_binary() : row.program;
  if (row.unprivileged && ::geteuid() == 0) {
    arguments.insert(arguments.begin(), {"--reuid=65534", "--regid=65534", "--clear-groups", "--", program});
    program = "setpriv";
  }
  return run_process(program, arguments, environment);
}

// Every line as printable_text leaves it: no control character (a tab aside) and no invalid UTF-8.
bool printable(const std::string& output) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::erase(line, '\t');
    if (printable_text(line) != line) return false;
  }
  return true;
}

}  // namespace

void run_bad_input_rows(const std::vector<BadInputRow>& rows) {
  const BadInputFixtures& fixtures = bad_input_fixtures();
  for (const BadInputRow& row : rows) {
    const ProcessResult result = run_row(row, fixtures);
    INFO("case: " << row.name);
    INFO("output: " << printable_text(result.output.substr(0, 2000)));
    CHECK(result.exit_code == row.exit_code);
    for (const std::string& word : row.words) CHECK_THAT(result.output, Catch::Contains(substituted(word, fixtures)));
    for (const std::string& word : row.absent) CHECK_THAT(result.output, !Catch::Contains(substituted(word, fixtures)));
    CHECK_THAT(result.output, !Catch::Contains("internal error") && !Catch::Contains("json.exception"));
    CHECK(printable(result.output));
    if (row.then) row.then(fixtures);
  }
}

}  // namespace vlb::testing
