#!/usr/bin/env python3
"""No e-notation and no noise digits where people read numbers (issue 48 item 2).

    readable_numbers_test.py T9KSIM WORKDIR

Runs the embedded default scenario (two days, two replications), a comparison of two variants
and a sweep, and scans what a person reads: the console, and the text of each report.html
(outside <script> and <style>, tags removed). It fails on any number in e-notation (9.774e+04)
and on any decimal number with more than four significant digits (0.8299 ± 0.03643 carries
noise: its interval supports two). Standard library only.
"""
import html
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
E_NOTATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+(?![\w.])")
NUMBER = r"\d[\d,]*(?:\.\d+)?"
DECIMAL = re.compile(r"(?<![\w.,])\d[\d,]*\.\d+(?![\w.])")
# A plain number with its half-width ("0.83 ± 0.036"), not followed by a unit.
PLUS_MINUS = re.compile(rf"(?<![\w.,])({NUMBER}) ± ({NUMBER})(?![\w.]|,\d| ?(?:s|min|h|d|%|GPU))")
MAX_SIGNIFICANT = 4
failures = 0


def check(cond, what):
    global failures
    print(f"{'ok  ' if cond else 'FAIL'} {what}")
    failures += not cond


def visible_text(page):
    page = re.sub(r"<script\b.*?</script>", " ", page, flags=re.S)
    page = re.sub(r"<style\b.*?</style>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " | ", page))


def significant_digits(number):
    return len(number.replace(",", "").replace(".", "").lstrip("0"))


def decimals(number):
    return len(number.split(".")[1]) if "." in number else 0


def unreadable(text):
    """The e-notation numbers and the numbers with noise digits in text, with their context: a
    value with a half-width has no more decimals than the half-width, which has at most two
    significant digits; any other decimal at most four significant digits."""
    found = []

    def where(m):
        return text[max(0, m.start() - 60):m.end() + 10]

    for m in E_NOTATION.finditer(text):
        found.append(("e-notation", where(m)))
    paired = set()
    for m in PLUS_MINUS.finditer(text):
        value, half = m.group(1), m.group(2)
        paired.update({m.start(1), m.start(2)})
        if ("." in half and significant_digits(half) > 2) or decimals(value) > decimals(half):
            found.append(("noise digits", where(m)))
    for m in DECIMAL.finditer(text):
        if m.start() not in paired and significant_digits(m.group(0)) > MAX_SIGNIFICANT:
            found.append(("noise digits", where(m)))
    return found


def scan(name, text):
    bad = unreadable(text)
    for kind, where in bad[:5]:
        print(f"     {kind}: ...{' '.join(where.split())}...")
    check(not bad, f"{name}: {len(bad)} unreadable numbers")


def run(t9ksim, args, out):
    proc = subprocess.run([t9ksim, *args, "--out", str(out)], capture_output=True, text=True)
    check(proc.returncode == 0, f"t9ksim {' '.join(args)} exits 0 ({proc.returncode})")
    if proc.returncode != 0:
        print(proc.stderr)
    return proc.stdout


def main():
    t9ksim, work = sys.argv[1], pathlib.Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    # The scanner itself: it finds what the issue found.
    check(unreadable("wait 9.774e+04 s") and unreadable("0.8299 ± 0.03643")
          and unreadable("0.8299 ± 0.036") and unreadable("job-hours 0.01125123"),
          "the scan finds e-notation and noise digits")
    check(not unreadable("3,678 ± 86 jobs, 0.83 ± 0.036, 1.1043 ± 0.0039, 27.1 h ± 2.48 h, "
                         "76.7 % ± 3.2 %, v1beta1, 1.25"),
          "the scan passes readable numbers")

    short = ["--set", "horizon=2d"]
    console = run(t9ksim, ["run", "-r", "2", *short], work / "run")
    scan("run console", console)
    scan("run report.html", visible_text((work / "run" / "report.html").read_text()))

    scenario = ROOT / "scenarios" / "examples" / "small-cluster.yaml"
    console = run(t9ksim, ["sweep", str(scenario), "--vary", "cluster.nodePools[name=a100].count=4,5",
                           "-r", "2"], work / "sweep")
    scan("sweep console", console)
    scan("sweep report.html", visible_text((work / "sweep" / "report.html").read_text()))

    study = ROOT / "scenarios" / "studies" / "preemption.yaml"
    overlay = study.parent / "variants" / "preemption.on.yaml"
    console = run(t9ksim, ["compare", str(study), "--variant", f"preempt={overlay}", "-r", "2",
                           *short], work / "compare")
    scan("compare console", console)
    scan("compare report.html", visible_text((work / "compare" / "report.html").read_text()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
