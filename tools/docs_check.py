#!/usr/bin/env python3
"""Check the documentation (run by `make lint`):

- no absolute path of any machine in README.md or docs/ (``/tmp/``,
  ``/work/``, ``/home/``, ``/root/``): a doc says `.venv/bin/mpiexec`, not
  where one checkout happened to be;
- every relative link of README.md reaches a file, and its anchor a heading;
- docs/reference.md is what tools/cli_reference.py writes today;
- the site builds with `mkdocs build --strict` (mkdocs.yml's validation
  turns a broken link or anchor, and a page missing from the nav, into a
  warning, which --strict makes fatal).

Each problem is one line; exit 1 when there is any.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ABSOLUTE = re.compile(r"(/tmp/|/work/|/home/|/root/)")
#: (file relative to the root, text of the line) that may name an absolute
#: path on purpose. Empty: no doc needs one.
ALLOWED: frozenset[tuple[str, str]] = frozenset()
LINK = re.compile(r"\]\(([^()\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def doc_files(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def absolute_paths(root: Path, files: Iterable[Path]) -> Iterator[str]:
    for path in files:
        name = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ABSOLUTE.search(line) and (name, line.strip()) not in ALLOWED:
                yield f"{name}:{number}: an absolute path of a machine: {line.strip()[:120]}"


def prose(text: str) -> Iterator[str]:
    """The lines of a Markdown text outside fenced code blocks."""
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield line


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub and the site
    (pymdownx's slugify, mkdocs.yml) make them."""
    from pymdownx.slugs import slugify

    slug = slugify(case="lower")
    heads = [line.lstrip("#").strip() for line in prose(path.read_text(encoding="utf-8"))
             if re.match(r"#{1,6} ", line)]  # fmt: skip
    plain = (re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h).replace("`", "").replace("*", "")
             for h in heads)  # fmt: skip
    return {slug(h, "-") for h in plain}


def readme_links(root: Path) -> Iterator[str]:
    readme = root / "README.md"
    for number, line in enumerate(readme.read_text(encoding="utf-8").splitlines(), 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            file, _, anchor = target.partition("#")
            where = root / file
            if not where.exists():
                yield f"README.md:{number}: the link {target} reaches no file"
            elif anchor and where.suffix == ".md" and anchor not in anchors(where):
                yield f"README.md:{number}: the link {target}: {file} has no heading #{anchor}"


def stale_reference(root: Path) -> Iterator[str]:
    done = subprocess.run([sys.executable, str(root / "tools" / "cli_reference.py"), "--check"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        yield done.stderr.strip() or "tools/cli_reference.py --check failed"


def site(root: Path) -> Iterator[str]:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    with tempfile.TemporaryDirectory(prefix="mpiscope-site-") as out:
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                               str(root / "mkdocs.yml"), "--site-dir", out],
                              capture_output=True, text=True, env=env, check=False)  # fmt: skip
    if done.returncode != 0:
        yield from (f"mkdocs build --strict: {line}" for line in warnings(done.stderr))


def warnings(log: str) -> list[str]:
    """mkdocs' warnings and errors, each with the lines that continue it
    (the pages left out of the nav are listed under their warning)."""
    out: list[str] = []
    for line in log.splitlines():
        if line.startswith(("WARNING", "ERROR")):
            out.append(line)
        elif out and line.startswith("  ") and line.strip():
            out[-1] += " " + line.strip()
    return out or log.splitlines()


def problems(root: Path = ROOT) -> list[str]:
    """Every problem, one line each."""
    return [*absolute_paths(root, doc_files(root)), *readme_links(root), *stale_reference(root),
            *site(root)]  # fmt: skip


def main() -> int:
    found = problems()
    for line in found:
        print(f"docs: {line}", file=sys.stderr)
    if found:
        return 1
    print(f"docs: {len(doc_files(ROOT))} files checked, the site builds with --strict")
    return 0


if __name__ == "__main__":
    sys.exit(main())
