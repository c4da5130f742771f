"""The import graph of gbot's modules has no cycles.

Every ``import`` and ``from ... import`` in every module under ``gbot/`` counts, at top level or
inside a function, except those under ``if TYPE_CHECKING:`` (type checkers only). An alias
module (one that puts another module into ``sys.modules`` under its own name, the old import
paths) counts as the module it aliases. The graph is checked for strongly connected components
with more than one module, and every import for going down the layers (the folders).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gbot"

Graph = dict[str, set[str]]


def module_files() -> dict[str, Path]:
    """Every gbot module's dotted name and its file."""
    out = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run: all but those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from imports(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        else:
            yield from imports(node)


def targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
            known: set[str]) -> list[str]:
    """The gbot modules one import statement loads (``from a import b`` loads ``a.b`` when that
    is a module, else ``a``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[:len(parts) - (node.level - 1)]
        base = ".".join([*parts, *([base] if base else [])])
    out = []
    for a in node.names:
        full = f"{base}.{a.name}"
        name = full if full in known else base
        if name in known:
            out.append(name)
    return out


def alias_target(tree: ast.Module, module: str, is_package: bool, known: set[str]) -> str | None:
    """The module an alias module puts into ``sys.modules[__name__]``, or None."""
    bound: dict[str, str] = {}
    for node in imports(tree):
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                found = targets(ast.ImportFrom(module=node.module, names=[a], level=node.level),
                                module, is_package, known)
                if found:
                    bound[a.asname or a.name] = found[0]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Subscript)
                and ast.unparse(node.targets[0]) == "sys.modules[__name__]"
                and isinstance(node.value, ast.Name)):
            return bound.get(node.value.id)
    return None


def import_graph() -> Graph:
    """Module -> the gbot modules it imports, with alias modules replaced by their owners."""
    files = module_files()
    known = set(files)
    trees = {m: ast.parse(p.read_text(), str(p)) for m, p in files.items()}
    alias = {}
    for m, tree in trees.items():
        t = alias_target(tree, m, files[m].name == "__init__.py", known)
        if t is not None:
            alias[m] = t

    def real(m: str) -> str:
        while m in alias:
            m = alias[m]
        return m

    graph: Graph = {m: set() for m in known if m not in alias}
    for m, tree in trees.items():
        src = real(m)
        for node in imports(tree):
            for t in targets(node, m, files[m].name == "__init__.py", known):
                dst = real(t)
                if dst != src:
                    graph[src].add(dst)
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    graph = import_graph()
    found = cycles(graph)
    detail = [f"{c}: " + ", ".join(f"{a} -> {b}" for a in c for b in sorted(graph[a]) if b in c)
              for c in found]
    assert not found, "import cycles among gbot modules:\n" + "\n".join(detail)


def test_the_check_sees_cycles() -> None:
    """The detector finds a cycle through a function-level import and through an alias
    module, and ignores ``TYPE_CHECKING`` imports."""
    tree = ast.parse("import sys\nfrom gbot.x import y as _owner\nsys.modules[__name__] = _owner\n")
    assert alias_target(tree, "gbot.old", False, {"gbot.x", "gbot.x.y"}) == "gbot.x.y"
    fn = ast.parse("def f():\n    from gbot import b\n")
    assert [targets(n, "gbot.a", False, {"gbot", "gbot.b"}) for n in imports(fn)] == [["gbot.b"]]
    tc = ast.parse("if TYPE_CHECKING:\n    import gbot.b\nelse:\n    import gbot.c\n")
    assert [targets(n, "gbot.a", False, {"gbot.b", "gbot.c"}) for n in imports(tc)] == [["gbot.c"]]
    rel = ast.parse("from .. import d\nfrom .e import f\n")
    got = [targets(n, "gbot.p.a", False, {"gbot", "gbot.d", "gbot.p.e"}) for n in imports(rel)]
    assert got == [["gbot.d"], ["gbot.p.e"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_holds_known_edges() -> None:
    """Real edges are seen (so a cycle through one would show)."""
    graph = import_graph()
    assert "gbot.game.notations.match_id" in graph["gbot.game.match"]
    assert "gbot.game.notations.position_id" in graph["gbot.eval.evaluator"]
    assert "gbot.core.movegen" in graph["gbot.engine.engine"]


RANK = {"errors": 0, "version": 0, "core": 0, "game": 1, "records": 2, "eval": 3, "cube": 4,
        "engine": 5, "analysis": 6, "tournament": 7, "adapters": 7, "train": 7, "testing": 7,
        "cli": 8}
"""The layers of docs/architecture.md, lowest first: a module imports only its own layer and
the layers below it (layers of one rank do not import each other in a cycle: checked above)."""


def layer_of(module: str) -> str:
    """The layer folder (or top-level module) a gbot module belongs to; ``gbot`` for the
    package itself, which no module imports."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "gbot"


def test_imports_go_down_the_layers() -> None:
    graph = import_graph()
    assert {layer_of(m) for m in graph} - {"gbot"} == set(RANK)
    wrong = sorted(f"{a} -> {b}" for a, bs in graph.items() for b in bs
                   if layer_of(a) != "gbot"
                   and (layer_of(b) == "gbot" or RANK[layer_of(b)] > RANK[layer_of(a)]))
    assert not wrong, "imports that go up the layers:\n" + "\n".join(wrong)
