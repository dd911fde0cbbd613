#!/usr/bin/env python3
"""The Python port of the GenericJob controller is exact, and the differential test catches
mutants of it (issue 45).

    reference_port_test.py T9KSIM WORKDIR

Every shipped scenario, study and regression case with GenericJobs (the runs of
scripts/same-outputs that have any, plus tests/plugins/*.yaml) runs twice with the same --out
path (report.html names its folder): in process, then with
--plugin GenericJob="python3 plugins/examples/reference_generic_controller.py". Every output
file must be byte-identical, and so must the exit code, stdout and stderr; the `plugins/` folder
(the plugin's log) is left aside, and so are the `files` entries under `plugins/` in
summary.json (rewritten on both sides as scripts/same-outputs does). One line per run: ok or
DIFFERENT with the first differing line.

Then random reconcile requests (tests/plugins/random_reconciles.py: what no scenario reaches,
such as pods of a replica type the spec lost, ranks beyond the replicas, restartPolicy ExitCode,
any previous status) go to the port and to `t9ksim plugin serve controller`: the answers must be
the same JSON, key for key.

Then each mutant of tests/plugins/mutants/ (the port with one rule changed) runs on the
regression cases and must give different outputs on at least one; the cases that expose each
mutant are listed.

A run has GenericJobs when its scenario text (or a study variant's) says `kind: GenericJob` or
replays an Alibaba openb trace, whose rows are all GenericJobs (workload/trace_job.cpp).

Environment:
  T9KSIM_REFERENCE_PORT_ALL=1         every run; by default the GPU-sharing study is left out
                                      (HEAVY)
  T9KSIM_REFERENCE_PORT_ONLY=REGEX    only the runs whose names match
  T9KSIM_REFERENCE_PORT_REQUESTS=N    random requests (default 3000; 0: none)
  T9KSIM_REFERENCE_PORT_MUTANTS=0     skip the mutants

Exit status 0 when every run is identical and every mutant is caught, else 1. Standard library
only. The plugins need the t9ksim Python SDK (sdk/python/src, or t9ksim_sdk on PYTHONPATH).
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PORT = ROOT / "plugins" / "examples" / "reference_generic_controller.py"
MUTANTS = [HERE / "mutants" / "success_on_one.py", HERE / "mutants" / "lose_restart_counts.py"]
STUDY_REPLICATIONS = "2"  # as scripts/same-outputs
# Left out unless T9KSIM_REFERENCE_PORT_ALL=1: the GPU-sharing study, 130,000 GenericJob
# reconciles (the openb trace's jobs, two variants, two replications): 18 s in process and 23 s
# with the port on a Release build; under the sanitizers the simulator alone takes about 400 s
# for it in and out of process (tests/plugins/CMakeLists.txt). The same jobs run in
# scenario-openb-replay, and shared GPUs in case-shared-gpus.
HEAVY = {"study-gpu-sharing"}
# tests/plugins scenarios run once more with these --set: every non-default controller option
# that applies to a GenericJob.
OPTION_RUNS = {
    "generic-port-coverage": [
        "controllers.options.restartBackoff=true", "controllers.options.restartBackoffBase=30s",
        "controllers.options.restartBackoffCap=2m",
        "controllers.options.genericLimitScope=per-type",
        "controllers.options.runningWhen=master-running",
        "controllers.options.retryableExitCodes=kubeflow",
        "controllers.options.maxDurationHandling=recreate"],
}
REQUEST_SEED = 45
GENERIC = re.compile(r"\bkind:\s*[\"']?GenericJob\b|\bformat:\s*[\"']?alibaba-openb")


@dataclass
class Run:
    name: str
    cwd: Path
    args: List[str]


def has_generic(*files: Path) -> bool:
    return any(GENERIC.search(f.read_text(errors="replace")) for f in files)


def runs() -> List[Run]:
    """The runs of scripts/same-outputs with GenericJobs, and tests/plugins/*.yaml."""
    out: List[Run] = []
    if has_generic(ROOT / "scenarios" / "default.yaml"):  # the embedded default is this one
        # One of its five replications: the port's cost grows with simulated time (issue 51).
        out.append(Run("default", ROOT, ["run", "-r", "1"]))
    for f in sorted((ROOT / "scenarios").glob("*.yaml")):
        if has_generic(f):
            out.append(Run(f"scenario-{f.stem}", ROOT, ["run", str(f.relative_to(ROOT))]))
    for f in sorted((ROOT / "scenarios" / "examples").glob("*.yaml")):
        text = f.read_text()
        if "kind: Scenario" in text and has_generic(f):
            out.append(Run(f"example-{f.stem}", ROOT, ["run", str(f.relative_to(ROOT))]))
    for f in sorted((ROOT / "tests" / "scenarios" / "cases").rglob("*.yaml")):
        if has_generic(f):
            out.append(Run(f"case-{f.stem}", ROOT, ["run", str(f.relative_to(ROOT))]))
    for f in sorted(HERE.glob("*.yaml")):
        if has_generic(f):
            out.append(Run(f"plugins-{f.stem}", ROOT, ["run", str(f.relative_to(ROOT))]))
            if f.stem in OPTION_RUNS:
                sets = [x for s in OPTION_RUNS[f.stem] for x in ("--set", s)]
                out.append(Run(f"plugins-{f.stem}-options", ROOT,
                               ["run", str(f.relative_to(ROOT)), *sets]))
    studies = ROOT / "scenarios" / "studies"
    for f in sorted(studies.glob("*.yaml")):
        # A variant that names its own plugin already runs out of process (same-outputs).
        variants = [v for v in sorted((studies / "variants").glob(f"{f.stem}.*.yaml"))
                    if "plugin:" not in v.read_text()]
        if not has_generic(f, *variants):
            continue
        args = ["compare", f.name]
        for v in variants:
            args += ["--variant", f"{v.name[len(f.stem) + 1:-len('.yaml')]}=variants/{v.name}"]
        out.append(Run(f"study-{f.stem}", studies,
                       args + ["--replications", STUDY_REPLICATIONS]))
    return out


def execute(t9ksim: str, run: Run, out: Path, dest: Path, plugin: Optional[Path]) -> float:
    """Runs once with outputs under `out`, then moves them, and the exit code, stdout and
    stderr, to `dest`. Returns the wall-clock seconds."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(dest, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    # compare writes no events.jsonl (it takes no --events)
    events = [] if run.args[0] == "compare" else ["--events"]
    cmd = [t9ksim, *run.args, "--out", str(out), "-q", *events]
    if plugin is not None:
        # compare runs a plugin only in the variants it names: here every one.
        every = "*:" if run.args[0] == "compare" else ""
        cmd += ["--plugin",
                f"{every}GenericJob={shlex.quote(sys.executable)} {shlex.quote(str(plugin))}"]
    start = time.monotonic()
    p = subprocess.run(cmd, cwd=run.cwd, capture_output=True, timeout=3600)
    took = time.monotonic() - start
    dest.mkdir(parents=True)
    if out.exists():
        out.rename(dest / "out")
    (dest / "exit-code").write_text(f"{p.returncode}\n")
    (dest / "stdout").write_bytes(p.stdout)
    (dest / "stderr").write_bytes(p.stderr)
    return took


def files(tree: Path) -> Dict[str, Path]:
    """Every file under `tree` by relative path, leaving out any `plugins` folder (diff -x)."""
    return {str(f.relative_to(tree)): f for f in sorted(tree.rglob("*"))
            if f.is_file() and "plugins" not in f.relative_to(tree).parts}


def content(rel: str, f: Path) -> bytes:
    """The file as compared: summary.json without what t9ksim diff declares may differ (what
    crossed to the plugins; the listing of their logs and of nested summaries)."""
    data = f.read_bytes()
    if Path(rel).name != "summary.json":
        return data
    j = json.loads(data)
    j.pop("plugins", None)
    if "files" in j:
        j["files"] = {k: v for k, v in j["files"].items()
                      if not k.startswith("plugins/") and "/plugins/" not in k
                      and not k.endswith("/summary.json")}
    return (json.dumps(j, indent=2, sort_keys=True) + "\n").encode()


def first_difference(rel: str, a: bytes, b: bytes) -> str:
    """The first differing line, around its first differing character."""
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            col = next((k for k, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            start = max(0, col - 80)

            def show(line: bytes) -> str:
                return (("..." if start else "")
                        + line[start:col + 160].decode(errors="replace"))
            return (f"{rel} line {i + 1}, column {col + 1}:\n"
                    f"      in process: {show(x)}\n      plugin:     {show(y)}")
    return f"{rel}: {len(la)} lines in process, {len(lb)} with the plugin"


def compare(a: Path, b: Path) -> Optional[str]:
    """None when identical, else the differing files and the first difference."""
    fa, fb = files(a), files(b)
    if fa.keys() != fb.keys():
        only = sorted(fa.keys() ^ fb.keys())
        return f"files in one run only: {', '.join(only[:5])}"
    differing = [rel for rel in fa if content(rel, fa[rel]) != content(rel, fb[rel])]
    if not differing:
        return None
    rel = differing[0]
    return (f"differing: {', '.join(differing)}\n    "
            + first_difference(rel, content(rel, fa[rel]), content(rel, fb[rel])))


def generic_jobs(tree: Path) -> int:
    """GenericJobs in the in-process jobs.csv files (every replication and variant)."""
    return sum(1 for f in tree.rglob("jobs.csv") for line in f.read_text().splitlines()[1:]
               if line.split(",")[1:2] == ["GenericJob"])


def check_port(t9ksim: str, work: Path, selected: List[Run]) -> int:
    """Each run in process and with the port, same --out path; returns how many differ."""
    differing = 0
    for run in selected:
        out = work / "out" / run.name
        ref = work / run.name / "in-process"
        t_in = execute(t9ksim, run, out, ref, None)
        t_out = execute(t9ksim, run, out, work / run.name / "port", PORT)
        diff = compare(ref, work / run.name / "port")
        code = (ref / "exit-code").read_text().strip()
        if diff is None and code != "0":  # a run that fails proves nothing
            diff = f"exit code {code} in process: {(ref / 'stderr').read_text().strip()[:400]}"
        timing = f"{t_in:6.1f} s in process, {t_out:6.1f} s with the port"
        if diff is None:
            shutil.rmtree(work / run.name / "port")  # the in-process outputs stay for mutants
            print(f"ok        {run.name:44} {generic_jobs(ref):5} GenericJobs  {timing}",
                  flush=True)
        else:
            differing += 1
            print(f"DIFFERENT {run.name:44} {timing}\n    {diff}", flush=True)
    return differing


def check_requests(t9ksim: str, count: int) -> int:
    """Random requests answered by the port and by `t9ksim plugin serve controller`; returns how
    many answers differ (the first few are printed)."""
    sys.path.insert(0, str(PORT.parent))
    from reference_generic import reconcile  # noqa: E402 (the port, beside its entry script)
    from random_reconciles import Generator  # noqa: E402

    def dumps(x: object) -> str:
        return json.dumps(x, separators=(",", ":"), ensure_ascii=False)

    gen = Generator(REQUEST_SEED)
    server = subprocess.Popen([t9ksim, "plugin", "serve", "controller"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    stdin, stdout = server.stdin, server.stdout
    assert stdin is not None and stdout is not None

    def call(i: int, method: str, params: object) -> Dict[str, object]:
        stdin.write(dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        stdin.flush()
        reply: Dict[str, object] = json.loads(stdout.readline())
        return reply

    call(1, "initialize", {"protocolVersion": "1", "role": "controller", "kinds": ["GenericJob"],
                           "simulator": {"name": "t9ksim", "version": "test"},
                           "controllerOptions": gen.options(),
                           "policy": {"name": "fixed", "periodMicros": 1, "cooldownMicros": 1,
                                      "checkpointWindowMicros": 1}})
    differing = 0
    for i in range(count):
        params = gen.request()
        reply = call(i + 2, "reconcile", params)
        want = dumps(reply.get("result", reply.get("error")))
        got = dumps(reconcile(json.loads(dumps(params))))
        if got != want:
            differing += 1
            if differing <= 3:
                at = next((k for k, (x, y) in enumerate(zip(got, want)) if x != y),
                          min(len(got), len(want)))
                print(f"DIFFERENT request {i}: {dumps(params)[:2000]}\n"
                      f"    built-in: ...{want[max(0, at - 200):at + 200]}\n"
                      f"    port:     ...{got[max(0, at - 200):at + 200]}", flush=True)
    call(count + 2, "shutdown", {})
    stdin.close()
    server.wait(timeout=60)
    print(f"{count - differing} of {count} random requests answered alike", flush=True)
    return differing


def check_mutants(t9ksim: str, work: Path, selected: List[Run]) -> int:
    """Each mutant must be caught by at least one regression case (its outputs differ)."""
    cases = [r for r in selected if r.name.startswith("case-")]
    escaped = 0
    for mutant in MUTANTS:
        exposing = []
        for run in cases:
            dest = work / run.name / mutant.stem
            execute(t9ksim, run, work / "out" / run.name, dest, mutant)
            if compare(work / run.name / "in-process", dest) is not None:
                exposing.append(run.name)
        if exposing:
            print(f"caught    mutant {mutant.stem}: {len(exposing)} of {len(cases)} cases "
                  f"differ: {', '.join(exposing)}", flush=True)
        else:
            escaped += 1
            print(f"ESCAPED   mutant {mutant.stem}: no case differs", flush=True)
    return escaped


def main() -> int:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    t9ksim, work = str(Path(sys.argv[1]).resolve()), Path(sys.argv[2]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    selected = runs()
    if os.environ.get("T9KSIM_REFERENCE_PORT_ALL") != "1":
        left = [r.name for r in selected if r.name in HEAVY]
        selected = [r for r in selected if r.name not in HEAVY]
        if left:
            print(f"left out (T9KSIM_REFERENCE_PORT_ALL=1 runs them): {', '.join(left)}")
    only = os.environ.get("T9KSIM_REFERENCE_PORT_ONLY")
    if only:
        selected = [r for r in selected if re.search(only, r.name)]
    if not selected:
        sys.exit("no run selected")
    start = time.monotonic()
    differing = check_port(t9ksim, work, selected)
    print(f"{len(selected) - differing} of {len(selected)} runs identical "
          f"({time.monotonic() - start:.0f} s)", flush=True)
    requests = int(os.environ.get("T9KSIM_REFERENCE_PORT_REQUESTS", "3000"))
    differing += check_requests(t9ksim, requests) if requests > 0 else 0
    escaped = 0
    if os.environ.get("T9KSIM_REFERENCE_PORT_MUTANTS") != "0":
        escaped = check_mutants(t9ksim, work, selected)
    print(f"total {time.monotonic() - start:.0f} s")
    return 1 if differing or escaped else 0


if __name__ == "__main__":
    sys.exit(main())
