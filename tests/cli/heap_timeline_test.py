"""scripts/heap-timeline: a command's allocated bytes and heap as tcmalloc sees them over time.

Run on a Python process that holds 40 MiB for a moment (the preloaded library makes tcmalloc its
allocator), so the test needs no tcmalloc-linked t9ksim (the test preset's is sanitized).
Usage: heap_timeline_test.py WORK_DIR
"""

import csv
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "heap-timeline"
HOLD = "import time; x = b\"x\" * (40 * 1024 * 1024); time.sleep(0.2); del x; time.sleep(0.05)"


def main() -> int:
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    timeline = work / "timeline.csv"
    run = subprocess.run(
        [str(SCRIPT), "--every", "5", "--timeline", str(timeline), "--", sys.executable, "-c", HOLD],
        capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    m = re.search(r"heap-timeline: allocated peak ([\d.]+) MiB at ([\d.]+) s; heap largest "
                  r"([\d.]+) MiB from ([\d.]+) s; resident then ([\d.]+) MiB", run.stderr)
    assert m, run.stderr
    allocated, heap, resident = float(m.group(1)), float(m.group(3)), float(m.group(5))
    assert 40 <= allocated < 80, run.stderr  # the 40 MiB held, and Python's own
    assert heap >= allocated, run.stderr
    assert resident > 0, run.stderr
    with timeline.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) >= 10, len(rows)  # 0.25 s at 5 ms
    assert list(rows[0]) == ["t_s", "allocated_mib", "heap_mib", "page_free_mib", "central_mib",
                             "transfer_mib", "thread_mib", "resident_mib"]
    assert max(float(r["allocated_mib"]) for r in rows) == allocated
    assert max(float(r["resident_mib"]) for r in rows) >= 40  # every byte written: resident
    assert float(rows[-1]["allocated_mib"]) < allocated - 30  # released at the end

    for bad, says in ((["--every", "0", "--", "true"], "--every takes a whole number"),
                      ([], "no command"),
                      (["--often"], "unknown option --often")):
        r = subprocess.run([str(SCRIPT), *bad], capture_output=True, text=True, check=False)
        assert r.returncode == 2 and says in r.stderr, (bad, r.returncode, r.stderr)
    # An executable with jemalloc linked in keeps it: refused rather than sampled as all zeros.
    own = work / "links-jemalloc"
    own.write_text("#!/bin/sh\n# <jemalloc>: stands for an executable that links it\nexit 0\n")
    own.chmod(0o755)
    r = subprocess.run([str(SCRIPT), "--", str(own)], capture_output=True, text=True, check=False)
    assert r.returncode == 2 and "links jemalloc" in r.stderr, (r.returncode, r.stderr)
    print("heap-timeline: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
