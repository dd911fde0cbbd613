#!/usr/bin/env python3
"""Sharded runs through the real command line (docs/scale-out.md): `t9ksim plan`, `t9ksim shard`
as separate processes in shuffled order, and `t9ksim merge` must give byte for byte the folder the
single-machine command writes; and every way a plan, a part or a merge can go wrong is refused
with a message naming it.

    scale_out_test.py T9KSIM WORKDIR CASE

CASE is one of the functions below named case_*.
"""
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests/scenarios/harness/passes.yaml"


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def t9k(binary, *args, cwd=None, env=None, expect=0):
    r = subprocess.run([str(binary), *map(str, args)], cwd=cwd, env={**os.environ, **(env or {})},
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    if expect is not None and r.returncode != expect:
        raise Failure(f"t9ksim {' '.join(map(str, args))}: exit {r.returncode}, expected {expect}\n"
                      f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    return r


def tree(folder):
    """Every file under folder with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def same_tree(a, b):
    ta, tb = tree(a), tree(b)
    check(ta.keys() == tb.keys(), f"{a} and {b} hold different files: only in the first "
          f"{sorted(ta.keys() - tb.keys())}, only in the second {sorted(tb.keys() - ta.keys())}")
    differ = [k for k in ta if ta[k] != tb[k]]
    check(not differ, f"{a} and {b} differ in {differ}")
    return len(ta)


def sharded(binary, work, name, command, counts=(1, 3, 7)):
    """The command on one machine, then planned, sharded N ways in shuffled order and merged."""
    single = work / f"{name}-single"
    t9k(binary, *command, "--out", single, "-q")
    plan = work / f"{name}-plan"
    t9k(binary, "plan", *command, "--out", plan, "--no-pilot", "-q")
    units = len(json.loads((plan / "plan.json").read_text())["units"])
    for n in counts:
        rng = random.Random(f"{name}-{n}")
        order = list(range(n))
        rng.shuffle(order)
        parts = []
        for i in order:
            part = work / f"{name}-n{n}-part{i}"
            t9k(binary, "shard", plan, "--index", i, "--count", n, "--out", part, "-q", "-j", 1)
            parts.append(part)
        rng.shuffle(parts)
        merged = work / f"{name}-n{n}-merged"
        t9k(binary, "merge", plan, *parts, "--out", merged, "-q")
        files = same_tree(single, merged)
        print(f"{name}: {units} units in {n} shards (run in order {order}): {files} files byte-identical")
    return plan, single


def case_run_single(binary, work):
    sharded(binary, work, "run-single", ["run", SMALL, "--events", "--objects"])


def case_run_replications(binary, work):
    sharded(binary, work, "run-reps", ["run", SMALL, "-r", 5, "--first-replication", 3, "--seed", 11])


def case_compare(binary, work):
    overlay = work / "two-nodes.yaml"
    overlay.write_text("spec:\n  cluster:\n    nodePools:\n    - {name: gpu, count: 2}\n")
    sharded(binary, work, "compare", ["compare", SMALL, "--variant", f"two={overlay}", "-r", 3, "--set", "horizon=3h"])


def case_sweep(binary, work):
    sharded(binary, work, "sweep", ["sweep", SMALL, "--vary", "cluster.nodePools[name=gpu].count=1,2,3", "-r", 2])


def case_inputs_travel_with_the_plan(binary, work):
    """A scenario naming a trace outside its folder: the plan copies both with their layout, a shard
    run from another folder uses the copies, and a change to the original after planning does not
    reach the shards."""
    (work / "study").mkdir()
    (work / "data").mkdir()
    (work / "data/t.csv").write_text("name,submit,duration,gpus\n" +
                                    "".join(f"j{i},{1700000000 + 600 * i},{900 + 60 * i},{1 + i % 4}\n" for i in range(12)))
    scenario = work / "study/s.yaml"
    scenario.write_text("""apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: trace-study}
spec:
  horizon: 6h
  cluster: {nodePools: [{name: a, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]}
  workload:
    traces:
    - {format: csv, path: ../data/t.csv, queue: default,
       options: {submitColumn: submit, durationColumn: duration, gpusColumn: gpus, nameColumn: name}}
""")
    plan, single = sharded(binary, work, "trace", ["sweep", scenario, "--vary", "cluster.nodePools[name=a].count=1,2"], counts=(2,))
    check((plan / "inputs/study/s.yaml").is_file() and (plan / "inputs/data/t.csv").is_file(),
          f"the plan did not copy the inputs with their layout: {sorted(tree(plan / 'inputs'))}")
    # The original changes after planning; shards run elsewhere read the plan's copy.
    (work / "data/t.csv").write_text("name,submit,duration,gpus\nx,1700000000,60,1\n")
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    moved = elsewhere / "plan"
    shutil.copytree(plan, moved)
    for i in range(2):
        t9k(binary, "shard", "plan", "--index", i, "--count", 2, "--out", f"p{i}", "-q", cwd=elsewhere)
    t9k(binary, "merge", "plan", "p1", "p0", "--out", "merged", "-q", cwd=elsewhere)
    same_tree(single, elsewhere / "merged")
    # A plan whose copy was edited is refused by shards.
    (moved / "inputs/data/t.csv").write_text("name,submit,duration,gpus\n")
    r = t9k(binary, "shard", "plan", "--index", 0, "--count", 2, "--out", "p9", cwd=elsewhere, expect=2)
    check("changed since the plan was written" in r.stderr and "t.csv" in r.stderr, r.stderr)


def case_restartable(binary, work):
    """A shard killed mid-way leaves units without their marker; running it again redoes those and
    skips the complete ones."""
    plan = work / "plan"
    command = ["sweep", SMALL, "--vary", "cluster.nodePools[name=gpu].count=1,2", "-r", 3]
    t9k(binary, *command, "--out", work / "single", "-q")
    t9k(binary, "plan", *command, "--out", plan, "--no-pilot", "-q")
    part = work / "part"
    t9k(binary, "shard", plan, "--index", 0, "--count", 1, "--out", part, "-q")
    (part / "units/2/unit.json").unlink()                      # cut short after its outputs
    shutil.move(part / "units/4", part / "units/.4.partial")   # cut short while writing
    shutil.copytree(part / "units/1", part / "units/.1.partial")  # a stale partial of a complete unit
    before = (part / "units/0/summary.json").stat().st_mtime_ns
    r = t9k(binary, "shard", plan, "--index", 0, "--count", 1, "--out", part)
    check("2 run now, 4 already complete" in r.stdout, r.stdout)
    check((part / "units/0/summary.json").stat().st_mtime_ns == before, "a complete unit was run again")
    t9k(binary, "merge", plan, part, "--out", work / "merged", "-q")
    same_tree(work / "single", work / "merged")


def case_merge_refuses(binary, work):
    """Missing, duplicated and foreign units, and parts that are not parts, are named; --out is untouched."""
    command = ["sweep", SMALL, "--vary", "cluster.nodePools[name=gpu].count=1,2", "-r", 2]
    plan = work / "plan"
    t9k(binary, "plan", *command, "--out", plan, "--no-pilot", "-q")
    parts = [work / f"p{i}" for i in range(3)]
    for i, p in enumerate(parts):
        t9k(binary, "shard", plan, "--index", i, "--count", 3, "--out", p, "-q")
    out = work / "out"
    r = t9k(binary, "merge", plan, parts[0], parts[2], "--out", out, expect=2)
    check("1 of 4 units are missing: 1" in r.stderr, r.stderr)
    check(not out.exists(), "a refused merge wrote its folder")
    whole = work / "whole"
    t9k(binary, "shard", plan, "--index", 0, "--count", 1, "--out", whole, "-q")
    r = t9k(binary, "merge", plan, *parts, whole, "--out", out, expect=2)
    check("unit 0 is in two parts" in r.stderr, r.stderr)
    other = work / "other-plan"
    t9k(binary, "plan", "sweep", SMALL, "--vary", "cluster.nodePools[name=gpu].count=1,3", "-r", 2, "--out", other,
        "--no-pilot", "-q")
    r = t9k(binary, "merge", other, *parts, "--out", out, expect=2)
    check("from another plan" in r.stderr, r.stderr)
    r = t9k(binary, "merge", plan, work, "--out", out, expect=2)
    check("not a part folder" in r.stderr, r.stderr)
    r = t9k(binary, "shard", other, "--index", 0, "--count", 3, "--out", parts[0], expect=2)
    check("a unit of another plan" in r.stderr, r.stderr)
    r = t9k(binary, "merge", work / "nothing", *parts, "--out", out, expect=2)
    check("not a plan folder" in r.stderr, r.stderr)
    check(not out.exists(), "a refused merge wrote its folder")
    # A unit that failed its check: a `run --check` that fails still writes its folder (exit 1), merged alike.
    failing = ROOT / "tests/scenarios/harness/more/fails.yaml"
    t9k(binary, "run", failing, "--check", "--out", work / "fails-single", "-q", expect=1)
    t9k(binary, "plan", "run", failing, "--check", "--out", work / "fails-plan", "--no-pilot", "-q")
    t9k(binary, "shard", work / "fails-plan", "--index", 0, "--count", 1, "--out", work / "fails-part", "-q", expect=1)
    r = t9k(binary, "merge", work / "fails-plan", work / "fails-part", "--out", work / "fails-merged", "-q", expect=1)
    same_tree(work / "fails-single", work / "fails-merged")


def case_damaged_units(binary, work):
    """A unit whose files are not those its shard listed (edited, cut in half, missing, added) is
    refused by merge naming the unit and the file; the next shard run redoes it."""
    command = ["run", SMALL, "-r", 2]
    t9k(binary, *command, "--out", work / "single", "-q")
    plan = work / "plan"
    t9k(binary, "plan", *command, "--out", plan, "--no-pilot", "-q")
    part = work / "part"
    t9k(binary, "shard", plan, "--index", 0, "--count", 1, "--out", part, "-q")
    units = part / "units"
    jobs = units / "1/jobs.csv"
    good = jobs.read_bytes()
    out = work / "out"
    edited = bytearray(good)
    edited[-2] = ord("9") if edited[-2] != ord("9") else ord("8")
    damages = [
        (lambda: jobs.write_bytes(bytes(edited)), "jobs.csv differs from its listed hash"),
        (lambda: jobs.write_bytes(good[: len(good) // 2]), f"jobs.csv has {len(good) // 2} bytes, listed {len(good)}"),
        (lambda: jobs.unlink(), "jobs.csv is missing"),
        (lambda: (units / "1/extra.csv").write_text("x\n"), "holds extra.csv, which is not listed"),
    ]
    for damage, said in damages:
        damage()
        r = t9k(binary, "merge", plan, part, "--out", out, expect=2)
        check(f"{units / '1'}: unit 1 is damaged: {said}" in r.stderr, r.stderr)
        check(not out.exists(), "a refused merge wrote its folder")
        (units / "1/extra.csv").unlink(missing_ok=True)
        jobs.write_bytes(good)
    jobs.write_bytes(good[:10])
    r = t9k(binary, "shard", plan, "--index", 0, "--count", 1, "--out", part)
    check("unit 1 in" in r.stderr and "is damaged (jobs.csv has 10 bytes" in r.stderr, r.stderr)
    check("1 run now, 1 already complete" in r.stdout, r.stdout)
    t9k(binary, "merge", plan, part, "--out", out, "-q")
    same_tree(work / "single", out)


def case_engines(binary, work):
    """Index and count from what Kubernetes Indexed Jobs and Slurm arrays set."""
    plan = work / "plan"
    t9k(binary, "plan", "run", SMALL, "-r", 4, "--out", plan, "--no-pilot", "-q")
    r = t9k(binary, "shard", plan, "--count", 2, "--out", work / "k0", env={"JOB_COMPLETION_INDEX": "1"})
    check("shard 1/2 (index from JOB_COMPLETION_INDEX): 2 of 4 units" in r.stdout, r.stdout)
    check(sorted(os.listdir(work / "k0/units")) == ["1", "3"], os.listdir(work / "k0/units"))
    slurm = {"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_COUNT": "3"}
    r = t9k(binary, "shard", plan, "--out", work / "s1", env=slurm)
    check("shard 1/3 (index from SLURM_ARRAY_TASK_ID): 1 of 4 units" in r.stdout, r.stdout)
    r = t9k(binary, "shard", plan, "--out", work / "x", env={"JOB_COMPLETION_INDEX": "0"}, expect=2)
    check("no shard count" in r.stderr, r.stderr)
    r = t9k(binary, "shard", plan, "--index", 3, "--count", 3, "--out", work / "x", expect=2)
    check("not below the count" in r.stderr, r.stderr)
    r = t9k(binary, "shard", plan, "--count", 2, "--out", work / "x", env={"JOB_COMPLETION_INDEX": "-1"}, expect=2)
    check("expected a whole number" in r.stderr, r.stderr)
    r = t9k(binary, "plan", "size", SMALL, "--out", work / "y", expect=2)
    check("bisection" in r.stderr, r.stderr)
    r = t9k(binary, "plan", "run", SMALL, expect=2)
    check("--out PLAN" in r.stderr, r.stderr)


def case_pilot(binary, work):
    """The cost model printed before a long study."""
    r = t9k(binary, "plan", "sweep", SMALL, "--vary", "cluster.nodePools[name=gpu].count=1,2,3", "-r", 2,
            "--out", work / "plan")
    check("plan: 6 units of `t9ksim sweep`" in r.stdout, r.stdout)
    check("pilot: 3 unit(s) at 1/20 of their horizon" in r.stdout and "wall time: this machine" in r.stdout
          and "4 shards of 1 thread" in r.stdout, r.stdout)
    e = json.loads((work / "plan/estimate.json").read_text())
    check(e["units"] == 6 and e["cpuSecondsPerUnit"] > 0 and e["pilotUnits"] == [0, 2, 4], e)
    check(not any(p.name.endswith("t9ksim-pilot") for p in work.iterdir()), "the pilot left its scratch folder")


def case_deploy_files(binary, work):
    """The engine files of deploy/: the T9k GenericJob validates and simulates to Succeeded, the
    Slurm script runs its shards here when sbatch is absent (byte-identical merge), the Indexed Job
    and the GenericJob agree with the shard command, and the container build file is linted."""
    deploy = ROOT / "deploy"
    t9k(binary, "validate", deploy / "t9k-genericjob.yaml")
    scenario = work / "shards.yaml"
    scenario.write_text(f"""apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: shards-as-a-genericjob}}
spec:
  horizon: 4h
  cluster:
    nodePools: [{{name: cpu, count: 2, cpu: 8, memory: 32Gi}}]
  scheduler: {{name: t9k}}
  workload:
    jobs:
    - path: {deploy / "t9k-genericjob.yaml"}
      submitAt: 0s
      behaviour: {{runTime: 30m}}
  expect:
    jobs:
    - {{name: t9ksim-shards, phase: Succeeded, phaseAt: {{Succeeded: {{max: 31m}}}}}}
""")
    t9k(binary, "run", scenario, "--check", "--no-report", "--out", work / "simulated", "-q")
    gj = (deploy / "t9k-genericjob.yaml").read_text()
    check('"--index", "$(rank)", "--count", "$(replicas[worker])"' in gj, "the GenericJob does not pass $(rank) and $(replicas[worker])")
    check("cleanUpPolicy: All" in gj and '{"worker": [0, 1, 2, 3, 4, 5, 6]}' in gj and "replicas: 7" in gj,
          "the GenericJob's successRules, cleanUpPolicy or replicas changed without the test")
    job = (deploy / "kubernetes-indexed-job.yaml").read_text()
    import re
    completions = re.search(r"^  completions: (\d+)$", job, re.M)
    parallelism = re.search(r"^  parallelism: (\d+)$", job, re.M)
    count = re.search(r"--count (\d+)", job)
    check("completionMode: Indexed" in job and completions and parallelism and count, "the Indexed Job lacks its fields")
    check(completions.group(1) == count.group(1), f"completions {completions.group(1)} but --count {count.group(1)}")
    check("part-$JOB_COMPLETION_INDEX" in job, "each Indexed Job pod needs its own part folder")
    image = re.search(r"image: (\S+)", job).group(1)
    check(image == re.search(r"image: (\S+)", gj).group(1), "the two manifests name different images")
    # The container build file: known instructions, a Debian base, the project's setup script, no
    # download but apt and npm, a non-root user, an exec-form entry point.
    known = {"FROM", "RUN", "COPY", "WORKDIR", "USER", "ENTRYPOINT", "CMD", "ENV", "ARG", "LABEL"}
    text = (deploy / "Containerfile").read_text()
    logical = re.sub(r"\\\n", " ", text)
    instructions = [l.split()[0] for l in logical.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    check(set(instructions) <= known, f"unknown instructions {set(instructions) - known}")
    froms = re.findall(r"^FROM (\S+)", logical, re.M)
    check(froms and all(f.startswith("debian:bookworm") for f in froms), f"bases {froms}")
    check("scripts/setup release" in logical, "the image is not built with scripts/setup")
    check(not re.search(r"\b(curl|wget)\b|^ADD\s+https?:", logical, re.M), "the image downloads something")
    check(re.search(r"^USER (?!root|0\b)", logical, re.M), "the image runs as root")
    entry = re.search(r"^ENTRYPOINT (.*)$", logical, re.M)
    check(entry and json.loads(entry.group(1)) == ["/usr/local/bin/t9ksim"], "ENTRYPOINT is not t9ksim in exec form")
    # The Slurm script without sbatch: its shards and merge here.
    command = ["sweep", SMALL, "--vary", "cluster.nodePools[name=gpu].count=1,2", "-r", 2]
    t9k(binary, *command, "--out", work / "single", "-q")
    t9k(binary, "plan", *command, "--out", work / "plan", "--no-pilot", "-q")
    env = {**os.environ, "T9KSIM": str(binary), "PATH": "/usr/bin:/bin"}
    r = subprocess.run(["bash", deploy / "slurm-shards.sh", work / "plan", work / "parts", work / "result", "3"],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    check(r.returncode == 0, f"slurm-shards.sh: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    check("sbatch not found" in r.stderr and "index from SLURM_ARRAY_TASK_ID" in r.stdout, r.stdout + r.stderr)
    check(sorted(os.listdir(work / "parts")) == ["part-0", "part-1", "part-2"], os.listdir(work / "parts"))
    same_tree(work / "single", work / "result")
    r = subprocess.run(["bash", deploy / "slurm-shards.sh", work / "plan"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(r.returncode == 2 and "PLAN PARTS RESULT" in r.stderr, r.stderr)


def main():
    binary, work, case = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
    fn = globals().get("case_" + case.replace("-", "_"))
    if fn is None:
        sys.exit(f"unknown case {case}")
    work = work / case
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        fn(binary.resolve(), work.resolve())
    except Failure as e:
        print(f"FAILED: {e}")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
