#!/usr/bin/env python3
"""Every protocol message, both ways, matches its JSON Schema in protocol/schema/.

    schema_test.py T9KSIM WORKDIR

Runs scenarios whose jobs cover all three kinds, elastic scaling, restarts, faults and the
elastic policies, with the built-in servers and the Python examples behind tee_plugin.py (which
records every line), then checks the transcripts with check_schemas.py. The checker itself is
also shown to refuse a message that breaks a schema (so this test can fail). Standard library only.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCHEMAS = ROOT / "protocol" / "schema"
CHECK = HERE / "check_schemas.py"
TEE = HERE / "tee_plugin.py"


def run(t9ksim, work, name, scenario, plugins):
    out = work / name
    transcript = work / f"{name}.jsonl"
    shutil.rmtree(out, ignore_errors=True)
    transcript.unlink(missing_ok=True)
    cmd = [t9ksim, "run", str(scenario), "--out", str(out), "--quiet"]
    for target, command in plugins:
        cmd += ["--plugin", f"{target}=python3 {TEE} -- {command}"]
    env = dict(os.environ, T9KSIM_TEE_TRANSCRIPT=str(transcript))
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"FAIL {name}: t9ksim exited {p.returncode}: {p.stderr.strip()}")
    c = subprocess.run([sys.executable, str(CHECK), str(SCHEMAS), str(transcript)], capture_output=True, text=True)
    lines = sum(1 for _ in transcript.open())
    if c.returncode != 0:
        sys.exit(f"FAIL {name}: {c.stdout.strip()} {c.stderr.strip()}")
    if lines < 10:
        sys.exit(f"FAIL {name}: only {lines} messages recorded")
    print(f"ok   {name}: {lines} messages match")
    return transcript


def main():
    t9ksim, work = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    serve_c = f"{t9ksim} plugin serve controller"
    serve_p = f"{t9ksim} plugin serve elastic-policy"
    for case in ["elastic", "restart-backoff", "pause-resume", "node-failure", "cleanup-all", "deadline"]:
        run(t9ksim, work, f"builtin-{case}", ROOT / "tests/scenarios/cases" / f"{case}.yaml",
            [("controllers", serve_c), ("elastic-policy", serve_p)])
    run(t9ksim, work, "builtin-small-cluster", ROOT / "scenarios/examples/small-cluster.yaml",
        [("controllers", serve_c), ("elastic-policy", serve_p)])
    t = run(t9ksim, work, "quota-policy", HERE / "elastic-quota.yaml",
            [("elastic-policy", "python3 plugins/examples/quota_policy.py")])
    run(t9ksim, work, "generic-controller", HERE / "generic-backoff.yaml",
        [("GenericJob", "python3 plugins/examples/generic_controller.py")])

    # The checker refuses a reply that breaks its schema: a decision without expectedReplicas.
    broken = work / "broken.jsonl"
    with t.open() as src, broken.open("w") as dst:
        done = False
        for line in src:
            rec = json.loads(line)
            msg = rec.get("message")
            if not done and rec["dir"] == "from-plugin" and isinstance(msg, dict):
                decisions = (msg.get("result") or {}).get("decisions") if isinstance(msg.get("result"), dict) else None
                if decisions:
                    del decisions[0]["expectedReplicas"]
                    done = True
            dst.write(json.dumps(rec) + "\n")
    if not done:
        sys.exit("FAIL: the quota policy made no decision to break")
    c = subprocess.run([sys.executable, str(CHECK), str(SCHEMAS), str(broken)], capture_output=True, text=True)
    if c.returncode == 0 or "expectedReplicas" not in c.stdout + c.stderr:
        sys.exit(f"FAIL: the checker accepted a decision without expectedReplicas: {c.stdout} {c.stderr}")
    print("ok   the checker refuses a decision without expectedReplicas")


if __name__ == "__main__":
    main()
