"""Human formatting of ns and bytes."""

from __future__ import annotations

import pytest

from mpiscope.result.units import format_bytes, format_ns, format_number, pick_time_unit


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (0, "0 ns"),
        (0.4, "0.4 ns"),
        (18.2, "18.2 ns"),
        (812.4, "812 ns"),
        (999, "999 ns"),
        (1000, "1 us"),
        (1234, "1.23 us"),
        (5200, "5.2 us"),
        (2.1e6, "2.1 ms"),
        (2.5e9, "2.5 s"),
        (3600e9, "3600 s"),
        (-1500, "-1.5 us"),
        (None, "-"),
    ],
)
def test_format_ns(ns: float | None, text: str) -> None:
    assert format_ns(ns) == text


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 B"),
        (1, "1 B"),
        (1023, "1023 B"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (4096, "4 KiB"),
        (1024**2, "1 MiB"),
        (503316480, "480 MiB"),
        (3 * 1024**3, "3 GiB"),
        (None, "-"),
    ],
)
def test_format_bytes(size: int | None, text: str) -> None:
    assert format_bytes(size) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (1.0, "1"),
        (0.8124, "0.812"),
        (12.345, "12.3"),
        (12345.6, "12346"),
        (0.0001, "0.0001"),
    ],
)
def test_format_number(value: float, text: str) -> None:
    assert format_number(value) == text


def test_format_number_keeping_zeros() -> None:
    assert format_number(0.92, trim_zeros=False) == "0.920"
    assert format_number(1.0, trim_zeros=False) == "1.00"
    assert format_number(1500.0, trim_zeros=False) == "1500"


def test_pick_time_unit_uses_the_typical_value() -> None:
    assert pick_time_unit([800, 900, 5.4e6])[0] == "ns"
    assert pick_time_unit([800, 1200, 5000])[0] == "us"
    assert pick_time_unit([2e6, 3e6])[0] == "ms"
    assert pick_time_unit([None, None])[0] == "ns"
    assert pick_time_unit([])[0] == "ns"
