#!/usr/bin/env python3
"""Differential testing through the real command line (issue 45, docs/plugins.md §5).

    differential_test.py T9KSIM WORKDIR

* `t9ksim test` over the regression cases with the Python port of the built-in GenericJob
  controller (plugins/examples/reference_generic_controller.py) and `--reference builtin`: every
  case passes and the JUnit report is green.
* Each mutant of the port (tests/plugins/mutants/) fails: the JUnit report names the cases, and
  the message says which plugin diverged, on which job, at what time, at which JSON path, with
  both values; `t9ksim run` ends with exit 1 and the job's last events.
* The reference may be a command (the last release of the user's own controller): the built-in
  server checked against the port passes.
* compare: a plugin must say which variants it runs in; with a reference it is checked there.
* A reference without a plugin to compare is refused (exit 2).
Standard library only.
"""
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CASES = ROOT / "tests" / "scenarios" / "cases"
PORT = f"python3 {shlex.quote(str(ROOT / 'plugins/examples/reference_generic_controller.py'))}"
MUTANTS = {
    # mutant: a case that exposes it (reference_port_test.py found these by outputs)
    "success_on_one": "generic-success-rule.yaml",
    "lose_restart_counts": "always-restart.yaml",
}
failures = 0


def check(cond, what):
    global failures
    print(f"{'ok  ' if cond else 'FAIL'} {what}")
    failures += not cond


def t9k(t9ksim, *args, timeout=1200):
    return subprocess.run([t9ksim, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def junit(path):
    root = ET.parse(path).getroot()
    cases = root.findall(".//testcase")
    failed = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    return cases, failed


def the_port_passes(t9ksim, work):
    xml = work / "port.xml"
    p = t9k(t9ksim, "test", str(CASES), "--plugin", f"GenericJob={PORT}", "--reference", "builtin",
            "--junit", str(xml))
    cases, failed = junit(xml) if xml.exists() else ([], {})
    check(p.returncode == 0 and len(cases) > 40 and not failed,
          f"the port against the built-in controller: exit {p.returncode}, {len(cases)} cases, "
          f"{len(failed)} failed {sorted(failed)[:3]}")


def mutant_fails(t9ksim, work, mutant, exposing):
    xml = work / f"{mutant}.xml"
    plugin = f"python3 {shlex.quote(str(HERE / 'mutants' / (mutant + '.py')))}"
    p = t9k(t9ksim, "test", str(CASES), "--plugin", f"GenericJob={plugin}", "--reference",
            "builtin", "--junit", str(xml))
    _, failed = junit(xml) if xml.exists() else ([], {})
    names = {pathlib.Path(n).name for n in failed}
    check(p.returncode == 1 and exposing in names,
          f"{mutant}: exit {p.returncode}, fails {sorted(names)}")
    msg = failed.get(str(CASES / exposing))
    text = (msg.get("message", "") + (msg.text or "")) if msg is not None else ""
    for fragment in ("plugin genericjob-controller diverged from the built-in controller on job",
                     " at t=", "result.", "plugin genericjob-controller: ", "the built-in controller: "):
        check(fragment in text, f"{mutant}: the JUnit message has {fragment!r}")
    # The same through `run`: exit 1, and the diverging job's last events.
    out = work / f"{mutant}-run"
    shutil.rmtree(out, ignore_errors=True)
    p = t9k(t9ksim, "run", str(CASES / exposing), "--out", str(out), "-q", "--plugin",
            f"GenericJob={plugin}", "--reference", "builtin")
    check(p.returncode == 1 and "the job's last events:" in p.stderr and '"type":' in p.stderr,
          f"{mutant}: run exits {p.returncode} with the job's last events")
    check((out / "plugins" / "genericjob-controller.log").exists(),
          f"{mutant}: the plugin log is in OUT/plugins/ after the failed run")


def reference_command(t9ksim, work):
    out = work / "reference-command"
    shutil.rmtree(out, ignore_errors=True)
    server = f"{shlex.quote(t9ksim)} plugin serve controller"
    p = t9k(t9ksim, "run", str(CASES / "generic-limit-per-replica.yaml"), "--out", str(out), "-q",
            "--plugin", f"GenericJob={server}", "--reference", f"GenericJob={PORT}")
    check(p.returncode == 0 and (out / "plugins" / "genericjob-controller-reference.log").exists(),
          f"a reference command: exit {p.returncode} {p.stderr.strip()[-200:]}")


def compare_names_variants(t9ksim, work):
    overlay = work / "same.yaml"
    overlay.write_text("spec: {}\n")
    base = CASES / "generic-success-rule.yaml"
    out = work / "compare"
    shutil.rmtree(out, ignore_errors=True)
    p = t9k(t9ksim, "compare", str(base), "--variant", f"mine={overlay}", "--out", str(out), "-q",
            "--plugin", f"GenericJob={PORT}")
    check(p.returncode == 2 and "say which variants it runs in (base, mine)" in p.stderr,
          f"compare refuses a plugin without variants: exit {p.returncode}")
    p = t9k(t9ksim, "compare", str(base), "--variant", f"mine={overlay}", "--out", str(out), "-q",
            "--plugin", f"mine:GenericJob={PORT}", "--reference", "builtin")
    check(p.returncode == 0 and (out / "mine" / "rep-0" / "plugins").exists()
          and not (out / "base" / "rep-0" / "plugins").exists(),
          f"compare runs the plugin in the variant it names, checked: exit {p.returncode} "
          f"{p.stderr.strip()[-200:]}")


def reference_needs_a_plugin(t9ksim, work):
    out = work / "no-plugin"
    p = t9k(t9ksim, "run", str(CASES / "generic-success-rule.yaml"), "--out", str(out), "-q",
            "--reference", "GenericJob=builtin")
    check(p.returncode == 2 and "no plugin runs GenericJob" in p.stderr,
          f"a reference without a plugin: exit {p.returncode} {p.stderr.strip()[-160:]}")


def main():
    t9ksim = os.path.abspath(sys.argv[1])
    work = pathlib.Path(sys.argv[2]).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    the_port_passes(t9ksim, work)
    for mutant, exposing in MUTANTS.items():
        mutant_fails(t9ksim, work, mutant, exposing)
    reference_command(t9ksim, work)
    compare_names_variants(t9ksim, work)
    reference_needs_a_plugin(t9ksim, work)
    if failures:
        sys.exit(f"{failures} check(s) failed")


if __name__ == "__main__":
    main()
