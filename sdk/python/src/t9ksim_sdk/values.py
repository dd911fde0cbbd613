"""Times and quantities exactly as the simulator writes and reads them (docs/protocol.md §4).

Times: ``micros_to_rfc3339`` writes what ``scenarios::format_timestamp`` writes (seconds, a
6-digit fraction only when not whole, ``Z``); ``rfc3339_to_micros`` reads what
``scenarios::parse_timestamp`` reads (``T`` or ``t``, 1 to 9 fraction digits of which those past
the sixth must be 0, ``Z``/``z`` or ``±HH:MM``, not before 1970-01-01T00:00:00Z).

Quantities: ``format_quantity_milli`` writes what ``model::Quantity::to_string`` writes ("500m",
"4", "32Gi"); ``quantity_milli`` reads what the simulator reads from a reply (a JSON number, an
integer being whole units, or a Kubernetes quantity string), rounding finer than 1m up as
``model::Quantity::parse`` does.
"""

from __future__ import annotations

import datetime
import math
import re
import time

__all__ = [
    "format_quantity_milli",
    "micros_to_rfc3339",
    "quantity_milli",
    "rfc3339_to_micros",
]

_MICROS = 1_000_000
_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()
_MAX_SECS = (datetime.date(9999, 12, 31).toordinal() - _EPOCH_ORDINAL + 1) * 86400 - 1
# [0-9], not \d: \d matches every Unicode digit; fullmatch, so "$" cannot match before a "\n".
_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]+))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))")


def micros_to_rfc3339(micros: int) -> str:
    """Integer microseconds since simulated time 0 as RFC 3339: ``1970-01-01T00:20:00.100000Z``."""
    if isinstance(micros, bool) or not isinstance(micros, int):
        raise TypeError(f"micros_to_rfc3339: expected an int, found {type(micros).__name__}")
    if micros < 0:
        raise ValueError(f"micros_to_rfc3339: {micros} is before simulated time 0")
    secs, frac = divmod(micros, _MICROS)
    if secs > _MAX_SECS:
        raise ValueError(f"micros_to_rfc3339: {micros} is past the year 9999")
    # strftime of gmtime: twice as fast as datetime (controllers write times in every status).
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
    return f"{text}.{frac:06d}Z" if frac else f"{text}Z"


def rfc3339_to_micros(text: str) -> int:
    """RFC 3339 as the simulator reads it, to integer microseconds since simulated time 0."""
    m = _TIME.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"not an RFC 3339 time as the simulator reads one: {text!r}")
    y, mo, d, hh, mi, ss = (int(m.group(i)) for i in range(1, 7))
    frac_text = m.group(7) or ""
    if len(frac_text) > 9 or frac_text[6:].strip("0"):
        raise ValueError(f"{text!r}: at most 9 fraction digits, and none but 0 past microseconds")
    if hh > 23 or mi > 59 or ss > 59:
        raise ValueError(f"{text!r}: not a time of day")
    try:
        days = datetime.date(y, mo, d).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        raise ValueError(f"{text!r}: not a date") from None
    offset = 0
    if m.group(8):
        oh, om = int(m.group(9)), int(m.group(10))
        if oh > 23 or om > 59:
            raise ValueError(f"{text!r}: not an offset")
        offset = (oh * 3600 + om * 60) * (1 if m.group(8) == "+" else -1)
    secs = days * 86400 + hh * 3600 + mi * 60 + ss - offset
    if secs < 0:
        raise ValueError(f"{text!r}: before simulated time 0 (1970-01-01T00:00:00Z)")
    return secs * _MICROS + int((frac_text + "000000")[:6])


_INT64_MAX = (1 << 63) - 1
_LIMIT = _INT64_MAX * 1000  # the parser's bound on intermediate values (model/quantity.cpp)
_DECIMAL = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = "KMGTPE"
_NUMBER = re.compile(r"([0-9]*)(?:\.([0-9]*))?")


def _bad(text: str, why: str) -> ValueError:
    return ValueError(f'invalid quantity "{text}": {why}; expected a Kubernetes quantity such as '
                      "500m, 2, 1.5, 4Gi, 512Mi, 10G or 1e3")


def _suffix_scale(original: str, suffix: str) -> tuple[int, int]:
    """(binary power, decimal exponent) of a quantity's suffix."""
    if not suffix:
        return 0, 0
    if len(suffix) == 2 and suffix[1] == "i":
        pos = _BINARY.find(suffix[0])
        if pos < 0:
            raise _bad(original, f'unknown suffix "{suffix}"')
        return pos + 1, 0
    if suffix[0] in "eE" and len(suffix) > 1:
        digits = suffix[2:] if suffix[1] in "+-" else suffix[1:]
        if not digits:
            raise _bad(original, "exponent needs digits")
        e = 0
        for c in digits:
            if not "0" <= c <= "9":
                raise _bad(original, f'unknown suffix "{suffix}"')
            e = e * 10 + ord(c) - 48
            if e > 30:
                raise _bad(original, "exponent out of range")
        return 0, -e if suffix[1] == "-" else e
    if len(suffix) == 1 and suffix in _DECIMAL:
        return 0, _DECIMAL[suffix]
    raise _bad(original, f'unknown suffix "{suffix}"')


def _parse_quantity(original: str) -> int:
    """model::Quantity::parse: milli-units, finer than 1m rounded up (away from zero)."""
    if not original:
        raise _bad(original, "empty")
    text = original[1:] if original[0] in "+-" else original
    negative = original[0] == "-"
    m = _NUMBER.match(text)
    assert m is not None  # the pattern matches the empty string
    whole, frac = m.group(1), m.group(2) or ""
    if not whole and not frac:
        raise _bad(original, "expected a number")
    if len((whole + frac).lstrip("0")) > 30:
        raise _bad(original, "too many digits")
    binary_power, decimal_exp = _suffix_scale(original, text[m.end():])
    num = int(whole + frac)
    for _ in range(binary_power):
        if num != 0 and num > _LIMIT // 1024:
            raise _bad(original, "too large")
        num *= 1024
    e10 = decimal_exp + 3 - len(frac)
    milli: int
    if e10 >= 0:
        k: int = 10 ** e10
        if e10 > 36 or (num != 0 and num > _LIMIT // k):
            raise _bad(original, "too large")
        milli = num * k
    elif -e10 > 36:
        milli = 1 if num else 0  # smaller than any milli-unit: rounds up to 1m
    else:
        den: int = 10 ** -e10
        milli = (num + den - 1) // den
    if milli > _INT64_MAX:
        raise _bad(original, "too large")
    return -milli if negative else milli


def quantity_milli(value: str | int | float) -> int:
    """A quantity as the simulator reads it from a reply, in milli-units.

    ``"500m"`` -> 500, ``"4"`` or ``4`` -> 4000, ``"1.5"`` or ``1.5`` -> 1500, ``"4Gi"`` ->
    4294967296000, ``"10G"`` -> 10**13, ``"1e3"`` -> 10**6.
    """
    if isinstance(value, bool):
        raise TypeError("quantity_milli: a boolean is not a quantity")
    if isinstance(value, int):
        if abs(value) > _INT64_MAX // 1000:
            raise _bad(str(value), "too large")
        return value * 1000
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _bad(repr(value), "not a finite number")
        # The simulator parses the number's JSON text, which json.dumps writes as repr().
        return _parse_quantity(repr(value))
    if isinstance(value, str):
        return _parse_quantity(value)
    raise TypeError(f"quantity_milli: expected a str, int or float, found {type(value).__name__}")


def format_quantity_milli(milli: int) -> str:
    """Milli-units as the simulator writes a quantity: "500m", "2", "1536Mi", "32Gi"."""
    if isinstance(milli, bool) or not isinstance(milli, int):
        raise TypeError(f"format_quantity_milli: expected an int, found {type(milli).__name__}")
    if milli % 1000:
        return f"{milli}m"
    units = milli // 1000
    if units and units % (1 << 20) == 0:
        suffix, v = 1, units >> 20  # index into Ki Mi Gi Ti Pi Ei: from Mi up
        while suffix < 5 and v % 1024 == 0:
            v //= 1024
            suffix += 1
        return f"{v}{('Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei')[suffix]}"
    return str(units)
