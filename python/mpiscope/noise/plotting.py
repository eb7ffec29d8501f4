"""Which figures a set of noise documents gives, and where each is written.

Runs give the seed's two figures: normalised box plots (the first sample is
the baseline) and, when there is something to compare, the difference of
means next to the boundary gap. Probe documents give the FTQ spectrum per
core and the selfish-detour timeline. The first figure goes to ``out``, the
others beside it with a suffix (``fig-gap.png``, ``fig-timeline.png``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.noise.samples import run_samples

__all__ = ["write_figures"]


def _beside(out: Path, suffix: str, taken: list[Path]) -> Path:
    path = out if not taken else out.with_name(f"{out.stem}-{suffix}{out.suffix or '.png'}")
    taken.append(path)
    return path


def write_figures(docs: Sequence[dict[str, Any]], names: Sequence[str], out: Path) -> list[Path]:
    """Write every figure the documents give; return the paths in order."""
    from mpiscope.noise import figures  # lazy: matplotlib
    from mpiscope.noise.criteria import compare_samples

    written: list[Path] = []
    pairs = list(zip(docs, names, strict=True))
    runs = [(d, n) for d, n in pairs if d.get("kind") == "noise-run"]
    probes = [(d, n) for d, n in pairs if d.get("kind") == "noise-probe"]
    other = [n for d, n in pairs if d.get("kind") not in ("noise-run", "noise-probe")]
    if other:
        raise MpiscopeError(f"{other[0]} has no figure: plot noise-run or noise-probe documents")
    if runs:
        samples = [s for doc, name in runs for s in run_samples(doc, name)]
        labeled = {label: values for values, label in samples}
        if len(labeled) != len(samples):
            raise MpiscopeError("two samples have the same name: give each run once")
        base_values, base_label = samples[0]
        figures.boxplots(labeled, base_label, _beside(out, "box", written))
        if len(samples) > 1:
            verdicts = [compare_samples(base_values, values, baseline_source=base_label,
                                        test_source=label) for values, label in samples[1:]]
            figures.mean_vs_gap(verdicts, [label for _, label in samples[1:]],
                                _beside(out, "gap", written))
    for i, (doc, _) in enumerate(probes):
        tag = "" if len(probes) == 1 else f"{i + 1}-"
        figures.ftq_spectrum(doc, _beside(out, f"{tag}spectrum", written))
        figures.selfish_timeline(doc, _beside(out, f"{tag}timeline", written))
    return written
