"""The model document (kind ``model``, docs/model-schema.md): written from
a :class:`~mpiscope.models.fit.Fit`, read back into a model object."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.models.base import P2PModel
from mpiscope.models.direct import DirectModel, fit_direct_document
from mpiscope.models.fit import Fit, FitOptions
from mpiscope.models.hockney import Hockney
from mpiscope.models.hockney_fit import fit_hockney_document
from mpiscope.models.lmo import LMO, fit_lmo_document
from mpiscope.models.loggp import LogGP, fit_loggp_document
from mpiscope.models.plogp import PLogP, fit_plogp_document
from mpiscope.result.model import SCHEMA_VERSION

__all__ = ["FITTERS", "fit_document", "model_document", "model_of"]

#: Model name -> its fit of a measurement document.
FITTERS: dict[str, Callable[[Mapping[str, Any], FitOptions], Fit]] = {
    "hockney": fit_hockney_document,
    "loggp": fit_loggp_document,
    "plogp": fit_plogp_document,
    "lmo": fit_lmo_document,
    "direct": fit_direct_document,
}
REFERENCE = "ping-pong between ranks 0 and 1: one-way time = round trip / 2"


def fit_document(doc: Mapping[str, Any], model: str, options: FitOptions) -> Fit:
    if model not in FITTERS:
        raise MpiscopeError(f"unknown model {model!r} (known: {', '.join(FITTERS)})")
    return FITTERS[model](doc, options)


def model_document(fit: Fit, source: Mapping[str, Any], path: str, options: FitOptions,
                   version: str) -> dict[str, Any]:  # fmt: skip
    """The model document of ``fit``, made from the measurement ``source``."""
    env = source.get("environment") or {}
    nprocs = max((int(p.get("nprocs") or 1) for p in source.get("points") or ()), default=1)
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "model",
        "model": fit.model_name,
        "units": {"time": "ns", "size": "bytes", "per_byte": "ns/byte", "fraction": "1"},
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "mpiscope_version": version,
        "source": {
            "path": path, "nprocs": nprocs,
            "mpi_implementation": env.get("mpi_implementation"),
            "mpi_version": env.get("mpi_version"), "simulated": bool(env.get("simulated")),
            "platform": env.get("platform"), "hosts": [str(h) for h in env.get("hosts") or []],
            "start_time_utc": env.get("start_time_utc"),
        },  # fmt: skip
        "fit": {"ci_method": fit.ci_method, "confidence": options.confidence,
                "replicates": options.replicates, "segments": options.segments,
                "tolerance": options.tolerance, "statistic": options.statistic},  # fmt: skip
        "parameters": [p.as_dict() for p in fit.parameters],
        "gamma_ns_per_byte": fit.model.gamma_ns_per_byte,
        fit.model_name: fit.structure,
        "fit_error": {"reference": fit.reference or REFERENCE, "max_rel_error": fit.max_rel_error,
                      "mean_rel_error": fit.mean_rel_error, "points": fit.residuals},
        "warnings": list(fit.warnings),
    }


def model_of(doc: Mapping[str, Any]) -> P2PModel:
    """The model object of a (validated) model document (a
    :class:`~mpiscope.models.direct.DirectModel` for ``direct``)."""
    name, gamma = doc["model"], float(doc["gamma_ns_per_byte"])
    data = doc[name]
    if name == "direct":
        return DirectModel.from_dict(data)
    if name == "hockney":
        return Hockney.from_dicts(data["segments"], gamma)
    if name == "loggp":
        return LogGP.from_dict(data, gamma)
    if name == "plogp":
        return PLogP.from_dict(data, gamma)
    return LMO.from_dict(data, gamma)
