"""House rules users rely on: readable, atomic output files; errors that are IaaGateErrors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from iaa_gate.cli import main
from iaa_gate.core.files import write_atomic

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "sub" / "report.json", "{}\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "sub" / "report.json").stat().st_mode) == mode
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["report.json"]  # no temp file left


def test_reports_and_the_prodigy_review_file_are_world_readable(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        config = ROOT / "examples" / "prodigy" / "iaa-gate.yaml"
        assert main(["run", "-c", str(config), "--out", str(tmp_path), "-q"]) in (0, 1)
    finally:
        os.umask(old)
    written = sorted(tmp_path.iterdir())
    assert {p.name for p in written} >= {"report.json", "report.md", "disputed.jsonl"}
    assert {stat.S_IMODE(p.stat().st_mode) for p in written} == {0o644}


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    write_atomic(path, "old\n")

    with pytest.raises(TypeError):
        write_atomic(path, 42)  # type: ignore[arg-type]
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["report.json"]


# -- the layout: one layer per folder, imports only downwards, no circles ------------------------

PACKAGE = ROOT / "plugin" / "iaa_gate"
LAYERS = {
    "core": 0,
    "kinds": 1,
    "metrics": 1,
    "model": 2,
    "adapters": 3,
    "config": 4,
    "evaluation": 5,
    "sinks": 6,
    "pipeline": 7,
    "_api": 8,
    "serve": 8,
    "cli": 9,
}
"""Each top-level module or folder of the package and its layer (ARCHITECTURE.md draws them)."""


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(["iaa_gate", *parts])] = path
    return out


def _imports(module: str, path: Path) -> list[tuple[str, list[str]]]:
    """``(imported module, names)`` for every ``import``/``from … import`` in the file, at any
    depth (a function-level import is an import too)."""
    import ast

    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((target, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
    return out


def _graph() -> dict[str, set[str]]:
    """Module → the package modules it imports (``from pkg import mod`` counts as ``pkg.mod``)."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for m, path in modules.items():
        for target, names in _imports(m, path):
            if not target.startswith("iaa_gate"):
                continue
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
            graph[m] |= set(subs) or ({target} if target in modules else set())
    return graph


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_every_module_has_a_layer() -> None:
    assert [m for m in _modules() if m != "iaa_gate" and _layer(m) is None] == []


def test_imports_run_only_downwards() -> None:
    """No module imports one of a higher layer, nor a sibling folder of the same layer."""
    upward = []
    for m, targets in _graph().items():
        for t in targets:
            if t == "iaa_gate" and m != "iaa_gate":  # the package face sits above every layer
                upward.append(f"{m} -> {t}")
                continue
            lm, lt = _layer(m), _layer(t)
            if m == "iaa_gate" or lt is None or lm is None:
                continue
            if lt > lm or (lt == lm and m.split(".")[1] != t.split(".")[1]):
                upward.append(f"{m} -> {t}")
    assert upward == []


def test_no_import_circles() -> None:
    graph = _graph()
    circles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if t == "iaa_gate" or t.startswith(m + "."):  # a package's own face
                continue
            if state.get(t) == 1:
                circles.append([*stack[stack.index(t) :], t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert circles == []


def test_no_private_name_is_imported_across_modules() -> None:
    private = [
        f"{m}: {t}.{n}"
        for m, path in _modules().items()
        for t, names in _imports(m, path)
        for n in names
        if t.startswith("iaa_gate") and n.startswith("_") and not n.startswith("__")
    ]
    assert private == []


def test_the_library_changes_no_global_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library call never switches the garbage collector nor forks (a notebook's or a threaded
    caller's process is theirs): both are the CLI's choices."""
    import gc

    from iaa_gate.config import load_config
    from iaa_gate.pipeline import run

    def refuse(*args: object) -> None:
        raise AssertionError("the library changed process state")

    for name in ("disable", "enable", "freeze", "unfreeze"):
        monkeypatch.setattr(gc, name, refuse)
    monkeypatch.setattr(os, "fork", refuse)
    config = load_config(ROOT / "examples" / "label-studio" / "iaa-gate.yaml")
    config = config.model_copy(
        update={"report": config.report.model_copy(update={"dir": tmp_path})}
    )
    outcome = run(config)
    assert outcome.document["fields"] and gc.isenabled()


def test_registries_hold_every_entry_whatever_was_imported_first() -> None:
    """A registry reads every module of its package even when one of them was imported on its
    own before (a fresh interpreter, so nothing is cached)."""
    code = (
        "import iaa_gate.adapters.label_studio.export, iaa_gate.sinks.prodigy, "
        "iaa_gate.kinds.choices\n"
        "from iaa_gate import adapters, kinds, sinks\n"
        "print(sorted(adapters.registry()), len(kinds.registry()))\n"
    )
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")[0]
    names, n_kinds = out.rsplit(" ", 1)
    assert {"label-studio", "label-studio-export", "prodigy"} <= set(eval(names))
    assert int(n_kinds) >= 20


# -- a field kind is one module: the layers above ask it, they never compare its name -----------


def _kind_comparisons(path: Path, names: frozenset[str]) -> list[str]:
    """``file:line: source`` of each comparison (``==``, ``!=``, ``in``, ``not in``) of a kind
    or a shape (an operand whose source names a ``kind``, a ``type`` or a ``shape``) with a
    literal naming a field kind or a region shape in ``names`` (alone, or in a tuple, list or
    set of literals)."""
    import ast

    def literals(node: ast.expr) -> set[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return set().union(*(literals(e) for e in node.elts)) if node.elts else set()
        return set()

    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for op, a, b in zip(node.ops, operands, operands[1:], strict=False):
            if not isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
                continue
            for side, other in ((a, b), (b, a)):
                said = ast.unparse(other)
                if literals(side) & names and any(w in said for w in ("kind", "type", "shape")):
                    out.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_no_layer_compares_a_kind_or_a_shape_with_its_name() -> None:
    """What differs by field kind lives in the kind's module (``kinds/``), behind the ``Kind``
    it registers; what differs by region shape (``span``, ``box``, ``polygon``…) in its
    ``Shape`` (``metrics/geometry.py``). Every other module asks the kind or the shape (their
    attributes and functions) or a set derived from a registry, never ``kind == "spans"`` or
    ``shape == "span"``."""
    from iaa_gate.kinds import registry
    from iaa_gate.kinds.unscored import RELATION
    from iaa_gate.metrics.geometry import SHAPES

    names = frozenset(registry()) | {RELATION} | frozenset(SHAPES)
    geometry = PACKAGE / "metrics" / "geometry.py"
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if "kinds" not in path.relative_to(PACKAGE).parts and path != geometry
        for hit in _kind_comparisons(path, names)
    ]
    assert found == []


def test_a_comparison_of_a_kind_with_its_name_is_found(tmp_path: Path) -> None:
    """The check above finds the shapes such a comparison takes (and not a dtype's kind)."""
    source = tmp_path / "example.py"
    source.write_text(
        'if kind == "spans" or c.kind in ("rating", "number") or item.get("type") != "labels":\n'
        '    pass\nif "spans" in s.kinds.values() or a.dtype.kind == "f":\n    pass\n'
        'if rs.shape == "span" or x.shape == (2, 3) or shape in ("box", "mask"):\n    pass\n'
    )
    names = frozenset({"spans", "rating", "number", "labels", "span", "box", "mask"})
    hits = _kind_comparisons(source, names)
    assert [h.split(": ", 1)[0].rsplit(":", 1)[1] for h in hits] == ["1", "1", "1", "3", "5", "5"]
