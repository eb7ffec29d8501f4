"""The figure of ``mpiscope model check``: measured and predicted times
against size, one panel per operation (matplotlib, imported when drawn)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.models.check import CheckRow

__all__ = ["save_check_plot"]


def save_check_plot(rows: Sequence[CheckRow], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops = list(dict.fromkeys(r.op for r in rows))
    fig, axes = plt.subplots(1, len(ops), figsize=(5 * len(ops), 4), squeeze=False)
    for ax, op in zip(axes[0], ops, strict=True):
        mine = sorted((r for r in rows if r.op == op), key=lambda r: r.size_bytes)
        sizes = [max(r.size_bytes, 1) for r in mine]
        ax.plot(sizes, [r.measured_ns / 1000 for r in mine], "ko-", label="measured")
        for name in mine[0].predicted_ns:
            ax.plot(sizes, [r.predicted_ns[name] / 1000 for r in mine], "--",
                    label=name.split(":", 1)[1])  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("size (bytes)")
        ax.set_ylabel("time (us)")
        ax.set_title(f"{op}, {mine[0].nprocs} ranks")
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100)
    except OSError as exc:
        raise MpiscopeError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
