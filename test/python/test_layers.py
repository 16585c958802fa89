"""The rooms of pto_dialect and which may import which (docs/architecture.md,
"Rooms"): a room imports only rooms below it, and rooms on one line import
none of each other. Every import counts, at module level or in a function
(a lazy import is still a dependence), so a cycle cannot come back."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LAYERS = [
    ("tools", "testing"),
    ("api",),
    ("driver",),
    ("passes",),
    ("pass_infra",),
    ("timing",),
    ("analysis", "interpreter", "syntax"),
    ("dialect",),
    ("reports",),
    ("support",),
]
"""Top to bottom. The package itself (`pto_dialect/__init__.py`: version and
the lazy API names) is outside the layers."""

LEVEL = {room: n for n, line in enumerate(LAYERS) for room in line}


def _modules() -> dict[str, Path]:
    """Module name -> file, `passes/` installed as pto_dialect.passes."""
    found = {}
    for base, prefix in ((ROOT / "pto_dialect", "pto_dialect"), (ROOT / "passes", "pto_dialect.passes")):
        for path in base.rglob("*.py"):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([prefix, *parts])] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for candidate in (target, *(f"{target}.{a.name}" for a in node.names)):
                if candidate in modules:
                    out.add(candidate)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in modules)
    return out


def room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_module_is_in_a_room():
    rooms = {room(m) for m in _modules()} - {None}
    assert rooms <= set(LEVEL), sorted(rooms - set(LEVEL))
    # and pto_dialect/ holds no loose modules beside the rooms but these
    loose = sorted(p.name for p in (ROOT / "pto_dialect").glob("*.py"))
    assert loose == ["__init__.py", "api.py", "pass_infra.py"], loose


def test_rooms_import_only_rooms_below_them():
    modules = _modules()
    wrong = []
    for name, path in sorted(modules.items()):
        mine = room(name)
        if mine is None:
            continue
        for target in sorted(_imports(name, path, modules)):
            theirs = room(target)
            if theirs is None or theirs == mine:
                continue
            if LEVEL[theirs] <= LEVEL[mine]:
                wrong.append(f"{name} imports {target} ({mine} may not import {theirs})")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_lazy_imports(tmp_path):
    # a function-level import is a dependence too
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from ..driver import session\n")
    modules = {"pto_dialect.support.m": path, "pto_dialect.driver.session": path}
    assert _imports("pto_dialect.support.m", path, modules) == {"pto_dialect.driver.session"}
