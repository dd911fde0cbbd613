#!/usr/bin/env python3
"""Injected faults in the commit of a results folder (docs/reliability.md "Injected faults"): nested
and foreign writers, kills at every step of the swap with and without an atomic exchange, and
kills of `t9ksim report` between its steps.

    folder_faults_test.py T9KSIM WORKDIR CASE

The faults are the command's own test hooks (T9KSIM_FAULTS): "kill:POINT" kills it at POINT,
"stop:POINT" stops it there until the test continues it, "no-exchange" makes the swap take the
fallback path of a file system without renameat2(RENAME_EXCHANGE).
"""
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

from reliability_test import (SCENARIO, Failure, check, expect, files_in, fresh, main, run,
                              same_content, whole_problems)

SMALL = ("-q", "-r", "1", "--set", "horizon=2d", "--no-report")


def faulted(t9ksim, faults, *args):
    env = dict(os.environ, T9KSIM_FAULTS=faults)
    return subprocess.Popen([t9ksim, *map(str, args)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def wait_stopped(proc, timeout=120):
    """Until proc stops itself at its stop point (state T in /proc)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise Failure(f"ended before its stop point: {proc.stderr.read()}")
        state = pathlib.Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == "T":
            return
        time.sleep(0.01)
    raise Failure("the command never reached its stop point")


def resume(proc):
    proc.send_signal(signal.SIGCONT)
    _, err = proc.communicate(timeout=300)
    return proc.returncode, err


def leftovers(d, name="out"):
    """Hidden files beside the folder other than its lock file."""
    return sorted(p.name for p in d.iterdir() if p.name.startswith(f".{name}.") and
                  p.name != f".{name}.t9ksim-lock")


def references(t9ksim, d):
    old, new = d / "old", d / "new"
    expect(run(t9ksim, "run", "--out", old, *SMALL), 0)
    expect(run(t9ksim, "run", "--out", new, *SMALL, "--set", "seed=7"), 0)
    check(not same_content(old, new), "setup: the two references are the same")
    return old, new


def case_nested_writers(t9ksim, work):
    """No writer starts inside or around a folder another writer is writing."""
    d = fresh(work, "nested")
    out = d / "out"
    expect(run(t9ksim, "run", "--out", out, *SMALL), 0)
    before = d / "before"
    shutil.copytree(out, before)
    outer = faulted(t9ksim, "stop:before-check", "run", "--out", out, *SMALL, "--set", "seed=7")
    wait_stopped(outer)
    p = run(t9ksim, "run", "--out", out / "sub", *SMALL)
    expect(p, 2, f"{out / 'sub'} lies inside {out}, which another t9ksim is writing")
    p = run(t9ksim, "run", "--out", out / "a/b", *SMALL)
    expect(p, 2, "lies inside", "which another t9ksim is writing")
    rc, err = resume(outer)
    check(rc == 0, f"the outer writer failed: {err}")
    check(not whole_problems(out), f"not whole: {whole_problems(out)}")
    check(not same_content(out, before), "the outer writer's results are not in place")
    # The other way round: a folder inside is being written; the folder around it is refused.
    expect(run(t9ksim, "run", "--out", d / "top/sub", *SMALL), 0)
    inner = faulted(t9ksim, "stop:before-check", "run", "--out", d / "top/sub", *SMALL)
    wait_stopped(inner)
    p = run(t9ksim, "run", "--out", d / "top", *SMALL)
    expect(p, 2, f"{d / 'top'} holds {d / 'top/sub'}, which another t9ksim is writing")
    p = run(t9ksim, "report", d / "top/sub")
    expect(p, 2, "is being written by another t9ksim")
    rc, err = resume(inner)
    check(rc == 0, f"the inner writer failed: {err}")
    check(not whole_problems(d / "top/sub"), f"not whole: {whole_problems(d / 'top/sub')}")


def case_foreign_content_at_commit(t9ksim, work):
    """A file put into --out while the run writes stops the commit; both are kept, and said."""
    d = fresh(work, "foreign")
    out = d / "out"
    expect(run(t9ksim, "run", "--out", out, *SMALL), 0)
    writer = faulted(t9ksim, "stop:before-check", "run", "--out", out, *SMALL, "--set", "seed=7")
    wait_stopped(writer)
    (out / "notes.txt").write_text("mine\n")
    rc, err = resume(writer)
    kept = d / "out.t9ksim-new"
    check(rc == 1, f"exit {rc}, expected 1: {err}")
    for fragment in (f"{out} changed while this run ran", "notes.txt, which t9ksim did not write",
                     f"nothing was replaced; the new results are in {kept}"):
        check(fragment in err, f"stderr lacks {fragment!r}: {err}")
    check((out / "notes.txt").read_text() == "mine\n", "the user's file was touched")
    check(not whole_problems(kept), f"the kept results are not whole: {whole_problems(kept)}")
    check(leftovers(d) == [], f"left beside the folder: {leftovers(d)}")


# Each fault, what the killed command leaves at --out ("old", "new" or "absent"), and what the
# next writer says when it resolves it.
KILLS = [
    ("kill:before-check", "old", "removed"),
    ("kill:before-swap", "old", "completed the interrupted commit"),
    ("kill:after-swap", "new", "finished the interrupted commit"),
    ("no-exchange,kill:before-swap", "old", "completed the interrupted commit"),
    ("no-exchange,kill:between-renames", "absent", "completed the interrupted commit"),
    ("no-exchange,kill:after-swap", "new", "finished the interrupted commit"),
]


def case_interrupted_commits(t9ksim, work):
    """A kill at any step of the swap, with or without an atomic exchange: the next writer completes
    or restores the commit, says which, and nothing whole is lost."""
    d = fresh(work, "commits")
    old, new = references(t9ksim, d)
    out = d / "out"
    for faults, left, said in KILLS:
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(old, out)
        proc = faulted(t9ksim, faults, "run", "--out", out, *SMALL, "--set", "seed=7")
        _, err = proc.communicate(timeout=300)
        check(proc.returncode == -signal.SIGKILL, f"{faults}: exit {proc.returncode}: {err}")
        if left == "absent":
            check(not out.exists(), f"{faults}: --out is present")
        else:
            check(same_content(out, old if left == "old" else new), f"{faults}: --out is not the {left} run")
        # The next writer: `report` resolves the commit and leaves the folder whole.
        p = run(t9ksim, "report", out)
        expect(p, 0, said)
        expected = old if left == "old" and "completed" not in said else new
        check(all((out / f).read_bytes() == (expected / f).read_bytes()
                  for f in files_in(expected) if f != "summary.json"),
              f"{faults}: after recovery --out is not the expected run")
        check(not whole_problems(out), f"{faults}: not whole after recovery: {whole_problems(out)}")
        check(leftovers(d) == [], f"{faults}: left beside the folder: {leftovers(d)}")
        # And a run after that is an ordinary one.
        expect(run(t9ksim, "run", "--out", out, *SMALL), 0)
        check(same_content(out, old), f"{faults}: the run after recovery differs")
    # The fallback without faults: the same result as the exchange.
    p = faulted(t9ksim, "no-exchange", "run", "--out", out, *SMALL, "--set", "seed=7")
    _, err = p.communicate(timeout=300)
    check(p.returncode == 0 and same_content(out, new), f"no-exchange: {p.returncode} {err}")
    check(leftovers(d) == [], f"no-exchange: left beside the folder: {leftovers(d)}")


def case_interrupted_reports(t9ksim, work):
    """t9ksim report killed before or after its rename leaves nothing the next run refuses."""
    d = fresh(work, "reports")
    out = d / "out"
    for point, said in (("report-before-rename", "left"), ("report-after-rename", "is listed")):
        shutil.rmtree(out, ignore_errors=True)
        expect(run(t9ksim, "run", "--out", out, *SMALL), 0)
        proc = faulted(t9ksim, f"kill:{point}", "report", out)
        _, err = proc.communicate(timeout=300)
        check(proc.returncode == -signal.SIGKILL, f"{point}: exit {proc.returncode}: {err}")
        p = run(t9ksim, "run", "--out", out, *SMALL, "--set", "seed=7")
        expect(p, 0, "interrupted t9ksim report", said)
        check(not whole_problems(out), f"{point}: not whole: {whole_problems(out)}")
        check(not [f for f in out.rglob(".*")], f"{point}: hidden files left: {list(out.rglob('.*'))}")
    # Killed reports on a comparison's variant: the owner's listing stays whole too.
    overlay = d / "same.yaml"
    overlay.write_text("metadata:\n  description: the same\n")
    compare = ("compare", SCENARIO, "--variant", f"a={overlay}", "--variant", f"b={overlay}", "-q", "-r", "1")
    for point in ("report-before-rename", "report-after-rename"):
        cmp_out = d / "cmp"
        shutil.rmtree(cmp_out, ignore_errors=True)
        expect(run(t9ksim, *compare, "--out", cmp_out), 0)
        proc = faulted(t9ksim, f"kill:{point}", "report", cmp_out / "a")
        proc.communicate(timeout=300)
        check(proc.returncode == -signal.SIGKILL, f"{point}: the variant's report was not killed")
        expect(run(t9ksim, "report", cmp_out / "b"), 0, "interrupted t9ksim report")
        check(not whole_problems(cmp_out), f"{point}: comparison not whole: {whole_problems(cmp_out)}")
        expect(run(t9ksim, *compare, "--out", cmp_out), 0)


if __name__ == "__main__":
    sys.exit(main(globals()))
