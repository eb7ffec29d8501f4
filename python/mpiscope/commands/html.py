"""``mpiscope html RESULT... [-o report.html]``: one self-contained report page."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.result import load_result
from mpiscope.result.noise import document_kind, load_noise

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "html",
        help="write one self-contained HTML report (tables, figures, warnings)",
        description="Write one HTML file a user can mail: the warnings first (unstable "
        "points, untrusted timer, runs that disagree, validation failures, "
        "oversubscription), the environment and tables of each result, and every figure of "
        "'mpiscope plot' embedded. No script and nothing loaded from the network.",
    )
    parser.add_argument("files", nargs="+", metavar="RESULT", help="result document (JSON)")
    parser.add_argument(
        "-o",
        "--out",
        metavar="FILE",
        help="the report, replaced if it exists (default: the first RESULT with .html)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mpiscope.noise.html import write_noise_html  # lazy: matplotlib
    from mpiscope.outputs import check_output
    from mpiscope.reports.html import write_html

    inputs = [Path(path) for path in args.files]
    out = check_output(args.out or inputs[0].with_suffix(".html"), inputs=inputs,
                       what="-o" if args.out else "")  # fmt: skip
    kinds = [document_kind(path) or "" for path in inputs]
    if "health" in kinds:
        from mpiscope.health.html import write_health_html
        from mpiscope.result.health import load_health

        if any(kind != "health" for kind in kinds):
            raise MpiscopeError("give health documents or other documents, not both in one page")
        write_health_html([load_health(p) for p in inputs], [p.name for p in inputs], out)
        print(out)
        return 0
    if "model" in kinds:
        from mpiscope.reports.model_html import write_model_html  # lazy: matplotlib
        from mpiscope.result.model import load_model

        if any(kind != "model" for kind in kinds):
            raise MpiscopeError("give model documents or other documents, not both in one page")
        write_model_html([load_model(path) for path in inputs], out)
        print(out)
        return 0
    alltoall = [kind.startswith("alltoall-") for kind in kinds]
    if any(alltoall):
        from mpiscope.alltoall.html import write_alltoall_html  # lazy: matplotlib
        from mpiscope.result.alltoall import load_alltoall

        if not all(alltoall):
            raise MpiscopeError("give alltoall documents or other documents, not both in one page")
        write_alltoall_html([load_alltoall(path) for path in inputs], out)
        print(out)
        return 0
    noise = [kind.startswith("noise-") for kind in kinds]
    if any(noise):
        if not all(noise):
            raise MpiscopeError("give noise documents or result documents, not both in one page")
        write_noise_html([load_noise(path) for path in inputs], out)
    else:
        write_html([load_result(path) for path in inputs], out)
    print(out)
    return 0
