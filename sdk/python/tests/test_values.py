"""Times and quantities as the simulator writes and reads them (model/quantity.cpp,
scenarios/format/serialize.cpp)."""

import random

import pytest

from t9ksim_sdk import (format_quantity_milli, micros_to_rfc3339, quantity_milli,
                        rfc3339_to_micros)


@pytest.mark.parametrize("micros, text", [
    (0, "1970-01-01T00:00:00Z"),
    (1200100000, "1970-01-01T00:20:00.100000Z"),
    (1, "1970-01-01T00:00:00.000001Z"),
    (86399999999, "1970-01-01T23:59:59.999999Z"),
    (951782400000000, "2000-02-29T00:00:00Z"),
    (253402300799999999, "9999-12-31T23:59:59.999999Z"),
])
def test_times_as_the_simulator_writes_them(micros, text):
    assert micros_to_rfc3339(micros) == text
    assert rfc3339_to_micros(text) == micros


@pytest.mark.parametrize("text, micros", [
    ("1970-01-01t00:00:05z", 5000000),
    ("1970-01-01T00:00:05.5Z", 5500000),
    ("1970-01-01T00:00:05.000250Z", 5000250),
    ("1970-01-01T00:00:05.000250000Z", 5000250),  # 9 digits, zeros past microseconds
    ("1970-01-01T02:00:00+02:00", 0),
    ("1969-12-31T23:00:00-01:00", 0),
    ("1970-01-01T00:00:00+00:00", 0),
])
def test_times_as_the_simulator_reads_them(text, micros):
    assert rfc3339_to_micros(text) == micros


@pytest.mark.parametrize("text", [
    "1970-01-01T00:00:05.0000001Z",  # finer than a microsecond
    "1970-01-01T00:00:05.0000000000Z",  # 10 digits
    "1970-01-01T00:00:05.Z", "1970-01-01T00:00:05", "1970-01-01 00:00:05Z",
    "1969-12-31T23:59:59Z",  # before time 0
    "1971-02-29T00:00:00Z", "1970-13-01T00:00:00Z", "1970-01-01T24:00:00Z",
    "1970-01-01T00:60:00Z", "1970-01-01T00:00:60Z", "1970-01-01T00:00:00+24:00",
    "1970-01-01T00:00:00Z\n", "١٩٧٠-01-01T00:00:00Z", "", "70-01-01T00:00:00Z",
])
def test_times_the_simulator_refuses(text):
    with pytest.raises(ValueError):
        rfc3339_to_micros(text)


def test_times_refuse_what_is_not_a_time():
    with pytest.raises(ValueError):
        micros_to_rfc3339(-1)
    with pytest.raises(ValueError):
        micros_to_rfc3339(253402300800000000)  # 10000-01-01
    with pytest.raises(TypeError):
        micros_to_rfc3339(1.5)  # type: ignore[arg-type]


def test_times_round_trip():
    rng = random.Random(7)
    for _ in range(2000):
        us = rng.choice([rng.randrange(10 ** 7), rng.randrange(10 ** 17)])
        us *= rng.choice([1, 10 ** 6])
        us = min(us, 253402300799999999)
        assert rfc3339_to_micros(micros_to_rfc3339(us)) == us


@pytest.mark.parametrize("milli, text", [
    (500, "500m"), (4000, "4"), (0, "0"), (1, "1m"), (1500, "1500m"), (-250, "-250m"),
    (-3000, "-3"), (1024 * 1000, "1024"), (2 ** 20 * 1000, "1Mi"),
    (1536 * 2 ** 20 * 1000, "1536Mi"),
    (32 * 2 ** 30 * 1000, "32Gi"), (2 ** 40 * 1000, "1Ti"), (2 ** 50 * 1000, "1Pi"),
    (4 * 2 ** 50 * 1000, "4Pi"), (-(2 ** 30) * 1000, "-1Gi"),
    (10 ** 13, "10000000000"), (2 ** 20 * 1000 + 1000, "1048577"),
])
def test_quantities_as_the_simulator_writes_them(milli, text):
    assert format_quantity_milli(milli) == text
    assert quantity_milli(text) == milli


@pytest.mark.parametrize("value, milli", [
    ("500m", 500), ("4", 4000), ("1.5", 1500), ("4Gi", 4 * 2 ** 30 * 1000), ("10G", 10 ** 13),
    ("1e3", 10 ** 6), ("1E3", 10 ** 6), ("2e-3", 2), ("1.5e+2", 150000), ("+2", 2000),
    ("-1.5", -1500), (".5", 500), ("5.", 5000), ("0.0001", 1), ("-0.0001", -1), ("1n", 1),
    ("1u", 1), ("1k", 10 ** 6), ("1M", 10 ** 9), ("2Ki", 2048000), ("1T", 10 ** 15),
    ("0.5Mi", 524288000), ("1e-30", 1), ("0e-30", 0), ("007", 7000),
    (2, 2000), (-3, -3000), (2.0, 2000), (1.5, 1500), (0.0005, 1), (1e3, 10 ** 6),
])
def test_quantities_as_the_simulator_reads_them(value, milli):
    assert quantity_milli(value) == milli


@pytest.mark.parametrize("value", [
    "", "m", "1.2.3", "1x", "1Xi", "1e", "1e+", "1e31", "1ee", "1mi", "1 ", " 1", "1ei",
    "1E", "9223372036854776", "1" + "0" * 30, "1Ei" * 2, "1.5.Gi", "--1", "٣",
    1e20, float("nan"), float("inf"),
])
def test_quantities_the_simulator_refuses(value):
    with pytest.raises(ValueError):
        quantity_milli(value)


def test_quantity_types():
    with pytest.raises(TypeError):
        quantity_milli(True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        quantity_milli(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        format_quantity_milli(1.0)  # type: ignore[arg-type]


def test_quantities_round_trip():
    rng = random.Random(11)
    for _ in range(5000):
        m = rng.choice([rng.randrange(-10 ** 6, 10 ** 6), rng.randrange(10 ** 15) * 1000,
                        rng.randrange(1, 5000) * 2 ** rng.choice([20, 30, 40]) * 1000])
        text = format_quantity_milli(m)
        assert quantity_milli(text) == m
        assert format_quantity_milli(quantity_milli(text)) == text
