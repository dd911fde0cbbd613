"""JSON merge patches (RFC 7386): applying them as the SDK applies podPatches, and computing them
as it computes statusPatch; the round trip merge(old, diff(old, new)) == new."""

import copy
import json
import random

import pytest

from t9ksim_sdk._merge import diff, merge
from v2_wire import apply_merge_patch

# RFC 7386 Appendix A: (original, patch, result).
RFC_EXAMPLES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize("original, patch, result", RFC_EXAMPLES)
def test_merge_gives_the_results_of_rfc_7386(original, patch, result):
    before = copy.deepcopy(original)
    assert merge(original, patch) == result
    assert original == before  # the target is not changed


def test_merge_copies_only_what_the_patch_changes():
    pod = {"metadata": {"uid": "pod-0", "name": "a-w-0"}, "spec": {"containers": [{"name": "m"}]},
           "status": {"phase": "Pending"}, "t9ksim": {"rank": 0}}
    out = merge(pod, {"metadata": {"uid": "pod-0"}, "status": {"phase": "Running"}})
    assert out == {**pod, "status": {"phase": "Running"}}
    assert pod["status"] == {"phase": "Pending"}
    assert out["spec"] is pod["spec"] and out["t9ksim"] is pod["t9ksim"]


def test_merge_removes_with_null_and_replaces_arrays_whole():
    pod = {"spec": {"nodeName": "gpu-0", "priority": 0},
           "status": {"phase": "Failed", "containerStatuses": [{"name": "main", "x": 1}]}}
    patch = {"spec": {"nodeName": None},
             "status": {"phase": "Pending", "containerStatuses": [{"name": "main"}]}}
    assert merge(pod, patch) == {"spec": {"priority": 0},
                                 "status": {"phase": "Pending",
                                            "containerStatuses": [{"name": "main"}]}}


def test_diff_of_equal_values_is_empty():
    status = {"phase": "Running", "aggregate": {"running": 2}, "tasks": [{"type": "w"}]}
    assert diff(status, copy.deepcopy(status)) == {}
    assert diff(status, status) == {}


def test_diff_sends_changed_members_removed_as_null_and_objects_by_member():
    old = {"phase": "Running", "aggregate": {"running": 2, "failed": 0, "pending": 0},
           "tasks": [{"type": "w", "replicas": [{"name": "a", "phase": "Running"}]}],
           "backoffCount": 1, "conditions": [{"type": "Initialized", "status": "True"}]}
    new = {"phase": "Running", "aggregate": {"running": 1, "failed": 1},
           "tasks": [{"type": "w", "replicas": [{"name": "a", "phase": "Failed"}]}],
           "conditions": [{"type": "Initialized", "status": "True"}], "startTime": "t"}
    assert diff(old, new) == {
        "aggregate": {"running": 1, "failed": 1, "pending": None},
        "tasks": [{"type": "w", "replicas": [{"name": "a", "phase": "Failed"}]}],
        "backoffCount": None, "startTime": "t"}


def test_diff_reads_null_as_absent():
    assert diff({"a": None, "b": 1}, {"b": 1}) == {}
    assert diff({"b": 1}, {"a": None, "b": 1}) == {}
    assert diff({"a": {"x": None}}, {"a": {}}) == {}
    assert diff({"a": None}, {"a": {"x": 1}}) == {"a": {"x": 1}}
    assert diff({"a": 1}, {"a": None}) == {"a": None}


def test_diff_replaces_a_value_of_another_type_whole():
    assert diff({"a": {"x": 1}}, {"a": [1]}) == {"a": [1]}
    assert diff({"a": "x"}, {"a": {"y": 1, "z": None}}) == {"a": {"y": 1, "z": None}}
    assert merge({"a": "x"}, {"a": {"y": 1, "z": None}}) == {"a": {"y": 1}}


def without_nulls(value):
    """``value`` with its null object members left out (what a merge patch keeps of it)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    return value


@pytest.mark.parametrize("original, patch, result", [e for e in RFC_EXAMPLES
                                                     if isinstance(e[0], dict)
                                                     and isinstance(e[2], dict)])
def test_diff_of_the_rfc_examples_round_trips(original, patch, result):
    assert without_nulls(merge(original, diff(original, result))) == without_nulls(result)


def random_value(rng, depth):
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return None
    if kind == 1:
        return rng.randrange(3)
    if kind == 2:
        return rng.choice(["Running", "Failed", "", "x"])
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return random_object(rng, depth + 1)


def random_object(rng, depth=0):
    return {rng.choice("abcdef"): random_value(rng, depth) for _ in range(rng.randrange(5))}


def mutate(rng, obj):
    """A copy of ``obj`` with a few members changed, removed, added, nulled or recursed into."""
    out = copy.deepcopy(obj)
    for _ in range(rng.randrange(4)):
        key = rng.choice("abcdefg")
        action = rng.randrange(4)
        if action == 0:
            out.pop(key, None)
        elif action == 1 and isinstance(out.get(key), dict):
            out[key] = mutate(rng, out[key])
        else:
            out[key] = random_value(rng, 1)
    return out


def test_diff_round_trips_on_random_statuses():
    rng = random.Random(7386)
    for _ in range(3000):
        old = random_object(rng)
        new = mutate(rng, old) if rng.random() < 0.8 else random_object(rng)
        patch = diff(old, new)
        # Nulls count as absent on both sides (a status holds none in meaning).
        assert without_nulls(merge(old, patch)) == without_nulls(new)
        # The RFC's own algorithm (tests/v2_wire.py, as the simulator's side reads) agrees.
        assert apply_merge_patch(old, patch) == merge(old, patch)
        # Minimal: a member absent from the patch is one that did not change (nulls aside).
        for key in set(old) | set(new):
            if key not in patch:
                assert without_nulls(old.get(key)) == without_nulls(new.get(key))
        json.dumps(patch)  # plain JSON
