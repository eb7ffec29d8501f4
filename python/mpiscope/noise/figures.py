"""Figures of the noise detector (PNG, matplotlib's Agg canvas, no pyplot state).

* :func:`boxplots`: packet times of several samples normalised to the
  baseline median, with the baseline's Tukey band [Q25 - 1.5 IQR, Q75 + 1.5 IQR]
  shaded - the seed's figure: a test sample reaching above the band is slowed;
* :func:`mean_vs_gap`: per comparison, the difference of means next to the
  boundary gap of the confidence intervals (detected when the gap is above 0);
* :func:`ftq_spectrum`: each worker's FTQ power spectrum, peaks marked in Hz;
* :func:`selfish_timeline`: each worker's detours, start against length.

Each ``name(...)`` writes a PNG and returns its path; ``name_figure(...)``
returns the matplotlib Figure (for the HTML page and tests).
matplotlib and numpy are imported inside the functions.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.errors import MpiscopeError

__all__ = [
    "boxplots",
    "boxplots_figure",
    "figure_png",
    "ftq_spectrum",
    "ftq_spectrum_figure",
    "mean_vs_gap",
    "mean_vs_gap_figure",
    "selfish_timeline",
    "selfish_timeline_figure",
]

_DPI = 110
_PANEL_HEIGHT = 2.6


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _write(fig: Any, path: str | Path) -> Path:
    path = Path(path)
    outputs.write_bytes(path, figure_png(fig))
    return path


def figure_png(fig: Any) -> bytes:
    """The figure as PNG bytes."""
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def boxplots_figure(samples: Mapping[str, Sequence[float]], baseline_label: str) -> Any:
    """The box plot figure of :func:`boxplots`."""
    import numpy as np

    if baseline_label not in samples:
        raise MpiscopeError(f"baseline {baseline_label!r} is not one of the samples")
    base = np.asarray(samples[baseline_label], dtype=float)
    if base.size == 0 or not np.median(base) > 0:
        raise MpiscopeError(f"baseline {baseline_label!r} is empty or has a non-positive median")
    scale = float(np.median(base))
    labels = list(samples)
    data = [np.asarray(samples[label], dtype=float) / scale for label in labels]
    q25, q75 = np.percentile(base / scale, [25, 75])
    iqr = q75 - q25
    fig = _figure(max(6.0, 1.2 * len(labels) + 2.5), 4.6)
    ax = fig.add_subplot()
    ax.axhspan(
        q25 - 1.5 * iqr,
        q75 + 1.5 * iqr,
        color="0.85",
        zorder=0,
        label=f"[Q25 - 1.5 IQR, Q75 + 1.5 IQR] of {baseline_label}",
    )
    ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle="--", zorder=1)
    ax.boxplot(
        data,
        # Run names are long ("run.json (agent off)"): wrap them under their box.
        tick_labels=[textwrap.fill(label, 18) for label in labels],
        whis=1.5,
        zorder=2,
        flierprops={"marker": ".", "markersize": 4, "alpha": 0.7},
    )
    ax.set_ylabel(f"packet time / median of {baseline_label}")
    ax.set_xlabel("sample")
    ax.set_title(f"Packet times normalised to the baseline median ({scale:.4g} s)")
    fig.legend(loc="outside lower center", fontsize="small")
    return fig


def boxplots(samples: Mapping[str, Sequence[float]], baseline_label: str, path: str | Path) -> Path:
    """Box plots of packet times (s) normalised to the baseline median; the baseline's
    Tukey band shaded. Returns ``path``."""
    return _write(boxplots_figure(samples, baseline_label), path)


def mean_vs_gap_figure(verdicts: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> Any:
    """The bar figure of :func:`mean_vs_gap`."""
    import numpy as np

    if not verdicts or len(verdicts) != len(labels):
        raise MpiscopeError(
            f"mean_vs_gap needs one label per verdict ({len(verdicts)} verdicts, "
            f"{len(labels)} labels)"
        )
    means = np.array([v["mean_difference"] for v in verdicts]) * 100
    gaps = np.array([v["criteria"]["ci_overlap"]["boundary_gap"] for v in verdicts]) * 100
    x = np.arange(len(verdicts))
    fig = _figure(max(6.0, 1.3 * len(verdicts) + 2.5), 4.4)
    ax = fig.add_subplot()
    ax.bar(x - 0.2, means, width=0.4, color="tab:blue", label="difference of means")
    ax.bar(
        x + 0.2, gaps, width=0.4, color="0.55", hatch="//", label="boundary gap (detected when > 0)"
    )
    ax.axhline(0.0, color="black", linewidth=0.8)
    conf = verdicts[0]["criteria"]["ci_overlap"]["confidence"]
    ax.set_xticks(x, list(labels))
    ax.set_xlabel("comparison (test against its baseline)")
    ax.set_ylabel("% of the baseline median")
    ax.set_title(f"Difference of means and {conf * 100:g}% CI boundary gap")
    fig.legend(loc="outside lower center", ncols=2, fontsize="small")
    return fig


def mean_vs_gap(
    verdicts: Sequence[Mapping[str, Any]], labels: Sequence[str], path: str | Path
) -> Path:
    """Difference of means next to the boundary gap, per noise-verdict. Returns ``path``."""
    return _write(mean_vs_gap_figure(verdicts, labels), path)


def _workers(probe_doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    workers = list(probe_doc.get("workers") or [])
    if not workers:
        raise MpiscopeError("the noise-probe document has no workers")
    return workers


def _worker_name(worker: Mapping[str, Any]) -> str:
    host = worker.get("host") or "?"
    return f"{host} rank {worker['rank']} core {worker['core']}"


def ftq_spectrum_figure(probe_doc: Mapping[str, Any]) -> Any:
    """The spectrum figure of :func:`ftq_spectrum`: one panel per worker."""
    workers = _workers(probe_doc)
    fig = _figure(7.5, _PANEL_HEIGHT * len(workers) + 0.6)
    axes = fig.subplots(len(workers), 1, squeeze=False)[:, 0]
    for ax, worker in zip(axes, workers, strict=True):
        ftq = worker.get("ftq")
        ax.set_title(_worker_name(worker), fontsize="medium")
        ax.set_ylabel("power (work$^2$)")
        if not ftq or not ftq["spectrum"]["hz"]:
            ax.text(0.5, 0.5, "no FTQ data", ha="center", va="center", transform=ax.transAxes)
            continue
        hz, power = ftq["spectrum"]["hz"], ftq["spectrum"]["power"]
        positive = [p for p in power if p > 0]
        ax.plot(hz, power, linewidth=0.7, color="tab:blue")
        if positive:
            ax.set_yscale("log")
            ax.set_ylim(min(positive) / 2, max(positive) * 8)  # room for the peak labels
        floor = ftq.get("floor_power")
        if floor:
            threshold = floor * ftq.get("peak_ratio_threshold", 0)
            ax.axhline(
                threshold,
                color="0.5",
                linestyle="--",
                linewidth=0.8,
                label=f"peak threshold ({ftq.get('peak_ratio_threshold'):g} x median)",
            )
        # Every peak is marked; the two strongest are named, one above the
        # other, so labels of nearby peaks do not overwrite each other.
        for rank, peak in enumerate(ftq["peaks"]):
            ax.plot(peak["hz"], peak["power"], "v", color="tab:red", markersize=6)
            if rank >= 2:
                continue
            extra = f" (+{peak['harmonics']} harmonics)" if peak.get("harmonics") else ""
            ax.annotate(
                f"{peak['hz']:.3g} Hz{extra}",
                (peak["hz"], peak["power"]),
                textcoords="offset points",
                xytext=(6, 6 + 14 * rank),
                fontsize="small",
                color="tab:red",
            )
        if floor:
            ax.legend(loc="lower right", fontsize="x-small", framealpha=0.8)
    axes[-1].set_xlabel("frequency (Hz)")
    quantum = next((w["ftq"]["quantum_ns"] for w in workers if w.get("ftq")), None)
    fig.suptitle(
        "FTQ work spectrum per worker" + (f" (quantum {quantum / 1e6:g} ms)" if quantum else "")
    )
    return fig


def ftq_spectrum(probe_doc: Mapping[str, Any], path: str | Path) -> Path:
    """FTQ power spectra of a noise-probe, one panel per worker. Returns ``path``."""
    return _write(ftq_spectrum_figure(probe_doc), path)


def selfish_timeline_figure(probe_doc: Mapping[str, Any]) -> Any:
    """The detour figure of :func:`selfish_timeline`: one panel per worker."""
    import numpy as np
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    workers = _workers(probe_doc)
    fig = _figure(7.5, _PANEL_HEIGHT * len(workers) + 0.6)
    axes = fig.subplots(len(workers), 1, squeeze=False, sharex=True)[:, 0]
    for ax, worker in zip(axes, workers, strict=True):
        selfish = worker.get("selfish")
        ax.set_title(_worker_name(worker), fontsize="medium")
        ax.set_ylabel("detour length (µs)")
        if not selfish or not selfish["detour_list"]:
            ax.text(
                0.5, 0.5, "no detours recorded", ha="center", va="center", transform=ax.transAxes
            )
            continue
        detours = np.asarray(selfish["detour_list"], dtype=float)
        ax.scatter(detours[:, 0] / 1e9, detours[:, 1] / 1e3, s=6, alpha=0.7, color="tab:purple")
        ax.set_yscale("log")
        note = f"{selfish['detours']} detours, {selfish['share_lost']:.3%} of CPU"
        if selfish.get("period_ns"):
            note += f", period {selfish['period_ns'] / 1e6:.4g} ms"
        if selfish.get("detours_cut"):
            note += f" ({selfish['detours_cut']} shortest not drawn)"
        ax.set_title(f"{_worker_name(worker)}: {note}", fontsize="medium")
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
    axes[-1].set_xlabel("detour start (s since the probe started)")
    fig.suptitle("Selfish detours per worker")
    return fig


def selfish_timeline(probe_doc: Mapping[str, Any], path: str | Path) -> Path:
    """Selfish detours (start vs length) of a noise-probe, one panel per worker."""
    return _write(selfish_timeline_figure(probe_doc), path)
