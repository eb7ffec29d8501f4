"""Size and process-count specifications."""

from __future__ import annotations

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.measure.sizes import MAX_POINTS, parse_nprocs_spec, parse_size, parse_size_spec


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("64", 64),
        ("4K", 4096),
        ("4k", 4096),
        ("4KiB", 4096),
        ("4kib", 4096),
        ("1M", 1024**2),
        ("1MiB", 1024**2),
        ("2G", 2 * 1024**3),
        ("1T", 1024**4),
        ("512B", 512),
        (" 8 ", 8),
    ],
)
def test_parse_size(text: str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "-1", "1.5K", "4KB", "4MB", "4iB", "4Ki", "4X", "K"])
def test_parse_size_rejects(text: str) -> None:
    with pytest.raises(MpiscopeError):
        parse_size(text)


def test_kb_is_called_ambiguous() -> None:
    with pytest.raises(MpiscopeError, match="ambiguous"):
        parse_size("4KB")


def test_geometric_range() -> None:
    assert parse_size_spec("1:1M:x4") == [4**i for i in range(11)]


def test_geometric_default_factor_is_two() -> None:
    assert parse_size_spec("1:64") == [1, 2, 4, 8, 16, 32, 64]


def test_geometric_does_not_force_the_maximum() -> None:
    assert parse_size_spec("1:100:x4") == [1, 4, 16, 64]


def test_geometric_from_zero_keeps_zero() -> None:
    assert parse_size_spec("0:8:x2") == [0, 1, 2, 4, 8]


def test_geometric_fractional_factor_rounds_and_dedups() -> None:
    values = parse_size_spec("1:10:x1.5")
    assert values == sorted(set(values))
    assert values[0] == 1 and values[-1] <= 10


def test_arithmetic_range() -> None:
    values = parse_size_spec("0:64K:+4K")
    assert values[0] == 0 and values[-1] == 65536 and len(values) == 17
    assert all(b - a == 4096 for a, b in zip(values, values[1:], strict=False))


def test_list_keeps_order() -> None:
    assert parse_size_spec("8,1K,64K") == [8, 1024, 65536]
    assert parse_size_spec("64K,8") == [65536, 8]


def test_single_value() -> None:
    assert parse_size_spec("4K") == [4096]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("0:64K:+0", "zero"),
        ("1M:1K", "larger than the maximum"),
        ("1:1G:+1", "more than 1000"),
        ("1:8:x1", "larger than 1"),
        ("1:8:x0.5", "larger than 1"),
        ("1:8:xz", "factor"),
        ("1:8:4", "step"),
        ("1:2:3:4", "MIN:MAX"),
        ("1,1", "twice"),
        ("1,,2", "invalid size"),
        ("1:4,8", "mix"),
        ("", "empty"),
        ("  ", "empty"),
    ],
)
def test_bad_size_specs(spec: str, message: str) -> None:
    with pytest.raises(MpiscopeError, match=message):
        parse_size_spec(spec)


def test_the_limit_is_inclusive() -> None:
    assert len(parse_size_spec(f"1:{MAX_POINTS}:+1")) == MAX_POINTS
    with pytest.raises(MpiscopeError):
        parse_size_spec(f"0:{MAX_POINTS}:+1")


def test_long_list_is_refused() -> None:
    with pytest.raises(MpiscopeError, match="more than 1000"):
        parse_size_spec(",".join(str(i) for i in range(MAX_POINTS + 1)))


def test_error_names_the_spec() -> None:
    with pytest.raises(MpiscopeError, match="'1:2:3:4'"):
        parse_size_spec("1:2:3:4")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("2:8", [2, 3, 4, 5, 6, 7, 8]),
        ("2,4,8", [2, 4, 8]),
        ("2:16:x2", [2, 4, 8, 16]),
        ("2:8:+3", [2, 5, 8]),
        ("4", [4]),
    ],
)
def test_nprocs_specs(spec: str, expected: list[int]) -> None:
    assert parse_nprocs_spec(spec) == expected


@pytest.mark.parametrize("spec", ["0", "0:4", "2K", "8:2", "2,x", "-1", "2:4:+0"])
def test_bad_nprocs_specs(spec: str) -> None:
    with pytest.raises(MpiscopeError):
        parse_nprocs_spec(spec)


def test_check_memory_refuses_buffers_beyond_the_machine() -> None:
    from mpiscope.measure.sizes import check_memory

    check_memory([1 << 30], ranks=2, memory=8 << 30)  # 4 GiB of buffers fit in 8 GiB
    with pytest.raises(MpiscopeError, match=r"size 4 GiB needs at least 16 GiB .* has 8 GiB"):
        check_memory([8, 4 << 30], ranks=2, memory=8 << 30)
