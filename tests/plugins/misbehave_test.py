#!/usr/bin/env python3
"""Every way a plugin can misbehave ends the run with a clear error (issue 14, item 7).

    misbehave_test.py T9KSIM WORKDIR [CASE...]

Runs tests/plugins/misbehave.yaml through the real command line with a plugin that misbehaves
(bad_plugin.py, wrapping the built-in server) and checks, for each case: exit code 1, within
a bounded wall time (never a hang); stderr names the plugin, the method, the job and the
simulated time where they apply, and the offending field; no summary.json is left (nothing looks
complete). Standard library only; prints one line per case and exits 1 on the first failure.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
SCENARIO = HERE / "misbehave.yaml"

# (case, role, bad_plugin mode, fragments stderr must contain). Role "GenericJob" is the
# GenericJob controller (plugin name genericjob-controller); "elastic-policy" the policy.
CASES = [
    ("controller exits", "GenericJob", "exit",
     ["plugin genericjob-controller", "closed its output without answering", "exited with code 3",
      "during reconcile of job default/plain at t="]),
    ("controller dies by a signal", "GenericJob", "signal",
     ["plugin genericjob-controller", "killed by signal 9", "during reconcile of job default/plain at t="]),
    ("controller exceeds its timeout", "GenericJob", "hang",
     ["plugin genericjob-controller", "did not answer within 1000 ms", "during reconcile of job default/plain at t="]),
    ("controller writes malformed JSON", "GenericJob", "malformed",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "not JSON"]),
    ("controller answers another request id", "GenericJob", "wrong-id",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "id"]),
    ("controller answers an error", "GenericJob", "error-reply",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "-32000", "out of coffee"]),
    ("controller returns an unknown action", "GenericJob", "unknown-action",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "result.actions[", "].type",
      "ExplodePod"]),
    ("controller creates a pod of another job", "GenericJob", "foreign-pod",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "].pod.t9ksim.job", "someone-else"]),
    ("controller sets an impossible phase transition", "GenericJob", "bad-phase",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "result.status.phase",
      "is not a transition"]),
    ("controller creates more replicas than the job has", "GenericJob", "rank-too-high",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "].pod.t9ksim.rank", "found 99",
      "[0, 2)"]),
    ("controller creates a pod already bound and running", "GenericJob", "observed-state",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "].pod.spec.nodeName", "is set"]),
    ("controller speaks another protocol version", "GenericJob", "bad-version",
     ["plugin genericjob-controller: initialize", "protocol version \"99\""]),
    ("policy asks for more replicas than allowed", "elastic-policy", "too-many",
     ["elastic policy plugin elastic-policy (t9ksim-builtin-greedy): decide at t=", "result.decisions[0].expectedReplicas", "default/stretchy", "expectedReplicas 4", "maxReplicas 3"]),
    ("policy resizes a job it was not offered", "elastic-policy", "unknown-job",
     ["plugin elastic-policy: decide at t=", "result.decisions[0].job", "default/nobody"]),
    ("policy exits", "elastic-policy", "exit",
     ["plugin elastic-policy", "exited with code 3", "during decide at t="]),
    ("policy exceeds its timeout", "elastic-policy", "hang",
     ["plugin elastic-policy", "did not answer within 1000 ms", "during decide at t="]),
    # Protocol version 2 (docs/protocol-v2.md): the batch's answers.
    ("v2: one answer fewer than jobs", "GenericJob", "v2-missing",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "result.results: 0 answers for 1 jobs"]),
    ("v2: an answer for another job", "GenericJob", "v2-wrong-uid",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "result.results[0].uid",
      "job-999"]),
    ("v2: an unknown action", "GenericJob", "v2-bad-action",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "result.results[0].actions[",
      "ExplodePod"]),
    ("v2: a status patch with no phase", "GenericJob", "v2-bad-patch",
     ["plugin genericjob-controller: reconcile of job default/plain at t=",
      "result.results[0].statusPatch.phase", "Sleeping"]),
    ("v2: a resync asked again", "GenericJob", "v2-resync-loop",
     ["plugin genericjob-controller: reconcile of job default/plain at t=", "result.results[0].resync",
      "asked again"]),
]


def run_case(t9ksim, workdir, name, role, mode, fragments):
    out = pathlib.Path(workdir) / name.replace(" ", "-")
    shutil.rmtree(out, ignore_errors=True)
    serve = "controller" if role != "elastic-policy" else "elastic-policy"
    # Version 1 unless the case is about version 2's messages.
    protocol = "2" if mode.startswith("v2-") else "1"
    plugin = (f"python3 {HERE / 'bad_plugin.py'} {mode} -- {t9ksim} plugin serve {serve}"
              f" --protocol {protocol}")
    cmd = [t9ksim, "run", str(SCENARIO), "--out", str(out), "--quiet", "--plugin", f"{role}={plugin}",
           "--plugin-timeout", "1s"]
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    wall = time.monotonic() - start
    problems = []
    if p.returncode != 1:
        problems.append(f"exit code {p.returncode}, expected 1")
    for f in fragments:
        if f not in p.stderr:
            problems.append(f"stderr lacks {f!r}")
    if (out / "summary.json").exists():
        problems.append("summary.json was written: the failed run looks complete")
    log = out / "plugins" / ("elastic-policy.log" if role == "elastic-policy" else "genericjob-controller.log")
    if mode != "bad-version" and not log.exists():
        problems.append(f"{log} is missing: a failed run keeps its plugin logs in OUT/plugins/")
    if wall > 60:
        problems.append(f"took {wall:.0f} s")
    return problems, p.stderr.strip()


def main():
    t9ksim, workdir = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    failed = 0
    for name, role, mode, fragments in CASES:
        if only and name not in only:
            continue
        problems, err = run_case(t9ksim, workdir, name, role, mode, fragments)
        status = "ok  " if not problems else "FAIL"
        print(f"{status} {name}: {err.splitlines()[-1] if err else '(no stderr)'}")
        for pr in problems:
            print(f"     {pr}")
        failed += bool(problems)
    if failed:
        print(f"{failed} case(s) failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
