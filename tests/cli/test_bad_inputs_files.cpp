// Issue 24, the audit's output paths and results files: no command destroys a file it did not create in the run,
// an unwritable output is exit 2, and a results file is validated as a whole before compare, merge or export use it.
// Each case of tests/cli/bad_inputs_audit.tsv with its exit code and words (the runner is in support_bad_inputs.cpp).
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/support_bad_inputs.hpp"
#include "support/scratch_folder.hpp"

namespace vlb::testing {

namespace {

namespace fs = std::filesystem;

const std::string kTemplate = "{C}/results/h200/template.json";
const std::string kDeeper = "objects and arrays nest deeper than 512 levels";

std::string template_text() { return read_text(fs::path(VLBENCH_SOURCE_DIR) / "results" / "h200" / "template.json"); }

// `name` (under the scratch folder) still holds `text`, and no PATH.~1~ was made beside it.
std::function<void(const BadInputFixtures&)> untouched(const std::string& name, std::function<std::string()> text) {
  return [name, text](const BadInputFixtures& f) {
    CHECK(read_text(f.file(name)) == text());
    CHECK_FALSE(fs::exists(f.file(name + ".~1~")));
  };
}

std::vector<std::string> compare_with_template(const std::string& file) {
  return {"compare", "{S}/" + file, kTemplate};
}
std::vector<std::string> merge_into(const std::vector<std::string>& files, const std::string& output) {
  std::vector<std::string> arguments = {"merge"};
  for (const std::string& file : files) arguments.push_back("{S}/" + file);
  arguments.insert(arguments.end(), {"-o", "{S}/" + output});
  return arguments;
}
std::vector<std::string> export_of(const std::string& results, const std::string& output) {
  return {"export", results, "-o", output};
}

}  // namespace

std::vector<BadInputRow> output_path_rows() {
  const auto no_folder = [](const std::string& folder) { return "no file can be created in folder " + folder + ": "; };
  return {
      {"--json unwritable /proc", 2, {"cannot write results to /proc/x.json: " + no_folder("/proc")},
       dry_run({"--json", "/proc/x.json"})},
      {"--json into /sys", 2, {"cannot write results to /sys/x.json: " + no_folder("/sys")},
       dry_run({"--json", "/sys/x.json"})},
      {"--json is directory", 2, {"cannot write results to {S}/jdir: it is a folder; give a file name"},
       dry_run({"--json", "{S}/jdir"})},
      {"--json dir trailing slash", 2, {"cannot write results to {S}/jdir/: it is a folder"},
       dry_run({"--json", "{S}/jdir/"})},
      {"--json empty string", 2, {"--json needs a file for the results of a run"}, dry_run({"--json", ""})},
      {"--json existing (dry-run)", 0,
       {"Results: {S}/existing/run.json", "{S}/existing/run.json exists: a run keeps it as {S}/existing/run.json.~1~"},
       dry_run({"--json", "{S}/existing/run.json"}), "vlbench", {}, false, {},
       untouched("existing/run.json", template_text)},
      {"--json existing (real run, no GPU)", 3, {"no CUDA GPU found"},
       {"-s", "template", "-c", "0", "--json", "{S}/existing_real/run.json"}, "vlbench", no_gpu(), false, {},
       untouched("existing_real/run.json", template_text)},
      {"export -o /proc/x", 2, {"cannot write traces to /proc/x.jsonl: " + no_folder("/proc")},
       export_of(kTemplate, "/proc/x.jsonl")},
      {"export -o /sys/x", 2, {"cannot write traces to /sys/x.jsonl: " + no_folder("/sys")},
       export_of(kTemplate, "/sys/x.jsonl")},
      {"merge -o /sys/x", 2, {"cannot write results to /sys/x.json: " + no_folder("/sys")},
       {"merge", "{S}/m/shard-0.json", "-o", "/sys/x.json"}},
      {"package -o /sys/x", 2, {"cannot write the package to /sys/x.json: " + no_folder("/sys")},
       {"package", "-s", "template", "-o", "/sys/x.json"}},
      {"export -o dir", 2, {"cannot write traces to {S}/jdir: it is an existing folder"},
       export_of(kTemplate, "{S}/jdir")},
      {"merge -o dir", 2, {"cannot write results to {S}/jdir: it is an existing folder"},
       merge_into({"m/shard-0.json"}, "jdir")},
      {"package -o dir", 2, {"cannot write the package to {S}/jdir: it is an existing folder"},
       {"package", "-s", "template", "-o", "{S}/jdir"}},
      {"export -o missing dir", 2, {"cannot write traces to {S}/nodir/x.jsonl: folder {S}/nodir does not exist"},
       export_of(kTemplate, "{S}/nodir/x.jsonl")},
      {"--dump to file", 2, {"cannot dump into {S}/existing.md5: it is not a writable folder"},
       dry_run({"--dump", "{S}/existing.md5"})},
      {"--dump /sys", 2, {"cannot dump into /sys: it is not a writable folder"}, dry_run({"--dump", "/sys"})},
      {"real run --json missing folder (no GPU)", 2,
       {"cannot write results to /nonexist/x.json: folder /nonexist does not exist"},
       {"-s", "template", "-c", "0", "--json", "/nonexist/x.json"}, "vlbench", no_gpu()},
      {"real run --json /sys (no GPU)", 2, {"cannot write results to /sys/x.json: " + no_folder("/sys")},
       {"-s", "template", "-c", "0", "--json", "/sys/x.json"}, "vlbench", no_gpu()},
      {"nonroot --json ro folder dry-run", 2,
       {"cannot write results to {S}/ro/x.json: " + no_folder("{S}/ro") + "Permission denied"},
       dry_run({"--json", "{S}/ro/x.json"}), "vlbench", {}, true},
      {"nonroot export -o ro folder", 2,
       {"cannot write traces to {S}/ro/x.jsonl: " + no_folder("{S}/ro") + "Permission denied"},
       export_of(kTemplate, "{S}/ro/x.jsonl"), "vlbench", {}, true},
      {"nonroot merge -o ro folder", 2,
       {"cannot write results to {S}/ro/x.json: " + no_folder("{S}/ro") + "Permission denied"},
       merge_into({"m/shard-0.json"}, "ro/x.json"), "vlbench", {}, true},
      {"nonroot --dump ro folder dry-run", 2, {"cannot dump into {S}/ro/d: it cannot be created under {S}/ro"},
       dry_run({"--dump", "{S}/ro/d"}), "vlbench", {}, true},
      {"nonroot --dump ro folder itself", 2, {"cannot dump into {S}/ro: it is not a writable folder"},
       dry_run({"--dump", "{S}/ro"}), "vlbench", {}, true},
      {"nonroot compare unreadable", 2, {"cannot read results file {S}/rf/unread.json: Permission denied"},
       compare_with_template("rf/unread.json"), "vlbench", {}, true},
      {"export over existing", 0,
       {"wrote 16 trace(s) to {S}/out/keep.jsonl", "kept the earlier {S}/out/keep.jsonl as {S}/out/keep.jsonl.~1~"},
       export_of(kTemplate, "{S}/out/keep.jsonl"), "vlbench", {}, false, {},
       [](const BadInputFixtures& f) {
         CHECK(read_text(f.file("out/keep.jsonl.~1~")) == "an earlier traces file\n");
         CHECK(read_text(f.file("out/keep.jsonl")).find("\"definition\"") == 1);
       }},
      {"export bad input over existing", 2, {"rf/garbage.json: not valid JSON"},
       export_of("{S}/rf/garbage.json", "{S}/out/keep2.jsonl"), "vlbench", {}, false, {},
       untouched("out/keep2.jsonl", [] { return std::string("an earlier traces file\n"); })},
      {"merge bad over existing", 2, {"rf/garbage.json: not valid JSON"},
       merge_into({"rf/garbage.json"}, "out/keep3.json"),
       "vlbench", {}, false, {}, untouched("out/keep3.json", [] { return std::string("an earlier merged file\n"); })},
      {"export -o input file itself", 2,
       {"cannot write traces to {S}/out/self.json: it is also the results file it exports"},
       export_of("{S}/out/self.json", "{S}/out/self.json"), "vlbench", {}, false, {},
       untouched("out/self.json", template_text)},
      {"run with earlier partial present (no GPU)", 3, {"no CUDA GPU found"},
       {"-s", "template", "-c", "0", "--json", "{S}/partial_real/run.json"}, "vlbench", no_gpu(), false, {},
       [](const BadInputFixtures& f) {
         CHECK(fs::exists(f.file("partial_real/run.json.partial.jsonl")));
         CHECK_FALSE(fs::exists(f.file("partial_real/run.json.partial.jsonl.~1~")));
       }},
      {"dry-run with earlier partial present", 0,
       {"{S}/partial/run.json.partial.jsonl exists (a run that did not finish left it): a run keeps it as "
        "{S}/partial/run.json.partial.jsonl.~1~"},
       dry_run({"--json", "{S}/partial/run.json"})},
      {"--json = the suite file", 2,
       {"cannot write results to {S}/s_ok/w.jsonl: it is also the suite's workload file"},
       dry_run({"--suite", "{S}/s_ok/w.jsonl", "--json", "{S}/s_ok/w.jsonl"})},
      {"--json = --baseline file", 2, {"it is also a baseline table"},
       dry_run({"--baseline", "{C}/workloads/baselines/h200-pytorch-cudagraph.json", "--json",
                "{C}/workloads/baselines/h200-pytorch-cudagraph.json"})},
      {"--dump = --json path", 2, {"--dump {S}/out/dj and --json {S}/out/dj name the same path"},
       dry_run({"--dump", "{S}/out/dj", "--json", "{S}/out/dj"})},
      {"merge -o = partial input", 2,
       {"cannot write results to {S}/m/q.partial.jsonl: it is also one of the files it merges"},
       merge_into({"m/q.partial.jsonl"}, "m/q.partial.jsonl"), "vlbench", {}, false, {},
       [](const BadInputFixtures& f) { CHECK_FALSE(fs::exists(f.file("m/q.partial.jsonl.~1~"))); }},
  };
}

std::vector<BadInputRow> results_file_rows() {
  return {
      {"compare trunc", 2, {"rf/trunc.json: not valid JSON: line "}, compare_with_template("rf/trunc.json")},
      {"compare garbage", 2, {"rf/garbage.json: not valid JSON: column 1: invalid literal; last read: '\\xb5'"},
       compare_with_template("rf/garbage.json")},
      {"compare empty", 2, {"rf/empty.json: not valid JSON: it is empty"}, compare_with_template("rf/empty.json")},
      {"compare v0", 2, {"rf/v0.json: schema_version: unsupported schema version 0"},
       compare_with_template("rf/v0.json")},
      {"compare v2", 2, {"rf/v2.json: schema_version: unsupported schema version 4"},
       compare_with_template("rf/v2.json")},
      {"compare schema", 2, {"rf/schema.json: schema: expected \"vlbench-results\", found \"other\""},
       compare_with_template("rf/schema.json")},
      {"compare nosummary", 2, {"rf/nosummary.json: summary: required field is missing"},
       compare_with_template("rf/nosummary.json")},
      {"compare nan_literal", 2, {"rf/nan_literal.json: not valid JSON: line ", "invalid literal"},
       compare_with_template("rf/nan_literal.json")},
      {"compare null_sample", 2, {"rf/null_sample.json: cases[0].timing.samples_ms: sample 0 is null: a latency is a "
                                  "finite, non-negative number of milliseconds"},
       compare_with_template("rf/null_sample.json")},
      {"compare neg_sample", 2, {"rf/neg_sample.json: cases[0].timing.samples_ms: sample 0 is -1: a latency is"},
       compare_with_template("rf/neg_sample.json")},
      {"compare neg_median", 2, {"rf/neg_median.json: cases[0].timing.stats.median: is -1: a PASSED case's median"},
       compare_with_template("rf/neg_median.json")},
      {"compare zero_median", 2, {"rf/zero_median.json: cases[0].timing.stats.median: is 0: a PASSED case's median"},
       compare_with_template("rf/zero_median.json")},
      {"compare huge_latency", 2,
       {"rf/huge_latency.json: cases[0].timing.samples_ms: sample 0 is ", "an impossible latency"},
       compare_with_template("rf/huge_latency.json")},
      {"compare inf_literal", 2,
       {"rf/inf_literal.json: cases[0].timing.samples_ms[0]: the number 1e999 is out of range"},
       compare_with_template("rf/inf_literal.json")},
      {"compare median_mismatch", 2,
       {"rf/median_mismatch.json: cases[0].timing.stats.median: is 123 but the 50 samples of samples_ms give"},
       compare_with_template("rf/median_mismatch.json")},
      {"compare count_mismatch", 2, {"rf/count_mismatch.json: cases[0].timing.stats.count: is 7 but samples_ms holds"},
       compare_with_template("rf/count_mismatch.json")},
      {"compare bad_status", 2, {"rf/bad_status.json: cases[0].status: unknown status 'FAST'"},
       compare_with_template("rf/bad_status.json")},
      {"compare summary_mismatch", 2, {"rf/summary_mismatch.json: summary.passed: is 15 but the cases array holds 16"},
       compare_with_template("rf/summary_mismatch.json")},
      {"compare dup_case", 2,
       {"rf/dup_case.json: cases[16]: #0 d48e8b5b of solution 'template' is listed twice (cases[0] and cases[16])"},
       compare_with_template("rf/dup_case.json")},
      {"compare zero_shape", 2, {"rf/zero_shape.json: cases[0].shape.batch_size: must be positive"},
       compare_with_template("rf/zero_shape.json")},
      {"compare no_cases", 2, {"rf/no_cases.json and ", "share no timed case, so nothing was compared"},
       compare_with_template("rf/no_cases.json")},
      {"compare bom", 0, {"B is faster on 0, slower on 0, the same on 16 of 16 cases"},
       compare_with_template("rf/bom.json")},
      {"compare array", 2, {"rf/array.json: must be a JSON object, got an array"},
       compare_with_template("rf/array.json")},
      {"compare nul_inside", 2, {"rf/nul_inside.json: not valid JSON: a NUL byte at line "},
       compare_with_template("rf/nul_inside.json")},
      {"compare loopa", 2, {"cannot read results file {S}/rf/loopa.json: it is a symbolic link that leads in a loop"},
       compare_with_template("rf/loopa.json")},
      {"compare 1GB", 2, {"cannot read results file {S}/rf/big.json: it holds 1.0 GiB, more than the 256.0 MiB"},
       compare_with_template("rf/big.json")},
      {"compare dir", 2, {"cannot read results file {S}/jdir: it is a folder, not a file"},
       compare_with_template("jdir")},
      {"compare missing", 2, {"cannot read results file {S}/nonexist.json: not found (no such file)"},
       compare_with_template("nonexist.json")},
      {"compare 1M nested array file", 2, {"rf/deep4.json: [0][0][0]", kDeeper},
       compare_with_template("rf/deep4.json")},
      {"compare schema=200k-deep array", 2, {"rf/deep_schema.json: schema[0][0]", kDeeper},
       compare_with_template("rf/deep_schema.json")},
      {"compare results w/ 1M nested extra key", 2, {"rf/extra_deep.json: x[0][0]", kDeeper},
       compare_with_template("rf/extra_deep.json")},
      {"compare A A", 0, {"B is faster on 0, slower on 0, the same on 16 of 16 cases"},
       {"compare", kTemplate, kTemplate}},
      {"compare different solutions w/ multi-solution file", 0, {"template", "the same on 16 of 16 cases"},
       compare_with_template("rf/multi.json")},
      {"compare results with traces file", 2,
       {"rf/e.jsonl: not valid JSON: line 2, column 1: another value follows the end of the document"},
       compare_with_template("rf/e.jsonl")},
      {"compare partial", 2,
       {"rf/p.json.partial.jsonl: a partial file", "vlbench merge {S}/rf/p.json.partial.jsonl -o"},
       compare_with_template("rf/p.json.partial.jsonl")},
      {"compare partial vs itself", 2, {"rf/p.json.partial.jsonl: a partial file"},
       {"compare", "{S}/rf/p.json.partial.jsonl", "{S}/rf/p.json.partial.jsonl"}},
      {"compare 1 arg", 2, {"B is required"}, {"compare", kTemplate}},
      {"compare 3 args", 2, {"The following argument was not expected"}, {"compare", kTemplate, kTemplate, "c"}},
      {"compare --threshold -1", 2, {"--threshold: Value -1 not in range"},
       {"compare", kTemplate, kTemplate, "--threshold", "-1"}},

      {"merge identical files", 2, {"cannot merge: #0 d48e8b5b of solution 'template' is in both"},
       merge_into({"m/shard-0.json", "m/shard-0.json"}, "out/mi.json")},
      {"merge same file twice (whole)", 2, {"cannot merge: ", "is in both"},
       {"merge", kTemplate, kTemplate, "-o", "{S}/out/mw.json"}},
      {"merge --force identical", 0, {"merged despite --force", "wrote {S}/out/mf.json: 8 case(s) from 2 file(s)"},
       {"merge", "{S}/m/shard-0.json", "{S}/m/shard-0.json", "-o", "{S}/out/mf.json", "--force"}},
      {"merge different solutions/commits", 2, {"cannot merge: ", "in its harness", "commit ffffffffffffffff"},
       merge_into({"m/shard-0.json", "m/other-commit.json"}, "out/md.json")},
      {"merge one file", 0, {"wrote {S}/out/m1.json: 8 case(s) from 1 file(s): 8 passed, 0 failed, 0 skipped"},
       merge_into({"m/shard-0.json"}, "out/m1.json")},
      {"merge zero files", 2, {"FILES is required"}, {"merge", "-o", "{S}/out/m0.json"}},
      {"merge no -o", 2, {"--output is required"}, {"merge", "{S}/m/shard-0.json"}},
      {"merge trunc", 2, {"rf/trunc.json: not valid JSON: line "}, merge_into({"rf/trunc.json"}, "out/mt.json")},
      {"merge garbage", 2, {"rf/garbage.json: not valid JSON: column 1: invalid literal; last read: '\\xb5'"},
       merge_into({"rf/garbage.json"}, "out/mg.json")},
      {"merge v2", 2, {"rf/v2.json: schema_version: unsupported schema version 4"},
       merge_into({"rf/v2.json"}, "out/mv.json")},
      {"merge inf_literal", 2, {"rf/inf_literal.json: cases[0].timing.samples_ms[0]: the number 1e999 is out of range"},
       merge_into({"rf/inf_literal.json"}, "out/mn.json")},
      {"merge 1GB", 2, {"cannot read results file {S}/rf/big.json: it holds 1.0 GiB"},
       merge_into({"rf/big.json"}, "out/mb.json")},
      {"merge loop", 2, {"{S}/rf/loopa.json: it is a symbolic link that leads in a loop"},
       merge_into({"rf/loopa.json"}, "out/ml.json")},
      {"merge dup_case file", 2, {"rf/dup_case.json: cases[16]: ", "is listed twice (cases[0] and cases[16])"},
       merge_into({"rf/dup_case.json"}, "out/mdc.json")},
      {"merge output = input", 2, {"cannot write results to {S}/m/s0.json: it is also one of the files it merges"},
       merge_into({"m/s0.json", "m/s1.json"}, "m/s0.json"), "vlbench", {}, false, {},
       [](const BadInputFixtures& f) { CHECK_FALSE(fs::exists(f.file("m/s0.json.~1~"))); }},
      {"merge partial (cut last line)", 0, {"wrote {S}/out/mp.json: 16 case(s) from 2 file(s): 16 passed"},
       merge_into({"m/pcut.json.partial.jsonl", "m/rest.json"}, "out/mp.json")},
      {"merge partial garbage mid", 2, {"m/pmid.json.partial.jsonl:3: not valid JSON: column 2: invalid literal"},
       merge_into({"m/pmid.json.partial.jsonl"}, "out/mpm.json")},
      {"merge partial header only", 0, {"wrote {S}/out/mp3.json: 8 case(s) from 2 file(s)"},
       merge_into({"m/phdr.json.partial.jsonl", "m/shard-0.json"}, "out/mp3.json")},
      {"merge partial no header", 2, {"m/pnohdr.json.partial.jsonl:1: schema: required field is missing"},
       merge_into({"m/pnohdr.json.partial.jsonl"}, "out/mph.json")},
      {"merge partial empty", 2, {"m/pempty.json.partial.jsonl: empty (no header line)"},
       merge_into({"m/pempty.json.partial.jsonl"}, "out/mpe.json")},
      {"merge schema=200k-deep array", 2, {"rf/deep_schema.json: schema[0][0]", kDeeper},
       merge_into({"rf/deep_schema.json"}, "out/mds.json")},

      {"export partial", 2, {"rf/p.json.partial.jsonl: a partial file"},
       export_of("{S}/rf/p.json.partial.jsonl", "{S}/out/ep.jsonl")},
      {"export garbage", 2, {"rf/garbage.json: not valid JSON: column 1: invalid literal"},
       export_of("{S}/rf/garbage.json", "{S}/out/eg.jsonl")},
      {"export inf_literal", 2,
       {"rf/inf_literal.json: cases[0].timing.samples_ms[0]: the number 1e999 is out of range"},
       export_of("{S}/rf/inf_literal.json", "{S}/out/ei.jsonl")},
      {"export huge_latency", 2,
       {"rf/huge_latency.json: cases[0].timing.samples_ms: sample 0 is ", "impossible latency"},
       export_of("{S}/rf/huge_latency.json", "{S}/out/eh.jsonl"), "vlbench", {}, false, {},
       [](const BadInputFixtures& f) { CHECK_FALSE(fs::exists(f.file("out/eh.jsonl"))); }},
      {"export --reference garbage", 2, {"rf/garbage.json: not valid JSON"},
       {"export", kTemplate, "--reference", "{S}/rf/garbage.json", "-o", "{S}/out/er.jsonl"}},
      {"export --reference = other GPU/commit (fused vs template)", 2,
       {"results/h200/fused_b200.json: --reference holds no timed, PASSED case of solution 'reference'"},
       {"export", kTemplate, "--reference", "{C}/results/h200/fused_b200.json", "-o", "{S}/out/e2.jsonl"}},
      {"export no_cases", 2, {"rf/no_cases.json: none of its 0 case(s) gives a trace", "nothing to export"},
       export_of("{S}/rf/no_cases.json", "{S}/out/e3.jsonl")},
      {"export 1GB", 2, {"cannot read results file {S}/rf/big.json: it holds 1.0 GiB"},
       export_of("{S}/rf/big.json", "{S}/out/eb.jsonl")},
      {"export + run options", 2, {"The following arguments were not expected"},
       {"export", kTemplate, "-s", "template"}},
      {"export no arg", 2, {"RESULTS is required"}, {"export"}},
      {"package no -s", 2, {"--solution is required"}, {"package"}},
      {"package -s with path chars", 2, {"cannot read solution package ../template", "not found"},
       {"package", "-s", "../template", "-o", "{S}/out/pkg.json"}},
  };
}

TEST_CASE("issue 24: output paths never cost a file; unwritable ones exit 2", "[cli][bad_inputs]") {
  run_bad_input_rows(output_path_rows());
}

TEST_CASE("issue 24: results files are read as a whole by compare, merge and export", "[cli][bad_inputs]") {
  run_bad_input_rows(results_file_rows());
}

}  // namespace vlb::testing
