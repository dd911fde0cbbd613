"""JSON merge patches (RFC 7386): how protocol version 2 sends pods changed in their observed
state (``podPatches``) and how the SDK answers a status that changed (``statusPatch``)."""

from __future__ import annotations

from typing import Any


def merge(target: Any, patch: Any) -> Any:
    """RFC 7386 MergePatch(target, patch), as a new value.

    A member of ``patch`` replaces the target's, an object merges member by member, ``null``
    removes the member, and anything else (arrays included) replaces the value whole. ``target``
    is left as it is: user code may still hold it from an earlier request (what it is given is
    shared with what the SDK keeps), so only the objects along the patch's paths are copied.
    """
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            out[key] = merge(out.get(key), value)
        else:
            out[key] = value
    return out


def diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The merge patch that turns ``old`` into ``new``: ``merge(old, diff(old, new))`` equals
    ``new`` without its null members, and ``{}`` means no change.

    A null member counts as absent (a status holds no null in meaning: the simulator reads one
    as absent), so a member null on one side and missing on the other is no change. Members of
    ``old`` missing from ``new`` become null; changed objects are diffed member by member; any
    other changed value (a list, a string, a number) is sent whole. Values are compared with
    ``==``, as the SDK compares whole statuses (so ``1`` and ``1.0`` are the same).
    """
    patch: dict[str, Any] = {}
    for key, value in new.items():
        before = old.get(key)
        if value is None:
            if before is not None:
                patch[key] = None
        elif before is None:
            patch[key] = value
        elif value is before or value == before:
            continue
        elif isinstance(value, dict) and isinstance(before, dict):
            sub = diff(before, value)
            if sub:
                patch[key] = sub
        else:
            patch[key] = value
    for key, before in old.items():
        if before is not None and key not in new:
            patch[key] = None
    return patch
