"""Cluster health: which node, which link, which core (``mpiscope health``, docs/health.md).

One module per concern: :mod:`~mpiscope.health.schedule` (the round-robin
of disjoint pairs), :mod:`~mpiscope.health.session` (the launches),
:mod:`~mpiscope.health.links` (the link matrix and its outliers),
:mod:`~mpiscope.health.stragglers` (who arrives last in collectives),
:mod:`~mpiscope.health.fingerprint` (per-core detours, STREAM triad,
clocks), :mod:`~mpiscope.health.verdict` (the suspects and the document),
:mod:`~mpiscope.result.health` (schema, loading, the pandas frame),
:mod:`~mpiscope.health.text` and :mod:`~mpiscope.health.html` (the
reports), :mod:`~mpiscope.health.platform` (simulated clusters with known
faults) and :mod:`~mpiscope.health.robust` (the statistics).
"""

from __future__ import annotations

from mpiscope.result.describe import parameter

__all__ = ["MAX_POINT_LAUNCHES"]

#: The most launches of one point (the engine's ``max_launches`` range): a
#: link phase makes samples x rounds of them, a straggler run one a ms.
MAX_POINT_LAUNCHES = int(parameter("max_launches")["max"])
