"""Which two samples a comparison holds: two runs, or the halves of one alternating run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mpiscope.errors import MpiscopeError

__all__ = ["run_samples", "two_samples"]

Sample = tuple[list[float], str]


def run_samples(doc: dict[str, Any], name: str) -> list[Sample]:
    """The samples of one noise-run document, each with a label.

    A separate-design run is one sample; an alternating run two (agent off,
    agent on), in that order.
    """
    from mpiscope.noise.criteria import samples_of  # lazy: numpy

    if doc.get("kind") != "noise-run":
        raise MpiscopeError(f"{name} is a {doc.get('kind')} document, not a noise-run")
    samples = samples_of(doc)
    if "all" in samples:
        return [(samples["all"], name)]
    return [(samples["baseline"], f"{name} (agent off)"), (samples["agent"], f"{name} (agent on)")]


def two_samples(docs: Sequence[dict[str, Any]], names: Sequence[str]) -> tuple[Sample, Sample]:
    """(baseline, test) from one alternating run or from two single-sample runs."""
    found = [run_samples(doc, name) for doc, name in zip(docs, names, strict=True)]
    if len(found) == 1:
        if len(found[0]) != 2:
            raise MpiscopeError(
                f"{names[0]} holds one sample: compare it with a second run "
                "(mpiscope noise compare BASE.json AGENT.json)"
            )
        return found[0][0], found[0][1]
    for sample_list, name in zip(found, names, strict=True):
        if len(sample_list) != 1:
            raise MpiscopeError(
                f"{name} is an alternating run: compare it alone (it holds both samples)"
            )
    works = [(doc.get("detector") or {}).get("iterations_per_packet") for doc in docs]
    if None not in works and works[0] != works[1]:
        raise MpiscopeError(
            f"{names[0]} and {names[1]} did {works[0]} and {works[1]} iterations per packet: "
            f"their packets are not the same work (run the second with --same-as {names[0]})"
        )
    return found[0][0], found[1][0]
