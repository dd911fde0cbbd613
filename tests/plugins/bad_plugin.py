#!/usr/bin/env python3
"""A plugin that misbehaves on purpose (tests/plugins/misbehave_test.py).

    bad_plugin.py MODE -- COMMAND...

Runs COMMAND (a working plugin, e.g. `t9ksim plugin serve controller`), forwards every message
both ways, and misbehaves once, at the first `reconcile` or `decide` it sees (for decide: the
first one with an elastic job in it), as MODE says:

  exit            exits with code 3 instead of answering
  signal          kills itself with SIGKILL
  hang            never answers (the simulator's timeout must end it)
  malformed       answers a line that is not JSON
  wrong-id        answers with another request id
  error-reply     answers a JSON-RPC error
  unknown-action  adds an action of an unknown type
  foreign-pod     adds a CreatePod of a pod that belongs to another job
  bad-phase       sets the job's phase to one its lifecycle cannot reach from the current one
  rank-too-high   adds a CreatePod with a rank beyond the replica type's replicas
  observed-state  adds a CreatePod that claims to be bound and running already
  too-many        (decide) asks for maxReplicas + 1 of an elastic job
  unknown-job     (decide) resizes a job the request did not offer
  bad-version     answers initialize with another protocol version
Protocol version 2 (the wrapped server speaks it; the misbehaviour is in the first job's answer):
  v2-missing      answers one job fewer than the request carries
  v2-wrong-uid    answers for another job's uid
  v2-bad-action   adds an action of an unknown type to the first job's answer
  v2-bad-patch    answers a statusPatch whose phase is no phase
  v2-resync-loop  asks for a resync of the first job, and again when it is sent whole
Standard library only.
"""
import json
import os
import signal
import subprocess
import sys
import time


def main():
    mode = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1:]
    inner = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    done = False

    def ask(line):
        inner.stdin.write(line)
        inner.stdin.flush()
        return inner.stdout.readline()

    def say(obj_or_text):
        text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        msg = json.loads(line)
        method = msg.get("method")
        answer = json.loads(ask(line))
        if method == "initialize" and mode == "bad-version":
            answer["result"]["protocolVersion"] = "99"
        elif mode == "v2-resync-loop" and method == "reconcile":
            first = answer["result"]["results"][0]
            answer["result"]["results"][0] = {"uid": first["uid"], "resync": True}
        elif not done and (method == "reconcile" or (method == "decide" and msg["params"]["jobs"])):
            done = True
            misbehave(mode, msg, answer, say)
            continue
        say(answer)
        if method == "shutdown":
            break
    inner.stdin.close()
    inner.wait()


def misbehave(mode, msg, answer, say):
    params = msg["params"]
    result = answer.get("result")
    if mode == "exit":
        sys.exit(3)
    if mode == "signal":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "hang":
        time.sleep(3600)
    if mode == "malformed":
        return say('{"jsonrpc": "2.0", "id": ' + str(msg["id"]) + ', "result": {"actions": [')
    if mode == "wrong-id":
        answer["id"] = msg["id"] + 1
    elif mode == "error-reply":
        answer = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32000, "message": "out of coffee"}}
    elif mode == "unknown-action":
        result["actions"].append({"type": "ExplodePod", "name": "x"})
    elif mode in ("foreign-pod", "rank-too-high", "observed-state"):
        job = params["job"]
        name = job["metadata"]["name"]
        rtype = job["spec"]["replicaSpecs"][0]["type"]
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"{name}-{rtype}-0-extra", "namespace": job["metadata"]["namespace"]},
               "spec": {"containers": [{"name": "main"}]},
               "t9ksim": {"job": name, "replicaType": rtype, "rank": 0}}
        if mode == "foreign-pod":
            pod["t9ksim"]["job"] = "someone-else"
        elif mode == "rank-too-high":
            pod["t9ksim"]["rank"] = 99
        else:
            pod["spec"]["nodeName"] = "gpu-0"
            pod["status"] = {"phase": "Running"}
        result["actions"].append({"type": "CreatePod", "pod": pod})
    elif mode == "bad-phase":
        # Transitions §1.1 does not allow: none -> Running, Pending -> Resuming, Running -> Pending.
        phase = params["job"].get("status", {}).get("phase")
        result["status"]["phase"] = {None: "Running", "Pending": "Resuming"}.get(phase, "Pending")
    elif mode == "v2-missing":
        result["results"].pop()
    elif mode == "v2-wrong-uid":
        result["results"][0]["uid"] = "job-999"
    elif mode == "v2-bad-action":
        result["results"][0].setdefault("actions", []).append({"type": "ExplodePod", "name": "x"})
    elif mode == "v2-bad-patch":
        result["results"][0].pop("status", None)
        result["results"][0]["statusPatch"] = {"phase": "Sleeping"}
    elif mode == "too-many":
        j = params["jobs"][0]
        result["decisions"] = [{"job": j["job"], "expectedReplicas": j["maxReplicas"] + 1}]
    elif mode == "unknown-job":
        result["decisions"] = [{"job": "default/nobody", "expectedReplicas": 1}]
    say(answer)


if __name__ == "__main__":
    main()
