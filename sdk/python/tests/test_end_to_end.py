"""Plugins on the SDK run the real simulator ($T9KSIM_BIN; skipped when it is not set).

* A minimal controller on tests/plugins/generic-backoff.yaml and a minimal policy on
  tests/plugins/elastic-quota.yaml (tests/plugins/*.py) finish with exit 0, in every protocol
  version the simulator offers: version 1 always (T9KSIM_SDK_PROTOCOL=1), version 2 when the
  simulator offers it, and then with outputs byte-identical to version 1's. Every message of
  each run matches protocol/schema/ (tests/plugins/check_schemas.py, per session's version).
* tests/v2_shim.py stands in for a version 2 simulator (it was written before the simulator
  spoke version 2, and still adds what a real run does not: a forget every 7th reconcile, a
  decide resync every 5th): the examples of plugins/examples/ behind it speak version 2 and give
  the outputs of their version 1 runs, and what they say matches protocol/schema/v2/.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SRC = HERE.parent / "src"
BIN = os.environ.get("T9KSIM_BIN")
TEE = ROOT / "tests" / "plugins" / "tee_plugin.py"
CHECK = ROOT / "tests" / "plugins" / "check_schemas.py"
SHIM = HERE / "v2_shim.py"
PY = sys.executable
OUTPUTS = ("jobs.csv", "events.jsonl", "timeseries.csv", "faults.csv")

pytestmark = pytest.mark.skipif(not BIN, reason="T9KSIM_BIN is not set (the built t9ksim)")

CASES = {
    "controller": ("generic-backoff.yaml", "GenericJob", HERE / "plugins" / "minimal_controller.py",
                   "genericjob-controller"),
    "policy": ("elastic-quota.yaml", "elastic-policy", HERE / "plugins" / "minimal_policy.py",
               "elastic-policy"),
}


def run(out: pathlib.Path, scenario: str, target: str, command: str,
        **env: str) -> pathlib.Path:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [str(BIN), "run", str(ROOT / "tests" / "plugins" / scenario), "--out", str(out),
           "--quiet", "--events", "--plugin", f"{target}={command}"]
    full_env = {**os.environ, "PYTHONPATH": str(SRC), **env}
    p = subprocess.run(cmd, cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=600)
    logs = "".join(f.read_text() for f in (out / "plugins").glob("*.log")) \
        if (out / "plugins").is_dir() else ""
    assert p.returncode == 0, f"{' '.join(cmd)} exited {p.returncode}: {p.stderr}\n{logs}"
    return out


def spoken(out: pathlib.Path, log: str) -> str:
    m = re.search(r"speaking protocol version (\d+)", (out / "plugins" / f"{log}.log").read_text())
    assert m, f"no version in {out}/plugins/{log}.log"
    return m.group(1)


def check_transcript(transcript: pathlib.Path) -> str:
    p = subprocess.run([PY, str(CHECK), str(ROOT / "protocol" / "schema"), str(transcript)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def same_outputs(a: pathlib.Path, b: pathlib.Path) -> None:
    for name in OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), f"{name} differs: {a} {b}"


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return tmp_path_factory.mktemp("e2e")


@pytest.fixture(scope="module")
def offered(work: pathlib.Path) -> str:
    """The highest version the simulator offers (what the SDK speaks when left to choose)."""
    scenario, target, script, log = CASES["controller"]
    return spoken(run(work / "probe", scenario, target, f"{PY} {script}"), log)


@pytest.mark.parametrize("role", sorted(CASES))
def test_version_1(work: pathlib.Path, role: str) -> None:
    scenario, target, script, log = CASES[role]
    transcript = work / f"{role}-v1.jsonl"
    out = run(work / f"{role}-v1", scenario, target, f"{PY} {TEE} -- {PY} {script}",
              T9KSIM_SDK_PROTOCOL="1", T9KSIM_TEE_TRANSCRIPT=str(transcript))
    assert spoken(out, log) == "1"
    assert "message(s) valid" in check_transcript(transcript)


@pytest.mark.parametrize("role", sorted(CASES))
def test_version_2_when_offered(work: pathlib.Path, offered: str, role: str) -> None:
    if offered != "2":
        pytest.skip("the simulator speaks only protocol version 1 (tests/v2_shim.py stands in)")
    scenario, target, script, log = CASES[role]
    transcript = work / f"{role}-v2.jsonl"
    out = run(work / f"{role}-v2", scenario, target, f"{PY} {TEE} -- {PY} {script}",
              T9KSIM_TEE_TRANSCRIPT=str(transcript))
    assert spoken(out, log) == "2"
    check_transcript(transcript)
    if role == "controller":  # the incremental forms ran: pods patched, statuses answered so
        text = transcript.read_text()
        assert '"podPatches":' in text and '"statusPatch":' in text
    if role == "policy":
        # The minimal policy reads version 2's observation (growth pods, free GPUs per node),
        # which version 1 lacks: its decisions, and so the outputs, differ between versions.
        return
    v1 = run(work / f"{role}-v1-again", scenario, target, f"{PY} {script}",
             T9KSIM_SDK_PROTOCOL="1")
    same_outputs(v1, out)


@pytest.mark.parametrize("role, example", [("controller", "generic_controller.py"),
                                           ("policy", "quota_policy.py")])
def test_version_2_behind_the_shim_gives_version_1_outputs(work: pathlib.Path, role: str,
                                                           example: str) -> None:
    scenario, target, _, log = CASES[role]
    script = ROOT / "plugins" / "examples" / example
    transcript = work / f"{role}-shim.jsonl"
    v1 = run(work / f"{role}-example-v1", scenario, target, f"{PY} {script}",
             T9KSIM_SDK_PROTOCOL="1")
    v2 = run(work / f"{role}-example-shim", scenario, target,
             f"{PY} {SHIM} -- {PY} {TEE} -- {PY} {script}",
             T9KSIM_TEE_TRANSCRIPT=str(transcript))
    text = (v2 / "plugins" / f"{log}.log").read_text()
    assert "speaking protocol version 2" in text
    assert re.search(r"v2_shim: \d+ reconcile\(s\), \d+ decide\(s\)", text)
    same_outputs(v1, v2)
    text = transcript.read_text()
    assert '"protocolVersion":"2"' in text
    if role == "controller":  # tests/v2_wire.py sends observed state as pod patches
        assert '"podPatches":' in text and '"statusPatch":' in text
    check_transcript(transcript)  # the version 2 side: protocol/schema/v2/
