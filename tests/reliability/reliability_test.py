#!/usr/bin/env python3
"""The reliability suite (docs/reliability.md): bad outputs and faults while writing, through the
real command line, each asserting the exit code, the message and the state of the folder after.

    reliability_test.py T9KSIM WORKDIR CASE

CASE is one of the functions below named case_*. A folder is *whole* when its completion marker
(summary.json, or t9ksim-files.json) lists exactly the files in it, with their sizes and hashes.
Exit 77 means the case could not be set up on this machine (CTest shows it as skipped).
"""
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "tests/scenarios/cases/pending-reasons.yaml"
TRACE = ROOT / "data/traces/philly/philly.csv"
SKIP = 77


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def t9k_hash(data):
    """kernel::hash_string: FNV-1a 64, then the SplitMix64 finaliser."""
    m = (1 << 64) - 1
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & m
    h = (h + 0x9E3779B97F4A7C15) & m
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & m
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & m
    return f"{h ^ (h >> 31):016x}"


def listing(folder):
    import json
    for marker in ("summary.json", "t9ksim-files.json"):
        f = folder / marker
        if f.is_file():
            j = json.loads(f.read_text())
            if "files" in j:
                return marker, j["files"]
    return None, None


def files_in(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def whole_problems(folder, hash_below=1 << 20):
    """Why folder is not whole ([] when it is)."""
    if not folder.is_dir():
        return [f"{folder} is missing"]
    marker, files = listing(folder)
    if files is None:
        return [f"{folder} has no listing"]
    problems = []
    present = set(files_in(folder)) - {marker}
    if present != set(files):
        problems.append(f"listed {sorted(files)} but present {sorted(present)}")
    for rel, e in files.items():
        p = folder / rel
        if not p.is_file():
            continue
        if p.stat().st_size != e["bytes"]:
            problems.append(f"{rel}: {p.stat().st_size} bytes, listed {e['bytes']}")
        elif e["bytes"] < hash_below and t9k_hash(p.read_bytes()) != e["hash"]:
            problems.append(f"{rel}: hash differs from the listing")
    return problems


def same_content(a, b):
    fa, fb = files_in(a), files_in(b)
    return fa == fb and all((a / f).read_bytes() == (b / f).read_bytes() for f in fa)


def run(t9ksim, *args, cwd=None, limit_bytes=None, timeout=300):
    def pre():
        if limit_bytes is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return subprocess.run([t9ksim, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=pre)


def expect(p, code, *fragments):
    check(p.returncode == code, f"exit {p.returncode}, expected {code}; stderr: {p.stderr.strip()}")
    for f in fragments:
        check(f in p.stderr, f"stderr lacks {f!r}: {p.stderr.strip()}")


def fresh(work, name):
    d = work / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    return d


# --- a results folder is one run, whole, or clearly not ---------------------------------------

def case_file_size_limit(t9ksim, work):
    """A write that fails (file-size limit) is exit 1 naming the file; --out keeps the earlier run."""
    d = fresh(work, "fsize")
    out = d / "out"
    small = ("-r", "1", "--set", "horizon=2d", "--no-report")  # every file but events.jsonl (3 MB) below 1 MB
    expect(run(t9ksim, "run", "--out", out, "-q", *small), 0)
    before = d / "before"
    shutil.copytree(out, before)
    p = run(t9ksim, "run", "--out", out, "-q", "--events", *small, limit_bytes=1 << 20)
    expect(p, 1, "cannot write", "events.jsonl", "File too large", "was left as it was")
    check(same_content(out, before), "the earlier run's folder changed")
    check(not whole_problems(out), f"not whole: {whole_problems(out)}")


def case_full_disk(t9ksim, work):
    """A disk that fills: exit 1 naming the file, no folder that looks complete."""
    d = fresh(work, "full")
    mnt = d / "mnt"
    mnt.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True)
    if mounted.returncode != 0:
        print(f"cannot mount a small tmpfs here ({mounted.stderr.decode().strip()}): skipped")
        sys.exit(SKIP)
    try:
        small = ("-r", "1", "--set", "horizon=2d", "--no-report")  # 0.3 MB of outputs, and 3 MB of events
        p = run(t9ksim, "run", "--out", mnt / "out", "-q", "--events", *small)
        expect(p, 1, "cannot write", "events.jsonl", "No space left on device")
        check(not (mnt / "out").exists(), "a results folder was left on the full disk")
        # The disk frees: a run without events completes.
        shutil.rmtree(mnt / ".out.t9ksim-staging", ignore_errors=True)
        expect(run(t9ksim, "run", "--out", mnt / "out", "-q", *small), 0)
        check(not whole_problems(mnt / "out"), f"not whole: {whole_problems(mnt / 'out')}")
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def case_kill(t9ksim, work):
    """SIGKILL at points through the run and its output phase: --out is the old run or the new one."""
    d = fresh(work, "kill")
    old_ref, new_ref, out = d / "old", d / "new", d / "out"
    expect(run(t9ksim, "run", "--out", old_ref, "-q", "--no-report", "-r", "1", "--set", "horizon=2d"), 0)
    start = time.monotonic()
    expect(run(t9ksim, "run", "--out", new_ref, "-q", "--events", "-r", "1", "--set", "horizon=2d"), 0)
    span = time.monotonic() - start
    check(not whole_problems(new_ref), f"reference not whole: {whole_problems(new_ref)}")
    outcomes = []
    for frac in (0.1, 0.4, 0.7, 0.85, 0.92, 0.96, 0.99, 1.02, 1.1):
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(old_ref, out)
        proc = subprocess.Popen([t9ksim, "run", "--out", str(out), "-q", "--events", "-r", "1", "--set", "horizon=2d"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(span * frac)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if same_content(out, old_ref):
            outcomes.append("old")
        elif same_content(out, new_ref):
            outcomes.append("new")
        else:
            raise Failure(f"killed at {frac:.2f} of the run: --out is neither run: {whole_problems(out)}")
        check(not whole_problems(out), f"killed at {frac:.2f}: {whole_problems(out)}")
    print("outcomes:", " ".join(outcomes))
    check("old" in outcomes, "no kill landed before the end (the run was too quick to test)")
    # The next run into the folder cleans the killed run's staging folder and completes.
    expect(run(t9ksim, "run", "--out", out, "-q", "--events", "-r", "1", "--set", "horizon=2d"), 0)
    check(same_content(out, new_ref), "the run after the kills differs from the reference")
    check(not (d / ".out.t9ksim-staging").exists(), "a staging folder was left after a complete run")


def case_concurrent_writers(t9ksim, work):
    """A second writer into the same --out is refused while the first runs; the first completes."""
    d = fresh(work, "concurrent")
    out = d / "out"
    # One week of the embedded default, one replication: long enough to be caught while it writes.
    first = subprocess.Popen([t9ksim, "run", "--out", str(out), "-q", "--events", "-r", "1", "--set",
                              "horizon=7d"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (d / ".out.t9ksim-staging").exists() and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.01)
    second = run(t9ksim, "run", SCENARIO, "--out", out, "-q")
    _, err = first.communicate(timeout=300)
    check(first.returncode == 0, f"the first writer failed: {err}")
    expect(second, 2, "is being written by another t9ksim")
    check(not whole_problems(out), f"not whole: {whole_problems(out)}")
    check((out / "events.jsonl").is_file(), "the first writer's events.jsonl is missing")


def case_no_stale_files(t9ksim, work):
    """A smaller run into an earlier run's folder leaves none of the earlier run's files beside it."""
    d = fresh(work, "stale")
    out = d / "out"
    expect(run(t9ksim, "run", SCENARIO, "--out", out, "-q", "-r", "3", "--events"), 0)
    check((out / "rep-2/events.jsonl").is_file() and (out / "report.html").is_file(), "setup: files missing")
    expect(run(t9ksim, "run", SCENARIO, "--out", out, "-q", "--no-report"), 0)
    present = files_in(out)
    check(present == ["faults.csv", "jobs.csv", "occupancy.csv", "summary.json", "timeseries.csv"],
          f"present: {present}")
    check(not whole_problems(out), f"not whole: {whole_problems(out)}")


def case_report_relists(t9ksim, work):
    """t9ksim report rewrites report.html and its listings (the folder's and the comparison's)."""
    d = fresh(work, "relist")
    out = d / "out"
    expect(run(t9ksim, "run", SCENARIO, "--out", out, "-q", "--no-report"), 0)
    expect(run(t9ksim, "report", out), 0)
    check((out / "report.html").is_file() and not whole_problems(out), f"not whole: {whole_problems(out)}")
    overlay = d / "more.yaml"
    overlay.write_text("spec:\n  seed: 1\n")
    cmp_out = d / "cmp"
    p = run(t9ksim, "compare", SCENARIO, "--variant", f"more={overlay}", "--out", cmp_out, "-q", "-r", "2")
    if p.returncode != 0 and "changes spec.seed" in p.stderr:
        overlay.write_text("metadata:\n  description: the same\n")
        p = run(t9ksim, "compare", SCENARIO, "--variant", f"more={overlay}", "--out", cmp_out, "-q", "-r", "2")
    expect(p, 0)
    expect(run(t9ksim, "report", cmp_out / "more"), 0)
    check((cmp_out / "more/report.html").is_file(), "no variant report")
    check(not whole_problems(cmp_out), f"comparison not whole: {whole_problems(cmp_out)}")
    # A file changed by hand is named when the folder is reported on.
    (out / "jobs.csv").write_text("changed\n")
    expect(run(t9ksim, "report", out), 0, "warning:", "jobs.csv changed since t9ksim wrote it")


# --- outputs never overwrite inputs ----------------------------------------------------------

def case_inputs_are_never_outputs(t9ksim, work):
    d = fresh(work, "inputs")
    scen = d / "s.yaml"
    shutil.copy(SCENARIO, scen)
    original = scen.read_bytes()
    # The current folder, which holds the scenario.
    expect(run(t9ksim, "run", "s.yaml", "--out", ".", "-q", cwd=d), 2, "is the current folder")
    expect(run(t9ksim, "generate", "s.yaml", "--out", ".", "-q", cwd=d), 2, "is the current folder")
    check(scen.read_bytes() == original, "the scenario changed")
    # A folder that holds the input.
    sub = d / "sub"
    sub.mkdir()
    shutil.copy(SCENARIO, sub / "s.yaml")
    expect(run(t9ksim, "run", sub / "s.yaml", "--out", sub, "-q"), 2, "lies inside --out")
    check((sub / "s.yaml").read_bytes() == original, "the scenario in sub changed")
    # A trace named jobs.csv inside the folder a run would replace.
    tr = d / "tr"
    tr.mkdir()
    shutil.copy(TRACE, tr / "jobs.csv")
    shutil.copy(TRACE.parent / "philly_vc.csv", tr / "philly_vc.csv")
    trace_bytes = (tr / "jobs.csv").read_bytes()
    expect(run(t9ksim, "import", tr / "jobs.csv", "--format", "philly", "--limit", "20", "--out", tr, "-q"), 2,
           "lies inside --out")
    expect(run(t9ksim, "import", "jobs.csv", "--format", "philly", "--limit", "20", "--out", ".", "-q", cwd=tr), 2,
           "is the current folder")
    check((tr / "jobs.csv").read_bytes() == trace_bytes, "the trace changed")
    # An input reached through a scenario: the imported scenario names the trace; running it into
    # the trace's folder is refused.
    imp = d / "imp"
    expect(run(t9ksim, "import", tr / "jobs.csv", "--format", "philly", "--limit", "20", "--out", imp, "-q"), 0)
    check(not whole_problems(imp), f"import not whole: {whole_problems(imp)}")
    expect(run(t9ksim, "run", imp / "trace.yaml", "--out", tr, "-q"), 2, "lies inside --out")
    check((tr / "jobs.csv").read_bytes() == trace_bytes, "the trace changed")
    # A non-empty folder t9ksim did not write.
    mine = d / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me\n")
    expect(run(t9ksim, "run", SCENARIO, "--out", mine, "-q"), 2, "not a folder t9ksim wrote")
    check((mine / "notes.txt").read_text() == "keep me\n", "notes.txt changed")
    # An edited file in a generated folder is not overwritten.
    gen = d / "gen"
    expect(run(t9ksim, "generate", "--out", gen, "-q"), 0)
    check(not whole_problems(gen), f"generate not whole: {whole_problems(gen)}")
    with open(gen / "scenario.yaml", "a") as f:
        f.write("# my edit\n")
    expect(run(t9ksim, "generate", "--out", gen, "-q"), 2, "scenario.yaml changed since t9ksim wrote it")
    check((gen / "scenario.yaml").read_text().endswith("# my edit\n"), "the edit was lost")


def case_user_names_cannot_take_fixed_names(t9ksim, work):
    d = fresh(work, "names")
    overlay = d / "o.yaml"
    overlay.write_text("metadata:\n  description: x\n")
    for name in ("summary.json", "report.html"):
        p = run(t9ksim, "compare", SCENARIO, "--variant", f"{name}={overlay}", "--out", d / "c", "-q")
        expect(p, 2, f'variant name "{name}"', "writes a file of that name")
    scen = d / "g.yaml"
    text = (ROOT / "scenarios/default.yaml").read_text()
    check("- name: pretrain" in text, "setup: the default scenario has no generator pretrain")
    scen.write_text(text.replace("- name: pretrain", "- name: scenario", 1))
    expect(run(t9ksim, "generate", scen, "--out", d / "g", "-q"), 2, 'generator "scenario" would write scenario.yaml')
    check(not (d / "g").exists(), "generate wrote a folder")
    check(not (d / "c").exists(), "compare wrote a folder")


def case_bad_out_before_running(t9ksim, work):
    """A bad --out is exit 2 before the simulation runs."""
    d = fresh(work, "badout")
    (d / "file").write_text("x\n")
    for out, fragment in ((d / "file", "is not a folder"), (pathlib.Path("/proc/t9ksim-out"), "cannot create"),
                          (pathlib.Path("/"), "replaces --out as a whole")):
        start = time.monotonic()
        p = run(t9ksim, "run", "--out", out, "-q")
        expect(p, 2, fragment)
        check(time.monotonic() - start < 5, f"--out {out}: refused only after {time.monotonic() - start:.1f} s")
    check((d / "file").read_text() == "x\n", "the file changed")


# --- bounded resources, refused early ---------------------------------------------------------

def case_budgets(t9ksim, work):
    """Sizes that drive memory or time are refused at load with the field path, before running."""
    d = fresh(work, "budgets")
    for sets, fragments in (
            (["workload.jobs[0].manifest.spec.replicaSpecs[0].replicas=1000000000"],
             ["spec.workload.jobs[0].manifest.spec.replicaSpecs[0].replicas", "[0, 100000]"]),
            (["horizon=1752000000h"], ["spec.horizon", "at most 365000 days"])):
        start = time.monotonic()
        p = run(t9ksim, "run", SCENARIO, *[a for v in sets for a in ("--set", v)], "--out", d / "o", "-q", timeout=60)
        expect(p, 2, *fragments)
        check(time.monotonic() - start < 10, f"refused only after {time.monotonic() - start:.1f} s")
    # A generator's expected jobs against --max-jobs: refused naming the generator, for every
    # command that runs scenarios; a raised budget runs it.
    rate = "workload.generators[0].interarrival={exponential: {mean: 1ms}}"
    for cmd in (["run"], ["sweep", "--vary", "seed=1,2"], ["size", "--param", "seed=1:2", "--target", "goodput > 0"]):
        p = run(t9ksim, *cmd, "--set", rate, "--out", d / "o", "-q", timeout=60)
        expect(p, 2, "spec.workload.generators[0]", "jobs per replication", "--max-jobs")
    text = (ROOT / "scenarios/default.yaml").read_text()
    check("interarrival: {exponential: {mean: 4h}}" in text, "setup: the default scenario changed")
    (d / "fast.yaml").write_text(text.replace("interarrival: {exponential: {mean: 4h}}",
                                              "interarrival: {exponential: {mean: 1ms}}", 1))
    expect(run(t9ksim, "generate", d / "fast.yaml", "--out", d / "o", "-q", timeout=60), 2, "spec.workload.generators[0]")
    p = run(t9ksim, "compare", d / "fast.yaml", "--variant", f"v={d / 'fast.yaml'}", "--out", d / "o", "-q", timeout=60)
    expect(p, 2, "spec.workload.generators[0]")
    expect(run(t9ksim, "run", "--max-jobs", "100", "--out", d / "o", "-q", timeout=60), 2, "at most 100 (--max-jobs)")
    expect(run(t9ksim, "run", "--max-jobs", "1000000", "--out", d / "o", "-q", "--no-report", "--set", "horizon=1d"), 0)
    # Trace times at both ends of the clock, stretched by the smallest loadFactor: no overflow, no
    # event in the past; only the first row (the origin) falls inside the horizon, at time 0.
    (d / "far.csv").write_text("submit,dur,gpus\n-9000000000000,10,1\n0,10,1\n100,10,1\n9000000000000,10,1\n")
    (d / "far.yaml").write_text(
        "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata: {name: far}\nspec:\n  horizon: 1d\n  cluster:\n"
        "    nodePools: [{name: gpu, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]\n  workload:\n    traces:\n"
        "    - {format: csv, path: far.csv, loadFactor: 0.000001,\n"
        "       options: {submitColumn: submit, durationColumn: dur, gpusColumn: gpus}}\n")
    p = run(t9ksim, "run", d / "far.yaml", "--out", d / "far", "-q", "--no-report")
    expect(p, 0)
    rows = (d / "far/jobs.csv").read_text().splitlines()[1:]
    check(len(rows) == 1 and ",0.000000," in rows[0], f"jobs.csv rows: {rows}")
    check(not (d / "o").exists() or not whole_problems(d / "o"), "a refused command left a folder")


# --- messages that point at the right place --------------------------------------------------

def case_messages_point_at_sources(t9ksim, work):
    """Errors of a merged or --set scenario name the line the user wrote, in the overlay or base."""
    d = fresh(work, "messages")
    overlay = d / "bigger.yaml"
    overlay.write_text("# a bigger node\nspec:\n  cluster:\n    nodePools:\n    - name: gpu\n      gpusPerNode: -8\n")
    p = run(t9ksim, "compare", SCENARIO, "--variant", f"big={overlay}", "--out", d / "c", "-q")
    expect(p, 2, f"{overlay}:6:", "spec.cluster.nodePools[0].gpusPerNode")
    # An error the --set did not cause is at its line in the scenario file; one it caused names
    # the flag's text (no line of any file holds it).
    lines = SCENARIO.read_text().splitlines()
    at = next(i for i, l in enumerate(lines) if "cpu: 64" in l)
    broken = d / "broken.yaml"
    broken.write_text("\n".join(lines).replace("cpu: 64", "cpu: -64", 1) + "\n")
    p = run(t9ksim, "run", broken, "--set", "seed=2", "--out", d / "r", "-q")
    expect(p, 2, f"{broken}:{at + 1}:", "cpu")
    p = run(t9ksim, "run", SCENARIO, "--set", "horizon=0s", "--out", d / "r", "-q")
    expect(p, 2, "with --set: error: spec.horizon")
    check(f"{SCENARIO}:" not in p.stderr, f"a --set value is blamed on the file: {p.stderr}")
    # Control characters from inputs are escaped in messages.
    p = run(t9ksim, "run", SCENARIO, "--set", "metadata.name=a\x1bb", "--out", d / "r", "-q")
    check(p.returncode == 2 and "\x1b" not in p.stderr, f"exit {p.returncode}, raw escape in: {p.stderr!r}")


# --- silent acceptances become errors or warnings --------------------------------------------

def case_silent_acceptances(t9ksim, work):
    d = fresh(work, "silent")
    expect(run(t9ksim, "tset", "--help"), 2, "unknown command 'tset'", "run")
    (d / "empty.csv").write_text("submit,dur,gpus\n")
    (d / "empty.yaml").write_text(
        "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata: {name: e}\nspec:\n  horizon: 1d\n  cluster:\n"
        "    nodePools: [{name: gpu, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]\n  workload:\n    traces:\n"
        "    - {format: csv, path: empty.csv, options: {submitColumn: submit, durationColumn: dur}}\n")
    p = run(t9ksim, "validate", d / "empty.yaml")
    check("spec.workload.traces[0].path" in p.stdout + p.stderr and "found no jobs in the trace" in p.stdout + p.stderr,
          f"no warning for an empty trace: {p.stdout} {p.stderr}")
    p = run(t9ksim, "import", TRACE, "--format", "philly", "--from", "100000d", "--out", d / "imp", "-q")
    expect(p, 2, "no job falls inside the window")
    check(not (d / "imp").exists(), "import wrote a folder")
    # A trace option refused while importing (with --horizon, no probe load first): the messages
    # name the folder asked for, not the staging one the import writes in.
    p = run(t9ksim, "import", TRACE, "--format", "philly", "--limit", "5", "--horizon", "10d", "--option", "bogus=1",
            "--out", "imp2", cwd=d)
    expect(p, 2, "imp2/trace.yaml: error: spec.workload.traces[0].options.bogus: unknown option \"bogus\"",
           "t9ksim import: imp2/trace.yaml does not load")
    check("staging" not in p.stderr.split("was left as it was")[0], f"a message names the staging folder: {p.stderr}")
    text = SCENARIO.read_text()
    check("gpusPerNode: 8" in text, "setup: the case has GPUs")
    (d / "nogpu.yaml").write_text(text.replace("gpusPerNode: 8", "gpusPerNode: 0"))
    p = run(t9ksim, "validate", d / "nogpu.yaml")
    check("found no GPUs in the cluster, but spec.workload.jobs[0] asks for GPUs" in p.stdout + p.stderr,
          f"no warning for GPU jobs without GPUs: {p.stdout} {p.stderr}")
    for value, fragment in (("2000000000000s", "found more than 1e12 s"),
                            ("{exponential: {mean: 2000000000000s}}", "found a mean of 2e+12 s")):
        p = run(t9ksim, "run", SCENARIO, "--set", f"workload.jobs[0].behaviour.runTime={value}", "--out", d / "o", "-q")
        expect(p, 2, "spec.workload.jobs[0].behaviour.runTime", fragment)


# --- every YAML input goes through one hardened reader --------------------------------------

def case_hardened_inputs(t9ksim, work):
    """Overlays, --set values and special files get the loader's guards: exit 2, never a hang."""
    d = fresh(work, "hardened")
    comma = d / "comma.yaml"
    comma.write_bytes(b",\n")
    cyclic = d / "cyclic.yaml"
    cyclic.write_text("operations: &a [*a]\n")
    bomb = d / "bomb.yaml"
    bomb.write_text("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8)))
    for overlay, fragment in ((comma, "a ','"), (cyclic, "refused"), (bomb, "refused")):
        p = run(t9ksim, "compare", SCENARIO, "--variant", f"v={overlay}", "--out", d / "c", "-q", timeout=60)
        expect(p, 2, overlay.name, fragment)
    for value in (",", "&a [*a]"):
        p = run(t9ksim, "run", SCENARIO, "--set", f"metadata.description={value}", "--out", d / "r", "-q", timeout=60)
        expect(p, 2, "--set")
    fifo = d / "fifo.yaml"
    os.mkfifo(fifo)
    for args in (("run", fifo), ("run", "/dev/zero"), ("compare", SCENARIO, "--variant", f"v={fifo}"),
                 ("compare", SCENARIO, "--variant", "v=/dev/zero"), ("sweep", fifo, "--vary", "seed=1,2"),
                 ("generate", "/dev/zero"), ("validate", "/dev/zero")):
        out = () if args[0] == "validate" else ("--out", d / "o")
        p = run(t9ksim, *args, *out, timeout=60)
        expect(p, 2, "special file")
    check(not (d / "c").exists() and not (d / "r").exists() and not (d / "o").exists(), "an output folder was written")


def main(cases=None):
    """Runs the case named on the command line among `cases` (a module's globals; this one's by
    default), so that the other scripts of this folder share the runner."""
    t9ksim, work, case = sys.argv[1], pathlib.Path(sys.argv[2]).resolve(), sys.argv[3]
    fn = (cases or globals()).get("case_" + case.replace("-", "_"))
    if fn is None:
        print(f"unknown case {case}")
        return 2
    work.mkdir(parents=True, exist_ok=True)
    try:
        fn(t9ksim, work)
    except Failure as e:
        print(f"FAIL {case}: {e}")
        return 1
    print(f"ok {case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
