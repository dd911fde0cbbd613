#!/usr/bin/env bash
# t9ksim shards as a Slurm job array (docs/scale-out.md). Each array task runs the units whose
# index is SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN mod SLURM_ARRAY_TASK_COUNT into its own part
# folder on the shared file system; a task that is requeued skips the units it completed.
#
#   deploy/slurm-shards.sh PLAN PARTS RESULT [SHARDS]   submits an array of SHARDS tasks (default 7)
#                                                      and a merge into RESULT that waits for it
#   deploy/slurm-shards.sh --local PLAN PARTS RESULT [SHARDS]
#                                                      runs the same tasks here, one after another,
#                                                      with the variables Slurm would set, then merges
#                                                      (also what happens when sbatch is absent)
#   T9KSIM=path/to/t9ksim (default: t9ksim on PATH)
#
#SBATCH --job-name=t9ksim-shard
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=24:00:00
#SBATCH --requeue
set -euo pipefail
t9ksim="${T9KSIM:-t9ksim}"

# Inside an array task (sbatch runs this file with --task): one shard.
if [ "${1:-}" = "--task" ]; then
  plan="$2" parts="$3"
  exec "$t9ksim" shard "$plan" --threads "${SLURM_CPUS_PER_TASK:-1}" --out "$parts/part-${SLURM_ARRAY_TASK_ID}"
fi

local_run=""
if [ "${1:-}" = "--local" ]; then local_run=1; shift; fi
if [ $# -lt 3 ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
plan="$1" parts="$2" result="$3" shards="${4:-7}"
case "$shards" in ''|*[!0-9]*|0) echo "slurm-shards: SHARDS must be a whole number >= 1, not '$shards'" >&2; exit 2 ;; esac
[ -f "$plan/plan.json" ] || { echo "slurm-shards: $plan is not a plan folder (t9ksim plan ... --out $plan)" >&2; exit 2; }
mkdir -p "$parts"
if [ -z "$local_run" ] && ! command -v sbatch >/dev/null 2>&1; then
  echo "slurm-shards: sbatch not found; running the $shards tasks here (--local)" >&2
  local_run=1
fi

if [ -n "$local_run" ]; then
  for ((i = 0; i < shards; i++)); do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=$shards SLURM_CPUS_PER_TASK=1 \
      bash "$0" --task "$plan" "$parts"
  done
  exec "$t9ksim" merge "$plan" "$parts"/part-* --out "$result"
fi

array=$(sbatch --parsable --array="0-$((shards - 1))" "$0" --task "$plan" "$parts")
echo "submitted array job $array ($shards tasks)"
sbatch --dependency="afterok:$array" --job-name=t9ksim-merge --wrap \
  "'$t9ksim' merge '$plan' '$parts'/part-* --out '$result'"
