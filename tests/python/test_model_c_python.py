"""The C models (include/mpiscope/model.h, libmpiscope loaded with ctypes)
against the Python ones (python/mpiscope/models): the same collective names,
the same prediction of every name on the same Hockney, LogGP and PLogP
model, and the same piecewise Hockney fit (breakpoints, lines, errors) from
the same points, to a relative 1e-9 (the C side ports the Python
arithmetic operation for operation, so in practice they are equal).

The library is found as tests/python/test_stats_c.py finds it ($MPISCOPE_LIB,
else the newest build*/libmpiscope.so that is not a sanitizer build); the
module is skipped if there is none, and fails if the library found has no
model API (a stale build).
"""

from __future__ import annotations

import ctypes
import math
import random
from collections.abc import Sequence

import pytest

from mpiscope.models.collectives import COLLECTIVES
from mpiscope.models.hockney import Hockney, Segment, fit_hockney, fit_hockney_auto
from mpiscope.models.loggp import LogGP
from mpiscope.models.plogp import PLogP
from test_stats_c import _find_library

REL = 1e-9
NO_LIMIT = 2**64 - 1  # MPISCOPE_MODEL_NO_LIMIT (SIZE_MAX)
NPROCS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 24, 64, 100, 1000, 4096]
SIZES = [0, 1, 7, 8, 100, 1000, 1024, 1500, 4096, 10000, 65536, 100000, 1048576, 3.5]


class CSegment(ctypes.Structure):
    """Mirror of mpiscope_hockney_segment_t."""

    _fields_ = [
        ("from_bytes", ctypes.c_size_t),
        ("to_bytes", ctypes.c_size_t),
        ("alpha_ns", ctypes.c_double),
        ("beta_ns_per_byte", ctypes.c_double),
        ("points", ctypes.c_size_t),
        ("max_rel_error", ctypes.c_double),
    ]


class FitOptions(ctypes.Structure):
    """Mirror of mpiscope_hockney_fit_options_t."""

    _fields_ = [
        ("segments", ctypes.c_int),
        ("max_segments", ctypes.c_int),
        ("tolerance", ctypes.c_double),
        ("min_points", ctypes.c_size_t),
    ]


@pytest.fixture(scope="module")
def lib() -> ctypes.CDLL:
    path = _find_library()
    if path is None or not path.is_file():
        pytest.skip("libmpiscope.so not found (MPISCOPE_LIB unset, no build*/ library)")
    so = ctypes.CDLL(str(path))
    assert hasattr(so, "mpiscope_model_predict"), f"{path} has no model API: rebuild it"
    p_model = ctypes.c_void_p
    pp_model = ctypes.POINTER(ctypes.c_void_p)
    dp = ctypes.POINTER(ctypes.c_double)
    sp = ctypes.POINTER(ctypes.c_size_t)
    signatures = {
        "mpiscope_model_fit_hockney": ([sp, dp, ctypes.c_size_t, ctypes.POINTER(FitOptions),
                                        pp_model], ctypes.c_int),
        "mpiscope_model_create_hockney": ([ctypes.POINTER(CSegment), ctypes.c_size_t, pp_model],
                                          ctypes.c_int),
        "mpiscope_model_create_loggp": ([ctypes.c_double] * 5 + [pp_model], ctypes.c_int),
        "mpiscope_model_create_plogp": ([ctypes.c_double, sp, dp, dp, dp, ctypes.c_size_t,
                                         pp_model], ctypes.c_int),
        "mpiscope_model_destroy": ([p_model], None),
        "mpiscope_model_set_gamma": ([p_model, ctypes.c_double], ctypes.c_int),
        "mpiscope_model_time": ([p_model, ctypes.c_double, dp], ctypes.c_int),
        "mpiscope_model_segment_count": ([p_model], ctypes.c_size_t),
        "mpiscope_model_segment": ([p_model, ctypes.c_size_t, ctypes.POINTER(CSegment)],
                                   ctypes.c_int),
        "mpiscope_model_predict": ([p_model, ctypes.c_char_p, ctypes.c_int, ctypes.c_double, dp],
                                   ctypes.c_int),
        "mpiscope_model_collective_count": ([], ctypes.c_size_t),
        "mpiscope_model_collective_name": ([ctypes.c_size_t], ctypes.c_char_p),
        "mpiscope_model_collective_formula": ([ctypes.c_size_t], ctypes.c_char_p),
    }  # fmt: skip
    for name, (args, result) in signatures.items():
        fn = getattr(so, name)
        fn.argtypes = args
        fn.restype = result
    return so


class CModel:
    """A C model handle, destroyed with the object."""

    def __init__(self, so: ctypes.CDLL, make: str, *args: object, gamma: float = 0.0) -> None:
        self.so = so
        self.handle = ctypes.c_void_p()
        rc = getattr(so, make)(*args, ctypes.byref(self.handle))
        assert rc == 0, f"{make}: {rc}"
        assert so.mpiscope_model_set_gamma(self.handle, gamma) == 0

    def __del__(self) -> None:
        self.so.mpiscope_model_destroy(self.handle)

    def time_ns(self, size: float) -> float:
        out = ctypes.c_double()
        assert self.so.mpiscope_model_time(self.handle, float(size), ctypes.byref(out)) == 0
        return out.value

    def predict(self, name: str, p: int, size: float) -> float:
        out = ctypes.c_double()
        rc = self.so.mpiscope_model_predict(self.handle, name.encode(), p, float(size),
                                            ctypes.byref(out))  # fmt: skip
        assert rc == 0, f"{name} p={p} s={size}: {rc}"
        return out.value

    def segments(self) -> list[CSegment]:
        out = []
        for i in range(self.so.mpiscope_model_segment_count(self.handle)):
            seg = CSegment()
            assert self.so.mpiscope_model_segment(self.handle, i, ctypes.byref(seg)) == 0
            out.append(seg)
        return out


def _array(kind: type, values: Sequence[float]) -> ctypes.Array:
    return (kind * len(values))(*values)


def c_hockney(so: ctypes.CDLL, model: Hockney) -> CModel:
    segs = [CSegment(s.from_bytes, NO_LIMIT if s.to_bytes is None else s.to_bytes, s.alpha_ns,
                     s.beta_ns_per_byte, s.points, s.max_rel_error) for s in model.segments]
    return CModel(so, "mpiscope_model_create_hockney", _array(CSegment, segs), len(segs),
                  gamma=model.gamma_ns_per_byte)  # fmt: skip


def c_fit(
    so: ctypes.CDLL,
    sizes: Sequence[int],
    times: Sequence[float],
    segments: int,
    max_segments: int = 4,
    tolerance: float = 0.05,
    min_points: int = 2,
) -> CModel:
    options = FitOptions(segments, max_segments, tolerance, min_points)
    return CModel(so, "mpiscope_model_fit_hockney", _array(ctypes.c_size_t, sizes),
                  _array(ctypes.c_double, times), len(sizes), ctypes.byref(options))  # fmt: skip


def close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def mpich_like_points(seed: int) -> tuple[list[int], list[float]]:
    """A noisy one-way time with an eager and a rendezvous regime, sizes 0..4 MiB in x2 steps."""
    rng = random.Random(seed)
    sizes = [0] + [2**k for k in range(23)]
    times = []
    for s in sizes:
        if s <= 16384:
            base = 1040 + 0.09 * s
        else:
            base = 9000 + 0.084 * s if s <= 262144 else 22000 + 0.083 * s
        times.append(base * (1 + rng.uniform(-0.04, 0.04)))
    return sizes, times


HOCKNEY = Hockney((Segment(0, 1024, 1040.0, 0.09, 0, 0.0),
                   Segment(2048, 262144, 9000.0, 0.084, 0, 0.0),
                   Segment(524288, None, 22000.0, 0.083, 0, 0.0)), 0.31)  # fmt: skip
LOGGP = LogGP(850.0, 210.0, 330.0, 400.0, 0.087, 0.25)
PLOGP = PLogP(700.0, (0, 1024, 65536, 1048576), (210.0, 400.0, 9000.0, 120000.0),
              (330.0, 500.0, 8000.0, 110000.0), (250.0, 600.0, 7000.0, 90000.0), 0.2)  # fmt: skip


def test_same_collective_names(lib: ctypes.CDLL) -> None:
    names = [lib.mpiscope_model_collective_name(i).decode()
             for i in range(lib.mpiscope_model_collective_count())]  # fmt: skip
    assert names == list(COLLECTIVES)


def test_same_collective_formulas(lib: ctypes.CDLL) -> None:
    """The formula texts too: both sides show them (model predict, the C API)."""
    formulas = {lib.mpiscope_model_collective_name(i).decode():
                lib.mpiscope_model_collective_formula(i).decode()
                for i in range(lib.mpiscope_model_collective_count())}  # fmt: skip
    assert formulas == {name: algo.formula for name, algo in COLLECTIVES.items()}


def _c_model(lib: ctypes.CDLL, model: object) -> CModel:
    if isinstance(model, Hockney):
        return c_hockney(lib, model)
    if isinstance(model, LogGP):
        return CModel(lib, "mpiscope_model_create_loggp", model.L_ns, model.o_s_ns, model.o_r_ns,
                      model.g_ns, model.G_ns_per_byte, gamma=model.gamma_ns_per_byte)  # fmt: skip
    assert isinstance(model, PLogP)
    n = len(model.sizes)
    return CModel(lib, "mpiscope_model_create_plogp", model.L_ns,
                  _array(ctypes.c_size_t, model.sizes), _array(ctypes.c_double, model.o_s_ns),
                  _array(ctypes.c_double, model.o_r_ns), _array(ctypes.c_double, model.g_ns), n,
                  gamma=model.gamma_ns_per_byte)  # fmt: skip


@pytest.mark.parametrize("model", [HOCKNEY, LOGGP, PLOGP], ids=["hockney", "loggp", "plogp"])
def test_every_collective_same_in_c_and_python(lib: ctypes.CDLL, model: object) -> None:
    c = _c_model(lib, model)
    for s in SIZES:
        assert close(c.time_ns(s), model.time_ns(s)), f"T({s})"  # type: ignore[attr-defined]
    differ = []
    for name, algo in COLLECTIVES.items():
        for p in NPROCS:
            for s in SIZES:
                want = algo.time_ns(p, s, model.time_ns, model.gamma_ns_per_byte)  # type: ignore[attr-defined]
                got = c.predict(name, p, s)
                if not close(got, want):
                    differ.append(f"{name} p={p} s={s}: C {got!r} Python {want!r}")
    assert not differ, "\n".join(differ[:20])


def _same_segments(c: CModel, py: Hockney) -> None:
    got = c.segments()
    assert len(got) == len(py.segments)
    for cs, ps in zip(got, py.segments, strict=True):
        assert cs.from_bytes == ps.from_bytes
        assert cs.to_bytes == (NO_LIMIT if ps.to_bytes is None else ps.to_bytes)
        assert cs.points == ps.points
        assert close(cs.alpha_ns, ps.alpha_ns) and close(cs.beta_ns_per_byte, ps.beta_ns_per_byte)
        assert close(cs.max_rel_error, ps.max_rel_error)


@pytest.mark.parametrize("seed", range(6))
def test_same_hockney_fit(lib: ctypes.CDLL, seed: int) -> None:
    sizes, times = mpich_like_points(seed)
    order = list(range(len(sizes)))
    random.Random(seed).shuffle(order)  # the order the points come in does not matter
    sizes = [sizes[i] for i in order]
    times = [times[i] for i in order]
    for segments in (1, 2, 3, 4):
        _same_segments(c_fit(lib, sizes, times, segments), fit_hockney(sizes, times, segments))
    for tolerance in (0.05, 0.01, 0.3):  # within tolerance, or the least BIC
        py = fit_hockney_auto(sizes, times, 4, tolerance)
        _same_segments(c_fit(lib, sizes, times, 0, 4, tolerance), py)
    py = fit_hockney(sizes, times, 3, min_points=4)
    _same_segments(c_fit(lib, sizes, times, 3, min_points=4), py)


def test_same_fit_drops_non_positive_times(lib: ctypes.CDLL) -> None:
    sizes, times = mpich_like_points(42)
    sizes += [3, 5]
    times += [0.0, -1.0]
    _same_segments(c_fit(lib, sizes, times, 0), fit_hockney_auto(sizes, times))
    assert sum(s.points for s in c_fit(lib, sizes, times, 0).segments()) == len(sizes) - 2


def test_fitted_model_predicts_the_same(lib: ctypes.CDLL) -> None:
    sizes, times = mpich_like_points(7)
    py = fit_hockney_auto(sizes, times)
    c = c_fit(lib, sizes, times, 0)
    assert not math.isnan(c.time_ns(100))
    for name, algo in COLLECTIVES.items():
        for p in (2, 7, 64):
            for s in (8, 65536):
                assert close(c.predict(name, p, s), algo.time_ns(p, s, py.time_ns, 0.0)), name
