#!/usr/bin/env python3
"""The reference plugins of plugins/examples/ run a shipped scenario and have their effect.

    examples_test.py T9KSIM WORKDIR

* quota_policy.py on tests/plugins/elastic-quota.yaml: with the built-in fixed policy the elastic
  explore jobs keep one worker; with the plugin they grow (more than one worker at some time),
  the research queue never holds more than its 24-GPU quota, production jobs still all succeed,
  and every explore job finishes sooner on average.
* generic_controller.py on tests/plugins/generic-backoff.yaml: in process a failed rank is
  replaced within a second; with the plugin the n-th replacement of a rank comes at least
  15 s x 2^(n-1) after the failure (its own backoff), and every job still ends.
Standard library only.
"""
import csv
import json
import os
import pathlib
import shutil
import subprocess
import sys
from collections import defaultdict

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def run(t9ksim, out, scenario, *extra):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [t9ksim, "run", str(scenario), "--out", str(out), "--quiet", "--events", *extra]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return out


def jobs(out):
    with (out / "jobs.csv").open() as f:
        return list(csv.DictReader(f))


def events(out):
    with (out / "events.jsonl").open() as f:
        return [json.loads(line) for line in f]


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print(f"ok   {what}")


def quota_policy(t9ksim, work):
    scenario = HERE / "elastic-quota.yaml"
    fixed = run(t9ksim, work / "quota-fixed", scenario)
    plug = run(t9ksim, work / "quota-plugin", scenario, "--plugin",
               "elastic-policy=python3 plugins/examples/quota_policy.py")

    def max_rank(out):
        ranks = [e["rank"] for e in events(out) if e["type"] == "PodCreated" and "/explore" in e["pod"]]
        return max(ranks)

    check(max_rank(fixed) == 0, "fixed policy: explore jobs keep one worker")
    check(max_rank(plug) >= 1, f"quota policy: explore jobs grow (up to {max_rank(plug) + 1} workers)")
    with (plug / "timeseries.csv").open() as f:
        research = [float(r["allocated_gpus"]) for r in csv.DictReader(f) if r["scope"] == "queue:research"]
    check(research and max(research) <= 24.0 + 1e-9,
          f"quota policy: the research queue stays within its 24-GPU quota (peak {max(research):.1f})")
    prod = [j for j in jobs(plug) if j["queue"] == "production"]
    check(len(prod) == 3 and all(j["phase"] == "Succeeded" for j in prod), "quota policy: production jobs all succeed")

    def mean_jct(out):
        xs = [float(j["jct_s"]) for j in jobs(out) if j["queue"] == "research"]
        return sum(xs) / len(xs)

    check(mean_jct(plug) < mean_jct(fixed),
          f"quota policy: explore jobs finish sooner (mean JCT {mean_jct(plug) / 3600:.1f} h vs {mean_jct(fixed) / 3600:.1f} h)")
    log = plug / "plugins" / "elastic-policy.log"
    check(log.exists() and "initialized" in log.read_text(), "quota policy: its stderr is in OUT/plugins/elastic-policy.log")


def replacement_gaps(out):
    """Each replacement of a failed pod: (its n-th replacement of that name, seconds from the failed
    pod's release to the new pod's creation), from events.jsonl."""
    ended = {}
    count = defaultdict(int)
    gaps = []
    for e in events(out):
        pod = e.get("pod")
        if e["type"] == "PodReleased" and e.get("phase") == "Failed":
            ended[pod] = e["t"]
        elif e["type"] == "PodCreated":
            if pod in ended:
                count[pod] += 1
                gaps.append((count[pod], e["t"] - ended.pop(pod)))
    return gaps


def generic_controller(t9ksim, work):
    scenario = HERE / "generic-backoff.yaml"
    inproc = run(t9ksim, work / "generic-builtin", scenario)
    plug = run(t9ksim, work / "generic-plugin", scenario, "--plugin",
               "GenericJob=python3 plugins/examples/generic_controller.py")
    g_in, g_plug = replacement_gaps(inproc), replacement_gaps(plug)
    check(g_in and max(gap for _, gap in g_in) < 1.0,
          f"built-in controller: {len(g_in)} failed ranks replaced within a second")
    check(g_plug and all(gap >= 15.0 * 2 ** (n - 1) - 1e-6 for n, gap in g_plug),
          f"plugin controller: {len(g_plug)} replacements each wait 15 s x 2^(n-1) or more")
    check(all(j["phase"] in ("Succeeded", "Failed") for j in jobs(plug)), "plugin controller: every job ends")

    # The same plugin named in the scenario (spec.plugins.controllers), its command relative to
    # the scenario's folder: the same run as with --plugin.
    sub = work / "scenario-form"
    shutil.rmtree(sub, ignore_errors=True)
    sub.mkdir(parents=True)
    script = os.path.relpath(ROOT / "plugins/examples/generic_controller.py", sub)
    text = scenario.read_text().replace(
        "  scheduler: {name: t9k}\n",
        "  scheduler: {name: t9k}\n"
        f"  plugins:\n    controllers: [{{kind: GenericJob, command: [python3, {script}], timeout: 30s}}]\n", 1)
    check(text != scenario.read_text(), "scenario form: the plugin is named in spec.plugins.controllers")
    (sub / "scenario.yaml").write_text(text)
    named = run(t9ksim, sub / "out", sub / "scenario.yaml")
    check((named / "jobs.csv").read_bytes() == (plug / "jobs.csv").read_bytes()
          and (named / "plugins" / "genericjob-controller.log").exists(),
          "scenario form: a relative command runs in the scenario's folder; jobs.csv equals the --plugin run's")


def main():
    t9ksim, work = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    quota_policy(t9ksim, work)
    generic_controller(t9ksim, work)


if __name__ == "__main__":
    main()
