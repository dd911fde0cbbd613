"""Values on the wire: times, Kubernetes quantities and a pod's requests (docs/protocol.md §4).

Ports of model/quantity.cpp (Quantity::parse, Quantity::to_string), model/model.cpp
(effective_requests, pod_requests) and the RFC 3339 reader of scenarios/format/serialize.cpp.
Quantities are integers of milli-units, never floats, as in the model.
"""
from __future__ import annotations

import calendar
import re
from typing import Any, Dict, Mapping, Optional

# A resource list: resource name -> milli-units. Written sorted by name (std::map order).
Resources = Dict[str, int]

_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))$")


def parse_time(text: str) -> int:
    """RFC 3339 -> integer microseconds since time 0 (scenarios/format parse_timestamp).

    Digits finer than a microsecond are 0 on the wire (§4): they are dropped, not rounded.
    """
    m = _TIME.match(text)
    if not m:
        raise ValueError(f"not an RFC 3339 time: {text!r}")
    y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
    frac = int(((m.group(7) or "") + "000000")[:6])
    secs = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    if m.group(9):
        offset = int(m.group(10)) * 3600 + int(m.group(11)) * 60
        secs -= offset if m.group(9) == "+" else -offset
    return secs * 1_000_000 + frac


_BINARY = "KMGTPE"
_DECIMAL = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def parse_quantity(value: Any) -> int:
    """A quantity (a JSON integer = whole units, or text) -> milli-units (Quantity::parse).

    Precision finer than 1m rounds up, as Kubernetes' MilliValue() does.
    """
    if isinstance(value, bool):
        raise ValueError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return value * 1000
    text = str(value)
    body, negative = text, False
    if body and body[0] in "+-":
        negative, body = body[0] == "-", body[1:]
    m = re.match(r"(\d*)(?:\.(\d*))?", body)
    assert m is not None  # every text matches: both parts may be empty
    whole, frac = m.group(1), m.group(2) or ""
    if not whole and not frac:
        raise ValueError(f"invalid quantity {text!r}")
    suffix = body[m.end():]
    digits = int(whole + frac or "0")
    binary_power, decimal_exp = 0, 0
    if not suffix:
        pass
    elif len(suffix) == 2 and suffix[1] == "i" and suffix[0] in _BINARY:
        binary_power = _BINARY.index(suffix[0]) + 1
    elif suffix[0] in "eE" and len(suffix) > 1:
        decimal_exp = int(suffix[1:])
    elif suffix in _DECIMAL:
        decimal_exp = _DECIMAL[suffix]
    else:
        raise ValueError(f"invalid quantity {text!r}: unknown suffix {suffix!r}")
    num = digits * int(1024 ** binary_power)
    e10 = decimal_exp + 3 - len(frac)
    if e10 >= 0:
        milli = num * int(10 ** e10)
    else:
        den = int(10 ** -e10)
        milli = (num + den - 1) // den  # round up
    return -milli if negative else milli


def format_quantity(milli: int) -> str:
    """Canonical text (Quantity::to_string): "500m", "4Gi", "1536Mi", "2"."""
    if _trunc_mod(milli, 1000) != 0:
        return f"{milli}m"
    units = _trunc_div(milli, 1000)
    if units != 0 and _trunc_mod(units, 1 << 20) == 0:
        k, v = 2, _trunc_div(units, 1 << 20)
        while k < 6 and _trunc_mod(v, 1024) == 0:
            v, k = _trunc_div(v, 1024), k + 1
        return f"{v}{_BINARY[k - 1]}i"
    return str(units)


def _trunc_div(a: int, b: int) -> int:  # C++ integer division truncates toward zero
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trunc_mod(a: int, b: int) -> int:
    return a - b * _trunc_div(a, b)


def resources_of(obj: Optional[Mapping[str, Any]]) -> Resources:
    return {k: parse_quantity(v) for k, v in (obj or {}).items()}


def effective_requests(container: Mapping[str, Any]) -> Resources:
    """A container's requests, a missing request defaulting to its limit (model/model.cpp)."""
    res = container.get("resources") or {}
    out = resources_of(res.get("requests"))
    for name, q in resources_of(res.get("limits")).items():
        out.setdefault(name, q)
    return out


def pod_requests(spec: Mapping[str, Any], skip_init: bool = False) -> Resources:
    """The pod's requests as the scheduler sees them (model::pod_requests): summed over the
    containers, and at least the largest init container's, per resource. An init container's
    resource absent from the containers still appears (as its own value, maybe 0): the model
    inserts it. skip_init: §7.1/§7.2 skipInitContainer drops the init containers."""
    total: Resources = {}
    for c in spec.get("containers") or []:
        for name, q in effective_requests(c).items():
            total[name] = total.get(name, 0) + q
    if not skip_init:
        for c in spec.get("initContainers") or []:
            for name, q in effective_requests(c).items():
                total[name] = max(total.get(name, 0), q)
    return total


def write_resources(r: Resources) -> Dict[str, str]:
    return {k: format_quantity(r[k]) for k in sorted(r)}
