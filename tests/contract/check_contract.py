#!/usr/bin/env python3
"""Checks the controller contract's table of texts (protocol/contract/controller-texts.json).

Three checks, each returning problems as lines of text:

  table    the table is well formed: fields, ids, places, kinds, templates, placeholders, and
           every source it names exists;
  sources  every string literal in controllers/ (and every model:: constant and DeletionReason
           a controller emits) is claimed by the table: a text, a template, a literal an entry
           or placeholder names, or a declared non-text;
  runs     what the built-in controllers emit while t9ksim runs scenarios (events.jsonl, and
           plugin transcripts of their answers) matches an entry at its place.

    check_contract.py                         table and sources
    check_contract.py --bin build/release/app/t9ksim   also every shipped scenario
    check_contract.py --events F.jsonl --transcript T.jsonl   also these files

Standard library only; protocol/contract/README.md describes the table, tests/contract/README.md
the tests.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO / "protocol" / "contract" / "controller-texts.json"
TEE = REPO / "tests" / "plugins" / "tee_plugin.py"
KINDS = ("GenericJob", "PyTorchTrainingJob", "DeepSpeedJob")
ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")
ENTRY_FIELDS = {"id", "kinds", "where", "text", "rule", "spec", "source", "literals"}
REQUIRED_FIELDS = ENTRY_FIELDS - {"literals"}

# The places the collectors below report texts at; an entry's `where` must be one of them.
_CONDITION = (r"status\.conditions\[type=(Initialized|Running|ReplicaFailure|Completed|Failed"
              r"|Paused),status=(True|False|Unknown)\]\.(reason|message)")
_REPLICA_PHASE = r"(Creating|Pending|Running|Succeeded|Failed|Unknown|Deleted)"
_POD_RE = r"actions\[type=CreatePod\]\.pod\."
_GROUP = r"actions\[type=(CreatePodGroup|UpdatePodGroup)\]\.podGroup\."
PLACES = [re.compile(p) for p in (
    _CONDITION,
    r"status\.tasks\[\]\.type",
    r"status\.tasks\[\]\.replicas\[\]\.name",
    r"status\.tasks\[\]\.replicas\[phase=" + _REPLICA_PHASE + r"\]\.containers\[\]\.state",
    r"status\.tensorboard\.(name|action|reason|note|type|dependent\.(apiVersion|kind|name))",
    r"actions\[type=(DeletePod|RestartTraining)\]\.reason",
    r"actions\[type=CreateTensorBoard\]\.(name|owner\.(apiVersion|kind))",
    _POD_RE + r"metadata\.(name|(labels|annotations)\[[^\]]+\]"
    + r"|ownerReferences\[\]\.(apiVersion|kind))",
    _POD_RE + r"spec\.(schedulerName|containers\[\]\.command)",
    _POD_RE + r"t9ksim\.(queue|podGroup|role)",
    _GROUP + r"metadata\.(name|ownerReferences\[\]\.(apiVersion|kind))",
    _GROUP + r"spec\.(queue|roles\[\]\.name)",
)]


def known_place(place: str) -> bool:
    return any(p.fullmatch(place) for p in PLACES)


# ---- templates ----

class TemplateError(ValueError):
    pass


def parse_template(text: str) -> list[tuple[str, str]]:
    """`{name}` is a placeholder, `{{` and `}}` literal braces; anything else is literal."""
    parts: list[tuple[str, str]] = []
    literal, i = "", 0
    while i < len(text):
        c = text[i]
        if text.startswith("{{", i) or text.startswith("}}", i):
            literal += c
            i += 2
        elif c == "{":
            end = text.find("}", i)
            if end < 0:
                raise TemplateError(f"unclosed '{{' at offset {i}")
            name = text[i + 1:end]
            if not NAME.fullmatch(name):
                raise TemplateError(f"placeholder {{{name}}} at offset {i} is not a name")
            if literal:
                parts.append(("lit", literal))
                literal = ""
            parts.append(("ph", name))
            i = end + 1
        elif c == "}":
            raise TemplateError(f"lone '}}' at offset {i} (write '}}}}' for a brace)")
        else:
            literal += c
            i += 1
    if literal:
        parts.append(("lit", literal))
    return parts


@dataclass(frozen=True)
class Context:
    """What a text is checked against: the job that emitted it."""
    job: str
    kind: str
    types: tuple[str, ...] = ()
    queue: str | None = None

    def bound(self, name: str) -> tuple[str, ...] | None:
        values = {"job": (self.job,), "kind": (self.kind,), "kindLower": (self.kind.lower(),),
                  "replicaType": self.types, "queue": (self.queue,) if self.queue else ()}
        return values.get(name) or None


@dataclass
class Table:
    entries: list[dict[str, Any]]
    placeholders: dict[str, dict[str, Any]]
    world_deletion_reasons: set[str]
    non_texts: list[dict[str, Any]]

    def regex(self, template: str, ctx: Context | None) -> str:
        return _regex(self, template, ctx, ())

    def claimed_literals(self) -> set[str]:
        out = {lit for e in self.entries for lit in e.get("literals", [])}
        out |= {lit for p in self.placeholders.values() for lit in p.get("literals", [])}
        return out | {n["literal"] for n in self.non_texts}


def _regex(table: Table, template: str, ctx: Context | None, stack: tuple[str, ...]) -> str:
    out = []
    for kind, value in parse_template(template):
        if kind == "lit":
            out.append(re.escape(value))
            continue
        if value in stack:
            raise TemplateError(f"placeholder {{{value}}} refers to itself")
        ph = table.placeholders.get(value)
        if ph is None:
            raise TemplateError(f"unknown placeholder {{{value}}}")
        values = ctx.bound(value) if ctx and ph.get("bound") else None
        if values:
            out.append("(?:" + "|".join(re.escape(v) for v in values) + ")")
        elif "template" in ph:
            out.append("(?:" + _regex(table, ph["template"], ctx, stack + (value,)) + ")")
        else:
            out.append("(?:" + ph["regex"] + ")")
    return "".join(out)


def _need(cond: bool, problems: list[str], message: str) -> bool:
    if not cond:
        problems.append(message)
    return cond


def _placeholder_problems(table: Table, problems: list[str]) -> None:
    for name, ph in table.placeholders.items():
        where = f"placeholders.{name}"
        if not _need(NAME.fullmatch(name) is not None, problems, f"{where}: not a name"):
            continue
        _need(isinstance(ph.get("meaning"), str) and bool(ph["meaning"]), problems,
              f"{where}.meaning: missing")
        if not _need(("regex" in ph) != ("template" in ph), problems,
                     f"{where}: needs exactly one of regex and template"):
            continue
        try:
            if "regex" in ph:
                re.compile(ph["regex"])
            else:
                table.regex(ph["template"], None)
        except (re.error, TemplateError) as e:
            problems.append(f"{where}: {e}")


def _entry_problems(table: Table, e: dict[str, Any], i: int, problems: list[str]) -> None:
    where = f"texts[{i}]" + (f" ({e['id']})" if isinstance(e.get("id"), str) else "")
    missing = sorted(REQUIRED_FIELDS - e.keys())
    unknown = sorted(e.keys() - ENTRY_FIELDS)
    _need(not missing, problems, f"{where}: missing {', '.join(missing)}")
    _need(not unknown, problems, f"{where}: unknown field {', '.join(unknown)}")
    if missing:
        return
    _need(isinstance(e["id"], str) and ID.fullmatch(e["id"]) is not None, problems,
          f"{where}.id: not kebab-case")
    _need(isinstance(e["kinds"], list) and bool(e["kinds"]) and set(e["kinds"]) <= set(KINDS),
          problems, f"{where}.kinds: a non-empty list of {', '.join(KINDS)}")
    for place in e["where"] if isinstance(e["where"], list) and e["where"] else [None]:
        _need(isinstance(place, str) and known_place(place), problems,
              f"{where}.where: {place!r} is not a place the checker knows (README)")
    for name in ("rule", "spec"):
        _need(isinstance(e[name], str) and e[name].strip() != "", problems,
              f"{where}.{name}: missing")
    try:
        if not isinstance(e["text"], str):
            raise TemplateError("not a string")
        re.compile(table.regex(e["text"], None))
    except (re.error, TemplateError) as err:
        problems.append(f"{where}.text: malformed template {e['text']!r}: {err}")
    for s in e["source"] if isinstance(e["source"], list) and e["source"] else [None]:
        if not (isinstance(s, dict) and isinstance(s.get("file"), str)
                and isinstance(s.get("function"), str)):
            problems.append(f"{where}.source: a non-empty list of {{file, function}}")
            continue
        path = REPO / s["file"]
        short = s["function"].split("::")[-1]
        if not path.is_file():
            problems.append(f"{where}.source: {s['file']} does not exist")
        elif not re.search(r"\b" + re.escape(short) + r"\b", path.read_text(encoding="utf-8")):
            problems.append(f"{where}.source: no {s['function']} in {s['file']}")


def table_problems(raw: Any) -> list[str]:
    """Everything wrong with a table as read from its JSON."""
    problems: list[str] = []
    if not isinstance(raw, dict):
        return ["the table is not a JSON object"]
    for key in ("placeholders", "texts", "worldDeletionReasons", "nonTexts"):
        _need(key in raw, problems, f"{key}: missing")
    if problems:
        return problems
    table = make_table(raw)
    _placeholder_problems(table, problems)
    seen: dict[str, int] = {}
    for i, e in enumerate(table.entries):
        if not isinstance(e, dict):
            problems.append(f"texts[{i}]: not an object")
            continue
        _entry_problems(table, e, i, problems)
        if isinstance(e.get("id"), str):
            _need(e["id"] not in seen, problems,
                  f"texts[{i}].id: {e['id']} repeats texts[{seen.get(e['id'])}]")
            seen.setdefault(e["id"], i)
    for i, n in enumerate(table.non_texts):
        _need(isinstance(n, dict) and {"literal", "file", "why"} <= n.keys(), problems,
              f"nonTexts[{i}]: needs literal, file and why")
    return problems


def make_table(raw: dict[str, Any]) -> Table:
    return Table(entries=list(raw.get("texts", [])),
                 placeholders=dict(raw.get("placeholders", {})),
                 world_deletion_reasons=set(raw.get("worldDeletionReasons", {}).get("texts", [])),
                 non_texts=list(raw.get("nonTexts", [])))


def load_table(path: Path = TABLE) -> tuple[Table, list[str]]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return make_table({}), [f"{path}: {e}"]
    problems = table_problems(raw)
    return make_table(raw if isinstance(raw, dict) else {}), problems


# ---- matching what runs emit ----

@dataclass(frozen=True)
class Seen:
    place: str
    text: str
    ctx: Context
    origin: str  # the scenario that emitted it
    time: float  # simulated seconds


class Matcher:
    """Which entries a text at a place matches, for the job that emitted it."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.by_place: dict[str, list[dict[str, Any]]] = {}
        for e in table.entries:
            for place in e["where"]:
                self.by_place.setdefault(place, []).append(e)

        self._compiled: dict[tuple[str, Context], re.Pattern[str]] = {}

    def match(self, place: str, text: str, ctx: Context) -> list[str]:
        return [e["id"] for e in self.by_place.get(place, [])
                if ctx.kind in e["kinds"] and self._regex(e["text"], ctx).fullmatch(text)]

    def _regex(self, template: str, ctx: Context) -> re.Pattern[str]:
        key = (template, ctx)
        if key not in self._compiled:
            self._compiled[key] = re.compile(self.table.regex(template, ctx), re.DOTALL)
        return self._compiled[key]


@dataclass
class Report:
    unmatched: list[Seen] = field(default_factory=list)
    hits: dict[str, int] = field(default_factory=dict)
    texts: int = 0  # distinct (place, text, job) observed

    def seen_ids(self) -> set[str]:
        return {i for i, n in self.hits.items() if n}


def check_seen(table: Table, seen: Iterable[Seen]) -> Report:
    matcher = Matcher(table)
    report = Report(hits={e["id"]: 0 for e in table.entries})
    done: set[tuple[str, str, Context, str]] = set()
    for s in seen:
        key = (s.place, s.text, s.ctx, s.origin)
        if key in done:  # statuses repeat their texts on every change
            continue
        done.add(key)
        report.texts += 1
        ids = matcher.match(s.place, s.text, s.ctx)
        for i in ids:
            report.hits[i] += 1
        if not ids:
            report.unmatched.append(s)
    return report


def describe(s: Seen) -> str:
    return (f"{s.origin}: job {s.ctx.job} ({s.ctx.kind}) at t={s.time:g} s: {s.place}: "
            f"{json.dumps(s.text)} matches no entry of the table")


# ---- collecting texts from events.jsonl ----

def _status_texts(status: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for c in status.get("conditions", []):
        base = f"status.conditions[type={c.get('type')},status={c.get('status')}]"
        yield base + ".reason", c.get("reason", "")
        yield base + ".message", c.get("message", "")
    for task in status.get("tasks", []):
        yield "status.tasks[].type", task.get("type", "")
        for r in task.get("replicas", []):
            yield "status.tasks[].replicas[].name", r.get("name", "")
            for c in r.get("containers", []):
                place = f"status.tasks[].replicas[phase={r.get('phase')}].containers[].state"
                yield place, c.get("state", "")
    tb = status.get("tensorboard")
    if tb:
        for key in ("name", "action", "reason", "note", "type"):
            if key in tb:
                yield f"status.tensorboard.{key}", tb[key]
        for key in ("apiVersion", "kind", "name"):
            if key in tb.get("dependent", {}):
                yield f"status.tensorboard.dependent.{key}", tb["dependent"][key]


def _name(namespaced: str) -> str:
    return namespaced.split("/", 1)[-1]


def events_texts(path: Path, origin: str, table: Table) -> Iterator[Seen]:
    """Texts of JobStatusChanged statuses, PodCreated names and the controller's PodDeleted
    reasons (the world's own deletion reasons are left out)."""
    jobs: dict[int, tuple[str, str]] = {}  # jobId -> (name, kind)
    with path.open(encoding="utf-8") as f:
        for line in f:
            ev = json.loads(line)
            kind = ev.get("type")
            if kind == "JobSubmitted":
                jobs[ev["jobId"]] = (_name(ev["job"]), ev["kind"])
                continue
            if kind not in ("JobStatusChanged", "PodCreated", "PodDeleted"):
                continue
            name, job_kind = jobs.get(ev.get("jobId"), (_name(ev.get("job", "")), ""))
            t = float(ev.get("t", 0))
            if kind == "JobStatusChanged":
                status = ev.get("status", {})
                types = ("worker",) if job_kind == "DeepSpeedJob" else tuple(
                    task.get("type", "") for task in status.get("tasks", []))
                ctx = Context(name, job_kind, types)
                for place, text in _status_texts(status):
                    yield Seen(place, text, ctx, origin, t)
            elif kind == "PodCreated":
                ctx = Context(name, job_kind, (ev.get("replicaType", ""),))
                yield Seen(_POD_NAME, _name(ev["pod"]), ctx, origin, t)
            elif ev.get("reason") not in table.world_deletion_reasons:
                yield Seen("actions[type=DeletePod].reason", ev.get("reason", ""),
                           Context(name, job_kind), origin, t)


_POD = "actions[type=CreatePod].pod."
_POD_NAME = _POD + "metadata.name"


# ---- collecting texts from a plugin transcript (tests/plugins/tee_plugin.py) ----

def _spec_types(job: dict[str, Any]) -> list[dict[str, Any]]:
    spec = job.get("spec", {})
    if job.get("kind") == "DeepSpeedJob":
        return [dict(spec.get("worker", {}), type="worker")]
    return list(spec.get("replicaSpecs", []))


def _job_context(job: dict[str, Any]) -> Context:
    t9k = job.get("spec", {}).get("scheduler", {}).get("t9kScheduler")
    queue = (t9k.get("queue") or "default") if t9k is not None else None
    types = tuple(r.get("type", "") for r in _spec_types(job))
    return Context(job.get("metadata", {}).get("name", ""), job.get("kind", ""), types, queue)


def _pod_texts(pod: dict[str, Any], job: dict[str, Any]) -> Iterator[tuple[str, str]]:
    meta, spec, sim = pod.get("metadata", {}), pod.get("spec", {}), pod.get("t9ksim", {})
    rtype = next((r for r in _spec_types(job) if r.get("type") == sim.get("replicaType")), {})
    template = rtype.get("template", {})
    yield _POD + "metadata.name", meta.get("name", "")
    for key in ("labels", "annotations"):
        inherited = template.get("metadata", {}).get(key, {})
        for k, v in meta.get(key, {}).items():
            if inherited.get(k) != v:  # the template's own labels are the user's texts
                yield f"{_POD}metadata.{key}[{k}]", v
    for ref in meta.get("ownerReferences", []):
        yield _POD + "metadata.ownerReferences[].apiVersion", ref.get("apiVersion", "")
        yield _POD + "metadata.ownerReferences[].kind", ref.get("kind", "")
    if spec.get("schedulerName") != template.get("spec", {}).get("schedulerName"):
        yield _POD + "spec.schedulerName", spec.get("schedulerName", "")
    for key in ("queue", "podGroup", "role"):
        if key in sim:
            yield f"{_POD}t9ksim.{key}", sim[key]
    if sim.get("debug"):
        debug = job.get("spec", {}).get("runMode", {}).get("debug", {})
        own = next((d.get("command") for d in debug.get("replicaSpecs", [])
                    if d.get("type") == sim.get("replicaType") and d.get("command")), None)
        command = (spec.get("containers") or [{}])[0].get("command", [])
        if command != own:  # a command the job's debug spec gives is the user's
            yield _POD + "spec.containers[].command", " ".join(command)


def _action_texts(action: dict[str, Any], job: dict[str, Any]) -> Iterator[tuple[str, str]]:
    kind = action.get("type")
    if kind in ("DeletePod", "RestartTraining"):
        yield f"actions[type={kind}].reason", action.get("reason") or ""
    elif kind == "CreatePod":
        yield from _pod_texts(action.get("pod", {}), job)
    elif kind in ("CreatePodGroup", "UpdatePodGroup"):
        group = action.get("podGroup", {})
        base = f"actions[type={kind}].podGroup."
        yield base + "metadata.name", group.get("metadata", {}).get("name", "")
        for ref in group.get("metadata", {}).get("ownerReferences", []):
            yield base + "metadata.ownerReferences[].apiVersion", ref.get("apiVersion", "")
            yield base + "metadata.ownerReferences[].kind", ref.get("kind", "")
        yield base + "spec.queue", group.get("spec", {}).get("queue", "")
        for role in group.get("spec", {}).get("roles", []):
            yield base + "spec.roles[].name", role.get("name", "")
    elif kind == "CreateTensorBoard":
        yield "actions[type=CreateTensorBoard].name", action.get("name", "")
        owner = action.get("owner", {})
        yield "actions[type=CreateTensorBoard].owner.apiVersion", owner.get("apiVersion", "")
        yield "actions[type=CreateTensorBoard].owner.kind", owner.get("kind", "")


def transcript_texts(path: Path, origin: str) -> Iterator[Seen]:
    """Texts of the actions in every reconcile answer (statuses come from events.jsonl)."""
    requests: dict[tuple[str, Any], dict[str, Any]] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            message = entry.get("message")
            if not isinstance(message, dict):
                continue
            key = (entry.get("session"), message.get("id"))
            if entry.get("dir") == "to-plugin":
                if message.get("method") == "reconcile":
                    requests[key] = message.get("params", {})
                continue
            params = requests.pop(key, None)
            result = message.get("result")
            if params is None or not isinstance(result, dict):
                continue
            job = params.get("job", {})
            ctx, t = _job_context(job), params.get("nowMicros", 0) / 1e6
            for action in result.get("actions", []):
                for place, text in _action_texts(action, job):
                    yield Seen(place, text, ctx, origin, t)


# ---- running the shipped scenarios ----

@dataclass(frozen=True)
class Run:
    scenario: Path
    args: tuple[str, ...] = ()
    transcript: bool = False  # also record the controllers' answers through tee_plugin.py


def shipped_runs(repo: Path = REPO) -> list[Run]:
    """Every regression case (with transcripts: they are small), the default scenario (one of its
    five replications), the runnable examples and every study at one replication. Left out: the
    82,247-job Philly replay (17 s and 440 MB of events here), and example files that are
    manifests only."""
    cases = sorted((repo / "tests/scenarios/cases").glob("*.yaml"))
    runs = [Run(p, transcript=True) for p in cases]
    runs += [Run(repo / "scenarios/default.yaml", ("-r", "1")),
             Run(repo / "scenarios/openb-replay.yaml")]
    for name in ("mixed-accelerators.yaml", "small-cluster.yaml"):
        runs.append(Run(repo / "scenarios/examples" / name))
    runs += [Run(p, ("-r", "1")) for p in sorted((repo / "scenarios/studies").glob("*.yaml"))]
    return runs


def simulate(binary: str, run: Run, work: Path, table: Table) -> tuple[list[Seen], str]:
    """Runs one scenario; returns what it emitted, or an error."""
    origin = str(run.scenario.relative_to(REPO)) if run.scenario.is_relative_to(REPO) \
        else str(run.scenario)
    out = work / re.sub(r"[^A-Za-z0-9.-]", "_", origin)
    cmd = [binary, "run", str(run.scenario), "--out", str(out), "--events", "-q", *run.args]
    env = dict(os.environ)
    transcript = work / (out.name + ".transcript.jsonl")
    if run.transcript:
        # Version 1: every answer carries its actions whole, as this checker reads them.
        words = [sys.executable, str(TEE), "--", binary, "plugin", "serve", "controller",
                 "--protocol", "1"]
        serve = " ".join(shlex.quote(w) for w in words)  # t9ksim splits it as a shell would
        cmd += ["--plugin", f"controllers={serve}"]
        env["T9KSIM_TEE_TRANSCRIPT"] = str(transcript)
    done = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        return [], f"{origin}: t9ksim run exited {done.returncode}: {done.stdout[-1500:]}"
    events = sorted(out.rglob("events.jsonl"))
    seen = unique(s for e in events for s in events_texts(e, origin, table))
    if run.transcript:
        seen += unique(transcript_texts(transcript, origin))
        transcript.unlink()
    shutil.rmtree(out)  # hundreds of MB over all runs; a report names the scenario to rerun
    return seen, "" if events else f"{origin}: no events.jsonl written"


def unique(seen: Iterable[Seen]) -> list[Seen]:
    """The first of each (place, text, job): a run repeats its texts on every status change."""
    first: dict[tuple[str, str, Context], Seen] = {}
    for s in seen:
        first.setdefault((s.place, s.text, s.ctx), s)
    return list(first.values())


def simulate_all(binary: str, runs: list[Run], table: Table, work: Path
                 ) -> tuple[list[Seen], list[str]]:
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 2)) as pool:
        results = list(pool.map(lambda r: simulate(binary, r, work, table), runs))
    return [s for seen, _ in results for s in seen], [err for _, err in results if err]


def run_shipped(binary: str, runs: list[Run], table: Table, work: Path
                ) -> tuple[Report, list[str]]:
    seen, errors = simulate_all(binary, runs, table, work)
    return check_seen(table, seen), errors


# ---- the controllers' sources ----

@dataclass(frozen=True)
class Literal:
    file: str
    line: int
    text: str
    is_format: bool  # the format string of fmt::format or fmt::format_to


_CONSTANT = re.compile(r'inline constexpr (?:const char\s*\*|std::string_view)\s+(k\w+)\s*='
                       r'\s*"((?:[^"\\]|\\.)*)"')
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def _blank(source: str) -> tuple[str, list[tuple[int, int, str]]]:
    """The source with comments, preprocessor lines and literal contents blanked (offsets kept),
    and its string literals as (start, end, value), adjacent ones joined as the compiler does."""
    code, literals, i, n = list(source), [], 0, len(source)
    while i < n:
        line_start = source.rfind("\n", 0, i) + 1
        if source.startswith("//", i) or (source[i] == "#" and not source[line_start:i].strip()):
            j = source.find("\n", i)
            j = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif source[i] in "\"'":
            j = i + 1
            while j < n and source[j] != source[i]:
                j += 2 if source[j] == "\\" else 1
            j += 1
            if source[i] == '"':
                literals.append((i, j, _unescape(source[i + 1:j - 1])))
        else:
            i += 1
            continue
        for k in range(i, j):
            code[k] = code[k] if code[k] == "\n" else " "
        i = j
    joined: list[tuple[int, int, str]] = []
    for start, end, value in literals:
        if joined and not "".join(code[joined[-1][1]:start]).strip():
            joined[-1] = (joined[-1][0], end, joined[-1][2] + value)
        else:
            joined.append((start, end, value))
    return "".join(code), joined


def _call_of(code: str, start: int) -> int:
    """The offset of the '(' whose call holds `start`, or -1."""
    depth, i = 0, start - 1
    while i >= 0:
        if code[i] == ")":
            depth += 1
        elif code[i] == "(":
            if depth == 0:
                return i
            depth -= 1
        i -= 1
    return -1


def _is_format(code: str, start: int, starts: list[int]) -> bool:
    """The first literal argument of fmt::format or fmt::format_to."""
    paren = _call_of(code, start)
    return (paren >= 0 and re.search(r"fmt::format(_to)?\s*$", code[:paren]) is not None
            and not any(paren < other < start for other in starts))


def _in_throw(code: str, start: int) -> bool:
    begin = max(code.rfind(";", 0, start), code.rfind("{", 0, start), code.rfind("}", 0, start))
    return re.search(r"\bthrow\b", code[begin + 1:start]) is not None


def source_literals(files: Iterable[Path], model_dir: Path, root: Path = REPO
                    ) -> tuple[list[Literal], list[tuple[str, int, str]]]:
    """The string literals of the controllers (those of throw statements left out: they are
    errors, not texts), with the model:: constants they use as literals of their own, and the
    DeletionReason each emits (an assignment or a DeletePod{..., reason})."""
    constants = {}
    for header in sorted(model_dir.glob("*.hpp")):
        for m in _CONSTANT.finditer(header.read_text(encoding="utf-8")):
            constants[m.group(1)] = _unescape(m.group(2))
    literals, reasons = [], []
    for path in files:
        rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        source = path.read_text(encoding="utf-8")
        code, found = _blank(source)

        def line(offset: int) -> int:
            return source.count("\n", 0, offset) + 1

        starts = [start for start, _, _ in found]
        for start, _, value in found:
            if not _in_throw(code, start):
                literals.append(Literal(rel, line(start), value,
                                        _is_format(code, start, starts)))
        for m in re.finditer(r"model::(k[A-Z]\w*)", code):
            if m.group(1) in constants:
                literals.append(Literal(rel, line(m.start()), constants[m.group(1)], False))
        for m in re.finditer(r"(?<![=!<>])=\s*DeletionReason::(\w+)|DeletionReason::(\w+)\s*\}",
                             code):
            reasons.append((rel, line(m.start()), m.group(1) or m.group(2)))
    return literals, reasons


def _covers(table: Table, lit: Literal) -> bool:
    if lit.text in table.claimed_literals():
        return True
    if lit.is_format:  # each {} of the format stands for a placeholder or literal text
        pattern = ".+".join(re.escape(p.replace("{{", "{").replace("}}", "}"))
                            for p in lit.text.split("{}"))
        return any(re.fullmatch(pattern, e["text"], re.DOTALL) for e in table.entries)
    # A plain literal must be a whole text: matched against a template's placeholders, any
    # identifier would pass ({replicaType} takes any word) and the check would prove nothing.
    return any(_literal_text(e["text"]) == lit.text for e in table.entries)


def _literal_text(template: str) -> str | None:
    try:
        parts = parse_template(template)
    except TemplateError:
        return None  # reported by the table check
    if any(kind == "ph" for kind, _ in parts):
        return None
    return "".join(value for _, value in parts)


def controller_sources(repo: Path = REPO) -> list[Path]:
    folder = repo / "controllers"
    # model/pod_labels.cpp: the §10 labels the controllers' pods carry, implied (Pod::standard_labels)
    return sorted([*folder.glob("*.cpp"), *folder.glob("*.hpp"), *folder.glob("detail/*.hpp"),
                   repo / "model" / "pod_labels.cpp"])


def source_problems(table: Table, files: list[Path] | None = None,
                    model_dir: Path = REPO / "model", root: Path = REPO) -> list[str]:
    files = controller_sources() if files is None else files
    literals, reasons = source_literals(files, model_dir, root)
    problems = [f"{lit.file}:{lit.line}: {json.dumps(lit.text)} is in no entry of the table "
                f"(a text, a template, an entry's or placeholder's literals, or nonTexts)"
                for lit in literals if not _covers(table, lit)]
    delete_texts = {e["text"] for e in table.entries
                    if "actions[type=DeletePod].reason" in e.get("where", [])}
    problems += [f"{f}:{n}: the controller emits DeletionReason::{r}, which no entry at "
                 f"actions[type=DeletePod].reason has" for f, n, r in reasons
                 if r not in delete_texts]
    present = {lit.text for lit in literals}
    problems += [f"the table claims the literal {json.dumps(c)}, which the controllers' sources "
                 f"no longer hold" for c in sorted(table.claimed_literals() - present)]
    return problems


# ---- command line ----

def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", type=Path, default=TABLE)
    ap.add_argument("--bin", help="t9ksim binary: also check every shipped scenario")
    ap.add_argument("--events", type=Path, nargs="*", default=[])
    ap.add_argument("--transcript", type=Path, nargs="*", default=[])
    args = ap.parse_args(argv)
    table, problems = load_table(args.table)
    if problems:  # texts cannot be matched against a malformed table
        print("\n".join(problems))
        return 1
    problems = source_problems(table)
    seen = [s for p in args.events for s in events_texts(p, str(p), table)]
    seen += [s for p in args.transcript for s in transcript_texts(p, str(p))]
    if args.bin:
        with tempfile.TemporaryDirectory(prefix="t9ksim-contract-") as work:
            runs, errors = simulate_all(args.bin, shipped_runs(), table, Path(work))
        problems += errors
        seen += runs
    report = check_seen(table, seen)
    problems += [describe(s) for s in report.unmatched]
    for p in problems:
        print(p)
    if report.texts:
        unseen = sorted(i for i, n in report.hits.items() if not n)
        print(f"{len(report.hits) - len(unseen)} of {len(report.hits)} entries seen in "
              f"{report.texts} distinct texts; never seen: {', '.join(unseen) or 'none'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
