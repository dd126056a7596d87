#!/usr/bin/env bash
# Runs a vlbench command on a Slurm cluster as a job array of SHARDS tasks (one GPU and one shard of the cases each),
# then merges the shards' results into OUT_DIR/results.json once every task has ended.
#   scripts/slurm/submit.sh OUT_DIR SHARDS VLBENCH_ARGS...
#   scripts/slurm/submit.sh results/h200-sweep 4 -s reference,template
# Writes OUT_DIR/shard-<i>-of-<n>.json and .log per task, OUT_DIR/merge.log, then OUT_DIR/results.json; prints the
# two job ids. sbatch's own environment variables choose the rest (SBATCH_PARTITION, SBATCH_ACCOUNT,
# SBATCH_TIMELIMIT, ...). VLBENCH names the vlbench binary (default: build/vlbench of this checkout).
set -euo pipefail

usage() { sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# -ge 2 ] || { usage >&2; exit 2; }
out_dir=$1
shards=$2
shift 2
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: SHARDS must be a positive integer, got '$shards'" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export VLBENCH="${VLBENCH:-$(cd "$here/../.." && pwd)/build/vlbench}"
[ -x "$VLBENCH" ] || { echo "submit.sh: no vlbench at $VLBENCH: build it, or set VLBENCH" >&2; exit 2; }
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
results="$out_dir/shard-{shard}.json"

array_job=$(sbatch --parsable --array="0-$((shards - 1))" --output="$out_dir/shard-%a-of-$shards.log" \
  "$here/vlbench_shards.sbatch" "$@" --json "$results")
array_job=${array_job%%;*}  # --parsable prints "id" or "id;cluster"
merge_job=$(sbatch --parsable --dependency="afterany:$array_job" --output="$out_dir/merge.log" \
  "$here/vlbench_merge.sbatch" "$results" "$shards" "$out_dir/results.json")
merge_job=${merge_job%%;*}
echo "shards: job array $array_job ($shards tasks); merge: job $merge_job -> $out_dir/results.json"
