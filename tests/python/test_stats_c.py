"""The C statistics of mpiscope/stats.h, loaded with ctypes, against scipy and numpy live.

The library comes from $MPISCOPE_LIB (path to libmpiscope.so) or else from
build*/libmpiscope.so or build*/*/libmpiscope.so under the repository root
(the newest if there are several; sanitizer builds are passed over). The
module is skipped if there is none.
"""

from __future__ import annotations

import ctypes
import math
import os
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")

REPO_ROOT = Path(__file__).resolve().parents[2]

# The contract of mpiscope_student_t_quantile (stats.h): relative error < 1e-10.
T_CONTRACT_REL = 1e-10


def _loadable(path: Path) -> bool:
    """False for a sanitizer build (build/sanitize): an ASan runtime cannot be
    loaded into an uninstrumented python, it would abort the whole session."""
    data = path.read_bytes()
    return b"libasan.so" not in data and b"libubsan.so" not in data


def _find_library() -> Path | None:
    env = os.environ.get("MPISCOPE_LIB")
    if env:
        return Path(env)
    found = [p for pattern in ("build*/libmpiscope.so", "build*/*/libmpiscope.so")
             for p in REPO_ROOT.glob(pattern) if p.is_file() and _loadable(p)]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


class Stats(ctypes.Structure):
    """Mirror of mpiscope_stats_t, field by field, in declaration order."""

    _fields_ = [
        ("n_valid", ctypes.c_size_t),
        ("n_used", ctypes.c_size_t),
        ("trim_fraction", ctypes.c_double),
        ("mean", ctypes.c_double),
        ("stddev", ctypes.c_double),
        ("se", ctypes.c_double),
        ("rse", ctypes.c_double),
        ("median", ctypes.c_double),
        ("min", ctypes.c_double),
        ("max", ctypes.c_double),
        ("trimmed_min", ctypes.c_double),
        ("trimmed_max", ctypes.c_double),
        ("q25", ctypes.c_double),
        ("q75", ctypes.c_double),
        ("confidence", ctypes.c_double),
        ("t_quantile", ctypes.c_double),
        ("error", ctypes.c_double),
        ("ci_low", ctypes.c_double),
        ("ci_high", ctypes.c_double),
        ("median_rse", ctypes.c_double),
        ("p90", ctypes.c_double),
        ("p90_low", ctypes.c_double),
        ("p90_high", ctypes.c_double),
        ("p99", ctypes.c_double),
        ("p99_low", ctypes.c_double),
        ("p99_high", ctypes.c_double),
        ("resolution_ns", ctypes.c_double),
        ("at_resolution", ctypes.c_int),
        ("error_floor_ns", ctypes.c_double),
    ]


@pytest.fixture(scope="module")
def lib():
    path = _find_library()
    if path is None or not path.is_file():
        pytest.skip(f"libmpiscope.so not found (MPISCOPE_LIB unset, no build*/ under {REPO_ROOT})")
    so = ctypes.CDLL(str(path))
    dp = ctypes.POINTER(ctypes.c_double)
    so.mpiscope_student_t_quantile.argtypes = [ctypes.c_double, ctypes.c_double]
    so.mpiscope_student_t_quantile.restype = ctypes.c_double
    so.mpiscope_quantile_sorted.argtypes = [dp, ctypes.c_size_t, ctypes.c_double]
    so.mpiscope_quantile_sorted.restype = ctypes.c_double
    so.mpiscope_stats_compute.argtypes = [dp, ctypes.c_size_t, ctypes.c_double,
                                          ctypes.c_double, ctypes.POINTER(Stats)]
    so.mpiscope_stats_compute.restype = ctypes.c_int
    so.mpiscope_err_name.argtypes = [ctypes.c_int]
    so.mpiscope_err_name.restype = ctypes.c_char_p
    return so


def _doubles(values):
    arr = (ctypes.c_double * max(len(values), 1))(*values)
    return ctypes.cast(arr, ctypes.POINTER(ctypes.c_double)), arr


def _compute(lib, values, trim, confidence):
    ptr, _keep = _doubles(values)
    out = Stats()
    rc = lib.mpiscope_stats_compute(ptr if len(values) else None, len(values), trim,
                                    confidence, ctypes.byref(out))
    return rc, out


def _rel(a, b):
    return abs(a - b) / abs(b)


# ---- Student t quantile --------------------------------------------------

# Non-integer df included; 30 is where the implementation changes method.
DFS = [1, 1.5, 2, 2.5, 3, 3.7, 4, 5, 7.25, 10, 17.5, 29, 30, 31, 50.5, 100, 333.3,
       1e3, 4321.5, 1e4, 1e5, 123456.7, 1e6]
TAIL_PS = [1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.45, 0.49]
# p within 1e-2 of 1/2, where scipy.stats.t.ppf itself is off (scipy 1.17.1
# against 50-digit mpmath: 3.8e-5 relative at p = 0.5 + 1e-6, df = 4, and 0
# at p = 0.5 + 1e-9); measured through the CDF instead. On the PS grid
# scipy's ppf stays within 4e-13 of mpmath.
CENTRE_PS = [0.499, 0.4999, 0.49999, 0.499999, 0.5 - 1e-9, 0.5 + 1e-12, 0.5000001]
PS = TAIL_PS + [1 - p for p in TAIL_PS]


@pytest.mark.parametrize("df", DFS)
@pytest.mark.parametrize("p", PS)
def test_t_quantile_matches_scipy_ppf(lib, p, df):
    got = lib.mpiscope_student_t_quantile(p, df)
    assert _rel(got, stats.t.ppf(p, df)) < T_CONTRACT_REL


def _implied_rel_error(t, p, df):
    """Relative error of t as a p-quantile, measured through scipy's CDF.

    The smaller of P(T > |t|) (scipy.special.stdtr) and P(0 < T < |t|) =
    I_y(1/2, df/2) / 2 with y = t^2/(df+t^2) (scipy.special.betainc, exact
    for small t where y carries all digits) is compared with its exact
    target and the difference divided by |t| * pdf(t): so the center, where
    scipy.stats.t.ppf is unreliable, is measured as well."""
    a = abs(t)
    q = min(p, 1 - p)
    if q < 0.25:
        diff = special.stdtr(df, -a) - q
    else:
        diff = 0.5 * special.betainc(0.5, df / 2, a * a / (df + a * a)) - abs(p - 0.5)
    return abs(diff) / (a * stats.t.pdf(a, df))


@pytest.mark.parametrize("df", DFS)
def test_t_quantile_inverts_scipy_cdf(lib, df):
    for p in PS + CENTRE_PS + [1 - p for p in CENTRE_PS]:
        t = lib.mpiscope_student_t_quantile(p, df)
        assert (t < 0) == (p < 0.5), (p, df, t)
        assert _implied_rel_error(t, p, df) < 1e-12, (p, df, t)


@pytest.mark.parametrize("p", [0.6, 0.95, 0.975, 0.995, 1e-6])
def test_t_quantile_closed_forms(lib, p):
    t1 = math.tan(math.pi * (p - 0.5)) if abs(p - 0.5) < 0.25 else (
        -1 / math.tan(math.pi * p) if p < 0.5 else 1 / math.tan(math.pi * (1 - p)))
    t2 = (2 * (p - 0.5)) / math.sqrt(2 * p * (1 - p))
    assert _rel(lib.mpiscope_student_t_quantile(p, 1.0), t1) < 1e-13
    assert _rel(lib.mpiscope_student_t_quantile(p, 2.0), t2) < 1e-13


@pytest.mark.parametrize("p, df", [(0.0, 3), (1.0, 3), (-1.0, 3), (math.nan, 3),
                                   (0.9, 0.0), (0.9, -2.0), (0.9, math.nan)])
def test_t_quantile_bad_arguments(lib, p, df):
    assert math.isnan(lib.mpiscope_student_t_quantile(p, df))


# ---- sample statistics ---------------------------------------------------

def _latencies(n, seed):
    """Launch-time-like data (us): a lognormal body and a few large outliers."""
    rng = np.random.default_rng(seed)
    x = 10.0 * rng.lognormal(0.0, 0.05, n)
    k = n // 10
    if k:
        x[rng.choice(n, k, replace=False)] *= rng.uniform(2, 10, k)
    return x


SIZES = [1, 2, 3, 4, 5, 7, 10, 20, 33, 100, 1001]
TRIMS = [0.0, 0.05, 0.1, 0.2, 0.25, 0.29, 0.3, 0.49]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("trim", TRIMS)
@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
def test_stats_compute_matches_scipy(lib, n, trim, confidence):
    x = _latencies(n, seed=n)
    rc, s = _compute(lib, list(x), trim, confidence)
    assert rc == 0
    # scipy.stats.trim_mean and trimboth cut int(proportiontocut * nobs) from
    # each end: the same double product, truncated, as floor(g * n) in C.
    cut = int(trim * n)
    assert cut == math.floor(trim * n)
    trimmed = np.sort(stats.trimboth(x, trim))
    assert s.n_valid == n
    assert s.n_used == n - 2 * cut == len(trimmed)
    assert s.trim_fraction == trim and s.confidence == confidence
    assert s.mean == pytest.approx(stats.trim_mean(x, trim), rel=1e-14)
    assert s.min == x.min() and s.max == x.max()
    assert s.trimmed_min == trimmed[0] and s.trimmed_max == trimmed[-1]
    assert s.median == pytest.approx(np.median(x), rel=1e-15)
    assert s.median == np.quantile(x, 0.5)
    assert s.q25 == np.quantile(x, 0.25) and s.q75 == np.quantile(x, 0.75)
    if s.n_used < 2:
        for name in ("stddev", "se", "rse", "t_quantile", "error", "ci_low", "ci_high"):
            assert math.isnan(getattr(s, name)), name
        return
    sd = np.std(trimmed, ddof=1)
    se = stats.sem(trimmed)
    assert s.stddev == pytest.approx(sd, rel=1e-12)
    assert s.se == pytest.approx(se, rel=1e-12)
    assert s.rse == pytest.approx(se / s.mean, rel=1e-12)
    assert _rel(s.t_quantile, stats.t.ppf((1 + confidence) / 2, s.n_used - 1)) < T_CONTRACT_REL
    lo, hi = stats.t.interval(confidence, s.n_used - 1, loc=s.mean, scale=se)
    assert s.ci_low == pytest.approx(lo, rel=1e-12)
    assert s.ci_high == pytest.approx(hi, rel=1e-12)
    assert s.error == pytest.approx((hi - lo) / 2, rel=1e-9)


def test_stats_compute_empty(lib):
    rc, s = _compute(lib, [], 0.25, 0.95)
    assert rc == 0 and s.n_valid == 0 and s.n_used == 0
    assert s.trim_fraction == 0.25 and s.confidence == 0.95
    for name in ("mean", "stddev", "se", "median", "min", "max", "q25", "q75",
                 "t_quantile", "error", "ci_low", "ci_high"):
        assert math.isnan(getattr(s, name)), name


def test_stats_compute_all_equal(lib):
    rc, s = _compute(lib, [3.5] * 12, 0.25, 0.95)
    assert rc == 0 and s.n_used == 6
    assert (s.mean, s.stddev, s.se, s.error, s.ci_low, s.ci_high) == (3.5, 0.0, 0.0, 0.0, 3.5, 3.5)
    assert _rel(s.t_quantile, stats.t.ppf(0.975, 5)) < T_CONTRACT_REL


@pytest.mark.parametrize("values, trim, confidence", [
    ([1.0, 2.0], -0.1, 0.95), ([1.0, 2.0], 0.5, 0.95), ([1.0, 2.0], math.nan, 0.95),
    ([1.0, 2.0], 0.25, 0.0), ([1.0, 2.0], 0.25, 1.0), ([1.0, 2.0], 0.25, math.nan),
    ([1.0, math.nan], 0.25, 0.95), ([1.0, math.inf], 0.25, 0.95),
])
def test_stats_compute_bad_arguments(lib, values, trim, confidence):
    rc, _ = _compute(lib, values, trim, confidence)
    assert lib.mpiscope_err_name(rc) == b"MPISCOPE_EINVAL"


def test_stats_compute_null_pointers(lib):
    out = Stats()
    rc = lib.mpiscope_stats_compute(None, 3, 0.25, 0.95, ctypes.byref(out))
    assert lib.mpiscope_err_name(rc) == b"MPISCOPE_EINVAL"
    ptr, _keep = _doubles([1.0, 2.0])
    rc = lib.mpiscope_stats_compute(ptr, 2, 0.25, 0.95, None)
    assert lib.mpiscope_err_name(rc) == b"MPISCOPE_EINVAL"


def test_stats_compute_error_leaves_empty_stats(lib):
    _, s = _compute(lib, [1.0, math.inf, 2.0], 0.25, 0.95)
    assert s.n_valid == 0 and s.n_used == 0
    assert math.isnan(s.mean) and math.isnan(s.ci_high)


# ---- quantiles -----------------------------------------------------------

QS = [0.0, 0.01, 0.1, 0.25, 1 / 3, 0.5, 0.6, 0.75, 0.9, 0.99, 1.0]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 10, 101])
def test_quantile_sorted_matches_numpy(lib, n):
    x = np.sort(_latencies(n, seed=1000 + n))
    ptr, _keep = _doubles(list(x))
    for q in QS:
        assert lib.mpiscope_quantile_sorted(ptr, n, q) == np.quantile(x, q), q


@pytest.mark.parametrize("values", [[0.1, 0.3], [0.1, 0.4], [0.1, 0.5], [0.2, 0.3, 0.7]])
def test_quantile_sorted_lerp_like_numpy(lib, values):
    """numpy interpolates from the upper end when the weight is >= 1/2: the
    last bit differs from a + (b - a) * g for these values."""
    ptr, _keep = _doubles(values)
    for q in [0.5, 0.6, 0.75, 0.9]:
        assert lib.mpiscope_quantile_sorted(ptr, len(values), q) == np.quantile(values, q), q


@pytest.mark.parametrize("n, q", [(0, 0.5), (4, -0.01), (4, 1.01), (4, math.nan)])
def test_quantile_sorted_nan(lib, n, q):
    ptr, _keep = _doubles([1.0, 2.0, 3.0, 4.0])
    assert math.isnan(lib.mpiscope_quantile_sorted(ptr, n, q))
