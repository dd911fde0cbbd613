#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets that are built from other files of the repository
(fuzz/README.md): slices of the public traces, the shipped study overlays, and results folders
packed into the container format of fuzz_support.hpp. Hand-written hostile seeds live beside them
and are not touched. Usage: fuzz/make_seeds.py [T9KSIM_BINARY]; with a binary, results folders of
a run, replications, a comparison and a sweep are packed as report seeds."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(ROOT, "..", "shared")
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, text):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "w", encoding="utf-8", newline="") as f:
        f.write(text)


def head(path, lines):
    with open(path, encoding="utf-8") as f:
        return "".join(f.readline() for _ in range(lines))


def pack(folder, max_rows=12):
    """A results folder as container parts; csv files cut to their first rows, report.html left out."""
    out = []
    for dirpath, _, files in sorted(os.walk(folder)):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), folder)
            if name.endswith(".html") or name.endswith(".jsonl"):
                continue
            text = head(os.path.join(dirpath, name), max_rows) if name.endswith(".csv") else \
                open(os.path.join(dirpath, name), encoding="utf-8").read()
            out.append("=== " + rel + "\n" + text)
    return "".join(s if s.endswith("\n") else s + "\n" for s in out)


def main():
    philly = os.path.join(SHARED, "traces", "philly")
    openb = os.path.join(SHARED, "traces", "alibaba-openb")
    write("trace_philly", "philly-head.csv", head(os.path.join(philly, "philly.csv"), 40))
    write("trace_philly", "philly-with-vcs", "=== trace\n" + head(os.path.join(philly, "philly.csv"), 40) +
          "=== sibling\n" + head(os.path.join(philly, "philly_vc.csv"), 20) +
          "=== options\n{pools: per-vc, gpusPerPod: 4}\n")
    write("trace_openb", "openb-default-head.csv", head(os.path.join(openb, "openb_pod_list_default.csv"), 40))
    write("trace_openb", "openb-multigpu-head.csv", head(os.path.join(openb, "openb_pod_list_multigpu50.csv"), 40))
    write("trace_openb", "openb-with-nodes", "=== trace\n" + head(os.path.join(openb, "openb_pod_list_default.csv"), 40) +
          "=== sibling\n" + head(os.path.join(openb, "openb_node_list_all_node.csv"), 30) +
          "=== options\n{gpuMilli: shared, unscheduled: run, failed: succeed}\n")
    studies = os.path.join(ROOT, "scenarios", "studies")
    for name in sorted(os.listdir(os.path.join(studies, "variants"))):
        base = name.split(".")[0] + ".yaml"
        overlay = open(os.path.join(studies, "variants", name), encoding="utf-8").read()
        write("overlay", "study-" + name, "=== base\n" + open(os.path.join(studies, base), encoding="utf-8").read() +
              "=== overlay\n" + overlay)
    if len(sys.argv) > 1:
        binary = os.path.abspath(sys.argv[1])
        work = tempfile.mkdtemp(prefix="t9ksim-seeds-")
        try:
            small = os.path.join(ROOT, "tests", "scenarios", "harness", "passes.yaml")
            study = os.path.join(studies, "preemption.yaml")
            runs = {
                "run": [binary, "run", small, "--out", os.path.join(work, "run"), "--no-report"],
                "replications": [binary, "run", small, "-r", "2", "--out", os.path.join(work, "replications"), "--no-report"],
                "comparison": [binary, "compare", study, "--variant", "on=" + os.path.join(studies, "variants", "preemption.on.yaml"),
                               "--set", "horizon=6h", "-r", "2", "--out", os.path.join(work, "comparison")],
                "sweep": [binary, "sweep", small, "--vary", "cluster.nodePools[name=gpu].count=1,2",
                          "--out", os.path.join(work, "sweep"), "--no-report"],
            }
            for name, cmd in runs.items():
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                write("report", "folder-" + name, pack(os.path.join(work, name)))
        finally:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
