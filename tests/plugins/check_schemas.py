#!/usr/bin/env python3
"""Checks a transcript of plugin-protocol messages against protocol/schema/ (docs/protocol.md §9).

Usage:
    check_schemas.py [--all] SCHEMA_DIR TRANSCRIPT.jsonl

TRANSCRIPT.jsonl has one JSON object per line:
    {"dir": "to-plugin" | "from-plugin", "message": {...}}
with an optional "session" (one plugin process; ids are matched within a session, so several
plugins may write to one transcript, as tests/plugins/tee_plugin.py does) and, instead of
"message", "raw": a line that was not JSON.

A message sent to the plugin is checked against METHOD.request.json; a reply is matched to the
outstanding request of its session by id and checked against METHOD.result.json, or error.json
when it carries a non-null "error". Protocol versions are followed per session: an initialize
that offers versions (protocolVersions) is checked against v2/initialize.request.json and its
answer against v2/initialize.result.json; once the answer chose "2", the session's messages are
checked against SCHEMA_DIR/v2/ where it has a file for them (reconcile, decide) and against
SCHEMA_DIR's otherwise (shutdown, error). Beyond the schemas, the checker applies what the
simulator requires of the envelope and a schema cannot say: a reply's id is the request's,
written as an integer (not 7.0); one request at a time (lock-step); every request answered; the
version an initialize answer chose is one the request offered.

Implements the part of JSON Schema 2020-12 the schemas use: type, const, enum, minimum, maximum,
minLength, minItems, pattern, required, properties, additionalProperties, items, allOf, anyOf,
oneOf, $ref (to another file of SCHEMA_DIR, by a path relative to the referring file, such as
../defs.json, and/or #/json/pointer); annotations ($schema, $id, title,
description, $comment, format, default, examples, $defs) are ignored. Any other keyword is an
error (exit 2), so a schema cannot silently use more than is checked. As in JSON Schema, 3.0 is
an integer and true is not a number. NaN and Infinity are not JSON.

Exit status: 0 when every message is valid; 1 at the first violation (every one with --all),
printed with the message's index (1-based, its line in the transcript) and the JSON path of the
offending value; 2 for bad usage, an unreadable file or an unsupported schema.

Standard library only.
"""
import json
import os
import posixpath
import re
import sys

ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment", "format", "default", "examples", "$defs"}
KEYWORDS = {"type", "const", "enum", "minimum", "maximum", "minLength", "minItems", "pattern", "required",
            "properties", "additionalProperties", "items", "allOf", "anyOf", "oneOf", "$ref"}


class SchemaError(Exception):
    """The schema itself is unusable (unknown keyword, bad $ref, unreadable file)."""


class Violation:
    def __init__(self, path, message):
        self.path = path
        self.message = message

    def depth(self):
        return self.path.count(".") + self.path.count("[")


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def loads(text):
    return json.loads(text, parse_constant=_reject_constant)


def is_integer(v):
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def type_ok(v, t):
    return {
        "null": lambda: v is None,
        "boolean": lambda: isinstance(v, bool),
        "integer": lambda: is_integer(v),
        "number": lambda: is_number(v),
        "string": lambda: isinstance(v, str),
        "array": lambda: isinstance(v, list),
        "object": lambda: isinstance(v, dict),
    }[t]()


def json_equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def describe(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, str):
        return json.dumps(v if len(v) <= 40 else v[:40] + "...")
    return json.dumps(v)


def child(path, key):
    if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"


class Validator:
    def __init__(self, schema_dir):
        self.dir = schema_dir
        self.files = {}
        self.patterns = {}

    def file(self, name):
        if name not in self.files:
            path = os.path.join(self.dir, name)
            try:
                with open(path, encoding="utf-8") as f:
                    self.files[name] = loads(f.read())
            except (OSError, ValueError) as e:
                raise SchemaError(f"{path}: {e}") from e
        return self.files[name]

    def resolve(self, ref, base):
        """`base` is the referring file's path relative to the schema folder ("v2/x.json")."""
        file_part, _, pointer = ref.partition("#")
        name = base
        if file_part:
            name = posixpath.normpath(posixpath.join(posixpath.dirname(base), file_part))
            if name.startswith("../") or name == ".." or posixpath.isabs(file_part):
                raise SchemaError(f"$ref {ref!r} in {base}: only files of the schema folder are supported")
        node = self.file(name)
        if pointer:
            if not pointer.startswith("/"):
                raise SchemaError(f"$ref {ref!r} in {base}: only JSON pointers are supported after '#'")
            for token in pointer[1:].split("/"):
                token = token.replace("~1", "/").replace("~0", "~")
                if isinstance(node, dict) and token in node:
                    node = node[token]
                elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                    node = node[int(token)]
                else:
                    raise SchemaError(f"$ref {ref!r} in {base}: nothing at {pointer}")
        return node, name

    def pattern(self, p):
        if p not in self.patterns:
            try:
                self.patterns[p] = re.compile(p)
            except re.error as e:
                raise SchemaError(f"pattern {p!r}: {e}") from e
        return self.patterns[p]

    def validate(self, v, schema, base, path):
        """The first violation of `schema` by `v`, or None."""
        if schema is True or schema == {}:
            return None
        if schema is False:
            return Violation(path, "no value is allowed here")
        if not isinstance(schema, dict):
            raise SchemaError(f"{base}: a schema must be an object or a boolean, found {describe(schema)}")
        unknown = set(schema) - KEYWORDS - ANNOTATIONS
        if unknown:
            raise SchemaError(f"{base}: unsupported keyword(s) {sorted(unknown)}")

        if "$ref" in schema:
            target, target_base = self.resolve(schema["$ref"], base)
            err = self.validate(v, target, target_base, path)
            if err:
                return err
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(type_ok(v, t) for t in types):
                return Violation(path, f"expected {' or '.join(types)}, found {describe(v)}")
        if "const" in schema and not json_equal(v, schema["const"]):
            return Violation(path, f"expected {describe(schema['const'])}, found {describe(v)}")
        if "enum" in schema and not any(json_equal(v, e) for e in schema["enum"]):
            return Violation(path, f"expected one of {', '.join(describe(e) for e in schema['enum'])}, found {describe(v)}")
        if is_number(v):
            if "minimum" in schema and v < schema["minimum"]:
                return Violation(path, f"expected a number >= {schema['minimum']}, found {describe(v)}")
            if "maximum" in schema and v > schema["maximum"]:
                return Violation(path, f"expected a number <= {schema['maximum']}, found {describe(v)}")
        if isinstance(v, str):
            if "minLength" in schema and len(v) < schema["minLength"]:
                return Violation(path, f"expected at least {schema['minLength']} character(s), found {describe(v)}")
            if "pattern" in schema:
                p = schema["pattern"]
                m = self.pattern(p).search(v)
                # Python's $ also matches before a final newline; ECMA 262's does not.
                if not m or (p.endswith("$") and not p.endswith("\\$") and m.end() != len(v)):
                    return Violation(path, f"expected a string matching {p}, found {describe(v)}")
        if isinstance(v, dict):
            for key in schema.get("required", []):
                if key not in v:
                    return Violation(child(path, key), "required field is missing")
            props = schema.get("properties", {})
            extra = schema.get("additionalProperties", True)
            for key, value in v.items():
                if key in props:
                    err = self.validate(value, props[key], base, child(path, key))
                elif extra is False:
                    err = Violation(child(path, key), f"unknown field {json.dumps(key)}; allowed: {', '.join(props) or 'none'}")
                else:
                    err = self.validate(value, extra, base, child(path, key))
                if err:
                    return err
        if isinstance(v, list) and "minItems" in schema and len(v) < schema["minItems"]:
            return Violation(path, f"expected at least {schema['minItems']} item(s), found {len(v)}")
        if isinstance(v, list) and "items" in schema:
            for i, item in enumerate(v):
                err = self.validate(item, schema["items"], base, f"{path}[{i}]")
                if err:
                    return err
        for sub in schema.get("allOf", []):
            err = self.validate(v, sub, base, path)
            if err:
                return err
        if "anyOf" in schema:
            errors = []
            for sub in schema["anyOf"]:
                err = self.validate(v, sub, base, path)
                if not err:
                    break
                errors.append(err)
            else:
                return self.best(v, schema["anyOf"], base, errors, path, "anyOf")
        if "oneOf" in schema:
            errors, matched = [], []
            for i, sub in enumerate(schema["oneOf"]):
                err = self.validate(v, sub, base, path)
                if err:
                    errors.append(err)
                else:
                    matched.append(i)
            if not matched:
                return self.best(v, schema["oneOf"], base, errors, path, "oneOf")
            if len(matched) > 1:
                return Violation(path, f"matches more than one alternative of oneOf ({matched})")
        return None

    def consts(self, schema, base):
        """{key: value} of the 'const' properties of an object schema (through $ref): a discriminator."""
        while isinstance(schema, dict) and "$ref" in schema and "properties" not in schema:
            schema, base = self.resolve(schema["$ref"], base)
        props = schema.get("properties", {}) if isinstance(schema, dict) else {}
        return {k: p["const"] for k, p in props.items() if isinstance(p, dict) and "const" in p}

    def best(self, v, branches, base, errors, path, keyword):
        """One violation for a value no alternative of anyOf/oneOf accepts: the one of the
        alternative the value was meant for, when that can be told."""
        if isinstance(v, dict):
            # An alternative chosen by a constant ("type": "CreatePod"): report its violation, or
            # that the constant is none of the known ones.
            consts = [self.consts(b, base) for b in branches]
            keys = [k for k in consts[0] if all(k in c for c in consts)
                    and len({json.dumps(c[k], sort_keys=True) for c in consts}) == len(consts)]
            if keys:
                key = keys[0]
                chosen = [i for i, c in enumerate(consts) if key in v and json_equal(v[key], c[key])]
                if len(chosen) == 1:
                    return errors[chosen[0]]
                if not chosen:
                    allowed = ", ".join(describe(c[key]) for c in consts)
                    found = describe(v[key]) if key in v else "nothing"
                    return Violation(child(path, key), f"expected one of {allowed}, found {found}")
        # Otherwise the alternative that got furthest into the value (the object of "an object
        # or null"), preferring a wrong value to a missing field.
        deepest = max(e.depth() for e in errors)
        top = [e for e in errors if e.depth() == deepest]
        if len(top) > 1:
            wrong = [e for e in top if e.message != "required field is missing"]
            top = wrong if len(wrong) == 1 else top
        if deepest > Violation(path, "").depth() and len(top) == 1:
            return top[0]
        if len({e.path for e in top}) == 1:
            expected, found = [], None
            for e in top:
                m = re.fullmatch(r"expected (.*), found (.*)", e.message, re.S)
                if not m:
                    break
                expected.append(m.group(1))
                found = m.group(2)
            else:
                return Violation(top[0].path, f"expected {' or '.join(dict.fromkeys(expected))}, found {found}")
            return Violation(top[0].path, "; ".join(dict.fromkeys(e.message for e in top)))
        return Violation(path, f"matches no alternative of {keyword}: " + "; ".join(f"{e.path}: {e.message}" for e in top))


def versioned(schema_dir, state, name):
    """NAME's schema for a session: v2/NAME once it speaks version 2 (if v2/ has one)."""
    if state["version"] == "2" and os.path.exists(os.path.join(schema_dir, "v2", name)):
        return f"v2/{name}"
    return name


def check(schema_dir, transcript, report_all):
    validator = Validator(schema_dir)
    sessions = {}  # session -> {id: method} of unanswered requests
    versions = {}  # session -> {"version": what its initialize answer chose, "offered": [...] | None}
    failures = 0

    def fail(index, what, path, message):
        nonlocal failures
        failures += 1
        print(f"{transcript}: message {index} ({what}): {path}: {message}")
        return not report_all

    try:
        with open(transcript, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise SchemaError(f"{transcript}: {e}") from e

    count = 0
    for index, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        count += 1
        try:
            entry = loads(line)
        except ValueError as e:
            if fail(index, "transcript line", "$", f"not JSON: {e}"):
                return 1
            continue
        if not isinstance(entry, dict) or entry.get("dir") not in ("to-plugin", "from-plugin"):
            if fail(index, "transcript line", "$", 'expected {"dir": "to-plugin" | "from-plugin", "message": ...}'):
                return 1
            continue
        direction = entry["dir"]
        pending = sessions.setdefault(str(entry.get("session", "")), {})
        state = versions.setdefault(str(entry.get("session", "")), {"version": "1", "offered": None})
        if "message" not in entry:
            raw = entry.get("raw")
            if fail(index, direction, "$", f"not JSON: {describe(raw)}" if raw is not None else "no message"):
                return 1
            continue
        msg = entry["message"]
        if not isinstance(msg, dict):
            if fail(index, direction, "$", f"expected an object, found {describe(msg)}"):
                return 1
            continue

        if direction == "to-plugin":
            method = msg.get("method")
            what = f"to-plugin {method} id {msg.get('id')}"
            if not isinstance(method, str):
                if fail(index, what, "$.method", f"expected a string, found {describe(method)}"):
                    return 1
                continue
            if pending:
                waiting = ", ".join(f"{m} id {i}" for i, m in pending.items())
                if fail(index, what, "$", f"sent while {waiting} is unanswered (the protocol is lock-step)"):
                    return 1
            schema_name = versioned(schema_dir, state, f"{method}.request.json")
            if method == "initialize":
                params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
                offered = params.get("protocolVersions")
                state.update(version="1", offered=offered if isinstance(offered, list) else None)
                if state["offered"] is not None:
                    schema_name = "v2/initialize.request.json"
            if not os.path.exists(os.path.join(schema_dir, schema_name)):
                if fail(index, what, "$.method", f"no schema {schema_name} for method {json.dumps(method)}"):
                    return 1
                continue
            if is_integer(msg.get("id")):
                pending[int(msg["id"])] = method
        else:
            rid = msg.get("id")
            what = f"from-plugin reply id {json.dumps(rid)}"
            if "method" in msg:
                if fail(index, what, "$.method", "a plugin only answers; it sends no requests or notifications"):
                    return 1
                continue
            if isinstance(rid, float) and rid.is_integer() and int(rid) in pending:
                pending.pop(int(rid))
                if fail(index, what, "$.id", f"found {rid}; the simulator requires the id written as an integer ({int(rid)})"):
                    return 1
                continue
            if not (isinstance(rid, int) and not isinstance(rid, bool)) or rid not in pending:
                waiting = ", ".join(f"{m} id {i}" for i, m in pending.items()) or "none"
                if fail(index, what, "$.id", f"answers no unanswered request (unanswered: {waiting})"):
                    return 1
                continue
            method = pending.pop(rid)
            what = f"from-plugin {method} reply id {rid}"
            schema_name = "error.json" if msg.get("error") is not None else \
                versioned(schema_dir, state, f"{method}.result.json")
            if method == "initialize" and schema_name != "error.json" and state["offered"] is not None:
                schema_name = "v2/initialize.result.json"
        try:
            err = validator.validate(msg, validator.file(schema_name), schema_name, "$")
        except RecursionError:
            err = Violation("$", "nested too deeply")
        if err and fail(index, f"{what}, {schema_name}", err.path, err.message):
            return 1
        if not err and direction == "from-plugin" and method == "initialize" and schema_name != "error.json":
            chosen = msg["result"]["protocolVersion"]
            offered = state["offered"] or ["1"]
            if chosen not in offered:
                if fail(index, f"{what}, {schema_name}", "$.result.protocolVersion",
                        f"chose {json.dumps(chosen)}, which the request did not offer ({', '.join(offered)})"):
                    return 1
            else:
                state["version"] = chosen

    for session, pending in sessions.items():
        for rid, method in pending.items():
            who = f" of session {session}" if session else ""
            if fail("(end)", f"{method} id {rid}{who}", "$", "never answered"):
                return 1
    if failures:
        return 1
    print(f"{transcript}: {count} message(s) valid")
    return 0


def main(argv):
    args = [a for a in argv[1:] if a != "--all"]
    if len(args) != 2 or any(a.startswith("-") for a in args):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        return check(args[0], args[1], "--all" in argv[1:])
    except SchemaError as e:
        print(f"check_schemas.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
