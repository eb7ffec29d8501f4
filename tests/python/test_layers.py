"""The import structure of python/mpiscope: no cycle, no command importing
another command, and ten layers that are only ever imported downwards.

Every module is parsed with ast; every import counts, at module level or
inside a function (a function-level import hides a cycle, it does not
remove it), and so do the command modules that cli.py loads by name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "mpiscope"

#: The layers, top first. A module may import its own part (a subpackage,
#: or the cli with __main__) and the parts of the layers below its own.
#: A new part (alltoall/, model/, ...) takes its place here.
LAYERS: tuple[tuple[str, ...], ...] = (
    # entry points: mpiscope.cli and python -m mpiscope; mpiscope: the package
    # face, which names the Python API (mpiscope.run) and the readers
    ("cli", "mpiscope"),
    ("commands",),  # one module per command: parse, call, print
    # the Python API: a command's typed request measured, its result returned;
    # the commands are thin layers over it, so it sits between them and measure
    ("api",),
    ("health",),  # cluster health: runs measure's launches and noise's probes, analyses them
    ("measure", "reports", "trace", "noise", "alltoall"),  # libraries
    # communication performance models: fits, predictions, platforms; the
    # package's version, read from the engine's description (result)
    ("models", "version"),
    ("result", "launcher", "mpi_profile", "parsing"),  # the result model, processes, MPI installs
    ("outputs", "standard_output", "html_page"),  # every file written, stdout, the HTML page
    ("inputs",),  # every file read (the one reader)
    # leaves: session_dirs, what a killed mpiexec leaves; record, the value
    # classes; terminal, its width
    ("errors", "session_dirs", "record", "terminal"),
)


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules(package: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(path, package): path for path in sorted(package.rglob("*.py"))}


def imported(path: Path, name: str, known: set[str]) -> Iterator[str]:
    """The mpiscope modules ``path`` (module ``name``) imports, anywhere in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from mpiscope.result import load_result` imports mpiscope.result;
            # `from mpiscope.reports import report` imports mpiscope.reports.report
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target
    for node in tree.body:  # cli.py's registry: the commands it imports by name
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMMAND_MODULES" for t in node.targets
        ):
            yield from (f"mpiscope.commands.{c}" for c in ast.literal_eval(node.value))


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = all_modules(package)
    known = set(modules)
    return {name: set(imported(path, name, known)) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def part(module: str) -> str:
    """``mpiscope.measure.plan`` -> ``measure``; ``mpiscope.__main__`` -> ``cli``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "mpiscope"
    return "cli" if parts[1] == "__main__" else parts[1]


def layer(module: str) -> int:
    for index, parts in enumerate(LAYERS):
        if part(module) in parts:
            return index
    raise AssertionError(f"{module}: part {part(module)!r} is in no layer of test_layers.LAYERS")


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports that do not go down. The package face (``from mpiscope import
    __version__``) may be named from anywhere: Python runs it before any
    module of the package anyway (a module it imports that imports it back
    is a cycle, which test_no_import_cycle catches)."""
    return [
        f"{name} (layer {layer(name) + 1}) imports {target} (layer {layer(target) + 1})"
        for name, targets in sorted(graph.items())
        for target in sorted(targets - {"mpiscope"})
        if part(target) != part(name) and layer(target) <= layer(name)
    ]


def command_imports(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{name} imports {target}"
        for name, targets in sorted(graph.items())
        for target in sorted(targets)
        if part(name) == part(target) == "commands" and "commands" not in (name, target)
        and name.count(".") == target.count(".") == 2
    ]


def levels(graph: dict[str, set[str]]) -> int:
    """The longest chain of imports between parts, counted in parts."""
    parts = {part(name) for name in graph}
    edges = {p: {part(t) for n, ts in graph.items() if part(n) == p for t in ts - {"mpiscope"}}
             - {p} for p in parts}
    depth: dict[str, int] = {}

    def height(p: str) -> int:
        if p not in depth:
            depth[p] = 1 + max((height(q) for q in edges[p]), default=0)
        return depth[p]

    return max(height(p) for p in parts)


GRAPH = import_graph()


def test_the_graph_sees_function_level_and_registry_imports() -> None:
    assert "mpiscope.commands.run" in GRAPH["mpiscope.cli"]
    assert "mpiscope.trace.merge" in GRAPH["mpiscope.commands.trace"]  # inside a function
    assert "mpiscope.result.document" in GRAPH["mpiscope.result"]


def test_no_import_cycle() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_command_imports_another_command() -> None:
    assert command_imports(GRAPH) == []


def test_layers_are_imported_downwards_only() -> None:
    assert layer_violations(GRAPH) == []
    assert levels(GRAPH) <= len(LAYERS) == 10


@pytest.mark.parametrize(
    ("bad", "check"),
    [
        ("from mpiscope.cli import main", find_cycle),
        ("from mpiscope.commands.methods import run", command_imports),
        ("from mpiscope.measure.plan import plan_run", layer_violations),
    ],
)
def test_the_checks_fail_on_a_bad_import(tmp_path: Path, bad: str, check: object) -> None:
    """A copy of the package with one bad function-level import: each check sees it."""
    copy = tmp_path / "mpiscope"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    victim = copy / ("reports/report.py" if "plan" in bad else "commands/run.py")
    victim.write_text(victim.read_text() + f"\n\ndef _bad() -> None:\n    {bad}\n")
    found = check(import_graph(copy))  # type: ignore[operator]
    assert found, f"{bad!r} in {victim.name} was not caught"
