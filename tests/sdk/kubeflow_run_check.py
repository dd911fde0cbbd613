"""Checks a run of scenarios/examples/kubeflow/pytorchjob-100.yaml (tests/sdk/go_kubeflow.cmake):
every one of the 100 PyTorchJobs is in jobs.csv under its own kind and finished, node faults
struck, some pods failed and the operator's restarts brought most jobs to success."""
import csv
import json
import sys
from pathlib import Path

run = Path(sys.argv[1])
with open(run / "jobs.csv", newline="") as f:
    rows = list(csv.DictReader(f))
summary = json.loads((run / "summary.json").read_text())
errors = []
if len(rows) != 100:
    errors.append(f"{len(rows)} jobs in jobs.csv, not 100")
kinds = {r["kind"] for r in rows}
if kinds != {"PyTorchJob"}:
    errors.append(f"kinds {sorted(kinds)}, not PyTorchJob")
unfinished = [r["job"] for r in rows if r["phase"] not in ("Succeeded", "Failed")]
if unfinished:
    errors.append(f"{len(unfinished)} jobs not finished: {unfinished[:5]}")
succeeded = sum(r["phase"] == "Succeeded" for r in rows)
pods_failed = sum(int(r["pods_failed"]) for r in rows)
with open(run / "faults.csv", newline="") as f:
    # time_s,node,cause,state (docs/outputs.md): a node going down for a fault.
    node_faults = sum(1 for r in csv.DictReader(f)
                      if r["state"] == "down" and r["cause"] not in ("drain", "removed"))
if node_faults == 0:
    errors.append("no node fault struck")
if pods_failed == 0:
    errors.append("no pod failed")
if succeeded < 80:
    errors.append(f"only {succeeded} of 100 jobs succeeded")
lost_fault = sum(float(r["gpu_hours_lost_fault"]) for r in rows)
print(f"100 PyTorchJobs: {succeeded} succeeded, {100 - succeeded - len(unfinished)} failed, "
      f"{pods_failed} pods failed, {node_faults} node faults, {lost_fault:.1f} GPU-hours lost to "
      f"faults, {summary.get('events', '?')} events")
if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(1)
