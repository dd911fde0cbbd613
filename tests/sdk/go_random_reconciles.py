"""Random GenericJob reconciles (tests/plugins/random_reconciles.py) answered over protocol v2 by
a controller plugin (the Go SDK's GenericJob controller) and by `t9ksim plugin serve controller`;
the answers are compared after normalising what is encoding only (time spellings, quantity
spellings, a CreatePod's container name, statusPatch vs status). The requests are made as the
world would send them (each pod owned by its job, unique names and uids, an exit code on every
Failed pod); a job with a duplicated replica type, which the API refuses, is left out.
Usage: go_random_reconciles.py T9KSIM PLUGIN COUNT [SEED]; exit 1 when any answer differs."""
import copy, json, pathlib, re, subprocess, sys
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "plugins"))
sys.path.insert(0, str(ROOT / "plugins" / "examples"))
from random_reconciles import Generator
from reference_generic.values import parse_time, parse_quantity

TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")

def dumps(x): return json.dumps(x, separators=(",", ":"), sort_keys=True)

class Proc:
    def __init__(self, cmd, options):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  stderr=subprocess.DEVNULL)
        self.i = 0
        r = self.call("initialize", {"protocolVersion": "1", "protocolVersions": ["1", "2"],
            "role": "controller", "kinds": ["GenericJob"], "simulator": {"name": "t9ksim", "version": "t"},
            "controllerOptions": options, "policy": {"name": "fixed", "periodMicros": 1,
            "cooldownMicros": 1, "checkpointWindowMicros": 1}})
        assert r["result"]["protocolVersion"] == "2", r
    def call(self, method, params):
        self.i += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.i, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("no answer")
        return json.loads(line)
    def close(self):
        try:
            self.call("shutdown", {})
        except Exception:
            pass
        self.p.stdin.close(); self.p.wait(timeout=30)

def merge(target, patch):
    if not isinstance(patch, dict): return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None: out.pop(k, None)
        else: out[k] = merge(out.get(k), v)
    return out

def norm(x):
    if isinstance(x, dict): return {k: norm(v) for k, v in x.items() if v not in (None, [], {}, "")}
    if isinstance(x, list): return [norm(v) for v in x]
    if isinstance(x, str) and TIME.match(x): return parse_time(x)
    return x

def norm_pod(p):
    meta = p.get("metadata", {}); spec = p.get("spec", {}); ext = p.get("t9ksim", {})
    c = (spec.get("containers") or [{}])[0]
    req = {k: parse_quantity(v) for k, v in (c.get("resources", {}).get("requests") or {}).items()}
    return norm({"name": meta.get("name"), "namespace": meta.get("namespace"),
        "labels": meta.get("labels"), "annotations": meta.get("annotations"),
        "owners": [{k: o.get(k) for k in ("apiVersion", "kind", "name", "uid", "controller")}
                   for o in meta.get("ownerReferences") or []],
        "schedulerName": spec.get("schedulerName") or "default-scheduler",
        "priority": spec.get("priority") or 0, "nodeSelector": spec.get("nodeSelector"),
        "grace": spec.get("terminationGracePeriodSeconds", 30),
        "command": c.get("command"), "args": c.get("args"), "requests": req,
        "ext": {k: ext.get(k) for k in ("job", "replicaType", "rank", "queue", "podGroup", "role", "debug")}})

def norm_action(a):
    a = copy.deepcopy(a)
    if a["type"] == "CreatePod": return {"type": "CreatePod", "pod": norm_pod(a["pod"])}
    if a["type"] == "DeletePod": return {"type": "DeletePod", "name": a["name"], "reason": a.get("reason") or "Cleanup"}
    if a["type"] in ("CreatePodGroup", "UpdatePodGroup"):
        pg = a["podGroup"]; m = pg.get("metadata", {})
        return norm({"type": a["type"], "meta": {"name": m.get("name"), "namespace": m.get("namespace"),
            "creationTimestamp": m.get("creationTimestamp"),
            "owners": [{k: o.get(k) for k in ("apiVersion", "kind", "name", "uid", "controller")}
                       for o in m.get("ownerReferences") or []]},
            "spec": dict(pg.get("spec", {}), queue=pg.get("spec", {}).get("queue") or "default",
                         priority=pg.get("spec", {}).get("priority") or 0),
            "status": pg.get("status") if any(v not in (0, None, [], {}) for v in (pg.get("status") or {}).values()) else None})
    return norm(a)

def outcome(res, kept_status):
    st = kept_status
    if "status" in res: st = res["status"]
    elif "statusPatch" in res: st = merge(kept_status or {}, res["statusPatch"])
    st = copy.deepcopy(st) if st is not None else {}
    st.setdefault("aggregate", {k: 0 for k in ("creating","pending","running","succeeded","failed","unknown","deleted")})
    return {"actions": [norm_action(a) for a in res.get("actions") or []],
            "status": norm(st), "requeue": res.get("requeueAfterMicros")}

def worldlike(req):
    """Pods as the world stores them: the controller's labels and owner reference."""
    job = req["job"]; name = job["metadata"]["name"]
    # The world sends only the job's own pods, never two of one name (docs/plugins.md §3), and
    # every Failed pod with an exit code (contract 4: a missing one reads as 137).
    seen = set(); pods = []
    for p in req["pods"]:
        if p["t9ksim"]["job"] != name or p["metadata"]["name"] in seen:
            continue
        seen.add(p["metadata"]["name"]); pods.append(p)
        if p["status"]["phase"] == "Failed":
            for cs in p["status"].get("containerStatuses") or []:
                cs["state"]["terminated"].setdefault("exitCode", 137)
    req["pods"] = pods
    for i, p in enumerate(pods):  # uids are unique in the world
        p["metadata"]["uid"] = f"{p['metadata']['uid']}-{i}"
    for p in req["pods"]:
        m = p["metadata"]
        m.setdefault("labels", {})["tensorstack.dev/owner-name"] = name
        m["ownerReferences"] = [{"apiVersion": "batch.tensorstack.dev/v1beta1", "kind": "GenericJob",
                                 "name": name, "uid": job["metadata"]["uid"], "controller": True}]
    return req

def main():
    t9ksim, plugin, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 45
    gen = Generator(seed)
    differing = 0; done = 0; skipped = 0
    per = 200
    while done < count:
        options = gen.options()
        a = Proc([plugin], options); b = Proc([t9ksim, "plugin", "serve", "controller"], options)
        for k in range(min(per, count - done)):
            req = worldlike(gen.request())
            types = [r["type"] for r in req["job"]["spec"]["replicaSpecs"]]
            if len(set(types)) != len(types):  # the API refuses a duplicated replica type
                skipped += 1; done += 1; continue
            uid = f"job-{done}"
            req["job"]["metadata"]["uid"] = uid
            for p in req["pods"]:
                for o in p["metadata"]["ownerReferences"]: o["uid"] = uid
            status = req["job"].pop("status", None)
            upd = {"uid": uid, "resync": True, "job": req["job"], "status": status, "pods": req["pods"],
                   "podGroup": req["podGroup"], "tensorBoard": None}
            params = {"now": req["now"], "nowMicros": req["nowMicros"], "jobs": [upd]}
            ra = a.call("reconcile", params); rb = b.call("reconcile", params)
            if "result" not in ra or "result" not in rb:
                oa, ob = ra.get("error") or ra, rb.get("error") or rb
            else:
                oa = outcome(ra["result"]["results"][0], status)
                ob = outcome(rb["result"]["results"][0], status)
            if dumps(oa) != dumps(ob):
                differing += 1
                if differing <= 5:
                    print(f"DIFFERENT request {done}: options {dumps(options)}\n  params {dumps(params)[:3000]}")
                    for key in ("actions", "status", "requeue"):
                        if isinstance(oa, dict) and isinstance(ob, dict) and dumps(oa.get(key)) != dumps(ob.get(key)):
                            print(f"  {key}:\n    go:      {dumps(oa.get(key))[:2500]}\n    builtin: {dumps(ob.get(key))[:2500]}")
                    if not (isinstance(oa, dict) and "actions" in oa and isinstance(ob, dict) and "actions" in ob):
                        print(f"  go: {dumps(oa)[:1500]}\n  builtin: {dumps(ob)[:1500]}")
            done += 1
        a.close(); b.close()
    print(f"{count - skipped - differing} of {count - skipped} random requests answered alike ({skipped} with a duplicated replica type left out)")
    return 1 if differing else 0

sys.exit(main())
