"""The package's version: one reader for every document and page that names it.

VERSION is the one place. pyproject.toml reads it into the package's
metadata; CMake builds it into the engine, whose description
(describe.json, shipped beside the modules) carries it; test_result.py
holds the three to one value. It is read from that description:
importlib.metadata took ~250 ms of `mpiscope --version` on the AMD EPYC
VM (its import alone 73 ms, then a scan of every installed
distribution), and every noise, health and Alltoall document paid it.
"""

from __future__ import annotations

import functools

__all__ = ["package_version"]


@functools.cache
def package_version() -> str:
    from mpiscope.result.describe import description

    return str(description()["mpiscope_version"])
