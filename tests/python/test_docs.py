"""The documentation: the command reference generated from the parser
(docs/reference.md, tools/cli_reference.py), the site's nav reaching every
page, the glossary, and tools/docs_check.py's checks (absolute paths,
README links, the strict site build). No MPI needed."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import cli_reference  # noqa: E402
import docs_check  # noqa: E402

from mpiscope.cli import COMMAND_MODULES  # noqa: E402


def test_reference_is_generated() -> None:
    checked_in = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    assert checked_in == cli_reference.reference(), (
        f"docs/reference.md is out of date: {cli_reference.REGENERATE}"
    )


def test_check_notices_a_stale_reference(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "reference.md"
    out.write_text(cli_reference.reference().replace("--np N", "--np M", 1))
    assert cli_reference.main(["--check", "--out", str(out)]) == 1
    assert "out of date" in capsys.readouterr().err
    out.write_text(cli_reference.reference())
    assert cli_reference.main(["--check", "--out", str(out)]) == 0


def test_reference_has_every_command_and_subcommand() -> None:
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    for module in COMMAND_MODULES:
        assert f"\n## mpiscope {module.replace('_', '-')}\n" in text
    for sub in ("trace summary", "trace heatmap", "noise compare", "alltoall tune", "model fit"):
        assert f"\n### mpiscope {sub}\n" in text
    assert "mpiscope health [report FILE ...]" in text
    assert "| `--np N` | `2` |" in text  # options with their defaults


def test_nav_reaches_every_page() -> None:
    nav = set(re.findall(r":\s+([\w-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages - nav == set(), "pages missing from mkdocs.yml's nav"
    assert nav - pages == set(), "nav entries without a page"


def test_index_links_every_page() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w-]+\.md)[#)]", index))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert pages - linked == set(), "pages the site's index does not link"


GLOSSARY_TERMS = ("launch", "run", "point", "stage", "window", "slot", "sample",
                  "valid launch", "global span", "start skew", "gap", "floor", "ledger",
                  "run interval", "run profile", "run summary", "run-to-run variation",
                  "first launch", "raw samples", "arrival pattern", "validation", "stop reason",
                  "unstable", "modes", "trimmed mean", "RSE", "clock synchronization")  # fmt: skip


def test_glossary_defines_the_terms_of_a_result() -> None:
    text = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    defined = set(re.findall(r"^\*\*([^*]+)\*\*", text, re.M))
    assert set(GLOSSARY_TERMS) - defined == set()


def test_glossary_names_every_field_of_a_result() -> None:
    """Every field of a result document's top level, points, environment and
    method (the schema's, but the names of before 1.11 it still accepts) is
    named in the glossary, so that each term a document uses is explained."""
    text = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(?:[\w\[\]]+\.)*(\w+)", text))
    schema = json.loads((ROOT / "python" / "mpiscope" / "schema" / "result-v1.schema.json")
                        .read_text(encoding="utf-8"))  # fmt: skip
    fields = set(schema["properties"])
    for part in ("point", "environment", "method"):
        fields |= set(schema["$defs"][part]["properties"])
    old = {"launches", "launch", "launch_summary", "launch_statistics", "launch_profile",
           "launch_interval"}
    assert fields - old - named == set()


def test_absolute_paths_are_found(tmp_path: Path) -> None:
    doc = tmp_path / "docs" / "a.md"
    doc.parent.mkdir()
    doc.write_text("ok: .venv/bin/mpiexec\nbad: /home/me/x\n`/tmp/y`\n")
    found = list(docs_check.absolute_paths(tmp_path, [doc]))
    assert [line.split(":")[1] for line in found] == ["2", "3"]


def test_the_docs_hold_no_absolute_path() -> None:
    assert list(docs_check.absolute_paths(ROOT, docs_check.doc_files(ROOT))) == []


def test_readme_links_are_checked(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n\n## Two words\n")
    (tmp_path / "README.md").write_text(
        "[a](docs/page.md) [b](docs/page.md#two-words) [c](https://x.org/y) [d](#here)\n"
        "[e](docs/none.md) [f](docs/page.md#three-words)\n"
    )
    found = list(docs_check.readme_links(tmp_path))
    assert len(found) == 2 and "docs/none.md reaches no file" in found[0]
    assert "no heading #three-words" in found[1]


def test_the_readme_links_hold() -> None:
    assert list(docs_check.readme_links(ROOT)) == []


def _site_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    return copy


@pytest.mark.slow
def test_the_site_builds_strictly_and_fails_on_a_broken_link_or_an_orphan(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    copy = _site_copy(tmp_path)
    assert list(docs_check.site(copy)) == []
    (copy / "docs" / "orphan.md").write_text("# Reachable from nowhere\n")
    with (copy / "docs" / "install.md").open("a") as f:
        f.write("\nSee [the missing page](missing.md) and [a bad anchor](cli.md#no-such-part).\n")
    found = "\n".join(docs_check.site(copy))
    assert "orphan.md" in found and "missing.md" in found and "no-such-part" in found
