"""Sequential stopping of an alternating run: add ABBA pairs until decided.

``noise run --until-decided`` runs up to ``--max`` of packets and looks at
the ABBA pairs measured so far at a few planned points (8, 12, 16, 24, 32,
48 ... pairs: about x1.5 apart, so the number of looks K grows with the
log of the run). At each look, with the paired statistics of
:mod:`mpiscope.noise.paired`:

* **slowdown** when the one-sided signed-rank p-value is below alpha / K;
* **agent** when the packets' stolen times (with ``--groups``) show the
  agent taking a rank's CPU at alpha / K (:mod:`mpiscope.noise.stolen`),
  with an alpha of its own;
* **no slowdown above the margin** when the one-sided upper confidence bound
  of the slowdown at level 1 - beta / K lies below ``--margin``;
* else go on, until the last look (the time is out): **undecided**, with
  the limit the run reached.

Splitting alpha (and beta) evenly over the K planned looks (Bonferroni) keeps
the false-alarm rate of the whole sequence at most alpha whatever the
correlation between looks; the rate is also measured on simulated A/A runs
(tests/python/test_noise_sequential.py), not only assumed.

numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope.noise import paired
from mpiscope.noise.stolen import stolen_criterion

__all__ = ["FIRST_LOOK", "SequentialRule", "look_schedule", "until_decided"]

#: Pairs at the first look: 2^-8 = 0.004 is the smallest p-value 8 pairs give.
FIRST_LOOK = 8


def look_schedule(max_pairs: int) -> list[int]:
    """The pairs at which the rule looks: 8, 12, 16, 24, 32, 48 ... up to max_pairs
    (even counts, as pairs complete two at a time), the last at max_pairs."""
    looks: list[int] = []
    pairs = FIRST_LOOK
    while pairs < max_pairs:
        looks.append(pairs)
        pairs = 2 * math.ceil(pairs * 1.5 / 2)
    if max_pairs >= FIRST_LOOK // 2:
        looks.append(max_pairs)
    return looks


@dataclass
class SequentialRule:
    """The decision of one run: feed it the pairs as they complete."""

    max_pairs: int
    margin: float  # fraction: 0.01 = 1 %
    alpha: float = 0.01
    beta: float = 0.05

    def __post_init__(self) -> None:
        self.looks = look_schedule(self.max_pairs)
        self.history: list[dict[str, Any]] = []
        self.decision: str | None = None

    def look(self, pairs: Sequence[tuple[float, float]], last: bool = False,
             packets: Sequence[Mapping[str, Any]] = ()) -> str | None:
        """At a planned look: "slowdown", "agent", "equivalent" or None (go on;
        "undecided" at the last look). Between looks: None without testing.
        ``last``: the time is out, look now (at alpha/K still: it takes the
        place of the planned looks left) and decide "undecided" if nothing
        else. ``packets`` (with their stolen times): "agent" when the
        stolen_time criterion finds, at alpha/K, the CPU the agent takes
        from a rank (mpiscope.noise.stolen); its own alpha, beside the
        signed rank's."""
        n = len(pairs)
        # fewer pairs than the paired criteria take: when the time runs out
        # that early (a slow start under --max), undecided, not an error
        if self.decision is not None or not self.looks or (n not in self.looks and not last) or (
                self.history and self.history[-1]["pairs"] == n) or n < paired.MIN_PAIRS:
            if last and self.decision is None:
                self.decision = "undecided"
            return self.decision
        k = len(self.looks)
        alpha_look, beta_look = self.alpha / k, self.beta / k
        signed, _, _ = paired.paired_criteria(pairs, confidence=1 - alpha_look,
                                              alpha=alpha_look)
        diffs = [on / off - 1 for off, on in pairs]
        _, _, upper, _ = paired.walsh_interval(diffs, 1 - beta_look, one_sided=True)
        entry = {"pairs": n, "p_value": signed["p_value"], "upper": paired.finite(upper)}
        taken = stolen_criterion({"packets": list(packets)}, alpha_look) if packets else None
        if taken is not None:
            entry["stolen_p"] = taken["p_value"]
        self.history.append(entry)
        if signed["p_value"] < alpha_look:
            self.decision = "slowdown"
        elif taken is not None and taken["detected"]:
            self.decision = "agent"
        elif math.isfinite(upper) and upper < self.margin:
            self.decision = "equivalent"
        elif n >= self.looks[-1] or last:
            self.decision = "undecided"
        return self.decision

    def document(self) -> dict[str, Any]:
        """The ``sequential`` object of the noise-run document."""
        k = len(self.looks)
        return {
            "rule": "signed rank at alpha/K; stolen time at alpha/K; one-sided upper bound at "
                    "1 - beta/K below margin",
            "looks_planned": self.looks,
            "margin": self.margin,
            "alpha": self.alpha,
            "beta": self.beta,
            "alpha_per_look": self.alpha / k if k else None,
            "looks": self.history,
            "decision": self.decision or "undecided",
        }


def until_decided(
    rule: SequentialRule, show: Callable[[dict[str, Any]], None], block: int, stop_file: str,
    max_s: float | None = None,
) -> Callable[[dict[str, Any]], None]:
    """An on_packet callback: shows the packet, and after every whole ABBA
    quartet asks ``rule``; once it decides, creates ``stop_file``, which the
    detector reads before its next quartet. ``max_s``: the run's wall-time
    bound from now; a quartet that would end past it is not started (the
    rule takes its last look instead): packets of fixed work run 2-3x
    longer than calibrated when the host slows down for minutes."""
    packets: list[dict[str, Any]] = []
    started = last_quartet = time.monotonic()

    def on_packet(packet: dict[str, Any]) -> None:
        nonlocal last_quartet
        show(packet)
        packets.append(packet)
        if len(packets) % (4 * block):
            return
        now = time.monotonic()
        late = max_s is not None and now - started + (now - last_quartet) > max_s
        last_quartet = now
        if rule.look(paired.block_pairs(packets), last=late, packets=packets):
            Path(stop_file).touch()

    return on_packet
