"""The package's version: one reader for every document and page that names it.

pyproject.toml reads the repository's VERSION file, as CMake does; an
installed package answers from its metadata, a checkout that was never
installed from VERSION itself. Read on first use: importlib.metadata is
tens of milliseconds of the command line's start-up.
"""

from __future__ import annotations

import functools

__all__ = ["package_version"]


@functools.cache
def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    from pathlib import Path

    try:
        return version("mpiscope")
    except PackageNotFoundError:
        return (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
