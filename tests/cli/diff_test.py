#!/usr/bin/env python3
"""`t9ksim diff A B` (analysis/folder_diff.hpp, docs/outputs.md "Comparing two results").

    diff_test.py T9KSIM WORKDIR

* A run in process and the same run with every controller and the elastic policy behind
  `t9ksim plugin serve` are the same (exit 0): only the declared parts differ (plugin logs, what
  crossed to the plugins, their listing), also with replications (nested summaries).
* A changed line of jobs.csv, a changed metric, a file only one side has: exit 1, naming the
  file and where (line, JSON path), with both values.
* --ignore leaves a file aside; a folder that does not exist is exit 2.
Standard library only.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCENARIO = ROOT / "tests" / "plugins" / "elastic-quota.yaml"
failures = 0


def check(cond, what):
    global failures
    print(f"{'ok  ' if cond else 'FAIL'} {what}")
    failures += not cond


def t9k(t9ksim, *args):
    return subprocess.run([t9ksim, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def run(t9ksim, out, plugins, *extra):
    shutil.rmtree(out, ignore_errors=True)
    args = ["run", str(SCENARIO), "--out", str(out), "-q", *extra]
    if plugins:
        args += ["--plugin", f"controllers={t9ksim} plugin serve controller",
                 "--plugin", f"elastic-policy={t9ksim} plugin serve elastic-policy"]
    p = t9k(t9ksim, *args)
    if p.returncode != 0:
        sys.exit(f"FAIL: t9ksim {' '.join(args)}: exit {p.returncode}: {p.stderr}")


def main():
    t9ksim = os.path.abspath(sys.argv[1])
    work = pathlib.Path(sys.argv[2]).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    a, b = work / "a", work / "b"
    run(t9ksim, a, False)
    run(t9ksim, b, True)
    check(json.loads((b / "summary.json").read_text())["plugins"]["controllers"]["calls"] > 0,
          "the run with plugins lists what crossed to them in summary.json")
    p = t9k(t9ksim, "diff", str(a), str(b))
    check(p.returncode == 0 and p.stdout.startswith("identical:"),
          f"in process and out of process are the same: exit {p.returncode} {p.stdout.strip()}")
    ra, rb = work / "ra", work / "rb"
    run(t9ksim, ra, False, "-r", "2")
    run(t9ksim, rb, True, "-r", "2")
    p = t9k(t9ksim, "diff", str(ra), str(rb))
    check(p.returncode == 0, f"with replications too: exit {p.returncode} {p.stdout.strip()[:300]}")

    jobs = (b / "jobs.csv").read_text().splitlines(keepends=True)
    jobs[3] = jobs[3].replace(",", ";", 1)
    (b / "jobs.csv").write_text("".join(jobs))
    p = t9k(t9ksim, "diff", str(a), str(b))
    check(p.returncode == 1 and "jobs.csv: line 4" in p.stdout and "A: " in p.stdout
          and "B: " in p.stdout, f"a changed line: exit {p.returncode} {p.stdout.strip()[:200]}")

    summary = json.loads((b / "summary.json").read_text())
    summary["metrics"]["jobs_failed"] = summary["metrics"]["jobs_failed"] + 1
    (b / "summary.json").write_text(json.dumps(summary, indent=2))
    p = t9k(t9ksim, "diff", str(a), str(b))
    check(p.returncode == 1 and "summary.json: $.metrics.jobs_failed" in p.stdout,
          f"a changed metric: exit {p.returncode} {p.stdout.strip()[:300]}")

    (b / "extra.txt").write_text("x\n")
    p = t9k(t9ksim, "diff", str(a), str(b))
    check(p.returncode == 1 and "extra.txt: only in B" in p.stdout, "a file only B has")
    p = t9k(t9ksim, "diff", str(a), str(b), "--ignore", "extra.txt", "--ignore", "jobs.csv",
            "--ignore", "summary.json")
    check(p.returncode == 0, f"--ignore leaves them aside: exit {p.returncode} {p.stdout.strip()}")

    p = t9k(t9ksim, "diff", str(a), str(work / "nowhere"))
    check(p.returncode == 2 and "not a folder" in p.stderr, f"no such folder: exit {p.returncode}")
    if failures:
        sys.exit(f"{failures} check(s) failed")


if __name__ == "__main__":
    main()
