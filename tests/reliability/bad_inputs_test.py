#!/usr/bin/env python3
"""Bad inputs get true, specific messages (docs/reliability.md "Messages that say what is wrong"),
through the real command line: each case names the input, the exit code and the message.

    bad_inputs_test.py T9KSIM WORKDIR CASE
"""
import os
import pathlib
import shutil
import subprocess
import sys

from reliability_test import ROOT, Failure, check, expect, fresh, main, run

EXAMPLES = ROOT / "scenarios/examples"
EXPORT = ROOT / "tests/traces/fixtures/t9k-cluster-export.yaml"
PHILLY = ROOT / "data/traces/philly"


def examples(d):
    ex = d / "ex"
    shutil.copytree(EXAMPLES, ex)
    return ex


def case_yaml_text(t9ksim, work):
    """CR-only line breaks load like LF ones; a control character is named with its byte."""
    ex = examples(fresh(work, "yaml-text"))
    text = (ex / "small-cluster.yaml").read_bytes()
    (ex / "cr.yaml").write_bytes(text.replace(b"\n", b"\r"))
    expect(run(t9ksim, "validate", ex / "cr.yaml"), 0)
    expect(run(t9ksim, "run", ex / "cr.yaml", "--out", ex.parent / "o", "-q", "-r", "1"), 0)
    check((ex.parent / "o/summary.json").is_file(), "the CR-only scenario did not run")
    line = text.split(b"\n").index(next(l for l in text.split(b"\n") if l.strip().startswith(b"name:")))
    for byte in (b"\x00", b"\x01", b"\x7f"):
        lines = text.split(b"\n")
        lines[line] = lines[line].replace(b"name: ", b"name: a" + byte, 1)
        (ex / "ctl.yaml").write_bytes(b"\n".join(lines))
        col = lines[line].index(byte) + 1
        p = run(t9ksim, "validate", ex / "ctl.yaml")
        expect(p, 2, f"ctl.yaml:{line + 1}:{col}: error: found a control character (byte 0x{byte[0]:02x}")
        check("escape" not in p.stderr, p.stderr)


def case_numeric_bounds(t9ksim, work):
    """The largest seed is accepted; one above it and NaN get messages that do not contradict
    themselves."""
    ex = examples(fresh(work, "bounds"))
    text = (ex / "small-cluster.yaml").read_text()
    check("seed: 42" in text, "setup: the example's seed changed")
    (ex / "s.yaml").write_text(text.replace("seed: 42", "seed: 18446744073709551615"))
    expect(run(t9ksim, "validate", ex / "s.yaml"), 0)
    (ex / "s.yaml").write_text(text.replace("seed: 42", "seed: 18446744073709551616"))
    expect(run(t9ksim, "validate", ex / "s.yaml"), 2,
           "spec.seed: found 18446744073709551616; allowed: an integer in [0, 18446744073709551615]")
    p = run(t9ksim, "run", ex / "small-cluster.yaml", "--set", "seed=9223372036854775808", "--out",
            ex.parent / "o", "-q", "-r", "1")
    expect(p, 0)
    (ex / "s.yaml").write_text(text.replace("seed: 42", "seed: 1\n  replications: 100001"))
    expect(run(t9ksim, "validate", ex / "s.yaml"), 2, "allowed: an integer in [1, 100000]")
    gen = ROOT / "scenarios/default.yaml"
    if gen.is_file():
        g = gen.read_text()
        if "rate:" in g:
            bad = ex / "g.yaml"
            bad.write_text(g.replace("rate:", "rate: .nan #", 1))
            p = run(t9ksim, "validate", bad)
            expect(p, 2, "found .nan; allowed: a finite decimal number (no nan or inf)")
            check("1.797" not in p.stderr, p.stderr)


def case_csv_open_quote(t9ksim, work):
    """An unterminated quote in a trace row is named as such at its column, not as a missing
    column; in the header too; CR-only CSV is named."""
    d = fresh(work, "csv-quote")
    lines = (PHILLY / "philly.csv").read_text().split("\n")[:6]
    shutil.copy(PHILLY / "philly_vc.csv", d / "philly_vc.csv")
    bad = list(lines)
    bad[2] = '"' + bad[2]
    (d / "philly.csv").write_text("\n".join(bad) + "\n")
    p = run(t9ksim, "import", d / "philly.csv", "--format", "philly", "--out", d / "o", "-q")
    expect(p, 2, "philly.csv:3:1: error: timestamp: found a quote '\"' with no closing quote on this line")
    check("missing column" not in p.stderr, p.stderr)
    head = list(lines)
    head[0] = head[0].replace(",", ',"', 1)
    (d / "philly.csv").write_text("\n".join(head) + "\n")
    p = run(t9ksim, "import", d / "philly.csv", "--format", "philly", "--out", d / "o", "-q")
    expect(p, 2, "header: found a quote '\"' not closed on its line")
    (d / "philly.csv").write_text("\r".join(lines) + "\r")
    p = run(t9ksim, "import", d / "philly.csv", "--format", "philly", "--out", d / "o", "-q")
    expect(p, 2, "found a line break that is a CR alone")


def case_go_zero_time(t9ksim, work):
    """Go's zero time in an export means "never set": a condition's time is ignored, a zero
    creationTimestamp is named as such, and times before 1970 get a true message."""
    d = fresh(work, "zero-time")
    text = EXPORT.read_text()
    first = text.index('lastTransitionTime: "', text.index("conditions"))
    end = text.index('"', first + len('lastTransitionTime: "'))
    ignored = text[:first] + 'lastTransitionTime: "0001-01-01T00:00:00Z"' + text[end + 1:]
    (d / "z1.yaml").write_text(ignored)
    expect(run(t9ksim, "replay-check", d / "z1.yaml", "-o", d / "r1", "-q"), 0)
    c = text.index("creationTimestamp: ", text.index("kind: GenericJob") if "kind: GenericJob" in text else 0)
    q = text.index('"', c)
    zero = text[:q + 1] + "0001-01-01T00:00:00Z" + text[text.index('"', q + 1):]
    (d / "z2.yaml").write_text(zero)
    p = run(t9ksim, "replay-check", d / "z2.yaml", "-o", d / "r2", "-q")
    expect(p, 2, "creationTimestamp: found the zero time 0001-01-01T00:00:00Z (never set)")
    (d / "z3.yaml").write_text(ignored.replace("0001-01-01T00:00:00Z", "1960-05-01T10:00:05Z"))
    p = run(t9ksim, "replay-check", d / "z3.yaml", "-o", d / "r3", "-q")
    expect(p, 2, 'found "1960-05-01T10:00:05Z"; allowed: an RFC 3339 time at or after 1970-01-01T00:00:00Z')


def case_import_outputs(t9ksim, work):
    """import --queue writes a scenario that loads; a failed write names the system's reason."""
    d = fresh(work, "import")
    lines = (PHILLY / "philly.csv").read_text().split("\n")[:30]
    (d / "philly.csv").write_text("\n".join(lines) + "\n")
    shutil.copy(PHILLY / "philly_vc.csv", d / "philly_vc.csv")
    expect(run(t9ksim, "import", d / "philly.csv", "--format", "philly", "--out", d / "q", "-q",
               "--queue", "research"), 0)
    expect(run(t9ksim, "validate", d / "q/scenario.yaml"), 0)
    expect(run(t9ksim, "run", d / "q/scenario.yaml", "--out", d / "qr", "-q", "-r", "1"), 0)
    check("queue/research/" in (d / "qr/summary.json").read_text(), "the jobs did not run in queue research")
    p = run(t9ksim, "import", PHILLY / "philly.csv", "--format", "philly", "--out", d / "big", "-q",
            "--limit", "3000", limit_bytes=64 << 10)
    expect(p, 1, "cannot write", "File too large")


def case_damaged_summary(t9ksim, work):
    """report on a damaged summary.json: exit 2, the file named, what is wrong in words."""
    d = fresh(work, "summary")
    out = d / "r"
    expect(run(t9ksim, "run", EXAMPLES / "small-cluster.yaml", "--out", out, "-q", "-r", "2"), 0)
    good = (out / "summary.json").read_bytes()
    for content, said in ((good[:300], "not valid JSON at byte"), (b"[1, 2]", "a JSON array, not an object"),
                          (b'{"kind": "nonsense"}', 'found kind "nonsense"'),
                          (b'{"kind": 7}', "type must be string")):
        (out / "summary.json").write_bytes(content)
        p = run(t9ksim, "report", out)
        expect(p, 2, f"{out / 'summary.json'}: {said}", "not a summary.json as t9ksim wrote it")
        check("json.exception" not in p.stderr, p.stderr)
    (out / "summary.json").write_bytes(good)
    (out / "rep-1/summary.json").write_text('{"metrics": "x"}')
    p = run(t9ksim, "report", out)
    expect(p, 2, f"{out / 'rep-1/summary.json'}: its metrics are not an object")


def generic_job(name, limits):
    """A workload.jobs entry: a one-pod GenericJob with these limits."""
    return f"""    - submitAt: 0s
      behaviour: {{runTime: 10m}}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: GenericJob
        metadata: {{name: {name}}}
        spec:
          replicaSpecs:
          - type: worker
            template:
              spec:
                containers:
                - {{name: c, image: x, resources: {{limits: {limits}}}}}
"""


NEVER_FITS = """apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: never-fits}
spec:
  horizon: 2h
  cluster:
    nodePools:
    - {name: gpu, count: 2, gpusPerNode: 8, cpu: 64, memory: 512Gi}
  workload:
    jobs:
""" + generic_job("big", "{nvidia.com/gpu: 16}") + generic_job("fpga", "{example.com/fpga: 1, memory: 1Gi}") + \
    generic_job("fits", "{nvidia.com/gpu: 8, memory: 512Gi}")


def case_never_fits(t9ksim, work):
    """A job no node can ever hold is named at load with what is missing; one that fits is not."""
    d = fresh(work, "never-fits")
    (d / "s.yaml").write_text(NEVER_FITS)
    p = run(t9ksim, "validate", d / "s.yaml")
    p.stderr += p.stdout  # validate writes warnings to stdout
    expect(p, 0, 's.yaml:11:7: warning: spec.workload.jobs[0].spec.replicaSpecs[0].template: job "big" asks '
           "for 16 nvidia.com/gpu per pod; the most a node has is 8 (pool gpu): its pods can never be placed",
           'job "fpga" asks for 1 example.com/fpga per pod, which no node pool has')
    check('"fits"' not in p.stderr, p.stderr)


def case_warnings_kept(t9ksim, work):
    """Warnings survive -q and replications: in summary.json, and said once on the console."""
    d = fresh(work, "warnings")
    (d / "s.yaml").write_text(NEVER_FITS)
    import json
    p = run(t9ksim, "run", d / "s.yaml", "--out", d / "q", "-q")
    expect(p, 0)
    check(p.stderr == "" and p.stdout == "", f"-q printed: {p.stdout} {p.stderr}")
    warnings = json.loads((d / "q/summary.json").read_text()).get("warnings", [])
    check(any('job "big"' in w for w in warnings), f"summary.json warnings: {warnings}")
    check(not any("s.yaml" in w for w in warnings), f"a warning names the file's place: {warnings}")
    p = run(t9ksim, "run", d / "s.yaml", "--out", d / "r", "-r", "2")
    expect(p, 0)
    check(p.stderr.count('job "big"') == 1, f"said other than once: {p.stderr}")
    top = json.loads((d / "r/summary.json").read_text()).get("warnings", [])
    check(top == warnings, f"the replications' summary.json: {top}")
    overlay = d / "o.yaml"
    overlay.write_text("metadata:\n  description: the same\n")
    p = run(t9ksim, "compare", d / "s.yaml", "--variant", f"v={overlay}", "--out", d / "c", "-r", "1")
    expect(p, 0, 'job "big"')


def case_compare_namespaces(t9ksim, work):
    """A base that run accepts is accepted by compare: jobs of one name in two namespaces are two
    jobs to the overlay merge too; a true duplicate is blamed on the base's own line."""
    d = fresh(work, "namespaces")
    data = ROOT / "tests/reliability/data"
    base, overlay = data / "namespaces.yaml", data / "add-job.yaml"
    expect(run(t9ksim, "run", base, "--out", d / "run", "-q"), 0)
    expect(run(t9ksim, "compare", base, "--variant", f"more={overlay}", "--out", d / "cmp", "-q", "-r", "1"), 0)
    jobs = (d / "cmp/more/jobs.csv").read_text() if (d / "cmp/more/jobs.csv").exists() else \
        (d / "cmp/more/rep-0/jobs.csv").read_text()
    check(all(j in jobs for j in ("a/j1", "b/j1", "j2")), jobs)
    twice = d / "twice.yaml"
    twice.write_text(base.read_text().replace("namespace: b", "namespace: a"))
    p = run(t9ksim, "compare", twice, "--variant", f"more={overlay}", "--out", d / "cmp2", "-q", "-r", "1")
    expect(p, 2)
    check("add-job.yaml" not in p.stderr, f"the base's problem is blamed on the overlay: {p.stderr}")


def case_empty_inputs(t9ksim, work):
    """An export without jobs or times, and a trace with a header only, are said plainly."""
    d = fresh(work, "empty")
    (d / "empty.yaml").write_text("apiVersion: v1\nkind: List\nitems: []\n")
    (d / "s.yaml").write_text(
        "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata: {name: e}\nspec:\n  horizon: 1h\n"
        "  cluster:\n    nodePools:\n    - {name: gpu, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}\n"
        "  initialState: {fromExport: empty.yaml}\n")
    p = run(t9ksim, "run", d / "s.yaml", "--out", d / "o")
    expect(p, 0)
    said = p.stdout + p.stderr
    check("found no unfinished job in the export" in said, said)
    check("(the export records no time)" in said and "294247" not in said, said)
    header = (PHILLY / "philly.csv").read_text().split("\n")[0]
    (d / "philly.csv").write_text(header + "\n")
    shutil.copy(PHILLY / "philly_vc.csv", d / "philly_vc.csv")
    p = run(t9ksim, "import", d / "philly.csv", "--format", "philly", "--out", d / "i", "-q")
    expect(p, 2, "the trace holds no job; nothing to import")
    check("window" not in p.stderr, p.stderr)


if __name__ == "__main__":
    sys.exit(main(globals()))
