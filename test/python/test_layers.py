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


# --- the unit tests' own layers ------------------------------------------------------------------
#
# test/python is three layers too: conftest.py (the Context, parsing,
# running: docs/architecture.md, "Conventions"), the *_support.py modules
# a group of tests shares (they may build on conftest), and the test_*.py
# modules on top, which share nothing with each other except through the
# two below. pto_dialect imports none of them (the package does not run
# from test/).


def _test_layer(module: str) -> int | None:
    if module == "conftest":
        return 0
    if module.endswith("_support"):
        return 1
    if module.startswith("test_"):
        return 2
    return None


def _top_level_imports(path: Path) -> set[str]:
    """The first name of every module `path` imports (lazy ones too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
    return out


def layer_problems_of_tests(test_dir: Path, package_files: list[Path]) -> list[str]:
    """What breaks the layers above, one line each."""
    tests = {p.stem: p for p in test_dir.glob("*.py") if _test_layer(p.stem) is not None}
    wrong = []
    for name, path in sorted(tests.items()):
        for target in sorted(_top_level_imports(path) & set(tests)):
            if target != name and _test_layer(target) >= _test_layer(name):
                wrong.append(f"{path.name} imports {target}")
    for path in package_files:
        for target in sorted(_top_level_imports(path) & set(tests)):
            wrong.append(f"{path} imports the test module {target}")
    return wrong


def test_test_support_imports_only_layers_below_it():
    package = sorted((ROOT / "pto_dialect").rglob("*.py")) + sorted((ROOT / "passes").rglob("*.py"))
    wrong = layer_problems_of_tests(ROOT / "test" / "python", package)
    assert not wrong, "\n".join(wrong)


def test_the_test_layer_check_sees_a_test_importing_a_test(tmp_path):
    (tmp_path / "conftest.py").write_text("def helper():\n    from oracle_support import ROOT\n")
    (tmp_path / "oracle_support.py").write_text("from conftest import helper\n")
    (tmp_path / "test_a.py").write_text("from conftest import helper\nfrom oracle_support import ROOT\n")
    (tmp_path / "test_b.py").write_text("def test_b():\n    from test_a import helper\n")
    package = tmp_path / "m.py"
    package.write_text("import conftest\n")
    found = [line.replace(str(tmp_path), "") for line in layer_problems_of_tests(tmp_path, [package])]
    assert found == ["conftest.py imports oracle_support", "test_b.py imports test_a", "/m.py imports the test module conftest"]
